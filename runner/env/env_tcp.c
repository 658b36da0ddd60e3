/* nbrun — TCP/IP facts: congestion control, buffer limits, busy polling, backlog,
 * conntrack, port range. */
#include "env.h"
#include "env_read.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define G "tcp"

static const char *const sysctls[][2] = {
	{ "congestion_control", "proc/sys/net/ipv4/tcp_congestion_control" },
	{ "congestion_available", "proc/sys/net/ipv4/tcp_available_congestion_control" },
	{ "tcp_rmem", "proc/sys/net/ipv4/tcp_rmem" },
	{ "tcp_wmem", "proc/sys/net/ipv4/tcp_wmem" },
	{ "rmem_max", "proc/sys/net/core/rmem_max" },
	{ "wmem_max", "proc/sys/net/core/wmem_max" },
	{ "busy_poll", "proc/sys/net/core/busy_poll" },
	{ "busy_read", "proc/sys/net/core/busy_read" },
	{ "netdev_max_backlog", "proc/sys/net/core/netdev_max_backlog" },
	{ "ip_local_port_range", "proc/sys/net/ipv4/ip_local_port_range" },
	{ "tcp_timestamps", "proc/sys/net/ipv4/tcp_timestamps" },
	{ "tcp_sack", "proc/sys/net/ipv4/tcp_sack" },
};

/* conntrack is loaded when its sysctls exist; their count is the table's size now. */
static bool conntrack(const char *root, struct nb_facts *out)
{
	char v[64], why[256];
	const char *rel = "proc/sys/net/netfilter/nf_conntrack_count";
	int err = nb_env_read(root, rel, v, sizeof(v));
	if (err == ENOENT)
		return nb_facts_set(out, G, "conntrack", "not loaded") &&
		       nb_facts_unknown(out, G, "conntrack_count", "conntrack not loaded");
	if (err) {
		nb_env_reason(why, sizeof(why), err, rel, NULL);
		return nb_facts_unknown(out, G, "conntrack", "%s", why) &&
		       nb_facts_unknown(out, G, "conntrack_count", "%s", why);
	}
	return nb_facts_set(out, G, "conntrack", "loaded") &&
	       nb_facts_set(out, G, "conntrack_count", "%s", v);
}

bool nb_env_tcp(const char *root, struct nb_facts *out)
{
	for (size_t i = 0; i < sizeof(sysctls) / sizeof(sysctls[0]); i++)
		if (!nb_env_file_fact(out, root, G, sysctls[i][0], sysctls[i][1], NULL))
			return false;
	return conntrack(root, out);
}

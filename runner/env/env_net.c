/* nbrun — facts of the interface that carries the test (found by nb_ifstats_route, the lookup
 * the run's interface counters use), read from /sys, /proc/interrupts and the ethtool ioctls. */
#include "env.h"
#include "env_read.h"

#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define G "iface"

static bool mtu(const char *root, const char *ifname, struct nb_facts *out)
{
	char rel[128], v[64], why[256];
	snprintf(rel, sizeof(rel), "sys/class/net/%s/mtu", ifname);
	int err = nb_env_read(root, rel, v, sizeof(v));
	if (!err)
		return nb_facts_set(out, G, "mtu", "%s", v);
	nb_env_reason(why, sizeof(why), err, rel, NULL);
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	int fd = nb_env_live(root) ? socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0) : -1;
	bool got = fd >= 0 && !ioctl(fd, SIOCGIFMTU, &ifr);
	if (fd >= 0)
		close(fd);
	if (got)
		return nb_facts_set(out, G, "mtu", "%d", ifr.ifr_mtu);
	return nb_facts_unknown(out, G, "mtu", "%s", why);
}

/* Speed and duplex from /sys; the ethtool ioctl when /sys cannot say (live root only). */
static bool link_facts(const char *root, const char *ifname, struct nb_facts *out)
{
	char srel[128], drel[128], speed[64], duplex[64], why[256];
	snprintf(srel, sizeof(srel), "sys/class/net/%s/speed", ifname);
	snprintf(drel, sizeof(drel), "sys/class/net/%s/duplex", ifname);
	int err = nb_env_read(root, srel, speed, sizeof(speed));
	long mbps = err ? -1 : strtol(speed, NULL, 10);
	int derr = nb_env_read(root, drel, duplex, sizeof(duplex));
	if (!err && mbps > 0 && !derr)
		return nb_facts_set(out, G, "speed", "%ld Mb/s", mbps) &&
		       nb_facts_set(out, G, "duplex", "%s", duplex);
	if (nb_env_live(root))
		return nb_env_link(ifname, out);
	if (!err)
		snprintf(why, sizeof(why), "not reported (link down or virtual device)");
	else
		nb_env_reason(why, sizeof(why), err, srel, NULL);
	return nb_facts_unknown(out, G, "speed", "%s", why) &&
	       nb_facts_unknown(out, G, "duplex", "%s", why);
}

static bool numa_node(const char *root, const char *ifname, struct nb_facts *out)
{
	char rel[128], v[64], why[256], missing[128];
	snprintf(rel, sizeof(rel), "sys/class/net/%s/device", ifname);
	nb_env_path(why, sizeof(why), root, rel);
	if (access(why, F_OK))
		return nb_facts_unknown(out, G, "numa_node", "virtual device (no /%s)", rel);
	snprintf(rel, sizeof(rel), "sys/class/net/%s/device/numa_node", ifname);
	snprintf(missing, sizeof(missing), "not exposed: no numa_node for %s", ifname);
	int err = nb_env_read(root, rel, v, sizeof(v));
	if (err) {
		nb_env_reason(why, sizeof(why), err, rel, missing);
		return nb_facts_unknown(out, G, "numa_node", "%s", why);
	}
	if (strtol(v, NULL, 10) < 0)
		return nb_facts_unknown(out, G, "numa_node", "device has no NUMA affinity (numa_node %s)", v);
	return nb_facts_set(out, G, "numa_node", "%s", v);
}

static bool queues(const char *root, const char *ifname, struct nb_facts *out)
{
	static const char *const dir[2][2] = { { "queues.rx", "rx-" }, { "queues.tx", "tx-" } };
	char rel[128], why[256];
	long nums[1024];
	snprintf(rel, sizeof(rel), "sys/class/net/%s/queues", ifname);
	for (int i = 0; i < 2; i++) {
		int err, n = nb_env_list_numbered(root, rel, dir[i][1], nums, 1024, &err);
		if (n < 0)
			nb_env_reason(why, sizeof(why), err, rel, NULL);
		if (!(n < 0 ? nb_facts_unknown(out, G, dir[i][0], "%s", why)
			    : nb_facts_set(out, G, dir[i][0], "%d", n)))
			return false;
	}
	return true;
}

static bool sysfs_facts(const char *root, const char *ifname, struct nb_facts *out)
{
	static const char *const files[][2] = {
		{ "operstate", "operstate" }, { "tx_queue_len", "tx_queue_len" },
		{ "stats.rx_errors", "statistics/rx_errors" }, { "stats.rx_dropped", "statistics/rx_dropped" },
		{ "stats.tx_errors", "statistics/tx_errors" }, { "stats.tx_dropped", "statistics/tx_dropped" },
	};
	char rel[160];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "sys/class/net/%s/%s", ifname, files[i][1]);
		if (!nb_env_file_fact(out, root, G, files[i][0], rel, NULL))
			return false;
	}
	return true;
}

/* Driver, offloads, channels and qdisc need the live kernel. */
static bool live_facts(const char *root, const char *ifname, struct nb_facts *out)
{
	static const char *const keys[] = { "driver", "driver_version", "firmware", "bus",
					    "offload.tso", "offload.gso", "offload.gro", "offload.lro",
					    "offload.rx_csum", "offload.tx_csum", "offload.sg",
					    "channels", "qdisc" };
	if (nb_env_live(root))
		return nb_env_drvinfo(ifname, out) && nb_env_offloads(ifname, out) &&
		       nb_env_channels(ifname, out) && nb_env_qdisc(ifname, out);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!nb_facts_unknown(out, G, keys[i], NB_ENV_FIXTURE))
			return false;
	return true;
}

bool nb_env_iface(const char *root, const char *ifname, struct nb_facts *out)
{
	return nb_facts_set(out, G, "name", "%s", ifname) && mtu(root, ifname, out) &&
	       sysfs_facts(root, ifname, out) && link_facts(root, ifname, out) &&
	       live_facts(root, ifname, out) && queues(root, ifname, out) &&
	       numa_node(root, ifname, out) && nb_env_irqs(root, ifname, out);
}

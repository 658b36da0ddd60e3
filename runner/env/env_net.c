/* nbrun — facts of the interface that carries the test: found by asking the kernel's
 * route for the peer address, then read from /sys, /proc/interrupts and the ethtool ioctls. */
#include "env.h"
#include "env_read.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define G "iface"

/* The interface that owns addr (the source address the kernel chose). */
static bool iface_of(const struct sockaddr_storage *addr, char *ifname, size_t len)
{
	struct ifaddrs *all, *a;
	if (getifaddrs(&all))
		return false;
	for (a = all; a; a = a->ifa_next) {
		if (!a->ifa_addr || a->ifa_addr->sa_family != addr->ss_family)
			continue;
		const struct sockaddr_in *x = (const void *)a->ifa_addr, *y = (const void *)addr;
		const struct sockaddr_in6 *x6 = (const void *)a->ifa_addr, *y6 = (const void *)addr;
		if (addr->ss_family == AF_INET ? x->sin_addr.s_addr == y->sin_addr.s_addr
					       : !memcmp(&x6->sin6_addr, &y6->sin6_addr, 16))
			break;
	}
	if (a)
		snprintf(ifname, len, "%s", a->ifa_name);
	freeifaddrs(all);
	return a != NULL;
}

/* A connected UDP socket makes the kernel pick the route (no packet is sent); its local
 * address names the interface and IP_MTU gives the path MTU it knows. */
bool nb_env_route(const struct sockaddr *peer, socklen_t peer_len, struct nb_env_route *r,
		  struct nb_error *err)
{
	struct sockaddr_storage dst, src;
	socklen_t slen = sizeof(src);
	if (!peer || peer_len > sizeof(dst) || (peer->sa_family != AF_INET && peer->sa_family != AF_INET6))
		return nb_error_set(err, "route lookup: not an IPv4 or IPv6 address");
	memcpy(&dst, peer, peer_len);
	in_port_t *port = dst.ss_family == AF_INET ? &((struct sockaddr_in *)&dst)->sin_port
						   : &((struct sockaddr_in6 *)&dst)->sin6_port;
	if (!*port)
		*port = htons(9);
	int fd = socket(dst.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return nb_error_errno(err, errno, "route lookup: socket");
	if (connect(fd, (struct sockaddr *)&dst, peer_len) || getsockname(fd, (void *)&src, &slen)) {
		int e = errno;
		close(fd);
		return nb_error_errno(err, e, "no route to the peer");
	}
	int mtu = 0;
	socklen_t mlen = sizeof(mtu);
	bool v4 = dst.ss_family == AF_INET;
	r->path_mtu = getsockopt(fd, v4 ? IPPROTO_IP : IPPROTO_IPV6, v4 ? IP_MTU : IPV6_MTU, &mtu,
				 &mlen) ? -1 : mtu;
	close(fd);
	const void *a = v4 ? (const void *)&((struct sockaddr_in *)&src)->sin_addr
			   : (const void *)&((struct sockaddr_in6 *)&src)->sin6_addr;
	inet_ntop(dst.ss_family, a, r->local, sizeof(r->local));
	if (!iface_of(&src, r->ifname, sizeof(r->ifname)))
		return nb_error_set(err, "no interface owns the source address %s", r->local);
	return true;
}

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

/* nbrun — the next hop of the AF_XDP data path and its MAC (see xdp_neigh.h). */
#include "xdp_neigh.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "engine.h" /* nb_error_set */
#include "ifstats.h"

#define NL_BUF 16384

/* One netlink request, then every answer handed to fn until NLMSG_DONE or a lone answer.
 * Returns false when the socket fails or the kernel answers with an error. */
static bool nl_ask(void *req, size_t len, void (*fn)(const struct nlmsghdr *, void *), void *ctx)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return false;
	struct timeval tv = { 1, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	bool ok = sendto(fd, req, len, 0, (struct sockaddr *)&sa, sizeof(sa)) == (ssize_t)len;
	bool dump = ((struct nlmsghdr *)req)->nlmsg_flags & NLM_F_DUMP;
	static _Thread_local char buf[NL_BUF] __attribute__((aligned(4)));
	for (bool done = !ok; !done;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0) {
			ok = false;
			break;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				ok = ((struct nlmsgerr *)NLMSG_DATA(h))->error == 0;
				done = true;
				break;
			}
			fn(h, ctx);
			done = !dump;
		}
	}
	close(fd);
	return ok;
}

static void add_attr(struct nlmsghdr *h, unsigned short type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));
	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* ---- the route's gateway ---- */

struct route_ans {
	bool v6, found, gateway;
	uint8_t gw[16];
};

static void on_route(const struct nlmsghdr *h, void *ctx)
{
	struct route_ans *r = ctx;
	if (h->nlmsg_type != RTM_NEWROUTE)
		return;
	const struct rtmsg *rt = NLMSG_DATA(h);
	int len = (int)RTM_PAYLOAD(h);
	r->found = true;
	for (const struct rtattr *a = RTM_RTA(rt); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == RTA_GATEWAY && RTA_PAYLOAD(a) == (r->v6 ? 16u : 4u)) {
			memcpy(r->gw, RTA_DATA(a), RTA_PAYLOAD(a));
			r->gateway = true;
		}
}

static bool route_gateway(bool v6, const uint8_t *dst, struct route_ans *r)
{
	struct {
		struct nlmsghdr h;
		struct rtmsg rt;
		char attrs[64];
	} req;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	req.h.nlmsg_type = RTM_GETROUTE;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.rt.rtm_family = v6 ? AF_INET6 : AF_INET;
	req.rt.rtm_dst_len = v6 ? 128 : 32;
	add_attr(&req.h, RTA_DST, dst, v6 ? 16 : 4);
	*r = (struct route_ans){ .v6 = v6 };
	return nl_ask(&req, req.h.nlmsg_len, on_route, r) && r->found;
}

/* ---- the neighbour table ---- */

struct neigh_ans {
	int ifindex;
	size_t alen;
	const uint8_t *ip;
	bool found;
	uint8_t mac[6];
};

static void on_neigh(const struct nlmsghdr *h, void *ctx)
{
	struct neigh_ans *q = ctx;
	if (h->nlmsg_type != RTM_NEWNEIGH)
		return;
	const struct ndmsg *nd = NLMSG_DATA(h);
	if (nd->ndm_ifindex != q->ifindex || (nd->ndm_state & (NUD_INCOMPLETE | NUD_FAILED)))
		return;
	int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*nd)));
	bool dst = false, ll = false;
	uint8_t mac[6];
	for (const struct rtattr *a = (const struct rtattr *)((const char *)nd + NLMSG_ALIGN(sizeof(*nd)));
	     RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == NDA_DST && RTA_PAYLOAD(a) == q->alen)
			dst = memcmp(RTA_DATA(a), q->ip, q->alen) == 0;
		else if (a->rta_type == NDA_LLADDR && RTA_PAYLOAD(a) == 6) {
			memcpy(mac, RTA_DATA(a), 6);
			ll = true;
		}
	}
	if (dst && ll) {
		memcpy(q->mac, mac, 6);
		q->found = true;
	}
}

bool nb_xdp_neigh_lookup(int ifindex, bool v6, const uint8_t *ip, uint8_t mac[6])
{
	struct {
		struct nlmsghdr h;
		struct ndmsg nd;
	} req;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg));
	req.h.nlmsg_type = RTM_GETNEIGH;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nd.ndm_family = v6 ? AF_INET6 : AF_INET;
	struct neigh_ans q = { .ifindex = ifindex, .alen = v6 ? 16 : 4, .ip = ip };
	if (!nl_ask(&req, req.h.nlmsg_len, on_neigh, &q) || !q.found)
		return false;
	memcpy(mac, q.mac, 6);
	return true;
}

/* One ordinary datagram to the peer's discard port: the kernel resolves the next hop to send it. */
static void provoke(const struct nb_xdp_hop *h)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	socklen_t len;
	if (h->v6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(9);
		memcpy(&s6->sin6_addr, h->peer_ip, 16);
		s6->sin6_scope_id = (uint32_t)h->ifindex;
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(9);
		memcpy(&s4->sin_addr, h->peer_ip, 4);
		len = sizeof(*s4);
	}
	int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, "nbrun", 5, MSG_DONTWAIT, (struct sockaddr *)&ss, len);
	close(fd);
}

bool nb_xdp_neigh_resolve(struct nb_xdp_hop *h, int timeout_ms, struct nb_error *err)
{
	if (nb_xdp_neigh_lookup(h->ifindex, h->v6, h->next_ip, h->next_mac))
		return true;
	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		if (waited % 1000 == 0)
			provoke(h);
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		if (nb_xdp_neigh_lookup(h->ifindex, h->v6, h->next_ip, h->next_mac))
			return true;
	}
	char a[INET6_ADDRSTRLEN];
	inet_ntop(h->v6 ? AF_INET6 : AF_INET, h->next_ip, a, sizeof(a));
	return nb_error_set(err, "xdp: the %s %s on %s did not resolve to a MAC within %d ms "
			    "(ip neigh show dev %s)", h->via_gateway ? "gateway" : "peer", a,
			    h->ifname, timeout_ms, h->ifname);
}

/* ---- the interface ---- */

/* One SIOCGIF* ioctl on ifname into ifr: false with errno when it fails. */
static bool if_ioctl(const char *ifname, unsigned long req, struct ifreq *ifr)
{
	memset(ifr, 0, sizeof(*ifr));
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", ifname);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool ok = fd >= 0 && ioctl(fd, req, ifr) == 0;
	int e = errno;
	if (fd >= 0)
		close(fd);
	errno = e;
	return ok;
}

static bool local_mac(const char *ifname, uint8_t mac[6], struct nb_error *err)
{
	struct ifreq ifr;
	if (!if_ioctl(ifname, SIOCGIFHWADDR, &ifr))
		return nb_error_errno(err, errno, "xdp: %s: its MAC address", ifname);
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER)
		return nb_error_set(err, "xdp: %s is not an Ethernet interface (link type %u): the "
				    "AF_XDP path builds Ethernet frames", ifname,
				    ifr.ifr_hwaddr.sa_family);
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return true;
}

bool nb_xdp_iface_up(const char *ifname, struct nb_error *err)
{
	struct ifreq ifr;
	if (!if_ioctl(ifname, SIOCGIFFLAGS, &ifr))
		return nb_error_errno(err, errno, "xdp: no interface %s", ifname);
	if (!(ifr.ifr_flags & IFF_UP))
		return nb_error_set(err, "xdp: %s is down (ip link set %s up)", ifname, ifname);
	return true;
}

static uint32_t count_dirs(const char *ifname, const char *prefix)
{
	char path[128];
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	DIR *d = opendir(path);
	uint32_t n = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

uint32_t nb_xdp_queue_count(const char *ifname)
{
	uint32_t rx = count_dirs(ifname, "rx-"), tx = count_dirs(ifname, "tx-");
	uint32_t n = rx < tx ? rx : tx;
	return n ? n : 1;
}

static void addr_bytes(const struct sockaddr *sa, uint8_t *out)
{
	if (sa->sa_family == AF_INET6)
		memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	else
		memcpy(out, &((const struct sockaddr_in *)sa)->sin_addr, 4);
}

/* No route to peer: an interface that is down but holds an address of peer's subnet is the
 * likely reason, and the one worth naming. */
static bool down_toward(const struct sockaddr *peer, struct nb_error *err)
{
	struct ifaddrs *list;
	if (getifaddrs(&list) != 0)
		return false;
	uint8_t p[16], a[16], m[16];
	addr_bytes(peer, p);
	size_t n = peer->sa_family == AF_INET6 ? 16 : 4;
	bool found = false;
	for (struct ifaddrs *i = list; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr || !i->ifa_netmask || i->ifa_addr->sa_family != peer->sa_family ||
		    (i->ifa_flags & IFF_UP))
			continue;
		addr_bytes(i->ifa_addr, a);
		addr_bytes(i->ifa_netmask, m);
		found = true;
		for (size_t k = 0; k < n; k++)
			found = found && (a[k] & m[k]) == (p[k] & m[k]);
		if (found)
			nb_error_set(err, "xdp: %s, the interface toward the peer, is down (ip link set "
				     "%s up)", i->ifa_name, i->ifa_name);
	}
	freeifaddrs(list);
	return found;
}

bool nb_xdp_hop_find(const struct sockaddr *peer, socklen_t len, struct nb_xdp_hop *h,
		     struct nb_error *err)
{
	struct nb_ifstats_route r;
	if (!nb_ifstats_route(peer, len, &r, err)) {
		down_toward(peer, err);
		return false;
	}
	memset(h, 0, sizeof(*h));
	snprintf(h->ifname, sizeof(h->ifname), "%s", r.ifname);
	h->v6 = peer->sa_family == AF_INET6;
	h->ifindex = (int)if_nametoindex(h->ifname);
	if (!h->ifindex)
		return nb_error_errno(err, errno, "xdp: no interface %s", h->ifname);
	addr_bytes(peer, h->peer_ip);
	if (inet_pton(h->v6 ? AF_INET6 : AF_INET, r.local, h->local_ip) != 1)
		return nb_error_set(err, "xdp: the route's source address %s", r.local);
	struct route_ans ra;
	if (!route_gateway(h->v6, h->peer_ip, &ra))
		return nb_error_set(err, "xdp: the kernel has no route to the peer");
	h->via_gateway = ra.gateway;
	memcpy(h->next_ip, ra.gateway ? ra.gw : h->peer_ip, 16);
	return local_mac(h->ifname, h->local_mac, err);
}

/* Interface counters from sysfs, and the one lookup of the interface a peer is reached through. */
#include "ifstats.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ifcounter.h"
#include "lossstats.h"
#include "session.h"

bool nb_ifstats_read(const char *root, const char *ifname, struct nb_ifstats *out,
		     struct nb_error *err)
{
	struct nb_ifstats s;
	if (!nb_ifstats_counter(root, ifname, "rx_packets", &s.rx_packets, err) ||
	    !nb_ifstats_counter(root, ifname, "tx_packets", &s.tx_packets, err) ||
	    !nb_ifstats_counter(root, ifname, "rx_bytes", &s.rx_bytes, err) ||
	    !nb_ifstats_counter(root, ifname, "tx_bytes", &s.tx_bytes, err) ||
	    !nb_ifstats_counter(root, ifname, "rx_dropped", &s.rx_dropped, err))
		return false;
	*out = s;
	return true;
}

static bool is_loopback_addr(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	if (IN6_IS_ADDR_LOOPBACK(a))
		return true;
	return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
}

/* An IPv4 or IPv6 address as the kernel routes and getifaddrs lists it: an IPv4-mapped IPv6
 * address (what a dual-stack listener sees of an IPv4 client) becomes the IPv4 address it
 * stands for, as no interface holds ::ffff:a.b.c.d. Returns its length; 0 for other families. */
static socklen_t unmapped(const struct sockaddr *sa, struct sockaddr_storage *out)
{
	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET) {
		memcpy(out, sa, sizeof(struct sockaddr_in));
		return sizeof(struct sockaddr_in);
	}
	if (sa->sa_family != AF_INET6)
		return 0;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
	if (!IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
		memcpy(out, sa, sizeof(*in6));
		return sizeof(*in6);
	}
	struct sockaddr_in *in = (struct sockaddr_in *)out;
	in->sin_family = AF_INET;
	in->sin_port = in6->sin6_port;
	memcpy(&in->sin_addr, in6->sin6_addr.s6_addr + 12, sizeof(in->sin_addr));
	return sizeof(*in);
}

/* Same address (ports ignored; an IPv4-mapped form equals its IPv4 address); link-local IPv6
 * must also match the scope when both name one. */
static bool addr_equal(const struct sockaddr *a0, const struct sockaddr *b0)
{
	struct sockaddr_storage sa, sb;
	if (!a0 || !b0 || !unmapped(a0, &sa) || !unmapped(b0, &sb))
		return false;
	const struct sockaddr *a = (const struct sockaddr *)&sa, *b = (const struct sockaddr *)&sb;
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *y = (const struct sockaddr_in6 *)b;
	if (memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) != 0)
		return false;
	return !x->sin6_scope_id || !y->sin6_scope_id || x->sin6_scope_id == y->sin6_scope_id;
}

static bool put_name(const char *name, char *ifname, size_t n, struct nb_error *err)
{
	if (strlen(name) >= n)
		return nb_error_set(err, "interface name %s does not fit in %zu bytes", name, n);
	memcpy(ifname, name, strlen(name) + 1);
	return true;
}

/* The loopback interface's name (IFF_LOOPBACK), "lo" when none is listed. */
static const char *loopback_name(const struct ifaddrs *list)
{
	for (const struct ifaddrs *i = list; i; i = i->ifa_next)
		if (i->ifa_flags & IFF_LOOPBACK)
			return i->ifa_name;
	return "lo";
}

/* Ask the routing table which source address a datagram to peer would leave from, and the
 * path MTU it knows: connect() on a UDP socket picks the route and sends nothing. */
static bool probe(const struct sockaddr *peer, socklen_t len, struct sockaddr_storage *local,
		  int *mtu, struct nb_error *err)
{
	struct sockaddr_storage dst;
	memcpy(&dst, peer, len);
	bool v4 = dst.ss_family == AF_INET;
	in_port_t *port = v4 ? &((struct sockaddr_in *)&dst)->sin_port
			     : &((struct sockaddr_in6 *)&dst)->sin6_port;
	if (*port == 0)
		*port = htons(9); /* any port will do; 0 is not a destination */
	int fd = socket(dst.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return nb_error_errno(err, errno, "route lookup: socket");
	socklen_t llen = sizeof(*local), mlen = sizeof(*mtu);
	bool ok = connect(fd, (struct sockaddr *)&dst, len) == 0 &&
		  getsockname(fd, (struct sockaddr *)local, &llen) == 0;
	int saved = errno;
	if (ok && getsockopt(fd, v4 ? IPPROTO_IP : IPPROTO_IPV6, v4 ? IP_MTU : IPV6_MTU, mtu, &mlen))
		*mtu = -1;
	close(fd);
	return ok ? true : nb_error_errno(err, saved, "no route to the peer");
}

/* The interface the kernel sends to peer through: for a loopback address or one of our own
 * (the local routing table's "local" routes) the loopback interface, else the one holding the
 * source address the route picked. */
static const char *route_iface(const struct ifaddrs *list, const struct sockaddr *peer,
			       const struct sockaddr *local)
{
	if (is_loopback_addr(peer))
		return loopback_name(list);
	for (const struct ifaddrs *i = list; i; i = i->ifa_next)
		if (addr_equal(i->ifa_addr, peer))
			return loopback_name(list);
	for (const struct ifaddrs *i = list; i; i = i->ifa_next)
		if (addr_equal(i->ifa_addr, local))
			return i->ifa_name;
	return NULL;
}

bool nb_ifstats_route(const struct sockaddr *peer, socklen_t len, struct nb_ifstats_route *r,
		      struct nb_error *err)
{
	if (!peer || len > sizeof(struct sockaddr_storage) ||
	    !((peer->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) ||
	      (peer->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6))))
		return nb_error_set(err, "route lookup: not an IPv4 or IPv6 address");
	struct nb_ifstats_route out = { .path_mtu = -1 };
	struct sockaddr_storage local, dst;
	len = unmapped(peer, &dst);
	peer = (const struct sockaddr *)&dst;
	if (!probe(peer, len, &local, &out.path_mtu, err))
		return false;
	const void *a = local.ss_family == AF_INET
				? (const void *)&((struct sockaddr_in *)&local)->sin_addr
				: (const void *)&((struct sockaddr_in6 *)&local)->sin6_addr;
	inet_ntop(local.ss_family, a, out.local, sizeof(out.local));
	struct ifaddrs *list = NULL;
	if (getifaddrs(&list) != 0)
		return nb_error_errno(err, errno, "getifaddrs");
	const char *name = route_iface(list, peer, (struct sockaddr *)&local);
	bool ok = name ? put_name(name, out.ifname, sizeof(out.ifname), err)
		       : nb_error_set(err, "no interface holds the source address %s", out.local);
	freeifaddrs(list);
	if (ok)
		*r = out;
	return ok;
}

bool nb_ifstats_route_ifname(const struct sockaddr *peer, socklen_t len, char *ifname, size_t n,
			     struct nb_error *err)
{
	struct nb_ifstats_route r;
	return nb_ifstats_route(peer, len, &r, err) && put_name(r.ifname, ifname, n, err);
}

void nb_ifstats_loss_read(const char *ifname, struct nb_lossstats *out)
{
	struct nb_ifstats st;
	*out = (struct nb_lossstats){ 0 };
	if (ifname && ifname[0] && nb_ifstats_read(NULL, ifname, &st, NULL) &&
	    !nb_lossstats_read(ifname, out))
		out->ok = 0;
}

void nb_ifstats_loss_put(struct nb_snapshot *s, const struct nb_lossstats *l)
{
	s->has_loss = l->ok != 0;
	s->loss_ok = l->ok;
	memcpy(s->loss, l->v, sizeof(s->loss));
}

void nb_ifstats_fill_snapshot(struct nb_snapshot *s, const char *ifname)
{
	struct nb_ifstats st;
	s->has_if = false;
	s->has_loss = false;
	if (!ifname || !ifname[0] || !nb_ifstats_read(NULL, ifname, &st, NULL))
		return;
	s->if_stats[0] = st.rx_packets;
	s->if_stats[1] = st.tx_packets;
	s->if_stats[2] = st.rx_bytes;
	s->if_stats[3] = st.tx_bytes;
	s->if_stats[4] = st.rx_dropped;
	s->has_if = true;
	/* the budget's counters of the same interface and host (lossstats.h) */
	struct nb_lossstats l;
	if (nb_lossstats_read(ifname, &l))
		nb_ifstats_loss_put(s, &l);
}

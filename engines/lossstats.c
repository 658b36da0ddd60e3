/* The host's drop counters of one end: the root qdisc over netlink, the interface's sysfs
 * counters, the IP and UDP ones of /proc/net/snmp and snmp6 (lossstats.h). */
#include "lossstats.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/gen_stats.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "ethtool_drops.h"
#include "ifcounter.h"

/* TCA_STATS2's TCA_STATS_QUEUE (struct gnet_stats_queue), else the old TCA_STATS (struct
 * tc_stats): the qdisc's drops. */
static bool qdisc_drops_of(const struct tcmsg *t, size_t len, uint64_t *drops)
{
	const struct rtattr *a = (const struct rtattr *)((const char *)t + NLMSG_ALIGN(sizeof(*t)));
	int left = (int)len - (int)NLMSG_ALIGN(sizeof(*t));
	bool found = false;
	for (; RTA_OK(a, left); a = RTA_NEXT(a, left)) {
		if (a->rta_type == TCA_STATS2) {
			const struct rtattr *n = RTA_DATA(a);
			int nl = (int)RTA_PAYLOAD(a);
			for (; RTA_OK(n, nl); n = RTA_NEXT(n, nl))
				if (n->rta_type == TCA_STATS_QUEUE &&
				    RTA_PAYLOAD(n) >= sizeof(struct gnet_stats_queue)) {
					struct gnet_stats_queue q;
					memcpy(&q, RTA_DATA(n), sizeof(q));
					*drops = q.drops;
					return true;
				}
		} else if (a->rta_type == TCA_STATS && RTA_PAYLOAD(a) >= sizeof(struct tc_stats)) {
			struct tc_stats st;
			memcpy(&st, RTA_DATA(a), sizeof(st));
			*drops = st.drops;
			found = true;
		}
	}
	return found;
}

bool nb_lossstats_qdisc_parse(const void *buf, size_t len, int ifindex, uint64_t *drops,
			      bool *done)
{
	bool found = false;
	int left = (int)len;
	for (const struct nlmsghdr *h = buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
			*done = true;
			break;
		}
		if (h->nlmsg_type != RTM_NEWQDISC || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct tcmsg)))
			continue;
		const struct tcmsg *t = NLMSG_DATA(h);
		if (t->tcm_ifindex == ifindex && t->tcm_parent == TC_H_ROOT &&
		    qdisc_drops_of(t, h->nlmsg_len - NLMSG_HDRLEN, drops))
			found = true;
	}
	return found;
}

/* One RTM_GETQDISC dump, the root qdisc of ifindex picked from it. */
static bool qdisc_root_drops(int ifindex, uint64_t *drops)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return false;
	struct timeval tv = { .tv_sec = 1 }; /* a dump is answered at once; never hang a tick */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	struct {
		struct nlmsghdr n;
		struct tcmsg t;
	} req = { .n = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)), .nlmsg_type = RTM_GETQDISC,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		  .t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex } };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	bool found = false, done = false;
	if (sendto(fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		goto out;
	static _Thread_local char buf[32768];
	while (!done) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		uint64_t d;
		if (nb_lossstats_qdisc_parse(buf, (size_t)n, ifindex, &d, &done)) {
			*drops = d;
			found = true;
		}
	}
out:
	close(fd);
	return found && done;
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return NULL;
	size_t cap = 16384, len = 0;
	char *s = malloc(cap);
	while (s) {
		size_t n = fread(s + len, 1, cap - len - 1, fp);
		len += n;
		if (n == 0)
			break;
		if (len + 1 >= cap) {
			char *t = realloc(s, cap * 2);
			if (!t) {
				free(s);
				s = NULL;
				break;
			}
			s = t;
			cap *= 2;
		}
	}
	fclose(fp);
	if (s)
		s[len] = '\0';
	return s;
}

/* The value of one name in a snmp6 text ("Udp6InErrors   3" lines). */
static bool snmp6_value(const char *text, const char *name, uint64_t *v)
{
	size_t n = strlen(name);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, name, n) == 0 && (l[n] == ' ' || l[n] == '\t')) {
			*v = strtoull(l + n, NULL, 10);
			return true;
		}
	return false;
}

/* The value of one name in a snmp text: the line "Proto: names..." and the next "Proto: values". */
static bool snmp_value(const char *text, const char *proto, const char *name, uint64_t *v)
{
	size_t pl = strlen(proto), nl = strlen(name);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, proto, pl) != 0 || l[pl] != ':')
			continue;
		const char *vals = strchr(l, '\n');
		if (!vals || strncmp(vals + 1, proto, pl) != 0 || vals[1 + pl] != ':')
			return false;
		vals += 2 + pl;
		int idx = -1, i = 0;
		for (const char *w = l + pl + 1; *w && *w != '\n'; i++) {
			while (*w == ' ')
				w++;
			size_t wl = strcspn(w, " \n");
			if (wl == nl && strncmp(w, name, nl) == 0)
				idx = i;
			w += wl;
		}
		if (idx < 0)
			return false;
		for (i = 0; i <= idx; i++) {
			char *end;
			unsigned long long x = strtoull(vals, &end, 10);
			if (end == vals)
				return false;
			if (i == idx)
				*v = x;
			vals = end;
		}
		return true;
	}
	return false;
}

bool nb_lossstats_snmp_sum(const char *text, const char *proto, const char *const *names,
			   uint64_t *sum)
{
	uint64_t s = 0;
	for (size_t i = 0; names[i]; i++) {
		uint64_t v = 0;
		if (!(proto ? snmp_value(text, proto, names[i], &v) : snmp6_value(text, names[i], &v)))
			return false;
		s += v;
	}
	*sum = s;
	return true;
}

/* counter i from the snmp text (IPv4) plus the snmp6 text (IPv6, when the host has it). */
static void snmp_pair(struct nb_lossstats *o, int i, const char *t4, const char *t6,
		      const char *proto, const char *const *n4, const char *const *n6)
{
	uint64_t a, b = 0;
	if (!t4 || !nb_lossstats_snmp_sum(t4, proto, n4, &a))
		return;
	if (t6 && !nb_lossstats_snmp_sum(t6, NULL, n6, &b))
		return;
	o->v[i] = a + b;
	o->ok |= 1u << i;
}

static void read_snmp(struct nb_lossstats *o)
{
	static const char *const ip4[] = { "InHdrErrors", "InAddrErrors", "InUnknownProtos",
					   "InDiscards", NULL };
	static const char *const ip6[] = { "Ip6InHdrErrors", "Ip6InAddrErrors",
					   "Ip6InUnknownProtos", "Ip6InDiscards", NULL };
	static const char *const ue4[] = { "InErrors", NULL }, *const ue6[] = { "Udp6InErrors", NULL };
	static const char *const ub4[] = { "RcvbufErrors", NULL },
			  *const ub6[] = { "Udp6RcvbufErrors", NULL };
	char *t4 = slurp("/proc/net/snmp"), *t6 = slurp("/proc/net/snmp6");
	snmp_pair(o, NB_L_IP_IN_DROPS, t4, t6, "Ip", ip4, ip6);
	snmp_pair(o, NB_L_UDP_IN_ERRORS, t4, t6, "Udp", ue4, ue6);
	snmp_pair(o, NB_L_UDP_RCVBUF, t4, t6, "Udp", ub4, ub6);
	free(t4);
	free(t6);
}

bool nb_lossstats_read(const char *ifname, struct nb_lossstats *out)
{
	struct nb_lossstats o = { 0 };
	if (ifname && ifname[0]) {
		/* the qdisc first: read right after the flows' counters, whose send errors its drops
		 * are, while the sender goes on */
		unsigned idx = if_nametoindex(ifname);
		if (idx && qdisc_root_drops((int)idx, &o.v[NB_L_QDISC_DROPS]))
			o.ok |= 1u << NB_L_QDISC_DROPS;
		static const struct {
			int i;
			const char *name;
		} sys[] = { { NB_L_IF_TX_DROPPED, "tx_dropped" }, { NB_L_IF_TX_ERRORS, "tx_errors" },
			    { NB_L_IF_RX_DROPPED, "rx_dropped" }, { NB_L_IF_RX_MISSED, "rx_missed_errors" },
			    { NB_L_IF_RX_ERRORS, "rx_errors" } };
		for (size_t k = 0; k < sizeof(sys) / sizeof(sys[0]); k++)
			if (nb_ifstats_counter(NULL, ifname, sys[k].name, &o.v[sys[k].i], NULL))
				o.ok |= 1u << sys[k].i;
		uint64_t driver;
		if ((o.ok & 1u << NB_L_IF_RX_DROPPED) && nb_ethtool_drops_read(ifname, &driver))
			o.v[NB_L_IF_RX_DROPPED] += driver;
	}
	read_snmp(&o);
	*out = o;
	return o.ok != 0;
}

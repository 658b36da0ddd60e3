/* The loss budget's host counters (engines/lossstats.c): /proc/net/snmp and snmp6 texts, an
 * RTM_NEWQDISC dump built by hand, and a reading of this host. */
#include <criterion/criterion.h>
#include <linux/ethtool.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "ethtool_drops.h"
#include "lossstats.h"

static const char snmp[] =
	"Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams InUnknownProtos InDiscards\n"
	"Ip: 1 64 1000 2 3 0 4 5\n"
	"Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\n"
	"Udp: 900 7 40 800 30 11\n"
	"UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\n"
	"UdpLite: 0 0 99 0 99 0\n";
static const char snmp6[] = "Ip6InReceives                   \t10\nUdp6InErrors \t6\nUdp6RcvbufErrors 5\n";

Test(lossstats, sums_named_snmp_counters_of_one_protocol)
{
	static const char *const ip[] = { "InHdrErrors", "InAddrErrors", "InUnknownProtos",
					   "InDiscards", NULL };
	static const char *const rb[] = { "RcvbufErrors", NULL }, *const u6[] = { "Udp6InErrors", NULL };
	uint64_t v = 0;
	cr_assert(nb_lossstats_snmp_sum(snmp, "Ip", ip, &v));
	cr_expect_eq(v, 14);
	cr_assert(nb_lossstats_snmp_sum(snmp, "Udp", rb, &v));
	cr_expect_eq(v, 30, "Udp's column, not UdpLite's");
	cr_assert(nb_lossstats_snmp_sum(snmp6, NULL, u6, &v));
	cr_expect_eq(v, 6);
	static const char *const none[] = { "NoSuchCounter", NULL };
	v = 77;
	cr_expect_not(nb_lossstats_snmp_sum(snmp, "Udp", none, &v));
	cr_expect_not(nb_lossstats_snmp_sum(snmp6, NULL, none, &v));
	cr_expect_eq(v, 77, "untouched when a name is missing");
	cr_expect_not(nb_lossstats_snmp_sum("Udp: InErrors\n", "Udp", rb, &v), "no values line");
}

/* One RTM_NEWQDISC message: ifindex, parent, and its drops in TCA_STATS2/TCA_STATS_QUEUE. */
static size_t qdisc_msg(char *buf, int ifindex, uint32_t parent, uint32_t drops)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct tcmsg *t = NLMSG_DATA(h);
	memset(buf, 0, 256);
	t->tcm_ifindex = ifindex;
	t->tcm_parent = parent;
	struct rtattr *st2 = (struct rtattr *)((char *)t + NLMSG_ALIGN(sizeof(*t)));
	struct rtattr *q = RTA_DATA(st2);
	q->rta_type = TCA_STATS_QUEUE;
	q->rta_len = RTA_LENGTH(sizeof(struct gnet_stats_queue));
	struct gnet_stats_queue gq = { .drops = drops };
	memcpy(RTA_DATA(q), &gq, sizeof(gq));
	st2->rta_type = TCA_STATS2;
	st2->rta_len = RTA_LENGTH(RTA_ALIGN(q->rta_len));
	h->nlmsg_type = RTM_NEWQDISC;
	h->nlmsg_len = NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*t)) + RTA_ALIGN(st2->rta_len));
	return NLMSG_ALIGN(h->nlmsg_len);
}

Test(lossstats, takes_the_drops_of_the_interfaces_root_qdisc_from_a_dump)
{
	static char buf[1024];
	size_t n = qdisc_msg(buf, 3, TC_H_ROOT, 11);          /* another interface */
	n += qdisc_msg(buf + n, 5, 0x10014, 99);             /* a child class's qdisc */
	n += qdisc_msg(buf + n, 5, TC_H_ROOT, 42);           /* ours */
	struct nlmsghdr *done = (struct nlmsghdr *)(buf + n);
	*done = (struct nlmsghdr){ .nlmsg_len = NLMSG_LENGTH(4), .nlmsg_type = NLMSG_DONE };
	n += NLMSG_ALIGN(done->nlmsg_len);
	uint64_t drops = 0;
	bool fin = false;
	cr_assert(nb_lossstats_qdisc_parse(buf, n, 5, &drops, &fin));
	cr_expect_eq(drops, 42);
	cr_expect(fin, "the dump's end seen");
	fin = false;
	cr_expect_not(nb_lossstats_qdisc_parse(buf, n, 7, &drops, &fin), "no qdisc of ifindex 7");
}

Test(lossstats, reads_this_hosts_counters)
{
	struct nb_lossstats s;
	cr_assert(nb_lossstats_read("lo", &s));
	cr_expect(s.ok & (1u << NB_L_UDP_RCVBUF), "/proc/net/snmp is readable");
	cr_expect(s.ok & (1u << NB_L_IF_RX_DROPPED), "lo's statistics are readable");
	cr_expect(s.ok & (1u << NB_L_QDISC_DROPS), "lo has a root qdisc (noqueue) in the dump");
	cr_expect_geq(s.v[NB_L_UDP_IN_ERRORS], s.v[NB_L_UDP_RCVBUF], "InErrors counts RcvbufErrors too");
	cr_assert(nb_lossstats_read(NULL, &s));
	cr_expect_eq(s.ok & (1u << NB_L_QDISC_DROPS), 0, "no interface, no qdisc");
}

/* ethtool -S names as ETHTOOL_GSTRINGS gives them (ETH_GSTRING_LEN bytes each): only the
 * drops no sysfs counter holds are taken (veth's, ethtool_drops.h). */
Test(lossstats, the_drivers_own_receive_drops_are_the_xdp_drops_of_each_queue)
{
	static const char *const name[] = { "peer_ifindex", "rx_queue_0_xdp_packets",
					    "rx_queue_0_drops", "rx_queue_0_xdp_drops",
					    "rx_queue_0_xdp_tx_errors", "tx_queue_0_xdp_xmit_errors",
					    "rx_queue_12_xdp_drops", "rx_queue_x_xdp_drops" };
	static const uint64_t v[] = { 7, 1000, 50, 3, 60, 70, 4, 80 };
	char names[8 * ETH_GSTRING_LEN] = { 0 };
	for (size_t i = 0; i < 8; i++)
		strncpy(names + i * ETH_GSTRING_LEN, name[i], ETH_GSTRING_LEN - 1);
	cr_expect_eq(nb_ethtool_drops_pick(names, 8, v), 7u, "queues 0 and 12's XDP_DROPs");
	cr_expect_eq(nb_ethtool_drops_pick(names, 0, v), 0u);
	uint64_t d = 99;
	cr_expect_not(nb_ethtool_drops_read("lo", &d), "lo has no driver statistics");
}

/* nbrun — the host's counters of where packets are dropped, for a case's loss budget.
 *
 * The sockets count what was sent and what arrived; these say where the rest may have gone on
 * one end: the test interface's root qdisc (netlink RTM_GETQDISC, what `tc -s qdisc` shows),
 * its tx and rx drop and error counters (/sys/class/net/IF/statistics), and the IP and UDP
 * counters of /proc/net/snmp and /proc/net/snmp6. Every one is namespace-wide (the qdisc and
 * the interface: everything that uses them), so a budget built from them is an upper bound
 * that other traffic can move (docs/reports.md, "Where the packets were lost").
 */
#ifndef NB_LOSSSTATS_H
#define NB_LOSSSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The counters one end reads, cumulative; their order is the wire's (append only). */
enum nb_loss_counter {
	NB_L_QDISC_DROPS,   /* the interface's root qdisc: drops (gnet_stats_queue) */
	NB_L_IF_TX_DROPPED, /* statistics/tx_dropped */
	NB_L_IF_TX_ERRORS,  /* statistics/tx_errors */
	NB_L_IF_RX_DROPPED, /* statistics/rx_dropped, plus the driver's own receive drops that no
			       sysfs counter holds (`ethtool -S`, ethtool_drops.h) */
	NB_L_IF_RX_MISSED,  /* statistics/rx_missed_errors */
	NB_L_IF_RX_ERRORS,  /* statistics/rx_errors */
	NB_L_IP_IN_DROPS,   /* Ip InHdrErrors + InAddrErrors + InUnknownProtos + InDiscards, and Ip6's */
	NB_L_UDP_IN_ERRORS, /* Udp InErrors (RcvbufErrors and InCsumErrors included), and Udp6's */
	NB_L_UDP_RCVBUF,    /* Udp RcvbufErrors, and Udp6's */
	NB_L_COUNT
};

/** One reading: cumulative values, and which of them could be read (bit i: counter i). */
struct nb_lossstats {
	uint32_t ok;
	uint64_t v[NB_L_COUNT];
};

/** Read every counter of interface ifname (NULL or "": the host's IP and UDP ones only); a
 *  counter that cannot be read has its bit of ok clear. False when none could be read. */
bool nb_lossstats_read(const char *ifname, struct nb_lossstats *out);

/** The drops of ifindex's root qdisc (TC_H_ROOT) from an RTM_NEWQDISC dump held in buf (len
 *  bytes of netlink messages); false when no message describes it. Pure: the parser the
 *  netlink reading uses, for the unit tests. */
bool nb_lossstats_qdisc_parse(const void *buf, size_t len, int ifindex, uint64_t *drops,
			      bool *done);

/** The values of names (NULL-ended) summed from a /proc/net/snmp text of "Proto: names" and
 *  "Proto: values" line pairs (proto "Ip", "Udp" ...) or a /proc/net/snmp6 text of "Name value"
 *  lines (proto NULL: names are whole, "Udp6InErrors"); false when one of them is missing. */
bool nb_lossstats_snmp_sum(const char *text, const char *proto, const char *const *names,
			   uint64_t *sum);

#endif

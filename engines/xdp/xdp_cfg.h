/* nbrun — what the XDP program and its loader share: the configuration the loader writes into
 * the program's nb_cfg map, and the indices of its nb_stats counters. Plain fixed-width types
 * only: the BPF side and user space both include this header.
 */
#ifndef NB_XDP_CFG_H
#define NB_XDP_CFG_H

#include <linux/types.h>

/** The test's UDP flows: destination ports port_lo..port_hi (host order), IPv4 and IPv6. */
struct nb_xdp_cfg {
	__u16 port_lo;
	__u16 port_hi;
	__u32 enabled;          /* 0: pass everything (the map is zero until the loader writes it) */
	__u32 exact;            /* 1: only the ports of the range whose bit nb_ports sets */
};

#define NB_XDP_PORT_WORDS 2048u /* nb_ports: one bit per UDP port, 32 to a word */

/** Per-CPU counters of the program (summed by the loader, nb_xdp_prog_stats). */
enum nb_xdp_stat {
	NB_XDP_STAT_REDIRECTED, /* a test frame handed to the queue's AF_XDP socket */
	NB_XDP_STAT_NO_SOCKET,  /* a test frame on a queue without a socket: passed to the stack */
	NB_XDP_STAT_PASSED,     /* anything else: passed to the stack untouched */
	NB_XDP_STAT_N
};

#define NB_XDP_MAX_QUEUES 256u  /* the XSKMAP's largest size: one entry per queue */

#endif

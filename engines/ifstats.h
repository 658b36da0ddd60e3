/* nbrun — interface counters, what `sar -n DEV` shows.
 *
 * The sockets count what the application sent and received; the interface
 * counters say what the NIC (or lo, or a veth) moved, including packets the
 * stack dropped before any socket saw them (rx_dropped). The runner snapshots
 * the interface that carries the test on both ends each interval and reports
 * rxpck/s, txpck/s, rxkB/s, txkB/s and drops next to the socket counts.
 */
#ifndef NB_IFSTATS_H
#define NB_IFSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "error.h"

/** The default root of the per-interface folders. */
#define NB_IFSTATS_ROOT "/sys/class/net"

/** Cumulative counters of one interface (as read from ROOT/IF/statistics/). */
struct nb_ifstats {
	uint64_t rx_packets;
	uint64_t tx_packets;
	uint64_t rx_bytes;
	uint64_t tx_bytes;
	uint64_t rx_dropped;
};

/** Read the five counters under ROOT/IFNAME/statistics/ (root NULL = /sys/class/net); *out is untouched on failure. */
bool nb_ifstats_read(const char *root, const char *ifname, struct nb_ifstats *out,
		     struct nb_error *err);

/** Name of the interface that carries traffic to peer ("lo" for 127/8, ::1 and our own addresses). */
bool nb_ifstats_route_ifname(const struct sockaddr *peer, socklen_t len, char *ifname, size_t n,
			     struct nb_error *err);

#endif

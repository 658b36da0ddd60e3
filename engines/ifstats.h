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
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "ifcounter.h"
#include "nb_error.h"

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

/** The route the kernel picks toward a peer: the interface that carries the test, whose counters
 *  the runner reads and whose facts env.json records. */
struct nb_ifstats_route {
	char ifname[IF_NAMESIZE];
	char local[INET6_ADDRSTRLEN];  /* the source address the route picked */
	int path_mtu;                  /* IP_MTU / IPV6_MTU of a socket connected to peer; -1 unknown */
};

/** Ask the kernel how peer is reached (no packet is sent). A loopback address or one of this
 *  host's own addresses is carried by the loopback interface (the kernel's "local" routes),
 *  whatever interface holds the address; else the interface holding the source address. An
 *  IPv4-mapped peer (a dual-stack listener's view of an IPv4 client) is looked up as IPv4. */
bool nb_ifstats_route(const struct sockaddr *peer, socklen_t len, struct nb_ifstats_route *r,
		      struct nb_error *err);
/** nb_ifstats_route's interface name alone, into ifname (n bytes; untouched on failure). */
bool nb_ifstats_route_ifname(const struct sockaddr *peer, socklen_t len, char *ifname, size_t n,
			     struct nb_error *err);

struct nb_snapshot;
/** Attach the counters of ifname to a snapshot (has_if stays false when unreadable or no name),
 *  and the loss budget's counters of that interface and host (has_loss, lossstats.h). */
void nb_ifstats_fill_snapshot(struct nb_snapshot *s, const char *ifname);
struct nb_lossstats;
/** The loss budget's counters of ifname and the host alone, read where a snapshot would read
 *  them (ok stays 0 when nb_ifstats_fill_snapshot would leave has_loss false): an end's reading
 *  before its START, from which the run's budget is the whole test's (metrics_loss.c). */
void nb_ifstats_loss_read(const char *ifname, struct nb_lossstats *out);
/** Put reading l in s's loss block in place of what s read (has_loss when l has a counter). */
void nb_ifstats_loss_put(struct nb_snapshot *s, const struct nb_lossstats *l);

#endif

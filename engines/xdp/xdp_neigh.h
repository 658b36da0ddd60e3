/* nbrun — where the AF_XDP data path's frames go: the interface toward the peer, the
 * addresses of both ends and the Ethernet address of the next hop.
 *
 * A socket asks the kernel's stack; a frame we build ourselves must name the next hop's MAC.
 * The interface and our source address are the route's, found the way the environment facts
 * find them (nb_ifstats_route); the next hop is the route's gateway (netlink RTM_GETROUTE) or
 * the peer itself when it is on the link; its MAC is the neighbour table's entry (netlink
 * RTM_GETNEIGH: ARP for IPv4, neighbour discovery for IPv6). Without a usable entry yet, one
 * ordinary UDP datagram to the peer's discard port makes the kernel resolve it, and the table
 * is asked again until the entry is there or the time is up.
 */
#ifndef NB_XDP_NEIGH_H
#define NB_XDP_NEIGH_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct nb_error; /* the caller's error text (engine.h) */

/** Both ends of the path on the wire. */
struct nb_xdp_hop {
	char ifname[IF_NAMESIZE];
	int ifindex;
	bool v6;
	uint8_t local_ip[16], peer_ip[16];      /* IPv4: the first 4 bytes */
	uint8_t next_ip[16];                    /* the gateway, or the peer when on the link */
	bool via_gateway;
	uint8_t local_mac[6], next_mac[6];
};

/** Find the interface, the addresses and our MAC toward peer (IPv4 or IPv6; next_mac is not
 *  looked up). False with err when there is no route or the interface is not Ethernet. */
bool nb_xdp_hop_find(const struct sockaddr *peer, socklen_t len, struct nb_xdp_hop *h,
		     struct nb_error *err);
/** The neighbour table's MAC for ip (4 or 16 bytes by v6) on ifindex: true and mac set when an
 *  entry with an address is there (reachable, stale, permanent ...), false otherwise. */
bool nb_xdp_neigh_lookup(int ifindex, bool v6, const uint8_t *ip, uint8_t mac[6]);
/** h->next_mac from the table, resolving it first if need be (see above), waiting at most
 *  timeout_ms. False with err saying which address did not resolve. */
bool nb_xdp_neigh_resolve(struct nb_xdp_hop *h, int timeout_ms, struct nb_error *err);
/** The number of queues of ifname (its /sys/class/net/IF/queues/rx-N and tx-N folders: the
 *  smaller count), at least 1. */
uint32_t nb_xdp_queue_count(const char *ifname);
/** Whether ifname is up (IFF_UP); false with err saying it is down or missing. */
bool nb_xdp_iface_up(const char *ifname, struct nb_error *err);

#endif

/* nbrun — RFC 9097's IP-layer capacity of a UDP case (ip_capacity.c): the rate counted at the
 * IP layer as RFC 5136 section 2.3.1 counts IP-layer bits (every octet from the first of the
 * IP header to the last of the payload: the UDP header and payload plus the IP header, never
 * a link layer's), over the whole measured time (the mean) and per sub-interval, whose largest
 * is the Maximum IP-Layer Capacity (RFC 9097 section 6, Type-P-One-way-Max-IP-Capacity). The
 * sub-intervals are the run's intervals (`interval`, RFC 9097's dt); warm-up, omitted and
 * cool-down intervals are not part of the measured time T. */
#ifndef NB_IP_CAPACITY_H
#define NB_IP_CAPACITY_H

#include <stdbool.h>
#include <stddef.h>

#include "results.h"
#include "summary.h"

#define NB_UDP_HEADER 8
#define NB_IPV4_HEADER 20
#define NB_IPV6_HEADER 40

/** One run's IP-layer rates, bit/s (NAN: not known). */
struct nb_ip_capacity {
	double mean_bps;  /* over the measured intervals together: bits / their seconds */
	double max_bps;   /* the largest sub-interval's: RFC 9097's Maximum IP-Layer Capacity */
	double dt_s;      /* the longest sub-interval, s */
	size_t n;         /* sub-intervals counted */
};

/** A case's counted runs (ci: its index in res->cases). */
struct nb_ip_capacity_case {
	double mean_bps;      /* the mean of the runs' whole-T rates */
	double max_bps;       /* the mean of the runs' maxima */
	double max_of_runs;   /* the largest maximum */
	double dt_s;          /* the longest sub-interval */
	size_t runs;
};

/** IP-layer bit/s of bytes of UDP payload in packets datagrams over seconds, each datagram
 *  counted with hdr bytes of UDP and IP header (NB_UDP_HEADER + NB_IPV4_HEADER ...). */
double nb_ip_layer_bps(double bytes, double packets, double seconds, unsigned hdr);
/** The capacity over n intervals of one run (the received side's bytes and packets). */
void nb_ip_capacity(const struct nb_interval *const *iv, size_t n, unsigned hdr,
		    struct nb_ip_capacity *out);
/** A one-way UDP case whose headline is a received rate: what RFC 9097 measures. */
bool nb_ip_capacity_applies(const struct nb_case_stats *c);
/** The capacity of case ci over its counted runs with intervals; false when none has one. */
bool nb_ip_capacity_of_case(const struct nb_results *res, size_t ci, unsigned hdr,
			    struct nb_ip_capacity_case *out);
/** The UDP and IP header bytes per datagram on the path to peer ("HOST[:PORT]", "[v6]:PORT"):
 *  IPv6's when the host is an IPv6 address, else IPv4's; *assumed when the host is a name
 *  (the folder does not say which family it resolved to). */
unsigned nb_ip_header_bytes(const char *peer, bool *assumed);

#endif

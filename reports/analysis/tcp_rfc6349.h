/* nbrun — a TCP stream case in RFC 6349's terms (tcp_rfc6349.c): the baseline RTT (the
 * sender's tcpi_min_rtt, runs.csv min_rtt_us), the mean RTT during the transfer (the smoothed
 * RTT at each measured interval's end, averaged), Buffer Delay % (RFC 6349 section 4.3), TCP
 * Efficiency % (section 4.2, from the bytes the sender's TCP sent, retransmissions included,
 * and tcpi_bytes_retrans) and the bandwidth-delay product at the rate achieved and the
 * baseline RTT (section 3.3.1: the window a path needs). */
#ifndef NB_TCP_RFC6349_H
#define NB_TCP_RFC6349_H

#include <stdbool.h>
#include <stddef.h>

#include "results.h"
#include "summary.h"

/** RFC 6349 section 4.2: 100 x (transmitted - retransmitted) / transmitted bytes (NAN: none). */
double nb_rfc6349_efficiency_pct(double tx_bytes, double retrans_bytes);
/** RFC 6349 section 4.3: 100 x (mean RTT during the transfer - baseline RTT) / baseline RTT. */
double nb_rfc6349_buffer_delay_pct(double mean_rtt, double baseline_rtt);
/** RFC 6349 section 3.3.1: the bytes a window must hold at rate_bps over rtt_us. */
double nb_rfc6349_bdp_bytes(double rate_bps, double rtt_us);

/** A case's counted runs, each number the mean of the runs' own (NAN: not known). */
struct nb_rfc6349_case {
	double baseline_rtt_us, mean_rtt_us, buffer_delay_pct, efficiency_pct, bdp_bytes;
	double retrans_bytes;    /* mean per run */
	size_t runs;
	/* with a bottleneck bandwidth (nb_rfc6349_with_bottleneck), else NAN and false */
	double ttr, bdp_bb_bytes, window_bytes;
	bool window_below_bdp;
};

/** RFC 6349 section 4.1: the actual transfer time over the ideal one, bytes at bottleneck_bps
 *  (NAN: not known). */
double nb_rfc6349_ttr(double seconds, double bytes, double bottleneck_bps);

/** Where a case's bottleneck bandwidth came from. */
enum nb_rfc6349_bb { NB_BB_UNKNOWN, NB_BB_CONFIG, NB_BB_IP_CAPACITY };

/** The bottleneck bandwidth the case's numbers that need one use (RFC 6349 section 3.3.1's BB). */
struct nb_rfc6349_bottleneck {
	enum nb_rfc6349_bb from;
	double bps;              /* bit/s; NAN when unknown */
	const char *case_id;     /* NB_BB_IP_CAPACITY: the UDP case whose capacity it is */
};

/** Case ci's bottleneck: its `bottleneck` (plan.csv bottleneck_bps), else the largest RFC 9097
 *  Maximum IP-Layer Capacity a UDP case of the same batch measured (s: the batch's summary),
 *  else unknown. */
void nb_rfc6349_bottleneck_of(const struct nb_results *res, const struct nb_summary *s, size_t ci,
			      struct nb_rfc6349_bottleneck *out);
/** With bottleneck b: the case's mean TCP Transfer Time Ratio (ttr), the BDP at b and the
 *  baseline RTT (bdp_bb_bytes), and whether the window used (window_bytes: the `window` asked,
 *  NAN when the kernel's default) is below it. */
void nb_rfc6349_with_bottleneck(const struct nb_results *res, size_t ci,
				const struct nb_rfc6349_bottleneck *b, struct nb_rfc6349_case *k);

/** A one-way TCP case whose headline is a received rate: what RFC 6349 measures. */
bool nb_rfc6349_applies(const struct nb_case_stats *c);
/** The RFC 6349 numbers of case ci over its counted runs; false when no run has them. */
bool nb_rfc6349_of_case(const struct nb_results *res, size_t ci, struct nb_rfc6349_case *out);

#endif

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
};

/** A one-way TCP case whose headline is a received rate: what RFC 6349 measures. */
bool nb_rfc6349_applies(const struct nb_case_stats *c);
/** The RFC 6349 numbers of case ci over its counted runs; false when no run has them. */
bool nb_rfc6349_of_case(const struct nb_results *res, size_t ci, struct nb_rfc6349_case *out);

#endif

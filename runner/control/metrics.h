/* nbrun — turning two ends' cumulative counters into the metric columns.
 *
 * For a directional engine (traits.directional: stream, pps) each flow has one
 * sender and one receiver: tx columns come from the sender's counters on the
 * sender's clock, rx columns from the receiver's on the receiver's clock. For
 * the others (rr, crr, latency) the client's counters say everything (the agent
 * only answers) and latency comes from the client's histogram. A bidir case also gets each
 * direction's own fwd_ and rev_ columns (rates, packets, loss, target and achieved rate).
 */
#ifndef NB_METRICS_H
#define NB_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "cols.h"
#include "engine.h"
#include "session.h"

/** The two ends' snapshots at the start and end of a span. hist0/hist1 may be NULL. */
struct nb_span {
	const struct nb_snapshot *l0, *l1;   /* client (local) */
	const struct nb_snapshot *p0, *p1;   /* agent (peer) */
};

/** Metrics of one flow (flow >= 0) or all flows summed (flow = -1) over the span of a case of
 *  engine e with parameters p. hist, when given, is the span's RTT histogram (all flows). */
void nb_metrics_span(const struct nb_engine *e, const struct nb_params *p, const struct nb_span *s,
		     int32_t flow, const struct nb_hist *hist, struct nb_metrics *out);
/** Exact UDP loss of the run from the final (after-drain) snapshots: measured datagrams
 *  sent minus distinct measured datagrams received. Sets lost and loss_pct in out. */
void nb_metrics_exact_loss(const struct nb_engine *e, const struct nb_params *p,
			   const struct nb_snapshot *lfinal, const struct nb_snapshot *pfinal,
			   struct nb_metrics *out);
/** The busiest flow thread of each role (sender/requester, receiver/responder) on each end, and
 *  each end's stolen CPU, over the span (metrics_cpu.c). */
void nb_metrics_cpu_threads(const struct nb_span *s, struct nb_metrics *out);
/** The headline column of engine e (its traits.headline.column: rx_bps, trans_per_s ...). */
enum nb_col nb_metrics_headline(const struct nb_engine *e);

#endif

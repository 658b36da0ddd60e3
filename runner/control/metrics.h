/* nbrun — turning two ends' cumulative counters into the metric columns.
 *
 * For a directional engine (traits.directional: stream, pps) each flow has one
 * sender and one receiver. TCP: tx columns come from the sender's kernel counts
 * over its own interval, rx columns from the receiver's over its own. UDP: the
 * datagrams the sender sent in its interval (its epoch), and of those the ones the
 * receiver got, settled at the receiver's next reading (epoch.h): lost = tx - rx in
 * every row, and both rates are per the sender's interval. For the others (rr,
 * crr, latency) the client's counters say everything (the agent only answers) and
 * latency comes from the client's histogram; latency's run result counts the
 * window by due time (nb_metrics_window). A bidir case also gets each direction's own
 * fwd_ and rev_ columns (rates, packets, loss, target and achieved rate). docs/engines.md
 * lists every window.
 */
#ifndef NB_METRICS_H
#define NB_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "cols.h"
#include "engine.h"
#include "session.h"
#include "timeline.h"

/* A span shorter than this gives no rate: the ticks a stalled end owed fire back to back, and
 * their sub-millisecond "intervals" measure the catch-up, not a rate (runcheck.h). */
#define NB_METRICS_MIN_SPAN_S 1e-3

/** The two ends' readings at the start and end of a span, and each end's next reading after
 *  them (the tick after, or the final one after the drain), where a receiver settles the UDP
 *  datagrams of the epoch that ended there. None may be NULL. */
struct nb_span {
	const struct nb_snapshot *l0, *l1;   /* client (local) */
	const struct nb_snapshot *p0, *p1;   /* agent (peer) */
	const struct nb_snapshot *l0n, *l1n; /* the client's next readings after l0 and l1 */
	const struct nb_snapshot *p0n, *p1n; /* the agent's next readings after p0 and p1 */
	/* An end whose span is shorter than this gives no rate (0: NB_METRICS_MIN_SPAN_S). An
	 * interval shorter than half its length on the schedule closes a catch-up: its end's ticks
	 * fired late, back to back, after a stall (nb_metrics_catch_up_s). */
	double min_s;
};

/** The shortest span of interval k of tl with a rate: half the interval's length on the
 *  schedule, at least NB_METRICS_MIN_SPAN_S. */
double nb_metrics_catch_up_s(const struct nb_timeline *tl, uint32_t k);

/** Metrics of one flow (flow >= 0) or all flows summed (flow = -1) over the span of a case of
 *  engine e with parameters p. hist, when given, is the span's RTT histogram (all flows). */
void nb_metrics_span(const struct nb_engine *e, const struct nb_params *p, const struct nb_span *s,
		     int32_t flow, const struct nb_hist *hist, struct nb_metrics *out);
/** The busiest flow thread of each role (sender/requester, receiver/responder) on each end, and
 *  each end's stolen CPU, over the span (metrics_cpu.c). */
void nb_metrics_cpu_threads(const struct nb_span *s, struct nb_metrics *out);
/** The run's window by due time of a due_window engine (latency), from the client's reading
 *  after the drain: trans = the window's messages answered, timeouts = those sent and not
 *  answered, trans_per_s over out's duration_s. Nothing for other engines. */
void nb_metrics_window(const struct nb_engine *e, const struct nb_snapshot *lfinal,
		       struct nb_metrics *out);
/** The schedule lag columns (p99, max of send time - due time) of the sends between the
 *  client's readings a and b (their lag histograms); nothing when neither has one or no
 *  request was scheduled. */
void nb_metrics_sched_lag(const struct nb_snapshot *a, const struct nb_snapshot *b,
			  struct nb_metrics *m);
/** The latency columns (mean, stddev, min, percentiles, max) of histogram h into m; nothing
 *  when h holds no sample. */
void nb_metrics_latency(const struct nb_hist *h, struct nb_metrics *m);
/** The result of a case over its n paths from each path's own (metrics_paths.c): counts and
 *  rates add, host-wide readings take the largest, jitter and RTT average, ratios are
 *  recomputed from the sums; latency from merged (the paths' histograms merged) when given. */
void nb_metrics_sum_paths(const struct nb_engine *e, const struct nb_metrics *parts, size_t n,
			  const struct nb_hist *merged, struct nb_metrics *out);
/** The headline column of engine e (its traits.headline.column: rx_bps, trans_per_s ...). */
enum nb_col nb_metrics_headline(const struct nb_engine *e);

#endif

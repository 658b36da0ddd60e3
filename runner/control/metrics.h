/* nbrun — turning two ends' cumulative counters into the metric columns.
 *
 * Each engine turns its own counters into its columns (its report op, engine.h; the shapes
 * several share are in engines/report_shapes.c); this file adds what is the same for every
 * engine: the measured time, latency from the client's histogram, the schedule lag, CPU, host
 * and interface columns, the headline per CPU-second, and a bidir case's fwd_ and rev_
 * columns (each direction's flows through the same report op). docs/engines.md lists every
 * window.
 */
#ifndef NB_METRICS_H
#define NB_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "cols.h"
#include "engine.h"
#include "lossstats.h"
#include "session.h"
#include "span.h"
#include "timeline.h"

#define NB_METRICS_MIN_SPAN_S NB_SPAN_MIN_S /* span.h */

/** The shortest span of interval k of tl with a rate: half the interval's length on the
 *  schedule, at least NB_METRICS_MIN_SPAN_S. */
double nb_metrics_catch_up_s(const struct nb_timeline *tl, uint32_t k);

/** Metrics of one flow (flow >= 0) or all flows summed (flow = -1) over the span of a case of
 *  engine e with parameters p: the engine's own columns by its report op, then what is the
 *  same for every engine (time, latency, schedule lag, CPU, host, interface, bidir's split by
 *  the report op over each direction's flows). hist, when given, is the span's RTT histogram
 *  (all flows). */
void nb_metrics_span(const struct nb_engine *e, const struct nb_params *p, const struct nb_span *s,
		     int32_t flow, const struct nb_hist *hist, struct nb_metrics *out);
/** The busiest flow thread of each role (sender/requester, receiver/responder) on each end, and
 *  each end's stolen CPU, over the span (metrics_cpu.c). */
void nb_metrics_cpu_threads(const struct nb_span *s, struct nb_metrics *out);
/** The run's own result where it differs from its span's, by e's report_run op (latency: the
 *  window by due time), from the client's reading after the drain; nothing for the engines
 *  without one. */
void nb_metrics_window(const struct nb_engine *e, const struct nb_snapshot *lfinal,
		       struct nb_metrics *out);
/** The schedule lag columns (p99, max of send time - due time) of the sends between the
 *  client's readings a and b (their lag histograms); nothing when neither has one or no
 *  request was scheduled. */
void nb_metrics_sched_lag(const struct nb_snapshot *a, const struct nb_snapshot *b,
			  struct nb_metrics *m);
/** The same over both ends' senders: the client's l0 .. l1 and the agent's p0 .. p1 (either pair
 *  NULL or without a lag histogram: that end records none), one histogram of every send. */
void nb_metrics_sched_lag_ends(const struct nb_snapshot *l0, const struct nb_snapshot *l1,
			       const struct nb_snapshot *p0, const struct nb_snapshot *p1,
			       struct nb_metrics *m);
/** The loss budget columns (lb_*) of a UDP case of e over the span, from both ends' host drop
 *  counters and the row's lost, snd_errs and rcvbuf_drops (metrics_loss.c); nothing for other
 *  cases. */
void nb_metrics_loss_budget(const struct nb_engine *e, const struct nb_params *p,
			    const struct nb_span *s, struct nb_metrics *m);
/** The host drop counters a snapshot carries (ok 0 when it has none). */
struct nb_lossstats nb_metrics_loss_of(const struct nb_snapshot *s);
/** The run's loss budget, the whole test's (metrics_loss.c): each end's host counters from its
 *  reading before START (lpre, ppre; ok 0 when it has none) to its last reading after the drain
 *  (lpost, ppost), against every datagram the flows sent and received by then; replaces the
 *  lb_* columns of m (the window's): no path figure when an end lacks a reading. */
void nb_metrics_loss_budget_run(const struct nb_engine *e, const struct nb_params *p,
				const struct nb_lossstats *lpre, const struct nb_snapshot *lpost,
				const struct nb_lossstats *ppre, const struct nb_snapshot *ppost,
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

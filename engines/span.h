/* nbrun — a span of a run: the two ends' readings at its start and its end, and the arithmetic
 * an engine's report op (engine.h) turns its counters into columns with. The runner's metrics
 * (runner/control/metrics.h) hand every engine the same span; a counter's growth that went back
 * is no number (never a silent wrap), a span shorter than its minimum gives no rate. */
#ifndef NB_SPAN_H
#define NB_SPAN_H

#include <stdint.h>

#include "cols.h"
#include "session.h"

/* A span shorter than this gives no rate: the ticks a stalled end owed fire back to back, and
 * their sub-millisecond "intervals" measure the catch-up, not a rate (runcheck.h). */
#define NB_SPAN_MIN_S 1e-3

/** The two ends' readings at the start and end of a span, and each end's next reading after
 *  them (the tick after, or the final one after the drain), where a receiver settles the UDP
 *  datagrams of the epoch that ended there. None may be NULL. */
struct nb_span {
	const struct nb_snapshot *l0, *l1;   /* client (local) */
	const struct nb_snapshot *p0, *p1;   /* agent (peer) */
	const struct nb_snapshot *l0n, *l1n; /* the client's next readings after l0 and l1 */
	const struct nb_snapshot *p0n, *p1n; /* the agent's next readings after p0 and p1 */
	/* An end whose span is shorter than this gives no rate (0: NB_SPAN_MIN_S). An interval
	 * shorter than half its length on the schedule closes a catch-up: its end's ticks fired
	 * late, back to back, after a stall (nb_metrics_catch_up_s). */
	double min_s;
};

/** Seconds from reading a to reading b; NAN when b is older. */
double nb_span_dt(const struct nb_snapshot *a, const struct nb_snapshot *b);
/** The time a rate between a and b divides by: NAN for a span shorter than min_s. */
double nb_span_rate_dt(const struct nb_snapshot *a, const struct nb_snapshot *b, double min_s);
/** v per second over dt; NAN for dt shorter than NB_SPAN_MIN_S (or NAN). */
double nb_span_per_s(double v, double dt);
/** part in % of whole; NAN for a whole of 0. */
double nb_span_pct(double part, double whole);
/** Counter c's growth on flow f from a to b; NAN when it went back. */
double nb_span_diff(const struct nb_snapshot *a, const struct nb_snapshot *b, uint32_t f,
		    enum nb_counter c);
/** The growth of counter c summed over the flows [lo, hi) from a to b. */
double nb_span_sum(const struct nb_snapshot *a, const struct nb_snapshot *b, uint32_t lo,
		   uint32_t hi, enum nb_counter c);

/** The growth of the engine's own counter i summed over the flows [lo, hi) from a to b (NAN
 *  when one went back). */
double nb_span_own_sum(const struct nb_snapshot *a, const struct nb_snapshot *b, uint32_t lo,
		       uint32_t hi, unsigned i);

#endif

/* nbrun — the timeline of one run, the same on both ends (each on its own clock).
 *
 *   t0 ──warm-up──▶ baseline (tick 0) ── tick 1 … tick j (omit ends) … tick K ──▶ STOP, drain
 *
 * Ticks fall every `interval` after the baseline; the last one is cut at
 * `duration` (K = ceil(duration / interval)). At tick k an end opens epoch k + 1
 * (engine.h) and reads its counters. The run's result spans tick j, the first
 * at or after omit, to tick K; omit is a whole number of intervals (the config
 * checks it), so the window starts on a tick. Both ends run this from their own
 * START, so their ticks line up within the control connection's one-way delay;
 * the runner pairs the readings by index. A receiver settles the datagrams of
 * interval k at its tick k + lag, lag ticks spanning the drain, so interval k's
 * row is written once both ends' tick k + lag is in. Nobody stops sending at tick
 * K: the senders stop only once both ends closed it (the client's STOP), then the
 * drain, then ticks K + 1 .. K + lag back to back, each settling one more interval.
 */
#ifndef NB_TIMELINE_H
#define NB_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

enum nb_tl_event { NB_TL_NONE, NB_TL_BASELINE, NB_TL_TICK };

struct nb_timeline {
	uint64_t t0, warmup, omit, duration, interval;
	uint64_t cooldown;     /* the tail of the window left out of the result (0 = none) */
	uint32_t nticks;
	uint32_t ticks_done;   /* ticks fired, baseline included as tick 0 */
};

/** Start a timeline at t0_ns (CLOCK_MONOTONIC). */
void nb_timeline_init(struct nb_timeline *tl, uint64_t t0_ns, uint64_t warmup_ns, uint64_t omit_ns,
		      uint64_t duration_ns, uint64_t interval_ns);
/** Absolute time of the next tick; UINT64_MAX when every tick has fired. */
uint64_t nb_timeline_next(const struct nb_timeline *tl);
/** Pop the next tick if it is due at now_ns; *tick gets its index (0 for the baseline). */
enum nb_tl_event nb_timeline_take(struct nb_timeline *tl, uint64_t now_ns, uint32_t *tick);
/** Offset of tick k from the baseline, in ns. */
uint64_t nb_timeline_tick_offset(const struct nb_timeline *tl, uint32_t k);
/** Leave the last cooldown_ns of the window out of the run's result (after nb_timeline_init). */
void nb_timeline_set_cooldown(struct nb_timeline *tl, uint64_t cooldown_ns);
/** The last tick at or before duration - cooldown (the end of the run's result). */
uint32_t nb_timeline_last_kept(const struct nb_timeline *tl);
/** The first tick at or after the end of omit (the baseline of the run's result). */
uint32_t nb_timeline_first_kept(const struct nb_timeline *tl);
/** Ticks a receiver keeps an interval open: at least one, as many as span drain_ns. */
uint32_t nb_timeline_settle_lag(const struct nb_timeline *tl, uint64_t drain_ns);

#endif

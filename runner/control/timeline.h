/* nbrun — the timeline of one run, the same on both ends (each on its own clock).
 *
 *   t0 ──warm-up──▶ baseline (tick 0) ──omit──▶ measure phase ── tick 1 … tick K ──▶ end
 *
 * Ticks fall every `interval` after the baseline; the last one is cut at
 * `duration` (K = ceil(duration / interval)). The measure phase (what UDP
 * datagrams are tagged with, for exact loss) starts when omit ends. Both
 * ends run this from their own START, so their ticks line up within the
 * control connection's one-way delay; each end's counters are read at its
 * own ticks and the runner pairs them by index.
 */
#ifndef NB_TIMELINE_H
#define NB_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

enum nb_tl_event { NB_TL_NONE, NB_TL_BASELINE, NB_TL_MEASURE, NB_TL_TICK, NB_TL_END };

struct nb_timeline {
	uint64_t t0, warmup, omit, duration, interval;
	uint32_t nticks;
	uint32_t ticks_done;   /* ticks fired, baseline included as tick 0 */
	bool baseline_done, measure_done, end_done;
};

/** Start a timeline at t0_ns (CLOCK_MONOTONIC). */
void nb_timeline_init(struct nb_timeline *tl, uint64_t t0_ns, uint64_t warmup_ns, uint64_t omit_ns,
		      uint64_t duration_ns, uint64_t interval_ns);
/** Absolute time of the next event; UINT64_MAX when every event has fired. */
uint64_t nb_timeline_next(const struct nb_timeline *tl);
/** Pop the next event if it is due at now_ns; *tick gets the tick index for BASELINE (0) and TICK. */
enum nb_tl_event nb_timeline_take(struct nb_timeline *tl, uint64_t now_ns, uint32_t *tick);
/** Offset of tick k from the baseline, in ns. */
uint64_t nb_timeline_tick_offset(const struct nb_timeline *tl, uint32_t k);
/** The first tick at or after the end of omit (the baseline of the run's result). */
uint32_t nb_timeline_first_kept(const struct nb_timeline *tl);

#endif

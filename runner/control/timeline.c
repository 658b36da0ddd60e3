#include "timeline.h"

void nb_timeline_init(struct nb_timeline *tl, uint64_t t0_ns, uint64_t warmup_ns, uint64_t omit_ns,
		      uint64_t duration_ns, uint64_t interval_ns)
{
	*tl = (struct nb_timeline){ .t0 = t0_ns, .warmup = warmup_ns, .omit = omit_ns,
				    .duration = duration_ns, .interval = interval_ns };
	tl->nticks = (uint32_t)((duration_ns + interval_ns - 1) / interval_ns);
}

uint64_t nb_timeline_tick_offset(const struct nb_timeline *tl, uint32_t k)
{
	uint64_t off = (uint64_t)k * tl->interval;
	return off > tl->duration ? tl->duration : off;
}

uint32_t nb_timeline_first_kept(const struct nb_timeline *tl)
{
	uint32_t k = 0;
	while (k < tl->nticks && nb_timeline_tick_offset(tl, k) < tl->omit)
		k++;
	return k;
}

uint64_t nb_timeline_next(const struct nb_timeline *tl)
{
	uint64_t base = tl->t0 + tl->warmup;
	if (!tl->baseline_done)
		return base;
	uint64_t t = UINT64_MAX;
	if (!tl->measure_done)
		t = base + tl->omit;
	if (tl->ticks_done <= tl->nticks) {
		uint64_t tick = base + nb_timeline_tick_offset(tl, tl->ticks_done);
		return tick < t ? tick : t;
	}
	if (!tl->end_done && t == UINT64_MAX)
		t = base + tl->duration;
	return t;
}

enum nb_tl_event nb_timeline_take(struct nb_timeline *tl, uint64_t now_ns, uint32_t *tick)
{
	uint64_t next = nb_timeline_next(tl);
	if (next == UINT64_MAX || now_ns < next)
		return NB_TL_NONE;
	if (!tl->baseline_done) {
		tl->baseline_done = true;
		tl->ticks_done = 1;
		*tick = 0;
		return NB_TL_BASELINE;
	}
	/* The measure phase starts before a tick due at the same time. */
	uint64_t base = tl->t0 + tl->warmup;
	if (!tl->measure_done && next == base + tl->omit) {
		tl->measure_done = true;
		return NB_TL_MEASURE;
	}
	if (tl->ticks_done <= tl->nticks) {
		*tick = tl->ticks_done++;
		return NB_TL_TICK;
	}
	tl->end_done = true;
	return NB_TL_END;
}

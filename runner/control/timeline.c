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

uint32_t nb_timeline_settle_lag(const struct nb_timeline *tl, uint64_t drain_ns)
{
	uint64_t lag = (drain_ns + tl->interval - 1) / tl->interval;
	return lag < 1 ? 1 : lag > NB_EPOCH_LAG_MAX ? NB_EPOCH_LAG_MAX : (uint32_t)lag;
}

void nb_timeline_set_cooldown(struct nb_timeline *tl, uint64_t cooldown_ns)
{
	tl->cooldown = cooldown_ns;
}

uint32_t nb_timeline_last_kept(const struct nb_timeline *tl)
{
	uint32_t k = tl->nticks, first = nb_timeline_first_kept(tl);
	uint64_t end = tl->cooldown < tl->duration ? tl->duration - tl->cooldown : 0;
	while (k > first + 1 && nb_timeline_tick_offset(tl, k) > end)
		k--;
	return k;
}


uint64_t nb_timeline_next(const struct nb_timeline *tl)
{
	if (tl->ticks_done > tl->nticks)
		return UINT64_MAX;
	return tl->t0 + tl->warmup + nb_timeline_tick_offset(tl, tl->ticks_done);
}

enum nb_tl_event nb_timeline_take(struct nb_timeline *tl, uint64_t now_ns, uint32_t *tick)
{
	uint64_t next = nb_timeline_next(tl);
	if (next == UINT64_MAX || now_ns < next)
		return NB_TL_NONE;
	*tick = tl->ticks_done++;
	return *tick == 0 ? NB_TL_BASELINE : NB_TL_TICK;
}

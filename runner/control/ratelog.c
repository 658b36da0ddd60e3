/* nbrun — rate-limited log lines (see ratelog.h). */
#include "ratelog.h"

void nb_ratelog_init(struct nb_ratelog *r, uint32_t burst, uint64_t interval_ms, uint64_t now_ms)
{
	*r = (struct nb_ratelog){ .burst = burst, .interval_ms = interval_ms, .start_ms = now_ms };
	pthread_mutex_init(&r->lock, NULL);
}

void nb_ratelog_destroy(struct nb_ratelog *r)
{
	pthread_mutex_destroy(&r->lock);
}

/* Under the lock: start a new interval when the current one is over; what it held. */
static uint64_t roll(struct nb_ratelog *r, uint64_t now_ms)
{
	if (now_ms - r->start_ms < r->interval_ms)
		return 0;
	uint64_t held = r->held;
	r->start_ms = now_ms;
	r->held = 0;
	r->shown = held ? r->burst : 0;
	return held;
}

bool nb_ratelog_take(struct nb_ratelog *r, uint64_t now_ms)
{
	pthread_mutex_lock(&r->lock);
	bool quiet = r->held == 0 && now_ms - r->start_ms >= r->interval_ms;
	if (quiet) /* nothing held: nothing to summarise, a fresh interval */
		roll(r, now_ms);
	bool show = r->shown < r->burst;
	if (show)
		r->shown++;
	else
		r->held++;
	pthread_mutex_unlock(&r->lock);
	return show;
}

uint64_t nb_ratelog_flush(struct nb_ratelog *r, uint64_t now_ms)
{
	pthread_mutex_lock(&r->lock);
	uint64_t held = r->held ? roll(r, now_ms) : 0;
	pthread_mutex_unlock(&r->lock);
	return held;
}

/* nbrun — a log line per event at first, then a count (see ratelog.h). */
#include "ratelog.h"

void nb_ratelog_init(struct nb_ratelog *r, uint32_t burst, uint64_t window_ms)
{
	*r = (struct nb_ratelog){ .burst = burst, .window_ms = window_ms };
	pthread_mutex_init(&r->lock, NULL);
}

void nb_ratelog_finish(struct nb_ratelog *r)
{
	pthread_mutex_destroy(&r->lock);
}

bool nb_ratelog_event(struct nb_ratelog *r, uint64_t now_ms)
{
	pthread_mutex_lock(&r->lock);
	if (!r->start_ms || now_ms - r->start_ms >= r->window_ms) { /* a new window (none held) */
		r->start_ms = now_ms ? now_ms : 1;
		r->said = 0;
	}
	bool say = r->said < r->burst;
	if (say)
		r->said++;
	else
		r->held++;
	pthread_mutex_unlock(&r->lock);
	return say;
}

bool nb_ratelog_due(struct nb_ratelog *r, uint64_t now_ms, uint32_t *held, uint64_t *window_ms)
{
	pthread_mutex_lock(&r->lock);
	bool over = r->start_ms && (now_ms == UINT64_MAX || now_ms - r->start_ms >= r->window_ms);
	bool due = r->held && over;
	if (due) {
		*held = r->held;
		*window_ms = r->window_ms;
		r->held = 0;
		r->start_ms = 0; /* the next event opens a window of its own */
	}
	pthread_mutex_unlock(&r->lock);
	return due;
}

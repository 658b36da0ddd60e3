/* nbrun — the paths of one case meet at START and CLOSED (see pathsync.h). */
#include "pathsync.h"

#include <time.h>

#include "sock.h"

#define WAKE_NS 50000000ull /* a waiting path looks at its stop flags this often */

bool nb_pathsync_init(struct nb_pathsync *g, uint32_t n)
{
	*g = (struct nb_pathsync){ .n = n };
	if (pthread_mutex_init(&g->lock, NULL) != 0)
		return false;
	pthread_condattr_t ca;
	bool ok = pthread_condattr_init(&ca) == 0 &&
		  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
		  pthread_cond_init(&g->cond, &ca) == 0;
	pthread_condattr_destroy(&ca);
	if (!ok)
		pthread_mutex_destroy(&g->lock);
	return ok;
}

void nb_pathsync_destroy(struct nb_pathsync *g)
{
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}

/* Under the lock: release every point whose paths are all in (arrived, or gone). */
static void release_due(struct nb_pathsync *g)
{
	for (int p = 0; p < NB_SYNC_POINTS; p++) {
		if (g->released[p] || g->arrived[p] + g->gone < g->n)
			continue;
		g->released[p] = true;
		if (p == NB_SYNC_START)
			g->t0 = nb_now_ns();
		pthread_cond_broadcast(&g->cond);
	}
}

static bool set(const atomic_bool *f)
{
	return f && atomic_load(f);
}

bool nb_pathsync_wait(struct nb_pathsync *g, enum nb_pathsync_point p, const atomic_bool *stop,
		      const atomic_bool *abort, uint64_t *t0)
{
	pthread_mutex_lock(&g->lock);
	g->arrived[p]++;
	release_due(g);
	while (!g->released[p] && !set(stop) && !set(abort)) {
		uint64_t at = nb_now_ns() + WAKE_NS;
		struct timespec ts = { .tv_sec = (time_t)(at / 1000000000ull),
				       .tv_nsec = (long)(at % 1000000000ull) };
		pthread_cond_timedwait(&g->cond, &g->lock, &ts);
	}
	bool ok = g->released[p];
	if (t0)
		*t0 = g->t0;
	pthread_mutex_unlock(&g->lock);
	return ok;
}

void nb_pathsync_leave(struct nb_pathsync *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	g->gone++;
	release_due(g);
	pthread_mutex_unlock(&g->lock);
}

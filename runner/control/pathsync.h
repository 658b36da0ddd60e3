/* nbrun — the paths of one case start and stop together.
 *
 * Each path of a case runs on its own thread (runner/run/target_paths.c). Two meeting points hold
 * them together:
 * START (every path's data connections are up; the last to arrive stamps the common start, so
 * every path's timeline runs from the same instant of this host's one clock) and CLOSED (every
 * end of every path closed its last tick: only then may any path's senders stop, so no path
 * measures while another has already gone quiet). A pthread barrier cannot lose a member, and
 * a path that fails (its agent refused, died, or the run was interrupted) must not hold the
 * others: it leaves, and counts as arrived at every meeting point still to come. */
#ifndef NB_PATHSYNC_H
#define NB_PATHSYNC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum nb_pathsync_point { NB_SYNC_START, NB_SYNC_CLOSED, NB_SYNC_POINTS };

struct nb_pathsync {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t n;                          /* paths */
	uint32_t gone;                       /* paths that left */
	uint32_t arrived[NB_SYNC_POINTS];
	bool released[NB_SYNC_POINTS];
	uint64_t t0;                         /* the common start (nb_now_ns), set at START */
};

/** A meeting place for n paths; false with errno-style rc text in err on failure. */
bool nb_pathsync_init(struct nb_pathsync *g, uint32_t n);
/** Free what init made. */
void nb_pathsync_destroy(struct nb_pathsync *g);
/** Arrive at point p and wait for every path still running; t0 (may be NULL) gets the common
 *  start. False when stop or abort (either may be NULL) was set while waiting. */
bool nb_pathsync_wait(struct nb_pathsync *g, enum nb_pathsync_point p, const atomic_bool *stop,
		      const atomic_bool *abort, uint64_t *t0);
/** This path is done (ended, failed, or never started): it holds no one back any more. */
void nb_pathsync_leave(struct nb_pathsync *g);

#endif

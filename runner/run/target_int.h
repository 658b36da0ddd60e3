/* nbrun — what the kinds of target share (target.c), for their files only. */
#ifndef NB_TARGET_INT_H
#define NB_TARGET_INT_H

#include <pthread.h>

#include "target.h"

/** The sink a single path's test (nb_client_test_path, nb_solo_test ...) calls for run r: each
 *  interval to r->sink, named r->path. */
struct nb_test_sink nb_target_test_sink(const struct nb_target_run *r);

/** One child of a composite (target_paths.c, target_working.c): its target and run, and what
 *  came of it. */
struct nb_target_kid {
	struct nb_run_target *kid;
	struct nb_target_run r;
	enum nb_outcome outcome;
	struct nb_test_result res;
	struct nb_error err;          /* NB_OUT_PEER_LOST: why */
	pthread_t thread;
	bool started;
};
/** Every kid at once, each on its own thread, meeting at one place (their r.group); one that
 *  cannot start has failed (its res.error says why) and left the meeting points. */
void nb_target_kids_run(struct nb_target_kid *const *kids, size_t n);

#endif

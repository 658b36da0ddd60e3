/* nbrun — one test on several paths at once: a thread per path, each an nb_client_test_path
 * of its own control session, all meeting at START and at CLOSED (pathsync.h). */
#ifndef NB_PATHS_H
#define NB_PATHS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "client.h"
#include "pathsync.h"

#define NB_PATHS_MAX 16

/** One path of a multi-path test: the caller fills client, src and sink; the rest is its result. */
struct nb_path_test {
	struct nb_client *client;        /* the receiving agent's session */
	struct nb_client *src;           /* the sending agent's (a path between two agents), or
					    NULL: this host sends (nb_client_test_path) */
	struct nb_test_sink sink;        /* called on this path's thread */
	enum nb_outcome outcome;
	struct nb_test_result res;
	struct nb_error err;             /* NB_OUT_PEER_LOST: why */
	/* the run's, while it runs */
	const struct nb_msg_setup *su;
	struct nb_pathsync *group;
	pthread_t thread;
	bool started;
};

/** Run su on paths[0 .. n-1] at once, each on its own thread; every path's outcome and result
 *  in its slot (a path whose thread could not start failed with that reason). */
void nb_paths_test(struct nb_path_test *paths, size_t n, const struct nb_msg_setup *su);

#endif

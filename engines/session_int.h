/* nbrun — the harness's session, shared by its two files: session.c sets up the data
 * connections (listen, accept, connect; dataconn.c proves them), session_run.c runs them
 * (threads, ticks, readings, the drain, the stop). Internal to those two files. */
#ifndef NB_SESSION_INT_H
#define NB_SESSION_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "engine.h"

struct nb_session {
	const struct nb_engine *e;
	struct nb_params p;
	enum nb_side side;
	uint32_t nflows;
	uint32_t nthreads;             /* flow threads started (joined by stop) */
	int listen_fd;                 /* server: TCP listener or UDP hello socket */
	struct sockaddr_storage local; /* server: bound address */
	socklen_t local_len;
	struct sockaddr_storage peer;  /* server: the client; data from any other host is refused */
	uint16_t port_lo, port_hi;     /* server: the data port range */
	struct nb_flow_reach reach;         /* PER_CONNECTION, OWN: where every flow goes (engine.h) */
	uint32_t ninit;                /* flows the engine's flow_init set up (flow_fini frees) */
	atomic_bool stop;
	atomic_bool quiesce;
	_Atomic uint32_t epoch;        /* the epoch this end is in (engine.h) */
	bool started;
	struct nb_flow *flows;
	pthread_t *threads;
	clockid_t *clocks;
	atomic_bool *done;
};

#endif

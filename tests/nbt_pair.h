/* Helpers for the net tests of the rr, crr and latency engines: a server and a
 * client session on 127.0.0.1 in this process, and a single client flow run
 * against a server the test builds itself. */
#ifndef NBT_PAIR_H
#define NBT_PAIR_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "session.h"

/** Both sessions of one case. */
struct nbt_pair {
	const struct nb_engine *e;
	struct nb_params p;
	struct nb_session *srv, *cli;
	uint16_t port; /* the server's data port */
};

/** Default parameters of engine `name` over proto, 1 flow. */
struct nb_params nbt_params(const char *name, enum nb_proto proto);
/** Validate p, listen on 127.0.0.1, connect and accept; nothing started yet. */
void nbt_pair_open(struct nbt_pair *pr, const struct nb_engine *e, const struct nb_params *p);
/** nbt_pair_open, then start the server, then the client, both in epoch 1. */
void nbt_pair_start(struct nbt_pair *pr, const struct nb_engine *e, const struct nb_params *p);
/** Quiesce and stop the client, then the server; fills the final snapshots; asserts no flow failed. */
void nbt_pair_stop(struct nbt_pair *pr, struct nb_snapshot *cli, struct nb_snapshot *srv);
/** Sum of one counter over every flow of a snapshot. */
uint64_t nbt_sum(const struct nb_snapshot *s, enum nb_counter c);
/** Sleep for ms milliseconds. */
void nbt_sleep_ms(unsigned ms);

/** One client flow of an engine, run on its own thread against a socket the test made. */
struct nbt_solo {
	const struct nb_engine *e;
	struct nb_params p;
	struct nb_flow f;
	atomic_bool stop, quiesce;
	_Atomic uint32_t epoch;
	pthread_t th;
	int rc;
	struct nb_hist *win; /* after nbt_solo_stop: the window's round trips (window_hist engines) */
};

/** Start e's client_flow on fd (a socket connected to the test's server). */
void nbt_solo_start(struct nbt_solo *s, const struct nb_engine *e, const struct nb_params *p, int fd);
/** nbt_solo_start with the run's window by due time [start_ns, end_ns) (the engine's
 *  set_window op); nbt_solo_stop puts its histogram in win (the caller destroys it). */
void nbt_solo_start_window(struct nbt_solo *s, const struct nb_engine *e, const struct nb_params *p,
			   int fd, uint64_t start_ns, uint64_t end_ns);
/** Quiesce, wait timeout_ms + 100 ms, stop and join the flow; returns its return code (f.err says why when -1). The fd is closed, the engine's flow state freed (flow_fini). */
int nbt_solo_stop(struct nbt_solo *s);
/** Move this process into a network namespace of its own with lo up, then run the shell
 *  command setup there (NULL = none); false when any step fails (not root, no such tool). */
bool nbt_private_lo(const char *setup);
/** A socket of the given type bound to 127.0.0.1 on an ephemeral port; *port gets it. */
int nbt_bind_lo(int type, uint16_t *port);
/** A socket of the given type connected to 127.0.0.1:port. */
int nbt_connect_lo(int type, uint16_t port);

#endif

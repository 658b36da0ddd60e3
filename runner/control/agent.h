/* nbrun — the agent (`nbrun serve`, and the embedded agent of local mode).
 * One client session at a time; a second client gets an ERROR busy frame. */
#ifndef NB_AGENT_H
#define NB_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

struct nb_agent_opts {
	const char *bind;            /* control/data address; NULL = all (IPv6 dual-stack or IPv4) */
	uint16_t port;               /* control port; 0 = ephemeral */
	uint16_t data_lo, data_hi;   /* data port range; 0,0 = ephemeral */
	bool once;                   /* exit after the first session */
	uint32_t max_duration_s;     /* no test may last longer (warm-up + duration) */
	uint32_t idle_timeout_s;     /* an idle control connection is closed after this */
	int verbosity;
	bool collect_facts;          /* read this host's environment for HELLO */
};

struct nb_agent;

/** Bind the control port; NULL with err on failure. */
struct nb_agent *nb_agent_create(const struct nb_agent_opts *o, struct nb_error *err);
/** The bound control port. */
uint16_t nb_agent_port(const struct nb_agent *a);
/** Serve until stopped (or after one session with once); returns false on a fatal error. */
bool nb_agent_run(struct nb_agent *a, struct nb_error *err);
/** Run nb_agent_run on a background thread (local mode). */
bool nb_agent_start_thread(struct nb_agent *a, struct nb_error *err);
/** Ask a running agent to stop (safe from a signal handler). */
void nb_agent_request_stop(struct nb_agent *a);
/** Stop, join and free; NULL is a no-op. */
void nb_agent_destroy(struct nb_agent *a);
/** Sessions served so far and tests run (for tests). */
uint64_t nb_agent_tests_run(const struct nb_agent *a);

#endif

/* nbrun — the run loop: every case x repetition of a plan against one agent,
 * rows appended and flushed as they arrive, so a run that dies keeps every
 * finished row. */
#ifndef NB_RUN_H
#define NB_RUN_H

#include <stdatomic.h>
#include <stdbool.h>

#include "auth.h"
#include "config.h"
#include "error.h"
#include "plan.h"

struct nb_run_opts {
	const char *peer;            /* HOST[:PORT], or NULL for the embedded agent */
	const struct nb_secret *secret; /* --peer's shared secret (NULL: none); the embedded agent
					   and its client share a random one */
	const char *out_dir;         /* NULL: results/<name>-<UTC timestamp> */
	const char *cmdline;
	int verbosity;
	const atomic_bool *interrupt;/* set by SIGINT: stop after the current run */
};

enum nb_run_exit {
	NB_EXIT_OK = 0,              /* every run measured */
	NB_EXIT_CASES_FAILED = 1,    /* some cases failed (recorded, the batch went on) */
	NB_EXIT_USAGE = 2,           /* bad input */
	NB_EXIT_PEER = 3,            /* the peer is unreachable, busy, or died mid-run */
};

/** Run the plan; prints progress and the results folder on stderr. */
enum nb_run_exit nb_run_plan(const struct nb_config *cfg, const struct nb_plan *plan,
			     const struct nb_run_opts *o, struct nb_error *err);

#endif

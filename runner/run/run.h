/* nbrun — the run loop: every case x repetition of a plan against one agent, rows appended
 * and handed to the kernel as they arrive, so a run that dies keeps every finished row. A
 * signal stops the current run (recorded as interrupted, not failed) and still writes the
 * report; `nbrun resume DIR` runs what such a batch left out. */
#ifndef NB_RUN_H
#define NB_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "auth.h"
#include "json_stream.h"
#include "config.h"
#include "nb_error.h"
#include "plan.h"

struct nb_run_opts {
	const char *peer;            /* HOST[:PORT], or NULL for the embedded agent (resume: NULL
					means the peer meta.json names) */
	const char *const *peers;    /* every --peer: with more than one, each case runs on the paths
					local->peers[i] at once (peer is peers[0]) */
	size_t npeers;
	const struct nb_secret *secret; /* --peer's shared secret (NULL: none); the embedded agent
					   and its client share a random one */
	const char *out_dir;         /* NULL: a new results/<name>-<UTC timestamp>[-N] */
	bool force;                  /* use a non-empty out_dir, replacing the results files in it */
	bool check_only;             /* --check: check both ends against the plan, run nothing */
	bool push;                   /* --push: copy this binary to each ssh host of hosts: first */
	const char *cmdline;
	const char *const *sets;     /* the --set and --filter the plan was built with (meta.json) */
	size_t nsets;
	const char *const *filters;
	size_t nfilters;
	const struct nb_label *labels; /* --label: over the config's labels (meta.json) */
	size_t nlabels;
	int verbosity;
	uint32_t queue_timeout_ms;   /* how long to wait for a busy agent (0: not at all) */
	const atomic_bool *interrupt;/* set by a signal: stop the current run, keep every row */
	const atomic_int *signo;     /* the signal that set interrupt (SIGINT, SIGTERM, SIGHUP) */
	struct nb_json_stream *stream; /* --json-stream: the batch's events (json_stream.h), or NULL */
	bool live;                   /* a line per interval (live.h): --live, or -v on a terminal */
};

/** The exit codes of a batch (also documented in --help, README and nbrun.1). */
enum nb_run_exit {
	NB_EXIT_OK = 0,              /* every run measured */
	NB_EXIT_CASES_FAILED = 1,    /* some runs failed (recorded, the batch went on) */
	NB_EXIT_USAGE = 2,           /* bad input: config, command line, a used --out */
	NB_EXIT_PEER = 3,            /* the peer is unreachable, or died mid-run */
	NB_EXIT_WRITE = 4,           /* a results file could not be written (disk full, read-only) */
	NB_EXIT_CHECK = 5,           /* the check found something an end lacks */
	NB_EXIT_BUSY = 6,            /* the agent stayed busy with other batches: its queue was
					full, or --queue-timeout passed while this one waited */
	NB_EXIT_SIGNAL = 128,        /* + the signal number: interrupted, the report was written */
};

/** The peers a config's `paths:` name, for a run without --peer (peers holds NB_PATHS_MAX):
 *  every planned case's paths, from local and the same in every case (else false, err at the
 *  test's line); *npeers = 0 when no case names paths. */
bool nb_batch_config_peers(const struct nb_config *cfg, const struct nb_plan *plan,
			   const char **peers, size_t *npeers, struct nb_error *err);
/** validate's notes: one line on out for each case an agent started without options refuses
 *  (above `nbrun serve`'s default limits); how many. */
size_t nb_run_note_default_limits(const struct nb_plan *plan, FILE *out);
/** Run the plan; prints progress and the results folder on stderr. NB_EXIT_SIGNAL when
 *  interrupted (the caller adds the signal number). */
enum nb_run_exit nb_run_plan(const struct nb_config *cfg, const struct nb_plan *plan,
			     const struct nb_run_opts *o, struct nb_error *err);
/** Continue the batch of results folder dir: its config.yaml (unchanged, by its sha256) and
 *  the --set/--filter of meta.json give the plan; only the case x repetition pairs without an
 *  ok row run, with fresh run ids; then summary and report are rebuilt (resume.c). */
enum nb_run_exit nb_run_resume(const char *dir, const struct nb_run_opts *o, struct nb_error *err);

#endif

/* nbrun — a swept case against the agent: every trial through nb_client_test,
 * written to runs.csv (kind "trial") and intervals.csv as it ends, and the
 * result of the sweep or search appended to sweeps.json and told on stderr. */
#ifndef NB_SWEEP_RUN_H
#define NB_SWEEP_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "client.h"
#include "csv.h"
#include "meta_json.h"
#include "runs_jsonl.h"
#include "plan.h"
#include "progress.h"
#include "sweep.h"

#define NB_SWEEP_SENTENCE_MAX 1024 /* room for a sweep's sentence (nb_sweep_sentence) */

/** One path's own part of a trial on several paths: its name, outcome and result. */
struct nb_sweep_part {
	const char *path;
	enum nb_outcome o;
	struct nb_test_result res;
};

/** One trial on several paths at once: the result over all of them into res, and each path's
 *  own into parts[0 .. *nparts) (at most NB_PATHS_MAX; the caller frees their results). */
typedef enum nb_outcome (*nb_sweep_paths_fn)(void *ctx, const struct nb_msg_setup *su,
					       struct nb_test_result *res, struct nb_sweep_part *parts,
					       size_t *nparts, struct nb_error *err);

/** What a swept case borrows from the run loop's batch. */
struct nb_sweep_env {
	struct nb_client *client;        /* the one path's agent (paths NULL) */
	nb_sweep_paths_fn paths;         /* or each trial on every path of the case: the search
					    offers every flow of every path the same rate and
					    judges the sum; a trial row for the sum (path all) and
					    one per path (no interval rows for such trials) */
	void *paths_ctx;
	uint32_t npaths;                 /* the case's paths (1 without paths) */
	struct nb_csv *runs, *intervals;
	struct nb_runs_jsonl *jsonl;     /* runs.jsonl: a record per trial */
	const char *dir;                 /* results folder: sweeps.json goes there */
	uint32_t *run_id;                /* the batch's run counter: each trial takes the next id */
	struct nb_meta *meta;            /* the batch's run counts (meta.json), one per trial */
	const atomic_bool *interrupt;    /* set by a signal: no new trial starts */
	int verbosity;                   /* < 0: quiet; 0: one line per trial and the result */
	struct nb_progress *progress;    /* lines go through it when set, else straight to stderr */
	bool *write_failed;              /* set at the first results file that cannot be written */
	struct nb_error *werr;           /* which one, and why */
};

/** Run the sweep or search of case c (the plan's repetition rep, 0-based; its rows say rep + 1). NB_OUT_PEER_LOST when the agent was
 *  lost (err says why), NB_OUT_INTERRUPTED when a signal or a write failure stopped it (its
 *  trials are kept), NB_OUT_CASE_FAILED when trials failed to run or the search could not
 *  finish, else NB_OUT_OK. */
enum nb_outcome nb_sweep_case(const struct nb_sweep_env *env, const struct nb_case *c, uint32_t rep,
			      struct nb_error *err);

/** Append the outcome of case c's sweep (repetition rep, from 1) to DIR/sweeps.json ({"sweeps": [...]}, one entry per
 *  loss goal, or one for a plain sweep); max_burst is the largest pacer burst of any trial,
 *  first_run_id the run id of its first trial. */
bool nb_sweep_record_append(const char *dir, const struct nb_case *c, uint32_t rep,
			    const struct nb_sweep_outcome *o, double max_burst, uint32_t first_run_id,
			    struct nb_error *err);
/** The sentence stating goal g's result ("id: highest rate with loss ≤ 0.1 %: 187.4 Mbit/s
 *  (lowest failing 189.2 Mbit/s, 14 trials, 2 retries, 41 s)"; where every attempt fell short,
 *  what held the sender back and what to do), or a plain sweep's summary when g is out of
 *  range. */
void nb_sweep_sentence(const struct nb_case *c, const struct nb_sweep_outcome *o, uint32_t g,
		       char *buf, size_t len);

#endif

/* nbrun — a results folder loaded into memory: plan, runs, intervals, latency
 * histograms, environment facts, meta data and sweep results, each read by the module that
 * owns its file (plan_csv, runs_csv, intervals_csv, hist_csv, env_json, meta_json,
 * sweeps_json). Strings point into the CSV tables, which live as long as the results.
 * Anything missing is "unknown", not an error: a run that crashed half-way must still be
 * reportable. */
#ifndef NB_RESULTS_H
#define NB_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cols.h"
#include "csv_read.h"
#include "env_json.h"
#include "nb_error.h"
#include "facts.h"
#include "hist.h"
#include "intervals_csv.h"
#include "meta_json.h"
#include "plan_csv.h"
#include "runs_csv.h"
#include "sweeps_json.h"

struct nb_results {
	char dir[2048];
	struct nb_csv_table plan_t, runs_t, iv_t;
	struct nb_plan_case *cases;
	size_t ncases;
	struct nb_run *runs;
	size_t nruns;
	struct nb_interval *ivals;
	size_t nivals;
	struct nb_interval **iv_sorted; /* by run, stream, time; runs index their aggregate rows */
	struct nb_run *path_runs;       /* multi-path runs: each path's own row (runs hold the sum) */
	size_t npath_runs;
	struct nb_interval *path_ivals; /* and each path's own interval rows */
	size_t npath_ivals;
	struct nb_facts local, peer;
	struct nb_env_hosts hosts; /* every agent host's facts (none in an env.json before them) */
	bool have_env;
	struct nb_meta meta;
	size_t incomplete;       /* rows skipped in plan.csv, runs.csv and intervals.csv */
	char problems[4][256];   /* first incomplete row of each file, env/meta read errors */
	size_t nproblems;
	struct nb_csv_table working_t; /* working.csv (working_csv.h), nrows 0 when none */
	struct nb_csv_table sweep_latency_t; /* sweep_latency.csv (sweep_latency_csv.h), nrows 0 when
					      none */
};

/** Load dir; false only when neither plan.csv nor runs.csv can be read. */
bool nb_results_load(const char *dir, struct nb_results *res, struct nb_error *err);
/** Free everything; a zeroed struct is fine. */
void nb_results_free(struct nb_results *res);
/** Index of the case with this id, or (size_t)-1. */
size_t nb_results_case(const struct nb_results *res, const char *case_id);
/** True for a repetition that counts in the statistics (kind run, status ok). */
bool nb_run_counts(const struct nb_run *r);

#endif

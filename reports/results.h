/* nbrun — a results folder loaded into memory: plan, runs, intervals, latency
 * histograms, environment facts and meta data. Strings point into the CSV tables,
 * which live as long as the results. Anything missing is "unknown", not an error:
 * a run that crashed half-way must still be reportable. */
#ifndef NB_RESULTS_H
#define NB_RESULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cols.h"
#include "csv_read.h"
#include "error.h"
#include "facts.h"
#include "hist.h"

/** One case of plan.csv (or made up from runs.csv when plan.csv is missing). */
struct nb_plan_case {
	const char *case_id, *test, *engine, *protocol, *direction, *wait, *repetitions, *sweep;
	double size, request, response, streams, rate;            /* NAN = not in the plan */
	double duration_s, warmup_s, omit_s, interval_s;
	bool autorep;            /* repetitions: auto... */
	uint32_t rep_min, rep_max;
	double ci_target;        /* auto: relative CI half-width (0.02) */
	bool swept;              /* the sweep column names a sweep or search */
};

/** One row of runs.csv. */
struct nb_run {
	uint32_t run_id, rep;
	const char *case_id, *test, *engine, *protocol, *kind, *status, *metric, *flags, *error,
		*started;
	double offered_rate, value;
	int metric_col;          /* nb_cols index of `metric`, -1 when unknown */
	size_t case_idx;         /* into nb_results.cases */
	struct nb_metrics m;
	struct nb_hist *hist;    /* latency/run-<id>.csv, or NULL */
	size_t iv_first, iv_n;   /* its aggregate interval rows in nb_results.iv_sorted */
};

/** One row of intervals.csv (stream -1 = all flows summed). */
struct nb_interval {
	uint32_t run_id, rep;
	int32_t stream;
	double t_start, t_end;
	bool omitted;
	struct nb_metrics m;
};

/** meta.json as far as it is known; NULL strings and complete_known=false mean unknown. */
struct nb_meta {
	const char *version, *command, *config_name, *config_sha256, *started, *finished, *peer,
		*order;
	bool complete_known, complete;
	json_t *root;            /* the whole document (borrowed by the strings above), or NULL */
};

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
	struct nb_facts local, peer;
	bool have_env;
	struct nb_meta meta;
	size_t incomplete;       /* rows skipped in plan.csv, runs.csv and intervals.csv */
	char problems[4][256];   /* first incomplete row of each file, env/meta read errors */
	size_t nproblems;
};

/** What meta.json says of one swept case (meta "sweeps": [{"case_id", "loss", "threshold",
 *  "lowest_fail", "complete", "trials", "elapsed_s"}]); NAN / false = not said. */
struct nb_sweep_result {
	double loss_target;      /* fraction (0.001 = 0.1 %) */
	double threshold;        /* highest rate that passed every trial (engine unit) */
	double lowest_fail;      /* lowest rate that failed */
	double elapsed_s;
	double trials;
	bool complete_known, complete;
	const char *status;      /* "found", "below-from", "at-or-above-to", "host-bound", "incomplete" or NULL */
	double host_bound_above; /* the sender could not offer more than this (NAN: not seen) */
};

/** Load dir; false only when neither plan.csv nor runs.csv can be read. */
bool nb_results_load(const char *dir, struct nb_results *res, struct nb_error *err);
/** Free everything; a zeroed struct is fine. */
void nb_results_free(struct nb_results *res);
/** Index of the case with this id, or (size_t)-1. */
size_t nb_results_case(const struct nb_results *res, const char *case_id);
/** True for a repetition that counts in the statistics (kind run, status ok). */
bool nb_run_counts(const struct nb_run *r);
/** Load meta.json, env.json and latency/ (part of nb_results_load); false on out of memory. */
bool nb_results_load_extras(struct nb_results *res);
/** The sweep result of case_id in meta.json; false when meta.json does not name it. */
bool nb_results_sweep(const struct nb_results *res, const char *case_id, struct nb_sweep_result *out);
/** The nth (0-based) loss goal of a searched case, in the order recorded; false past the last. */
bool nb_results_sweep_goal(const struct nb_results *res, const char *case_id, size_t nth,
			   struct nb_sweep_result *out);
/** Read a latency histogram CSV (bucket_lower_ns,count) into h (initialised here). */
bool nb_hist_csv_read(const char *path, struct nb_hist *h, struct nb_error *err);

#endif

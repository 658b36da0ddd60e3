/* nbrun — runs.csv: one row per case x repetition (or sweep trial), appended as each run ends
 * and read back by the report and compare. */
#ifndef NB_RUNS_CSV_H
#define NB_RUNS_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cols.h"
#include "csv.h"
#include "nb_error.h"
#include "hist.h"

#define NB_RUNS_CSV_FILE "runs.csv"

/** One row of runs.csv. The writer writes the columns (run_id .. started, the metrics, path); the
 *  reader fills them (strings point into the loaded table) and the fields after them. */
struct nb_run {
	uint32_t run_id;
	const char *case_id, *test, *engine, *protocol;
	uint32_t rep;            /* repetition, counted from 1 (a sweep trial: its sweep's) */
	const char *kind;       /* "run", "trial", or "pdr-latency" (a search's latency at % of PDR) */
	double offered_rate;    /* sweep trials: the offered rate (engine unit); NAN otherwise */
	const char *status;     /* "ok", "failed" or "invalid" */
	const char *metric;     /* name of the headline column (e.g. "rx_bps") */
	double value;           /* the headline value */
	const char *flags;      /* ';'-separated notes ("gro-local", "littles-law") or "" */
	const char *error;      /* why it failed, or "" */
	const char *started;    /* ISO 8601 UTC */
	struct nb_metrics m;
	const char *path;       /* NB_PATH_ALL (NULL or "" written so), or one path of a multi-path
				   run ("local->HOST"): its rows share the run's run_id */
	/* set by the reader: */
	int metric_col;          /* nb_cols index of `metric`, -1 when unknown */
	size_t case_idx;         /* into nb_results.cases */
	struct nb_hist *hist;    /* latency/run-<id>.csv, or NULL */
	size_t iv_first, iv_n;   /* its aggregate interval rows in nb_results.iv_sorted */
};

/** Whether a row of this kind is part of a sweep ("trial", "pdr-latency"), never one of its case's
 *  repetitions. */
bool nb_run_kind_swept(const char *kind);
/** Open (append) DIR/runs.csv, writing its header when the file is new. */
struct nb_csv *nb_runs_csv_open(const char *dir, struct nb_error *err);
/** runs.csv's rows as JSON Lines on f (csv.h nb_csv_json): the same columns, values and number
 *  formatting, each object starting with prefix; f is not closed. */
struct nb_csv *nb_runs_csv_json(FILE *f, const char *name, const char *prefix, struct nb_error *err);
/** Append one run row. */
void nb_runs_csv_write(struct nb_csv *c, const struct nb_run *r);

#endif

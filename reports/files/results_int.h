/* nbrun — inside the results-folder modules: what nb_results_load asks of each file's owner
 * (results.c reads the CSV tables, the owners turn them and their files into nb_results), and
 * the metric columns shared by runs.csv and intervals.csv. Not for use outside reports/. */
#ifndef NB_RESULTS_INT_H
#define NB_RESULTS_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "cols.h"
#include "csv.h"
#include "csv_read.h"
#include "results.h"

/** Keep text (when not empty) as one of res's first problems. */
void nb_results_note(struct nb_results *res, const char *text);
/** True when the folder holds file (a name relative to it). */
bool nb_results_has(const struct nb_results *res, const char *file);
/** A table of its own beside runs.csv (working.csv, sweep_latency.csv) into t: none when the
 *  folder has no file, a broken one a problem note. */
void nb_results_optional_table(struct nb_results *res, const char *file, struct nb_csv_table *t);

/** plan.csv's rows into res->cases, with room for extra cases made up from runs. */
bool nb_plan_csv_load(struct nb_results *res, size_t extra);
/** The case of run: its plan.csv case, or a new one made up from the run. */
size_t nb_plan_csv_case_for_run(struct nb_results *res, const struct nb_run *run);
/** runs.csv's rows into res->runs (after nb_plan_csv_load). */
bool nb_runs_csv_load(struct nb_results *res);
/** intervals.csv's rows into res->ivals and res->iv_sorted (unsorted). */
bool nb_intervals_csv_load(struct nb_results *res);
/** meta.json into res->meta, when present (a broken one becomes a problem note). */
void nb_meta_json_load(struct nb_results *res);
/** sweeps.json's list into res->meta.root "sweeps", unless meta.json carries one. */
void nb_sweeps_json_load(struct nb_results *res);
/** working.csv's rows into res->working_t (working_csv.c): none when the file is not there. */
void nb_working_csv_load(struct nb_results *res);
/** sweep_latency.csv's rows into res->sweep_latency_t (sweep_latency_csv.c): none without it. */
void nb_sweep_latency_csv_load(struct nb_results *res);
/** env.json into res->local, res->peer and res->hosts, when present. */
void nb_env_json_load(struct nb_results *res);
/** Each run's latency/run-<id>.csv, when present; false on out of memory. */
bool nb_hist_csv_load(struct nb_results *res);

/** Open (append) DIR/file whose header is fixed[] followed by one column per metric. */
struct nb_csv *nb_cols_csv_open(const char *dir, const char *file, const char *const *fixed,
				size_t nfixed, struct nb_error *err);
/** The same columns as JSON Lines on f, each row starting with prefix (nb_csv_json). */
struct nb_csv *nb_cols_csv_json(FILE *f, const char *name, const char *const *fixed, size_t nfixed,
				const char *prefix, struct nb_error *err);
/** Write m's cells (nb_cols order), the path (NULL or "": NB_PATH_ALL) and end the row. */
void nb_cols_csv_write(struct nb_csv *c, const struct nb_metrics *m, const char *path);
/** True for a row of one path of a multi-path run (path neither empty nor NB_PATH_ALL). */
bool nb_cols_csv_is_path(const char *path);
/** Column index of each metric in t (-1: absent). */
void nb_cols_csv_map(const struct nb_csv_table *t, int map[NB_COL_COUNT]);
/** Row r's metric cells into m (NAN: empty or absent). */
void nb_cols_csv_read(const struct nb_csv_table *t, size_t r, const int map[NB_COL_COUNT],
		      struct nb_metrics *m);

#endif

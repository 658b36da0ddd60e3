/* nbrun — the results folder itself: its name (results/<config name>-<UTC timestamp>, made
 * unique, unless the user chose one), its creation with its sub-folders, and the rule that a
 * folder belongs to one batch: a folder that already holds files is in use, and only --force
 * clears the results files in it. Each file in it has its own module (config_copy, plan_csv,
 * env_json, meta_json, runs_csv, intervals_csv, hist_csv, sweeps_json; summary_csv, markdown,
 * json and chart for what the report derives). */
#ifndef NB_RESULTS_DIR_H
#define NB_RESULTS_DIR_H

#include <stdbool.h>
#include <stddef.h>

#include "nb_error.h"

/** Choose (when dir is NULL: a new results/<config name>-<UTC timestamp>, with -2, -3 ...
 *  when two batches start in the same second) and create the results folder and its latency/
 *  sub-folder; out gets its path and *made whether this call created the folder itself. */
bool nb_results_dir_create(const char *dir, const char *config_name, char *out, size_t n,
			   bool *made, struct nb_error *err);
/** Whether dir exists and holds anything; what lists a few of its entries ("runs.csv, ..."). */
bool nb_results_dir_in_use(const char *dir, char *what, size_t n);
/** Remove the files a batch writes into dir (results, latency/ and charts/ files) and their
 *  temporary files; anything else stays. */
bool nb_results_dir_clear(const char *dir, struct nb_error *err);
/** nb_results_dir_clear, then remove the sub-folders and dir itself when they are empty (a
 *  batch that ran nothing leaves no folder). */
void nb_results_dir_remove(const char *dir);

#endif

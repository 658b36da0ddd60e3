/* nbrun — the results folder itself: its name (results/<config name>-<UTC timestamp> unless
 * the user chose one) and its creation with its sub-folders. Each file in it has its own
 * module (config_copy, plan_csv, env_json, meta_json, runs_csv, intervals_csv, hist_csv,
 * sweeps_json; summary_csv, markdown, json and chart for what the report derives). */
#ifndef NB_RESULTS_DIR_H
#define NB_RESULTS_DIR_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/** Choose (when dir is NULL) and create the results folder and its latency/ sub-folder;
 *  out gets its path. */
bool nb_results_dir_create(const char *dir, const char *config_name, char *out, size_t n,
			   struct nb_error *err);

#endif

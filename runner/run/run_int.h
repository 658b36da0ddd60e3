/* nbrun — what the run loop (run.c, its rows in run_rows.c) shares with a multi-path run
 * (batch_paths_run.c). */
#ifndef NB_RUN_INT_H
#define NB_RUN_INT_H

#include <stdint.h>

#include "batch.h"
#include "progress.h"

/** The SETUP of case c for run run_id. */
void nb_run_build_setup(const struct nb_case *c, uint32_t run_id, struct nb_msg_setup *su);
/** Append a run's row (runs.csv and runs.jsonl); path NULL: the run's result, counted in meta;
 *  else one path's own row of it. rep is the plan's (0-based). */
void nb_run_write_row(struct nb_batch *b, const struct nb_case *c, uint32_t rep, const char *started,
		      enum nb_outcome o, const struct nb_test_result *res, const char *path);
/** How a run of outcome o ends in the progress count. */
enum nb_progress_end nb_run_progress_end(enum nb_outcome o);
/** A run's status ("ok", "suspect", "failed", "invalid", "interrupted") and into why its error:
 *  res->error and every finding its readings hold against it (res->verdict). */
const char *nb_run_status(enum nb_outcome o, const struct nb_test_result *res, char *why, size_t n);
/** o, or NB_OUT_CASE_FAILED for a run that measured but whose readings hold something against
 *  it (res->verdict): no result, and the batch's exit code says a run failed. */
enum nb_outcome nb_run_judged(enum nb_outcome o, const struct nb_test_result *res);
/** Stop the batch at once when a row could not be written. */
void nb_run_check_rows(struct nb_batch *b);

#endif

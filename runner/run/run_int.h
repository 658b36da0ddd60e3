/* nbrun — what the run loop (run.c) shares with its rows (run_rows.c), a case's SETUP
 * (run_setup.c) and the checks before a batch. */
#ifndef NB_RUN_INT_H
#define NB_RUN_INT_H

#include <stdint.h>

#include "batch.h"
#include "progress.h"
#include "target.h"

/** The SETUP of case c for run run_id. */
void nb_run_build_setup(const struct nb_case *c, uint32_t run_id, struct nb_msg_setup *su);
/** Append a run's row (runs.csv and runs.jsonl); path NULL: the run's result over its npaths
 *  paths, counted in meta; else one path's own row of it. rep is the plan's (0-based). */
void nb_run_write_row(struct nb_batch *b, const struct nb_case *c, uint32_t rep, const char *started,
		      enum nb_outcome o, const struct nb_test_result *res, const char *path,
		      uint32_t npaths);
/** How a run of outcome o ends in the progress count. */
enum nb_progress_end nb_run_progress_end(enum nb_outcome o);
/** A run's status ("ok", "suspect", "failed", "invalid", "interrupted") and into why its error:
 *  res->error and every finding its readings hold against it (res->verdict). */
const char *nb_run_status(enum nb_outcome o, const struct nb_test_result *res, char *why, size_t n);
/** o, or NB_OUT_CASE_FAILED for a run that measured but whose readings hold something against
 *  it (res->verdict): no result, and the batch's exit code says a run failed. */
enum nb_outcome nb_run_judged(enum nb_outcome o, const struct nb_test_result *res);
/** A working run's numbers (w) into working.csv (working_rows.c), opened on first use. rep as
 *  the files number it (1, 2 ...). */
void nb_working_rows_write(struct nb_batch *b, const struct nb_case *c, uint32_t run_id,
			   uint32_t rep, const struct nb_working_out *w);
/** Free the phase histograms a working run's numbers hold (a zeroed or unfilled one: a no-op). */
void nb_working_out_free(struct nb_working_out *w);

#endif

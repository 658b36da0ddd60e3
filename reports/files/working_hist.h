/* nbrun — latency/run-<id>-<part>.csv: a working case's probe's histogram per phase (idle,
 * ramp, loaded, after) of one run, so the report can draw each probe's idle and loaded CDF
 * from the samples themselves. One row per non-empty bucket: phase,bucket_lower_ns,count, and
 * on every row the phase's min_ns, max_ns and overflow (values above the histogram's range),
 * so a histogram read back summarizes to the same percentiles working.csv has. */
#ifndef NB_WORKING_HIST_H
#define NB_WORKING_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "nb_error.h"

/** Write DIR/latency/run-<run_id>-<part>.csv from h[i] named name[i] (NULL or empty: left
 *  out); the latency sub-folder must exist. */
bool nb_working_hist_write(const char *dir, uint32_t run_id, const char *part,
			   const char *const *name, const struct nb_hist *const *h, size_t n,
			   struct nb_error *err);
/** Add phase `phase` of DIR/latency/run-<run_id>-<part>.csv into h (nb_hist_merge's rules).
 *  False (err says why) when the file cannot be read; a phase it lacks adds nothing. */
bool nb_working_hist_add(const char *dir, uint32_t run_id, const char *part, const char *phase,
			 struct nb_hist *h, struct nb_error *err);

#endif

/* nbrun — latency/run-<id>.csv: the latency histogram of one run (bucket_lower_ns,count for
 * every non-empty bucket), written when a run that records latency ends, read back by the report. */
#ifndef NB_HIST_CSV_H
#define NB_HIST_CSV_H

#include <stdbool.h>
#include <stdint.h>

#include "nb_error.h"
#include "hist.h"

#define NB_HIST_CSV_DIR "latency"    /* the sub-folder of a results folder */

/** Write DIR/latency/run-<run_id>.csv (the sub-folder must exist). */
bool nb_hist_csv_write(const char *dir, uint32_t run_id, const struct nb_hist *h,
		       struct nb_error *err);
/** Read DIR/latency/run-<run_id>.csv into h (initialised here). The file holds bucket counts
 *  only: sum, min and max come back from the buckets, within the histogram's 1 % resolution. */
bool nb_hist_csv_read(const char *dir, uint32_t run_id, struct nb_hist *h, struct nb_error *err);

#endif

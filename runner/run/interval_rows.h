/* nbrun — writing one run's interval rows (shared by plain runs, sweep trials and the paths of
 * a multi-path run). */
#ifndef NB_INTERVAL_ROWS_H
#define NB_INTERVAL_ROWS_H

#include <stdint.h>

#include "intervals_csv.h"
#include "metrics.h"
#include "proto.h"
#include "rows.h"

/** Append interval k of a run of engine e (rows.h nb_rows_interval): one row per flow when there are several, then the
 *  summed row (stream -1, carrying the interval's latency histogram when there is one); all
 *  with path (NULL: NB_PATH_ALL). sum (may be NULL) gets the summed row's metrics. */
void nb_rows_write_interval(struct nb_rows *w, const struct nb_engine *e,
			    const struct nb_msg_setup *su, uint32_t run_id, uint32_t rep, uint32_t k,
			    const struct nb_span *span, const struct nb_hist *hist, const char *path,
			    struct nb_metrics *sum);
/** Append interval k of a multi-path run over all its paths (m: their sum): stream -1, path
 *  NB_PATH_ALL, the row the statistics use. */
void nb_rows_write_sum(struct nb_rows *w, const struct nb_engine *e, const struct nb_msg_setup *su,
		       uint32_t run_id, uint32_t rep, uint32_t k, const struct nb_metrics *m);

#endif

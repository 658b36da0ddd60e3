/* nbrun — sweep_latency.csv: a search's latency at % of its PDR rate (FD.io CSIT's "latency at
 * % PDR"; docs/config.md, sweep's latency_at; docs/reports.md). After a search that asks for it
 * has found its PDR (the relevant lower bound of its first non-zero loss goal, RFC 9971), the
 * same case runs a load at each fraction of that rate with a UDP latency probe beside it: a row
 * per fraction with the load's offered and achieved rate and loss, the probe's samples and
 * percentiles. 0 % is the probe alone (before the first load). Appended row by row as each
 * fraction ends; only a batch with such a search has the file. */
#ifndef NB_SWEEP_LATENCY_CSV_H
#define NB_SWEEP_LATENCY_CSV_H

#include <stdbool.h>
#include <stdint.h>

#include "csv.h"
#include "nb_error.h"

#define NB_SWEEP_LATENCY_CSV_FILE "sweep_latency.csv"

/** One row; a number that does not apply (the load's at 0 %) is NaN (an empty cell). Rates
 *  per flow of the load, in the search's unit (as sweeps.json's). */
struct nb_sweep_latency_row {
	uint32_t run_id, rep;          /* the run that measured it (0 % : the first load's run) */
	const char *case_id;           /* the search's case */
	const char *goal;              /* "PDR", "PDR 0.5%" (nb_mlr_goal_name) */
	double pdr_rate;               /* the goal's relevant lower bound */
	const char *unit;              /* "bit/s" or "pkt/s" */
	double pct;                    /* the fraction of pdr_rate, % */
	double offered_rate, achieved_rate, loss_pct; /* the load's (NaN at 0 %) */
	const char *probe_case_id;
	double probe_rate;             /* the probe's messages/s */
	uint64_t samples;              /* the probe's round trips in the phase */
	double p50_us, p90_us, p99_us, p999_us;
	const char *status;            /* "ok", or why the fraction measured nothing */
};

struct nb_results;
struct nb_csv_table;

#define NB_SWEEP_LATENCY_VALUES_MAX (4 * 8) /* four percentiles at NB_LATENCY_AT_MAX fractions */

/** One number of a search's latency at % of PDR as compare and export name it. */
struct nb_sweep_latency_value {
	char metric[64];          /* "pdr_latency_50pct_p50_us" (goal, fraction, percentile) */
	const char *goal;         /* "PDR" */
	double pct;               /* the fraction of the PDR rate, % */
	const char *quantile;     /* "0.5", "0.9", "0.99", "0.999" */
	double us;                /* the probe's round trip at that percentile, µs */
};

/** The numbers of case_id's first recorded repetition in res's sweep_latency.csv (the rows that
 *  measured, the percentiles they have) into out (at most max); how many. Their strings live as
 *  long as res. */
size_t nb_sweep_latency_values(const struct nb_results *res, const char *case_id,
			       struct nb_sweep_latency_value *out, size_t max);

/** Whether row r of res's sweep_latency.csv table t belongs to its search's recorded attempt:
 *  an attempt a signal cut left its rows before the one a resume ran again (run ids below that
 *  repetition's first_run_id in sweeps.json). */
bool nb_sweep_latency_row_current(const struct nb_results *res, const struct nb_csv_table *t,
				  size_t r);
/** Open DIR/sweep_latency.csv for appending (its header when new). */
struct nb_csv *nb_sweep_latency_csv_open(const char *dir, struct nb_error *err);
/** Append one row. */
void nb_sweep_latency_csv_write(struct nb_csv *c, const struct nb_sweep_latency_row *r);

#endif

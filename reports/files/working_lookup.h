/* nbrun — the numbers of working.csv (working_csv.h) as the report and compare ask them: a
 * column's mean over the counted runs of a case's part and phase, and a row's text cells. */
#ifndef NB_WORKING_LOOKUP_H
#define NB_WORKING_LOOKUP_H

#include <stddef.h>

#include "results.h"

/** The probe runs of a working case a reader looks for, probe1 .. probe16: one per probe and
 *  path (a case has at most 16 parts, its paths' loads among them). */
#define NB_WORKING_PROBE_RUNS_MAX 16

/** The mean of column col over the rows of case_id, part and phase ("" for the load's and the
 *  case's rows) whose run counts (runs.csv: kind run, status ok); NaN when none (*n: how many
 *  rows, may be NULL). */
double nb_working_csv_mean(const struct nb_results *res, const char *case_id, const char *part,
			   const char *phase, const char *col, size_t *n);
/** The values of column col over the same rows as nb_working_csv_mean, in file order, into
 *  v (at most max); returns how many. */
size_t nb_working_csv_values(const struct nb_results *res, const char *case_id, const char *part,
			     const char *phase, const char *col, double *v, size_t max);
/** Column col of the first row of case_id and part ("" when none): its part_case_id, engine,
 *  protocol, congestion. */
const char *nb_working_csv_cell(const struct nb_results *res, const char *case_id,
				const char *part, const char *col);

#endif

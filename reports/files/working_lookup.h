/* nbrun — the numbers of working.csv (working_csv.h) as the report and compare ask them: a
 * column's mean over the counted runs of a case's part and phase, and a row's text cells. */
#ifndef NB_WORKING_LOOKUP_H
#define NB_WORKING_LOOKUP_H

#include <stddef.h>

#include "results.h"

/** The mean of column col over the rows of case_id, part and phase ("" for the load's and the
 *  case's rows) whose run counts (runs.csv: kind run, status ok); NaN when none (*n: how many
 *  rows, may be NULL). */
double nb_working_csv_mean(const struct nb_results *res, const char *case_id, const char *part,
			   const char *phase, const char *col, size_t *n);
/** Column col of the first row of case_id and part ("" when none): its part_case_id, engine,
 *  protocol, congestion. */
const char *nb_working_csv_cell(const struct nb_results *res, const char *case_id,
				const char *part, const char *col);

#endif

/* nbrun — working.csv's numbers for the report and compare (see working_lookup.h): kept apart
 * from the file's owner, which the loader calls, since these ask the loaded runs. */
#include "working_lookup.h"

#include <math.h>
#include <string.h>

#include "csv_read.h"

/* The working case's own run (its probes' rows share the run id under their own cases). */
static bool counted(const struct nb_results *res, uint32_t run_id, const char *case_id)
{
	for (size_t i = 0; i < res->nruns; i++)
		if (res->runs[i].run_id == run_id && strcmp(res->runs[i].case_id, case_id) == 0)
			return nb_run_counts(&res->runs[i]);
	return false;
}

static bool row_is(const struct nb_csv_table *t, size_t r, const char *case_id, const char *part,
		   const char *phase)
{
	const char *c = nb_csv_cell(t, r, nb_csv_col(t, "case_id"));
	const char *p = nb_csv_cell(t, r, nb_csv_col(t, "part"));
	const char *h = nb_csv_cell(t, r, nb_csv_col(t, "phase"));
	return c && p && strcmp(c, case_id) == 0 && strcmp(p, part) == 0 &&
	       (!phase || (h && strcmp(h, phase) == 0));
}

size_t nb_working_csv_values(const struct nb_results *res, const char *case_id, const char *part,
			     const char *phase, const char *col, double *v, size_t max)
{
	const struct nb_csv_table *t = &res->working_t;
	int k = nb_csv_col(t, col), id = nb_csv_col(t, "run_id");
	size_t got = 0;
	for (size_t r = 0; k >= 0 && id >= 0 && r < t->nrows && got < max; r++) {
		double x = nb_csv_num_cell(t, r, k);
		if (row_is(t, r, case_id, part, phase) && isfinite(x) &&
		    counted(res, nb_csv_u32_cell(t, r, id), case_id))
			v[got++] = x;
	}
	return got;
}

double nb_working_csv_mean(const struct nb_results *res, const char *case_id, const char *part,
			   const char *phase, const char *col, size_t *n)
{
	const struct nb_csv_table *t = &res->working_t;
	int k = nb_csv_col(t, col), id = nb_csv_col(t, "run_id");
	double sum = 0;
	size_t got = 0;
	for (size_t r = 0; k >= 0 && id >= 0 && r < t->nrows; r++) {
		double v = nb_csv_num_cell(t, r, k);
		if (!row_is(t, r, case_id, part, phase) || !isfinite(v) ||
		    !counted(res, nb_csv_u32_cell(t, r, id), case_id))
			continue;
		sum += v;
		got++;
	}
	if (n)
		*n = got;
	return got ? sum / (double)got : NAN;
}

const char *nb_working_csv_cell(const struct nb_results *res, const char *case_id,
				const char *part, const char *col)
{
	const struct nb_csv_table *t = &res->working_t;
	int k = nb_csv_col(t, col);
	for (size_t r = 0; k >= 0 && r < t->nrows; r++)
		if (row_is(t, r, case_id, part, NULL)) {
			const char *v = nb_csv_cell(t, r, k);
			return v ? v : "";
		}
	return "";
}

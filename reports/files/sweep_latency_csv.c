/* sweep_latency.csv (see sweep_latency_csv.h): written row by row, read back as a table. */
#include "sweep_latency_csv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results_int.h"
#include "sweeps_json.h"

static const char *const cols[] = {
	"run_id", "case_id", "rep", "goal", "pdr_rate", "unit", "pct", "offered_rate",
	"achieved_rate", "loss_pct", "probe_case_id", "probe_rate", "samples", "p50_us", "p90_us",
	"p99_us", "p999_us", "status",
};

struct nb_csv *nb_sweep_latency_csv_open(const char *dir, struct nb_error *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, NB_SWEEP_LATENCY_CSV_FILE);
	return nb_csv_open(path, cols, sizeof(cols) / sizeof(cols[0]), err);
}

void nb_sweep_latency_csv_write(struct nb_csv *c, const struct nb_sweep_latency_row *r)
{
	nb_csv_u64(c, r->run_id);
	nb_csv_str(c, r->case_id);
	nb_csv_u64(c, r->rep);
	nb_csv_str(c, r->goal);
	nb_csv_num(c, r->pdr_rate);
	nb_csv_str(c, r->unit);
	const double v[] = { r->pct, r->offered_rate, r->achieved_rate, r->loss_pct };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		nb_csv_num(c, v[i]);
	nb_csv_str(c, r->probe_case_id);
	nb_csv_num(c, r->probe_rate);
	nb_csv_u64(c, r->samples);
	const double p[] = { r->p50_us, r->p90_us, r->p99_us, r->p999_us };
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		nb_csv_num(c, p[i]);
	nb_csv_str(c, r->status);
	nb_csv_end(c);
}

void nb_sweep_latency_csv_load(struct nb_results *res)
{
	nb_results_optional_table(res, NB_SWEEP_LATENCY_CSV_FILE, &res->sweep_latency_t);
}

bool nb_sweep_latency_row_current(const struct nb_results *res, const struct nb_csv_table *t,
				  size_t r)
{
	const char *id = nb_csv_cell(t, r, nb_csv_col(t, "case_id"));
	double rep = nb_csv_num_cell(t, r, nb_csv_col(t, "rep"));
	double run = nb_csv_num_cell(t, r, nb_csv_col(t, "run_id"));
	struct nb_sweep_result sw;
	for (size_t nth = 0; nb_sweeps_json_goal(res, id, nth, &sw); nth++)
		if ((double)sw.rep == rep)
			return !sw.first_run_id || run >= (double)sw.first_run_id;
	return true;
}

/* Row r's percentiles into out from *n on (at most max). */
static void row_values(const struct nb_csv_table *t, size_t r, struct nb_sweep_latency_value *out,
		       size_t *n, size_t max)
{
	static const char *const col[] = { "p50_us", "p90_us", "p99_us", "p999_us" };
	static const char *const name[] = { "p50", "p90", "p99", "p999" };
	static const char *const q[] = { "0.5", "0.9", "0.99", "0.999" };
	const char *goal = nb_csv_cell(t, r, nb_csv_col(t, "goal"));
	double pct = nb_csv_num_cell(t, r, nb_csv_col(t, "pct"));
	char key[32];
	nb_sweep_goal_key(goal, key, sizeof(key));
	for (size_t i = 0; i < sizeof(col) / sizeof(col[0]) && *n < max; i++) {
		double v = nb_csv_num_cell(t, r, nb_csv_col(t, col[i]));
		if (!isfinite(v))
			continue;
		struct nb_sweep_latency_value *o = &out[(*n)++];
		*o = (struct nb_sweep_latency_value){ .goal = goal, .pct = pct, .quantile = q[i],
						      .us = v };
		snprintf(o->metric, sizeof(o->metric), "%s_latency_%gpct_%s_us", key, pct, name[i]);
	}
}

size_t nb_sweep_latency_values(const struct nb_results *res, const char *case_id,
			       struct nb_sweep_latency_value *out, size_t max)
{
	const struct nb_csv_table *t = &res->sweep_latency_t;
	int cid = nb_csv_col(t, "case_id"), rep = nb_csv_col(t, "rep");
	const char *first = NULL;
	size_t n = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		if (strcmp(nb_csv_cell(t, r, cid), case_id) != 0 ||
		    !nb_sweep_latency_row_current(res, t, r))
			continue;
		if (!first)
			first = nb_csv_cell(t, r, rep);
		if (strcmp(nb_csv_cell(t, r, rep), first) == 0 &&
		    strcmp(nb_csv_cell(t, r, nb_csv_col(t, "status")), "ok") == 0)
			row_values(t, r, out, &n, max);
	}
	return n;
}

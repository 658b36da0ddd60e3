/* runs.csv (see runs_csv.h): written row by row as runs end, read into nb_results.runs. */
#include "runs_csv.h"

#include <stdlib.h>
#include <string.h>

#include "results_int.h"

static const char *const fixed_cols[] = {
	"run_id", "case_id", "test", "engine", "protocol", "rep", "kind", "offered_rate",
	"status", "metric", "value", "flags", "error", "started",
};
#define NFIXED (sizeof(fixed_cols) / sizeof(fixed_cols[0]))

struct nb_csv *nb_runs_csv_open(const char *dir, struct nb_error *err)
{
	return nb_cols_csv_open(dir, NB_RUNS_CSV_FILE, fixed_cols, NFIXED, err);
}

struct nb_csv *nb_runs_csv_json(FILE *f, const char *name, const char *prefix,
				struct nb_error *err)
{
	return nb_cols_csv_json(f, name, fixed_cols, NFIXED, prefix, err);
}

void nb_runs_csv_write(struct nb_csv *c, const struct nb_run *r)
{
	nb_csv_u64(c, r->run_id);
	nb_csv_str(c, r->case_id);
	nb_csv_str(c, r->test);
	nb_csv_str(c, r->engine);
	nb_csv_str(c, r->protocol);
	nb_csv_u64(c, r->rep);
	nb_csv_str(c, r->kind);
	nb_csv_num(c, r->offered_rate);
	nb_csv_str(c, r->status);
	nb_csv_str(c, r->metric);
	nb_csv_num(c, r->value);
	nb_csv_str(c, r->flags);
	nb_csv_str(c, r->error);
	nb_csv_str(c, r->started);
	nb_cols_csv_write(c, &r->m, r->path);
}

static void read_row(struct nb_results *res, size_t r, const int map[NB_COL_COUNT],
		     struct nb_run *run)
{
	const struct nb_csv_table *t = &res->runs_t;
#define S(f) run->f = nb_csv_cell(t, r, nb_csv_col(t, #f))
	S(case_id); S(test); S(engine); S(protocol); S(kind); S(status); S(metric); S(flags);
	S(error); S(started); S(path);
#undef S
	run->run_id = nb_csv_u32_cell(t, r, nb_csv_col(t, "run_id"));
	run->rep = nb_csv_u32_cell(t, r, nb_csv_col(t, "rep"));
	run->offered_rate = nb_csv_num_cell(t, r, nb_csv_col(t, "offered_rate"));
	run->value = nb_csv_num_cell(t, r, nb_csv_col(t, "value"));
	run->metric_col = nb_col_find(run->metric);
	nb_cols_csv_read(t, r, map, &run->m);
	run->case_idx = nb_plan_csv_case_for_run(res, run);
}

/* Whether a path row is a part that is a case of its own (a working case's probe: path
 * "probe1", its own case id): no row of its run and case holds a sum over paths. */
static bool own_case_part(const struct nb_results *res, const struct nb_run *p)
{
	for (size_t i = 0; i < res->nruns; i++)
		if (res->runs[i].run_id == p->run_id && strcmp(res->runs[i].case_id, p->case_id) == 0)
			return false;
	return true;
}

/* Move the parts that are cases of their own from path_runs to runs, in file order. */
static void own_case_parts(struct nb_results *res)
{
	size_t kept = 0;
	for (size_t i = 0; i < res->npath_runs; i++) {
		if (own_case_part(res, &res->path_runs[i]))
			res->runs[res->nruns++] = res->path_runs[i];
		else
			res->path_runs[kept++] = res->path_runs[i];
	}
	res->npath_runs = kept;
}

/* The rows of one path of a multi-path run go to res->path_runs: every other reader sees the
 * runs' results over all their paths, as it always did. A working case's probe has its row under
 * its own case with its part as path and no sum row: it is a run of that case. */
bool nb_runs_csv_load(struct nb_results *res)
{
	int map[NB_COL_COUNT];
	nb_cols_csv_map(&res->runs_t, map);
	res->runs = calloc(res->runs_t.nrows + 1, sizeof(*res->runs));
	res->path_runs = calloc(res->runs_t.nrows + 1, sizeof(*res->path_runs));
	if (!res->runs || !res->path_runs)
		return false;
	for (size_t r = 0; r < res->runs_t.nrows; r++) {
		struct nb_run run;
		memset(&run, 0, sizeof(run));
		read_row(res, r, map, &run);
		if (!*run.case_id)
			continue;
		if (nb_cols_csv_is_path(run.path))
			res->path_runs[res->npath_runs++] = run;
		else
			res->runs[res->nruns++] = run;
	}
	own_case_parts(res);
	return true;
}

#include "results.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NO_CASE ((size_t)-1)

static void problem(struct nb_results *res, const char *text)
{
	if (*text && res->nproblems < sizeof(res->problems) / sizeof(res->problems[0]))
		snprintf(res->problems[res->nproblems++], sizeof(res->problems[0]), "%s", text);
}

static bool read_table(struct nb_results *res, const char *file, struct nb_csv_table *t,
		       struct nb_error *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", res->dir, file);
	if (!nb_csv_read(path, t, err))
		return false;
	res->incomplete += t->incomplete;
	problem(res, t->problem);
	return true;
}

/* "auto", "auto:3..30:2%", "auto(min 3, max 30, ci 2%)": integers give min then max,
 * a number followed by '%' gives the CI target. */
static void parse_reps(struct nb_plan_case *c)
{
	c->rep_min = 3;
	c->rep_max = 30;
	c->ci_target = 0.02;
	c->autorep = strncmp(c->repetitions, "auto", 4) == 0;
	if (!c->autorep) {
		long n = strtol(c->repetitions, NULL, 10);
		c->rep_min = c->rep_max = n > 0 ? (uint32_t)n : 1;
		return;
	}
	int k = 0;
	for (const char *p = c->repetitions + 4; *p;) {
		char *end;
		double v = strtod(p, &end);
		if (end == p || !isdigit((unsigned char)*p)) {
			p++;
			continue;
		}
		if (*end == '%')
			c->ci_target = v / 100.0;
		else if (k++ == 0)
			c->rep_min = (uint32_t)v;
		else
			c->rep_max = (uint32_t)v;
		p = end;
	}
}

static bool names_a_sweep(const char *s)
{
	static const char *const none[] = { "", "no", "none", "false", "0", "-" };
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (strcmp(s, none[i]) == 0)
			return false;
	return true;
}

static void plan_row(const struct nb_csv_table *t, size_t r, struct nb_plan_case *c)
{
#define S(f) c->f = nb_csv_cell(t, r, nb_csv_col(t, #f))
#define N(f) c->f = nb_csv_num_cell(t, r, nb_csv_col(t, #f))
	S(case_id); S(test); S(engine); S(protocol); S(direction); S(wait); S(repetitions); S(sweep);
	N(size); N(request); N(response); N(streams); N(rate);
	N(duration_s); N(warmup_s); N(omit_s); N(interval_s);
#undef S
#undef N
	parse_reps(c);
	c->swept = names_a_sweep(c->sweep);
}

static bool load_plan(struct nb_results *res, size_t extra)
{
	size_t n = res->plan_t.nrows;
	res->cases = calloc(n + extra + 1, sizeof(*res->cases));
	if (!res->cases)
		return false;
	for (size_t r = 0; r < n; r++) {
		plan_row(&res->plan_t, r, &res->cases[res->ncases]);
		if (*res->cases[res->ncases].case_id)
			res->ncases++;
	}
	return true;
}

size_t nb_results_case(const struct nb_results *res, const char *case_id)
{
	for (size_t i = 0; i < res->ncases; i++)
		if (strcmp(res->cases[i].case_id, case_id) == 0)
			return i;
	return NO_CASE;
}

/* A run whose case is not in plan.csv (or plan.csv is lost) gets a case of its own. */
static size_t case_for_run(struct nb_results *res, const struct nb_run *run)
{
	size_t i = nb_results_case(res, run->case_id);
	if (i != NO_CASE)
		return i;
	struct nb_plan_case *c = &res->cases[res->ncases];
	*c = (struct nb_plan_case){
		.case_id = run->case_id, .test = run->test, .engine = run->engine,
		.protocol = run->protocol, .direction = "", .wait = "", .repetitions = "", .sweep = "",
		.size = NAN, .request = NAN, .response = NAN, .streams = NAN, .rate = NAN,
		.duration_s = NAN, .warmup_s = NAN, .omit_s = NAN, .interval_s = NAN,
		.rep_min = 1, .rep_max = 1, .ci_target = 0.02,
		.swept = strcmp(run->kind, "trial") == 0,
	};
	return res->ncases++;
}

static void metric_map(const struct nb_csv_table *t, int map[NB_COL_COUNT])
{
	for (int i = 0; i < NB_COL_COUNT; i++)
		map[i] = nb_csv_col(t, nb_cols[i].name);
}

static void read_metrics(const struct nb_csv_table *t, size_t r, const int map[NB_COL_COUNT],
			 struct nb_metrics *m)
{
	for (int i = 0; i < NB_COL_COUNT; i++)
		m->v[i] = nb_csv_num_cell(t, r, map[i]);
}

static uint32_t u32_cell(const struct nb_csv_table *t, size_t r, int col)
{
	double v = nb_csv_num_cell(t, r, col);
	return isfinite(v) && v >= 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
}

static void run_row(struct nb_results *res, size_t r, const int map[NB_COL_COUNT], struct nb_run *run)
{
	const struct nb_csv_table *t = &res->runs_t;
#define S(f) run->f = nb_csv_cell(t, r, nb_csv_col(t, #f))
	S(case_id); S(test); S(engine); S(protocol); S(kind); S(status); S(metric); S(flags);
	S(error); S(started);
#undef S
	run->run_id = u32_cell(t, r, nb_csv_col(t, "run_id"));
	run->rep = u32_cell(t, r, nb_csv_col(t, "rep"));
	run->offered_rate = nb_csv_num_cell(t, r, nb_csv_col(t, "offered_rate"));
	run->value = nb_csv_num_cell(t, r, nb_csv_col(t, "value"));
	run->metric_col = nb_col_find(run->metric);
	read_metrics(t, r, map, &run->m);
	run->case_idx = case_for_run(res, run);
}

static bool load_runs(struct nb_results *res)
{
	int map[NB_COL_COUNT];
	metric_map(&res->runs_t, map);
	res->runs = calloc(res->runs_t.nrows + 1, sizeof(*res->runs));
	if (!res->runs)
		return false;
	for (size_t r = 0; r < res->runs_t.nrows; r++) {
		struct nb_run *run = &res->runs[res->nruns];
		run_row(res, r, map, run);
		if (*run->case_id)
			res->nruns++;
	}
	return true;
}

static bool load_intervals(struct nb_results *res)
{
	const struct nb_csv_table *t = &res->iv_t;
	int map[NB_COL_COUNT];
	metric_map(t, map);
	res->ivals = calloc(t->nrows + 1, sizeof(*res->ivals));
	res->iv_sorted = calloc(t->nrows + 1, sizeof(*res->iv_sorted));
	if (!res->ivals || !res->iv_sorted)
		return false;
	int c_run = nb_csv_col(t, "run_id"), c_rep = nb_csv_col(t, "rep");
	int c_stream = nb_csv_col(t, "stream"), c_ts = nb_csv_col(t, "t_start");
	int c_te = nb_csv_col(t, "t_end"), c_om = nb_csv_col(t, "omitted");
	for (size_t r = 0; r < t->nrows; r++) {
		struct nb_interval *iv = &res->ivals[r];
		const char *stream = nb_csv_cell(t, r, c_stream);
		iv->run_id = u32_cell(t, r, c_run);
		iv->rep = u32_cell(t, r, c_rep);
		iv->stream = strcmp(stream, "sum") == 0 ? -1 : (int32_t)strtol(stream, NULL, 10);
		iv->t_start = nb_csv_num_cell(t, r, c_ts);
		iv->t_end = nb_csv_num_cell(t, r, c_te);
		const char *om = nb_csv_cell(t, r, c_om);
		iv->omitted = strcmp(om, "1") == 0 || strcmp(om, "true") == 0;
		read_metrics(t, r, map, &iv->m);
		res->iv_sorted[r] = iv;
	}
	res->nivals = t->nrows;
	return true;
}

static int cmp_iv(const void *a, const void *b)
{
	const struct nb_interval *x = *(struct nb_interval *const *)a, *y = *(struct nb_interval *const *)b;
	if (x->run_id != y->run_id)
		return x->run_id < y->run_id ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return (x->t_start > y->t_start) - (x->t_start < y->t_start);
}

/* Each run's aggregate rows: the "sum" rows, or the rows of its lowest stream when
 * the writer recorded no sum (a single flow). */
static void index_intervals(struct nb_results *res)
{
	qsort(res->iv_sorted, res->nivals, sizeof(*res->iv_sorted), cmp_iv);
	for (size_t i = 0; i < res->nruns; i++) {
		struct nb_run *run = &res->runs[i];
		size_t lo = 0, hi = res->nivals;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (res->iv_sorted[mid]->run_id < run->run_id)
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t n = 0;
		while (lo + n < res->nivals && res->iv_sorted[lo + n]->run_id == run->run_id &&
		       res->iv_sorted[lo + n]->stream == res->iv_sorted[lo]->stream)
			n++;
		run->iv_first = lo;
		run->iv_n = n;
	}
}

bool nb_run_counts(const struct nb_run *r)
{
	return strcmp(r->kind, "trial") != 0 && strcmp(r->status, "ok") == 0;
}

static bool exists(const struct nb_results *res, const char *file)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", res->dir, file);
	return access(path, F_OK) == 0;
}

static bool load_tables(struct nb_results *res, struct nb_error *err)
{
	struct nb_error e1 = { "" }, e2 = { "" }, e3 = { "" };
	bool have_plan = exists(res, "plan.csv") && read_table(res, "plan.csv", &res->plan_t, &e1);
	bool have_runs = exists(res, "runs.csv") && read_table(res, "runs.csv", &res->runs_t, &e2);
	if (!have_plan && !have_runs)
		return nb_error_set(err, "%s: no readable plan.csv or runs.csv%s%s", res->dir,
				    *e1.msg ? " (" : "", *e1.msg ? e1.msg : "");
	problem(res, e1.msg);
	problem(res, e2.msg);
	if (exists(res, "intervals.csv") && !read_table(res, "intervals.csv", &res->iv_t, &e3))
		problem(res, e3.msg);
	return true;
}

bool nb_results_load(const char *dir, struct nb_results *res, struct nb_error *err)
{
	memset(res, 0, sizeof(*res));
	snprintf(res->dir, sizeof(res->dir), "%s", dir);
	nb_facts_init(&res->local);
	nb_facts_init(&res->peer);
	if (!load_tables(res, err)) {
		nb_results_free(res);
		return false;
	}
	bool ok = load_plan(res, res->runs_t.nrows) && load_runs(res) && load_intervals(res) &&
		  nb_results_load_extras(res);
	if (!ok) {
		nb_results_free(res);
		return nb_error_set(err, "%s: out of memory", dir);
	}
	index_intervals(res);
	return true;
}

void nb_results_free(struct nb_results *res)
{
	for (size_t i = 0; i < res->nruns; i++)
		nb_hist_destroy(res->runs[i].hist);
	free(res->runs);
	free(res->cases);
	free(res->ivals);
	free(res->iv_sorted);
	nb_csv_table_free(&res->plan_t);
	nb_csv_table_free(&res->runs_t);
	nb_csv_table_free(&res->iv_t);
	nb_facts_free(&res->local);
	nb_facts_free(&res->peer);
	if (res->meta.root)
		json_decref(res->meta.root);
	memset(res, 0, sizeof(*res));
}

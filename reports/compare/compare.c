/* nbrun — compare: loading the folders strictly, matching cases, building the rows. */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare_int.h"
#include "env_json.h"
#include "facts.h"

static bool known_file(const char *name)
{
	static const char *const files[] = { "summary.csv", "results.json", NB_RUNS_CSV_FILE,
					     NB_PLAN_CSV_FILE, "report.md", NB_ENV_JSON_FILE,
					     NB_META_JSON_FILE };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (strcmp(name, files[i]) == 0)
			return true;
	return false;
}

bool nb_cmp_resolve(const char *arg, char *dir, size_t len, struct nb_error *err)
{
	struct stat st;
	if (stat(arg, &st) != 0)
		return nb_error_errno(err, errno, "%s", arg);
	if (S_ISDIR(st.st_mode)) {
		snprintf(dir, len, "%s", arg);
	} else {
		const char *slash = strrchr(arg, '/');
		if (!known_file(slash ? slash + 1 : arg))
			return nb_error_set(err, "%s: expected a results folder or its summary.csv, "
					    "results.json or runs.csv", arg);
		if (!slash)
			snprintf(dir, len, ".");
		else
			snprintf(dir, len, "%.*s", (int)(slash == arg ? 1 : slash - arg), arg);
	}
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = '\0';
	char runs[4200];
	snprintf(runs, sizeof(runs), "%s/" NB_RUNS_CSV_FILE, dir);
	if (access(runs, R_OK) != 0)
		return nb_error_set(err, "%s: not an nbrun results folder (no readable runs.csv)", dir);
	return true;
}

/* A results folder read by compare must be whole: a truncated or malformed row is an
 * input error (exit 2), because a silently shorter baseline would move the gate. */
static bool check_rows(const struct nb_results *res, struct nb_error *err)
{
	if (res->plan_t.incomplete)
		return nb_error_set(err, "%s/%s", res->dir, res->plan_t.problem);
	if (res->runs_t.incomplete)
		return nb_error_set(err, "%s/%s", res->dir, res->runs_t.problem);
	static const char *const need[] = { "case_id", "kind", "status", "metric", "value" };
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (nb_csv_col(&res->runs_t, need[i]) < 0)
			return nb_error_set(err, "%s/runs.csv:1: no '%s' column: not an nbrun runs.csv",
					    res->dir, need[i]);
	return true;
}

static bool counted_row(const struct nb_csv_table *t, size_t r)
{
	return !nb_run_kind_swept(nb_csv_cell(t, r, nb_csv_col(t, "kind"))) &&
	       strcmp(nb_csv_cell(t, r, nb_csv_col(t, "status")), "ok") == 0;
}

static bool check_number(const struct nb_results *res, size_t r, int col, struct nb_error *err)
{
	const struct nb_csv_table *t = &res->runs_t;
	const char *s = nb_csv_cell(t, r, col);
	if (*s && isnan(nb_csv_num_cell(t, r, col)) && strcasecmp(s, "nan") != 0)
		return nb_error_set(err, "%s/runs.csv:%zu: %s '%.40s' is not a number", res->dir,
				    t->rows[r].line, t->hdr[col], s);
	return true;
}

static bool is_all(const char *metric)
{
	return strcmp(metric, NB_CMP_METRIC_ALL) == 0;
}

/* Every counted repetition's value in one column (a --metric, or "value") must be a number
 * or empty. */
static bool check_column(const struct nb_results *res, const char *name, struct nb_error *err)
{
	const struct nb_csv_table *t = &res->runs_t;
	int col = nb_csv_col(t, name);
	if (col < 0)
		return nb_error_set(err, "%s/runs.csv:1: no '%s' column", res->dir, name);
	for (size_t r = 0; r < t->nrows; r++)
		if (counted_row(t, r) && !check_number(res, r, col, err))
			return false;
	return true;
}

static bool check_values(const struct nb_results *res, const struct nb_compare_opts *o,
			 struct nb_error *err)
{
	if (!check_column(res, "value", err))
		return false;
	for (size_t i = 0; i < o->nmetrics; i++)
		if (!is_all(o->metrics[i]) && !check_column(res, o->metrics[i], err))
			return false;
	return true;
}

static void base_name(const char *dir, char *out, size_t len)
{
	const char *s = strrchr(dir, '/');
	const char *name = s && s[1] ? s + 1 : dir;
	size_t n = strlen(name);
	n = n < len - 1 ? n : len - 1;
	memcpy(out, name, n);
	out[n] = '\0';
}

static void make_labels(struct nb_compare *c)
{
	for (size_t i = 0; i < c->nsides; i++) {
		char name[64];
		base_name(c->sides[i].res.dir, name, sizeof(name));
		size_t same = 0;
		for (size_t k = 0; k < i; k++) {
			char other[64];
			base_name(c->sides[k].res.dir, other, sizeof(other));
			same += strcmp(other, name) == 0;
		}
		if (same)
			snprintf(c->sides[i].label, sizeof(c->sides[i].label), "%.50s (%zu)", name,
				 same + 1);
		else
			snprintf(c->sides[i].label, sizeof(c->sides[i].label), "%s", name);
	}
}

static bool load_side(struct nb_cmp_side *s, const char *arg, const struct nb_compare_opts *o,
		      struct nb_error *err)
{
	char dir[2048];
	if (!nb_cmp_resolve(arg, dir, sizeof(dir), err))
		return false;
	if (!nb_results_load(dir, &s->res, err))
		return false;
	return check_rows(&s->res, err) && check_values(&s->res, o, err);
}

/* ---- values of one case ---- */

static double run_value(const struct nb_run *run, const char *metric, int col)
{
	if (strcmp(run->metric, metric) == 0 && isfinite(run->value))
		return run->value;
	return col >= 0 ? run->m.v[col] : NAN;
}

/* Whether run i is an attempt that stalled (status invalid) of a repetition that ran again, as
 * the batch runs a stall again (engines.md): the host's moment, neither a counted run nor a
 * failed one; the repetition's last attempt stands for it (one whose every attempt stalled is
 * one failed run). */
static bool retried(const struct nb_results *res, size_t i)
{
	const struct nb_run *a = &res->runs[i];
	if (strcmp(a->status, "invalid") != 0)
		return false;
	for (size_t j = i + 1; j < res->nruns; j++) {
		const struct nb_run *b = &res->runs[j];
		if (b->rep == a->rep && strcmp(b->case_id, a->case_id) == 0 &&
		    strcmp(b->path ? b->path : "", a->path ? a->path : "") == 0 &&
		    !nb_run_kind_swept(b->kind))
			return true;
	}
	return false;
}

/* The case's repetitions (kind run) in one folder: the counted values, sorted, and the
 * failed ones with the first error (an attempt that stalled and ran again is neither). */
static bool collect(const struct nb_results *res, const char *case_id, const char *metric, int col,
		    struct nb_cmp_sample *s)
{
	if (!nb_cmp_sample_start(s, res->nruns + 1))
		return false;
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *run = &res->runs[i];
		if (strcmp(run->case_id, case_id) != 0 || nb_run_kind_swept(run->kind) ||
		    retried(res, i))
			continue;
		s->runs++;
		if (!nb_run_counts(run)) {
			s->failed++;
			s->error = s->error ? s->error : *run->error ? run->error : NULL;
			continue;
		}
		double x = run_value(run, metric, col);
		if (isfinite(x)) {
			s->v[s->st.n] = x;
			nb_stats_add(&s->st, x);
		}
	}
	nb_cmp_sample_end(s);
	return true;
}

/* The headline metric of a case: what its first counted run (in any folder) names. */
static const char *headline(const struct nb_compare *c, const char *case_id)
{
	for (size_t s = 0; s < c->nsides; s++) {
		const struct nb_results *res = &c->sides[s].res;
		for (size_t i = 0; i < res->nruns; i++)
			if (strcmp(res->runs[i].case_id, case_id) == 0 && *res->runs[i].metric &&
			    nb_run_counts(&res->runs[i]))
				return res->runs[i].metric;
	}
	return "";
}

/* Latency, and the rate of a closed-loop (request/response) engine: their repetitions are
 * often bimodal, so the rank test decides. */
static bool rank_metric(const struct nb_plan_case *pc, int col)
{
	if (col >= 0 && strcmp(nb_cols[col].unit, "us") == 0)
		return true;
	uint64_t rate = isfinite(pc->rate) && pc->rate > 0 ? (uint64_t)pc->rate : 0;
	return col == NB_COL_TRANS_PER_S && nb_engine_closed_loop(pc->eng, rate);
}

static bool build_cell(struct nb_compare *c, const struct nb_cmp_row *row, size_t s)
{
	struct nb_cmp_cell *cell = &row->cells[s - 1];
	const struct nb_results *res = &c->sides[s].res;
	cell->present = nb_results_case(res, row->case_id) != (size_t)-1;
	nb_stats_init(&cell->s.st);
	cell->change = NAN;
	if (!cell->present)
		return true;
	if (!collect(res, row->case_id, row->metric, row->col, &cell->s))
		return false;
	nb_cmp_judge(cell, &row->base, row->col, row->rank, c->threshold);
	return nb_cmp_cell_params(c, res, row->case_id, cell);
}

static bool build_row(struct nb_compare *c, struct nb_cmp_row *row, const struct nb_plan_case *pc,
		      const char *metric)
{
	row->case_id = pc->case_id;
	row->test = pc->test;
	row->metric = metric;
	row->col = nb_col_find(row->metric);
	row->rank = rank_metric(pc, row->col);
	row->cells = calloc(c->nsides - 1, sizeof(*row->cells));
	if (!row->cells || !collect(&c->sides[0].res, row->case_id, row->metric, row->col, &row->base))
		return false;
	for (size_t s = 1; s < c->nsides; s++)
		if (!build_cell(c, row, s))
			return false;
	return true;
}

static void count_verdicts(struct nb_compare *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t s = 1; s < c->nsides; s++) {
			const struct nb_cmp_cell *cell = &c->rows[i].cells[s - 1];
			if (!cell->present)
				continue;
			c->count[cell->verdict]++;
			c->sides[s].count[cell->verdict]++;
			c->judged += cell->verdict <= NB_CMP_INCONCLUSIVE && cell->test != NB_CMP_TEST_NONE;
		}
}

static bool push_id(const char ***v, size_t *n, const char *id)
{
	const char **p = realloc(*v, (*n + 1) * sizeof(**v));
	if (!p)
		return false;
	p[(*n)++] = id;
	*v = p;
	return true;
}

static bool match_cases(struct nb_compare *c)
{
	const struct nb_results *base = &c->sides[0].res;
	for (size_t s = 1; s < c->nsides; s++) {
		struct nb_cmp_side *side = &c->sides[s];
		for (size_t i = 0; i < side->res.ncases; i++) {
			const char *id = side->res.cases[i].case_id;
			if (nb_results_case(base, id) == (size_t)-1 &&
			    !push_id(&side->only_here, &side->n_only_here, id))
				return false;
		}
		for (size_t i = 0; i < base->ncases; i++) {
			const char *id = base->cases[i].case_id;
			if (nb_results_case(&side->res, id) == (size_t)-1 &&
			    !push_id(&side->missing, &side->n_missing, id))
				return false;
		}
	}
	return true;
}

/* Whether an earlier row already compares this case on this column (--metric all with
 * --metric rx_bps: a stream case once). */
static bool have_row(const struct nb_compare *c, const char *case_id, const char *metric)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (strcmp(c->rows[i].case_id, case_id) == 0 && strcmp(c->rows[i].metric, metric) == 0)
			return true;
	return false;
}

/* One row per metric and BASE case, metric by metric: the first metric's rows are every
 * BASE case once, in order (nb_cmp_case_rows). */
static bool build_rows(struct nb_compare *c)
{
	const struct nb_results *base = &c->sides[0].res;
	size_t nm = c->nmetrics ? c->nmetrics : 1;
	c->rows = calloc(base->ncases * nm + 1, sizeof(*c->rows));
	if (!c->rows)
		return false;
	for (size_t m = 0; m < nm; m++)
		for (size_t i = 0; i < base->ncases; i++) {
			const char *id = base->cases[i].case_id;
			const char *name = c->nmetrics ? c->metrics[m] : NB_CMP_METRIC_ALL;
			const char *metric = is_all(name) ? headline(c, id) : name;
			if (m > 0 && have_row(c, id, metric))
				continue;
			if (!build_row(c, &c->rows[c->nrows++], &base->cases[i], metric))
				return false;
		}
	bool headlines = !c->nmetrics;
	for (size_t m = 0; m < c->nmetrics; m++)
		headlines |= is_all(c->metrics[m]);
	if (headlines && !nb_cmp_working_rows(c))
		return false;
	count_verdicts(c);
	return true;
}

const char *nb_cmp_single_metric(const struct nb_compare *c)
{
	if (c->nmetrics != 1 || is_all(c->metrics[0]))
		return NULL;
	return c->metrics[0];
}

/* --names A,B: one name per folder, in order. */
static bool apply_names(struct nb_compare *c, const char *names, struct nb_error *err)
{
	for (size_t i = 0; i < c->nsides; i++)
		snprintf(c->sides[i].name, sizeof(c->sides[i].name), "%s", c->sides[i].label);
	if (!names)
		return true;
	size_t count = 1;
	for (const char *p = names; *p; p++)
		count += *p == ',';
	if (count != c->nsides)
		return nb_error_set(err, "--names '%s': %zu name%s for %zu folders", names, count,
				    count == 1 ? "" : "s", c->nsides);
	const char *p = names;
	for (size_t i = 0; i < c->nsides; i++) {
		size_t n = strcspn(p, ",");
		if (n == 0 || n >= sizeof(c->sides[i].name))
			return nb_error_set(err, "--names '%s': each name 1 to 63 characters", names);
		snprintf(c->sides[i].name, sizeof(c->sides[i].name), "%.*s", (int)n, p);
		p += n + (p[n] == ',');
	}
	return true;
}

static void copy_opts(struct nb_compare *c, const struct nb_compare_opts *o)
{
	c->threshold = o->threshold;
	c->metrics = o->metrics;
	c->nmetrics = o->nmetrics;
	c->neutral = o->neutral || o->names;
	c->allow_missing = o->allow_missing;
	c->fail_on_inconclusive = o->fail_on_inconclusive;
	c->expect = o->expect;
	c->nexpect = o->nexpect;
}

bool nb_compare_build(struct nb_compare *c, const struct nb_compare_opts *o, struct nb_error *err)
{
	memset(c, 0, sizeof(*c));
	if (o->npaths < 2)
		return nb_error_set(err, "expected BASE and at least one NEW results folder");
	for (size_t i = 0; i < o->nmetrics; i++)
		if (!is_all(o->metrics[i]) && nb_col_find(o->metrics[i]) < 0)
			return nb_error_set(err, "--metric '%s': not a metric column (e.g. rx_bps, "
					    "trans_per_s, lat_p99_us, loss_pct) or all", o->metrics[i]);
	copy_opts(c, o);
	c->sides = calloc(o->npaths, sizeof(*c->sides));
	if (!c->sides)
		return nb_error_set(err, "out of memory");
	for (size_t i = 0; i < o->npaths; i++) {
		c->nsides++;
		if (!load_side(&c->sides[i], o->paths[i], o, err)) {
			nb_compare_free(c);
			return false;
		}
	}
	make_labels(c);
	if (!apply_names(c, o->names, err)) {
		nb_compare_free(c);
		return false;
	}
	if (!match_cases(c) || !nb_cmp_diff_sides(c) || !build_rows(c) || !nb_cmp_warnings(c) ||
	    !nb_cmp_find_problems(c)) {
		nb_compare_free(c);
		return nb_error_set(err, "out of memory");
	}
	return true;
}

void nb_compare_free(struct nb_compare *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		free(c->rows[i].base.v);
		for (size_t s = 1; c->rows[i].cells && s < c->nsides; s++) {
			free(c->rows[i].cells[s - 1].s.v);
			free(c->rows[i].cells[s - 1].param_diff);
		}
		free(c->rows[i].cells);
	}
	free(c->rows);
	for (size_t s = 0; s < c->nsides; s++) {
		struct nb_cmp_side *side = &c->sides[s];
		nb_results_free(&side->res);
		free(side->only_here);
		free(side->missing);
		free(side->diff);
	}
	free(c->sides);
	free(c->problems);
	memset(c, 0, sizeof(*c));
}

/* nbrun export (see export.h): loading, the output file, jsonl and csv. */
#include "export.h"

#include <math.h>
#include <string.h>

#include "afile.h"
#include "csv.h"
#include "fmt.h"
#include "runs_jsonl.h"
#include "sweep_latency_csv.h"
#include "sweeps_json.h"

static const char *const format_names[] = {
	[NB_EXPORT_PROMETHEUS] = "prometheus", [NB_EXPORT_GITHUB_BENCHMARK] = "github-benchmark",
	[NB_EXPORT_JSONL] = "jsonl", [NB_EXPORT_CSV] = "csv",
};

bool nb_export_format_parse(const char *s, enum nb_export_format *f)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (strcmp(s, format_names[i]) == 0) {
			*f = (enum nb_export_format)i;
			return true;
		}
	return false;
}

/* Every run (its result over all paths: path "all"), then each path's own rows of multi-path
 * runs (path "local->HOST"). */
static bool put_jsonl(FILE *out, const struct nb_results *res)
{
	bool ok = true;
	size_t n = res->nruns + res->npath_runs;
	for (size_t i = 0; ok && i < n; i++) {
		const struct nb_run *r = i < res->nruns ? &res->runs[i] : &res->path_runs[i - res->nruns];
		json_t *rec = nb_runs_jsonl_record(r, &res->meta);
		ok = nb_runs_jsonl_put(out, rec);
		json_decref(rec);
	}
	return ok;
}

static void put_num(FILE *out, double v)
{
	char buf[400];
	nb_fmt_num(v, buf, sizeof(buf));
	fprintf(out, ",%s", buf);
}

/* One CSV cell (RFC 4180 quoting), after a comma unless first. */
static void put_cell(FILE *out, const char *s, bool first)
{
	if (!first)
		fputc(',', out);
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++)
		fprintf(out, *s == '"' ? "\"\"" : "%c", *s);
	fputc('"', out);
}

static const char *const csv_cols[] = {
	"case_id", "test", "engine", "protocol", "metric", "unit", "better", "n", "mean", "stddev",
	"cv", "min", "median", "max", "ci95_lo", "ci95_hi",
};

static void csv_row(FILE *out, const struct nb_results *res, const struct nb_case_stats *c)
{
	const struct nb_plan_case *pc = c->pc;
	enum nb_better b = nb_export_case_better(c);
	put_cell(out, pc->case_id, true);
	put_cell(out, pc->test, false);
	put_cell(out, pc->engine, false);
	put_cell(out, pc->protocol, false);
	put_cell(out, c->metric, false);
	put_cell(out, c->metric_col >= 0 ? nb_cols[c->metric_col].unit : "", false);
	put_cell(out, b == NB_BETTER_HIGHER ? "higher" : b == NB_BETTER_LOWER ? "lower" : "", false);
	double mean = nb_stats_mean(&c->value);
	fprintf(out, ",%zu", c->value.n);
	put_num(out, mean);
	put_num(out, nb_stats_stddev(&c->value));
	put_num(out, nb_stats_cv(&c->value));
	put_num(out, c->value.n ? c->value.min : NAN);
	put_num(out, c->median);
	put_num(out, c->value.n ? c->value.max : NAN);
	put_num(out, c->ci_lo);
	put_num(out, c->ci_hi);
	for (size_t l = 0; l < res->meta.nlabels; l++)
		put_cell(out, res->meta.label_values[l], false);
	fputc('\n', out);
}

/* A number of one search (n 1, no spread) after the case's own row: a goal's conditional
 * throughput (MLRsearch, sweeps.json), better higher, or its latency at % of PDR
 * (sweep_latency.csv), better lower. */
static void csv_search_row(FILE *out, const struct nb_results *res, const struct nb_plan_case *pc,
			   const char *metric, const char *unit, const char *better, double v)
{
	put_cell(out, pc->case_id, true);
	put_cell(out, pc->test, false);
	put_cell(out, pc->engine, false);
	put_cell(out, pc->protocol, false);
	put_cell(out, metric, false);
	put_cell(out, unit, false);
	put_cell(out, better, false);
	fputs(isfinite(v) ? ",1" : ",0", out);
	put_num(out, v);
	fputs(",,,,,,,", out); /* stddev, cv, min, median, max, ci95_lo, ci95_hi: one search */
	for (size_t l = 0; l < res->meta.nlabels; l++)
		put_cell(out, res->meta.label_values[l], false);
	fputc('\n', out);
}

static bool put_csv(FILE *out, const struct nb_results *res, const struct nb_summary *s)
{
	for (size_t i = 0; i < sizeof(csv_cols) / sizeof(csv_cols[0]); i++)
		put_cell(out, csv_cols[i], i == 0);
	for (size_t l = 0; l < res->meta.nlabels; l++)
		put_cell(out, res->meta.label_keys[l], false);
	fputc('\n', out);
	for (size_t i = 0; i < s->n; i++) {
		struct nb_sweep_result g[NB_EXPORT_GOALS_MAX];
		size_t ng = nb_sweeps_json_goals(res, s->c[i].pc->case_id, g, NB_EXPORT_GOALS_MAX);
		csv_row(out, res, &s->c[i]);
		for (size_t k = 0; k < ng; k++) {
			char metric[64];
			nb_sweep_goal_metric(&g[k], metric, sizeof(metric));
			csv_search_row(out, res, s->c[i].pc, metric, g[k].unit ? g[k].unit : "",
				       "higher", g[k].conditional);
		}
		struct nb_sweep_latency_value lv[NB_SWEEP_LATENCY_VALUES_MAX];
		size_t nl = nb_sweep_latency_values(res, s->c[i].pc->case_id, lv,
						    NB_SWEEP_LATENCY_VALUES_MAX);
		for (size_t k = 0; k < nl; k++)
			csv_search_row(out, res, s->c[i].pc, lv[k].metric, "us", "lower", lv[k].us);
	}
	return true;
}

/* Which directions the folder's headlines have: "bigger", "smaller" or both. */
static enum nb_better only_direction(const struct nb_summary *s, bool *both)
{
	bool hi = false, lo = false;
	for (size_t i = 0; i < s->n; i++) {
		hi |= nb_export_case_better(&s->c[i]) == NB_BETTER_HIGHER;
		lo |= nb_export_case_better(&s->c[i]) == NB_BETTER_LOWER;
	}
	*both = hi && lo;
	return lo ? NB_BETTER_LOWER : NB_BETTER_HIGHER;
}

static bool put(FILE *out, enum nb_export_format f, const struct nb_results *res,
		const struct nb_summary *s, enum nb_better better, struct nb_error *err)
{
	size_t n;
	switch (f) {
	case NB_EXPORT_PROMETHEUS: return nb_export_prom(out, res, s);
	case NB_EXPORT_JSONL: return put_jsonl(out, res);
	case NB_EXPORT_CSV: return put_csv(out, res, s);
	case NB_EXPORT_GITHUB_BENCHMARK:
		return nb_export_gh(out, res, s, better, &n);
	}
	return nb_error_set(err, "unknown format");
}

/* Write through an afile (path) or to stdout; 4 when it cannot be written. */
static int emit(const char *path, enum nb_export_format f, const struct nb_results *res,
		const struct nb_summary *s, enum nb_better better, struct nb_error *err)
{
	struct nb_afile a;
	if (path && !nb_afile_open(&a, path, err))
		return 4;
	FILE *out = path ? a.f : stdout;
	bool ok = put(out, f, res, s, better, err);
	if (path && !ok)
		nb_afile_abort(&a);
	if (path)
		return ok && nb_afile_commit(&a, err) ? 0 : 4;
	return ok && fflush(stdout) == 0 ? 0 : (nb_error_set(err, "cannot write stdout"), 4);
}

int nb_export(const char *dir, enum nb_export_format f, enum nb_better better, const char *path,
	      struct nb_error *err)
{
	struct nb_results res;
	struct nb_summary s = { 0 };
	if (!nb_results_load(dir, &res, err))
		return 2;
	int rc = nb_summary_compute(&res, &s, err) ? 0 : 2;
	bool both = false;
	if (rc == 0 && f == NB_EXPORT_GITHUB_BENCHMARK && better == NB_BETTER_NONE)
		better = only_direction(&s, &both);
	if (both) {
		nb_error_set(err, "%s has bigger- and smaller-is-better headlines: export each with "
			     "--better bigger and --better smaller (github-action-benchmark takes one "
			     "direction per file)", dir);
		rc = 2;
	}
	if (rc == 0)
		rc = emit(path, f, &res, &s, better, err);
	nb_summary_free(&s);
	nb_results_free(&res);
	return rc;
}

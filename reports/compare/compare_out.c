/* nbrun — compare: CSV and JSON output for machines. */
#include "compare_int.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "csv.h"
#include "fmt.h"
#include "json_value.h"

static void csv_num(FILE *f, double v)
{
	char buf[400];
	nb_fmt_num(v, buf, sizeof(buf));
	fprintf(f, ",%s", buf);
}

static void csv_str(FILE *f, const char *s)
{
	fputc(',', f);
	nb_csv_quote(f, s ? s : "");
}

static void csv_sample(FILE *f, const struct nb_cmp_sample *x)
{
	fprintf(f, ",%zu", x->st.n);
	csv_num(f, nb_stats_mean(&x->st));
	csv_num(f, nb_stats_stddev(&x->st));
	csv_num(f, x->median);
}

static void csv_row(FILE *f, const struct nb_compare *c, const struct nb_cmp_row *row, size_t s)
{
	const struct nb_cmp_cell *cell = &row->cells[s - 1];
	char reason[400], verdict[96];
	nb_cmp_fmt_reason(c, row, cell, reason, sizeof(reason));
	nb_cmp_fmt_verdict(c, s, row, cell, verdict, sizeof(verdict));
	nb_csv_quote(f, row->case_id);
	csv_str(f, row->test);
	csv_str(f, row->metric);
	fprintf(f, ",%s,%s", nb_cmp_row_unit(row), nb_cmp_better_name(row->col));
	csv_str(f, c->sides[0].name);
	csv_str(f, c->sides[s].name);
	csv_sample(f, &row->base);
	csv_sample(f, &cell->s);
	csv_num(f, cell->change * 100.0);
	csv_num(f, cell->ch_lo * 100.0);
	csv_num(f, cell->ch_hi * 100.0);
	fprintf(f, ",%s", nb_cmp_test_name(cell->test));
	csv_num(f, cell->have_welch ? cell->welch.t : NAN);
	csv_num(f, cell->have_welch ? cell->welch.df : NAN);
	csv_num(f, cell->have_mw ? cell->mw.u : NAN);
	csv_num(f, cell->have_mw ? cell->mw.p : NAN);
	csv_num(f, cell->detectable * 100.0);
	csv_str(f, cell->present ? verdict : "only in base");
	csv_str(f, reason);
	csv_str(f, row->base.warn);
	csv_str(f, cell->s.warn);
	csv_str(f, cell->param_diff);
	fputc('\n', f);
}

static void csv_only_new(FILE *f, const struct nb_compare *c, size_t s, const char *id)
{
	nb_csv_quote(f, id);
	fprintf(f, ",,,,,");
	nb_csv_quote(f, c->sides[0].name);
	fputc(',', f);
	nb_csv_quote(f, c->sides[s].name);
	fprintf(f, ",0,,,,0,,,,,,,-,,,,,,only in new,not in base,,,\n");
}

bool nb_compare_write_csv(const struct nb_compare *c, FILE *f)
{
	fprintf(f, "case_id,test,metric,unit,better,base,new,base_n,base_mean,base_stddev,"
		   "base_median,new_n,new_mean,new_stddev,new_median,change_pct,ci_lo_pct,ci_hi_pct,"
		   "decided_by,welch_t,welch_df,mw_u,mw_p,detectable_pct,verdict,reason,base_warnings,"
		   "new_warnings,param_diff\n");
	for (size_t s = 1; s < c->nsides; s++) {
		for (size_t i = 0; i < c->nrows; i++)
			csv_row(f, c, &c->rows[i], s);
		for (size_t k = 0; k < c->sides[s].n_only_here; k++)
			csv_only_new(f, c, s, c->sides[s].only_here[k]);
		nb_cmp_csv_searches(c, f, s);
		nb_cmp_csv_pdr_latency(c, f, s);
	}
	return !ferror(f);
}

/* ---- JSON ---- */

static json_t *j_sample(const struct nb_cmp_sample *x)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:I, s:I, s:o}", "n", (json_int_t)x->st.n,
			 "mean", nb_json_number(nb_stats_mean(&x->st)),
			 "stddev", nb_json_number(nb_stats_stddev(&x->st)),
			 "median", nb_json_number(x->median),
			 "ci95_half", nb_json_number(nb_stats_ci95_half(&x->st)),
			 "runs", (json_int_t)x->runs, "failed", (json_int_t)x->failed,
			 "warnings", nb_json_string(x->warn));
}

static json_t *j_tests(const struct nb_cmp_cell *cell)
{
	json_t *o = json_object();
	if (cell->have_welch)
		json_object_set_new(o, "welch", json_pack("{s:o, s:o, s:o, s:o, s:o}",
			"t", nb_json_number(cell->welch.t), "df", nb_json_number(cell->welch.df),
			"t_crit", nb_json_number(cell->welch.t_crit),
			"diff_lo", nb_json_number(cell->welch.lo), "diff_hi", nb_json_number(cell->welch.hi)));
	if (cell->have_mw)
		json_object_set_new(o, "mann_whitney", json_pack("{s:o, s:o, s:b, s:o}",
			"u", nb_json_number(cell->mw.u), "p", nb_json_number(cell->mw.p),
			"exact", cell->mw.exact, "shift", nb_json_number(cell->mw.shift)));
	return o;
}

static json_t *j_cell(const struct nb_compare *c, const struct nb_cmp_row *row,
		      const struct nb_cmp_cell *cell, size_t s)
{
	if (!cell->present)
		return json_pack("{s:o, s:b}", "folder", nb_json_string(c->sides[s].name), "present", 0);
	char reason[400], sentence[600];
	nb_cmp_fmt_reason(c, row, cell, reason, sizeof(reason));
	nb_cmp_sentence(c, s, row, cell, sentence, sizeof(sentence));
	return json_pack("{s:o, s:b, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:s, s:o, s:o, s:o}",
			 "folder", nb_json_string(c->sides[s].name), "present", 1,
			 "stats", j_sample(&cell->s), "change_pct", nb_json_number(cell->change * 100.0),
			 "ci_lo_pct", nb_json_number(cell->ch_lo * 100.0),
			 "ci_hi_pct", nb_json_number(cell->ch_hi * 100.0),
			 "decided_by", nb_cmp_test_name(cell->test), "tests", j_tests(cell),
			 "detectable_pct", nb_json_number(cell->detectable * 100.0),
			 "verdict", nb_cmp_verdict_name(cell->verdict), "reason", nb_json_string(reason),
			 "sentence", nb_json_string(sentence),
			 "param_diff", cell->param_diff ? nb_json_string(cell->param_diff) : json_null());
}

static json_t *j_row(const struct nb_compare *c, const struct nb_cmp_row *row)
{
	json_t *cells = json_array();
	for (size_t s = 1; s < c->nsides; s++)
		json_array_append_new(cells, j_cell(c, row, &row->cells[s - 1], s));
	json_t *o = json_pack("{s:o, s:o, s:o, s:s, s:s, s:b, s:o, s:o}", "case_id",
			      nb_json_string(row->case_id), "test", nb_json_string(row->test),
			      "metric", nb_json_string(row->metric), "unit", nb_cmp_row_unit(row),
			      "better", nb_cmp_better_name(row->col), "rank_metric", row->rank,
			      "base", j_sample(&row->base), "new", cells);
	if (o && row->working)
		json_object_set_new(o, "working_case", nb_json_string(row->working));
	return o;
}

static json_t *j_counts(const size_t count[NB_CMP_NVERDICTS])
{
	static const char *const keys[NB_CMP_NVERDICTS] = {
		[NB_CMP_UNCHANGED] = "unchanged", [NB_CMP_REGRESSION] = "regression",
		[NB_CMP_IMPROVEMENT] = "improvement", [NB_CMP_CHANGED] = "changed",
		[NB_CMP_INCONCLUSIVE] = "inconclusive", [NB_CMP_NODATA] = "no_data",
		[NB_CMP_DIFFERENT] = "not_compared",
	};
	json_t *o = json_object();
	for (int v = 0; v < NB_CMP_NVERDICTS; v++)
		json_object_set_new(o, keys[v], json_integer((json_int_t)count[v]));
	return o;
}

static json_t *j_strings(const char *const *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, nb_json_string(v[i]));
	return a;
}

static json_t *j_diffs(const struct nb_cmp_side *side)
{
	json_t *a = json_array();
	for (size_t i = 0; i < side->ndiff; i++) {
		const struct nb_cmp_diff *d = &side->diff[i];
		json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:o, s:b}",
			"where", nb_json_string(d->where), "key", nb_json_string(d->key),
			"from", nb_json_string(d->from), "to", nb_json_string(d->to),
			"expected", d->expected));
	}
	return a;
}

static json_t *j_side(const struct nb_cmp_side *side, bool is_new)
{
	const struct nb_meta *m = &side->res.meta;
	json_t *o = json_pack("{s:o, s:o, s:o, s:b, s:o}", "label", nb_json_string(side->label),
			      "name", nb_json_string(side->name), "dir", nb_json_string(side->res.dir),
			      "have_env", side->res.have_env,
			      "complete", m->complete_known ? json_boolean(m->complete) : json_null());
	if (o && is_new) {
		json_object_set_new(o, "counts", j_counts(side->count));
		json_object_set_new(o, "only_in_base", j_strings(side->missing, side->n_missing));
		json_object_set_new(o, "only_in_new", j_strings(side->only_here, side->n_only_here));
		json_object_set_new(o, "differences", j_diffs(side));
	}
	return o;
}

static json_t *j_problems(const struct nb_compare *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->nproblems; i++) {
		const struct nb_cmp_problem *p = &c->problems[i];
		json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:o}",
			"kind", nb_cmp_problem_name(p->kind), "folder", nb_json_string(c->sides[p->side].name),
			"case_id", p->case_id ? nb_json_string(p->case_id) : json_null(),
			"text", nb_json_string(p->text)));
	}
	return a;
}

/* The --metric list as given: ["all"] when none. */
static json_t *j_metrics(const struct nb_compare *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->nmetrics; i++)
		json_array_append_new(a, nb_json_string(c->metrics[i]));
	if (c->nmetrics == 0)
		json_array_append_new(a, json_string(NB_CMP_METRIC_ALL));
	return a;
}

static json_t *j_doc(const struct nb_compare *c)
{
	char line[320];
	nb_cmp_fmt_counts(c, c->count, line, sizeof(line));
	int rc = nb_compare_exit(c);
	json_t *news = json_array(), *rows = json_array();
	for (size_t s = 1; s < c->nsides; s++)
		json_array_append_new(news, j_side(&c->sides[s], true));
	for (size_t i = 0; i < c->nrows; i++)
		json_array_append_new(rows, j_row(c, &c->rows[i]));
	return json_pack("{s:s, s:i, s:s, s:b, s:o, s:f, s:b, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
			 "s:o}",
			 "summary", line, "exit", rc, "exit_meaning", nb_cmp_exit_meaning(rc),
			 "neutral", c->neutral, "counts", j_counts(c->count),
			 "threshold_pct", c->threshold * 100.0, "conditions_differ", c->n_env_diff > 0,
			 "comparisons_judged", (json_int_t)c->judged,
			 "metric", nb_cmp_single_metric(c) ? nb_json_string(nb_cmp_single_metric(c))
					   : json_null(), "metrics", j_metrics(c),
			 "problems", j_problems(c), "base", j_side(&c->sides[0], false), "new", news,
			 "cases", rows, "searches", nb_cmp_json_searches(c),
			 "pdr_latency", nb_cmp_json_pdr_latency(c));
}

bool nb_compare_write_json(const struct nb_compare *c, FILE *f, struct nb_error *err)
{
	json_t *doc = j_doc(c);
	if (!doc)
		return nb_error_set(err, "compare: cannot build the JSON document");
	int rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
			   JSON_REAL_PRECISION(NB_FMT_DIGITS));
	json_decref(doc);
	fputc('\n', f);
	if (rc != 0 || ferror(f))
		return nb_error_set(err, "compare: cannot write the JSON document");
	return true;
}

/* nbrun — compare: CSV and JSON output for machines. */
#include "compare_int.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "csv.h"
#include "json.h"

static const char *better_name(int col)
{
	enum nb_better b = col >= 0 ? nb_cols[col].better : NB_BETTER_NONE;
	return b == NB_BETTER_HIGHER ? "higher" : b == NB_BETTER_LOWER ? "lower" : "none";
}

static void csv_num(FILE *f, double v)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, "%.9g", v);
}

static void csv_stats(FILE *f, const struct nb_stats *st)
{
	fprintf(f, ",%zu", st->n);
	csv_num(f, nb_stats_mean(st));
	csv_num(f, nb_stats_stddev(st));
}

static void csv_row(FILE *f, const struct nb_compare *c, const struct nb_cmp_row *row, size_t s)
{
	const struct nb_cmp_cell *cell = &row->cells[s - 1];
	nb_csv_quote(f, row->case_id);
	fputc(',', f);
	nb_csv_quote(f, row->test);
	fputc(',', f);
	nb_csv_quote(f, row->metric);
	fprintf(f, ",%s,%s,", nb_cmp_row_unit(row), better_name(row->col));
	nb_csv_quote(f, c->sides[0].label);
	fputc(',', f);
	nb_csv_quote(f, c->sides[s].label);
	csv_stats(f, &row->base);
	csv_stats(f, &cell->st);
	csv_num(f, cell->change * 100.0);
	bool welch = cell->test == NB_CMP_TEST_WELCH;
	fprintf(f, ",%s", cell->present ? nb_cmp_test_name(cell->test) : "-");
	csv_num(f, welch ? cell->welch.t : NAN);
	csv_num(f, welch ? cell->welch.df : NAN);
	fprintf(f, ",%d,%s,%s\n", cell->significant ? 1 : 0,
		cell->present ? nb_cmp_verdict_name(cell->verdict) : "only in base",
		cell->present ? cell->reason : "not in new");
}

static void csv_only_new(FILE *f, const struct nb_compare *c, size_t s, const char *id)
{
	nb_csv_quote(f, id);
	fprintf(f, ",,,,,");
	nb_csv_quote(f, c->sides[0].label);
	fputc(',', f);
	nb_csv_quote(f, c->sides[s].label);
	fprintf(f, ",0,,,0,,,,-,,,0,only in new,not in base\n");
}

bool nb_compare_write_csv(const struct nb_compare *c, FILE *f)
{
	fprintf(f, "case_id,test,metric,unit,better,base,new,base_n,base_mean,base_stddev,new_n,"
		   "new_mean,new_stddev,change_pct,significance_test,welch_t,welch_df,significant,"
		   "verdict,reason\n");
	for (size_t s = 1; s < c->nsides; s++) {
		for (size_t i = 0; i < c->nrows; i++)
			csv_row(f, c, &c->rows[i], s);
		for (size_t k = 0; k < c->sides[s].n_only_here; k++)
			csv_only_new(f, c, s, c->sides[s].only_here[k]);
	}
	return !ferror(f);
}

/* ---- JSON ---- */

static json_t *j_stats(const struct nb_stats *st)
{
	return json_pack("{s:I, s:o, s:o, s:o}", "n", (json_int_t)st->n, "mean",
			 nb_json_number(nb_stats_mean(st)), "stddev", nb_json_number(nb_stats_stddev(st)),
			 "ci95_half", nb_json_number(nb_stats_ci95_half(st)));
}

static json_t *j_cell(const struct nb_compare *c, const struct nb_cmp_cell *cell, size_t s)
{
	if (!cell->present)
		return json_pack("{s:o, s:b}", "folder", nb_json_string(c->sides[s].label), "present", 0);
	bool welch = cell->test == NB_CMP_TEST_WELCH;
	return json_pack("{s:o, s:b, s:o, s:o, s:s, s:o, s:o, s:b, s:s, s:s}",
			 "folder", nb_json_string(c->sides[s].label), "present", 1,
			 "stats", j_stats(&cell->st), "change_pct", nb_json_number(cell->change * 100.0),
			 "test", nb_cmp_test_name(cell->test),
			 "welch_t", nb_json_number(welch ? cell->welch.t : NAN),
			 "welch_df", nb_json_number(welch ? cell->welch.df : NAN),
			 "significant", cell->significant, "verdict", nb_cmp_verdict_name(cell->verdict),
			 "reason", cell->reason);
}

static json_t *j_row(const struct nb_compare *c, const struct nb_cmp_row *row)
{
	json_t *cells = json_array();
	for (size_t s = 1; s < c->nsides; s++)
		json_array_append_new(cells, j_cell(c, &row->cells[s - 1], s));
	return json_pack("{s:o, s:o, s:o, s:s, s:s, s:o, s:o}", "case_id", nb_json_string(row->case_id),
			 "test", nb_json_string(row->test), "metric", nb_json_string(row->metric),
			 "unit", nb_cmp_row_unit(row), "better", better_name(row->col),
			 "base", j_stats(&row->base), "new", cells);
}

static json_t *j_counts(const size_t count[NB_CMP_NVERDICTS])
{
	json_t *o = json_object();
	for (int v = 0; v < NB_CMP_NVERDICTS; v++)
		json_object_set_new(o, v == NB_CMP_NODATA ? "no_data" : nb_cmp_verdict_name(v),
				    json_integer((json_int_t)count[v]));
	return o;
}

static json_t *j_strings(const char *const *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, nb_json_string(v[i]));
	return a;
}

static json_t *j_side(const struct nb_cmp_side *side, bool is_new)
{
	json_t *o = json_pack("{s:o, s:o, s:b}", "label", nb_json_string(side->label), "dir",
			      nb_json_string(side->res.dir), "have_env", side->res.have_env);
	if (o && is_new) {
		json_object_set_new(o, "counts", j_counts(side->count));
		json_object_set_new(o, "only_in_base", j_strings(side->missing, side->n_missing));
		json_object_set_new(o, "only_in_new", j_strings(side->only_here, side->n_only_here));
		json_object_set_new(o, "env_diff", j_strings((const char *const *)side->env_diff,
							     side->n_env_diff));
	}
	return o;
}

static json_t *j_doc(const struct nb_compare *c)
{
	char line[256];
	nb_cmp_summary_line(c->count, line, sizeof(line));
	json_t *news = json_array(), *rows = json_array();
	for (size_t s = 1; s < c->nsides; s++)
		json_array_append_new(news, j_side(&c->sides[s], true));
	for (size_t i = 0; i < c->nrows; i++)
		json_array_append_new(rows, j_row(c, &c->rows[i]));
	return json_pack("{s:s, s:o, s:f, s:b, s:o, s:o, s:o, s:o}", "summary", line,
			 "counts", j_counts(c->count), "threshold_pct", c->threshold * 100.0,
			 "conditions_differ", c->n_env_diff > 0,
			 "metric", c->metric ? nb_json_string(c->metric) : json_null(),
			 "base", j_side(&c->sides[0], false), "new", news, "cases", rows);
}

bool nb_compare_write_json(const struct nb_compare *c, FILE *f, struct nb_error *err)
{
	json_t *doc = j_doc(c);
	if (!doc)
		return nb_error_set(err, "compare: cannot build the JSON document");
	int rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	fputc('\n', f);
	if (rc != 0 || ferror(f))
		return nb_error_set(err, "compare: cannot write the JSON document");
	return true;
}

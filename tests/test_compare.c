/* nbrun compare: verdicts, exit codes and reports on the fixture results folders of
 * tests/fixtures/compare (made by make.py there), and Welch's t-test against values
 * computed by hand. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "fixture_util.h"

#define P1 "tcp-stream/tcp/s128K/p1/forward"
#define P4 "tcp-stream/tcp/s128K/p4/forward"
#define UDP "udp-stream/udp/s1400/p1/forward"
#define RR "tcp-rr/tcp/r1/1/p1"
#define LAT "latency/udp/r64/64"

struct outcome {
	int rc;
	char *out, *err;
	size_t olen, elen;
};

static void fixture(const char *name, char *buf, size_t len)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "compare/%s", name);
	nbt_fixture_path(rel, buf, len);
}

/* Run `nbrun compare` on fixture folders (a name may carry "/runs.csv" and so on). */
static void compare_opts(const char *const *names, size_t n, const char *format, const char *metric,
			 const char *outfile, struct outcome *r)
{
	static char paths[8][512];
	const char *argv[8];
	for (size_t i = 0; i < n; i++) {
		fixture(names[i], paths[i], sizeof(paths[i]));
		argv[i] = paths[i];
	}
	struct nb_compare_opts o = { .paths = argv, .npaths = n, .threshold = 0.05, .metric = metric,
				     .format = format, .out = outfile };
	FILE *out = open_memstream(&r->out, &r->olen), *err = open_memstream(&r->err, &r->elen);
	cr_assert(out && err);
	r->rc = nb_compare_run(&o, out, err);
	fclose(out);
	fclose(err);
}

static void compare2(const char *base, const char *nw, struct outcome *r)
{
	const char *names[] = { base, nw };
	compare_opts(names, 2, "md", NULL, NULL, r);
}

static void outcome_free(struct outcome *r)
{
	free(r->out);
	free(r->err);
}

/* The comparison itself, for value checks. */
static void build(const char *base, const char *nw, const char *metric, struct nb_compare *c)
{
	char a[512], b[512];
	fixture(base, a, sizeof(a));
	fixture(nw, b, sizeof(b));
	const char *paths[] = { a, b };
	struct nb_compare_opts o = { .paths = paths, .npaths = 2, .threshold = 0.05, .metric = metric };
	struct nb_error err = { "" };
	cr_assert(nb_compare_build(c, &o, &err), "build: %s", err.msg);
}

static const struct nb_cmp_row *row_of(const struct nb_compare *c, const char *case_id)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (strcmp(c->rows[i].case_id, case_id) == 0)
			return &c->rows[i];
	cr_assert_fail("no row for %s", case_id);
	return NULL;
}

static void setup(void)
{
	setenv("NBRUN_GNUPLOT", "none", 1);
}

TestSuite(compare, .init = setup);

Test(compare, identical_folders_exit_0_and_all_unchanged)
{
	struct outcome r;
	compare2("base", "same", &r);
	cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
	cr_assert(strstr(r.out, "# nbrun compare\n\n0 regressions, 0 improvements, 5 unchanged\n"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "unchanged (within noise)"));
	cr_assert_null(strstr(r.out, "different conditions"));
	outcome_free(&r);
}

Test(compare, identical_means_give_zero_change_and_t_zero)
{
	struct nb_compare c;
	build("base", "same", NULL, &c);
	const struct nb_cmp_row *row = row_of(&c, P1);
	cr_assert_eq(row->base.n, 5, "the failed run must not count");
	cr_assert_eq(row->cells[0].test, NB_CMP_TEST_WELCH);
	cr_assert_float_eq(row->cells[0].change, 0.0, 1e-12);
	cr_assert_float_eq(row->cells[0].welch.t, 0.0, 1e-9);
	cr_assert_eq(c.count[NB_CMP_UNCHANGED], 5);
	nb_compare_free(&c);
}

Test(compare, a_file_inside_the_folder_names_the_folder)
{
	struct outcome r;
	compare2("base/runs.csv", "same/plan.csv", &r);
	cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
	cr_assert(strstr(r.out, "5 unchanged"));
	outcome_free(&r);
}

Test(compare, throughput_drop_of_20_percent_is_a_regression_naming_the_case)
{
	struct outcome r;
	compare2("base", "drop", &r);
	cr_assert_eq(r.rc, 1, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "regression: " P1 " (drop): rx_bps -20.0 %"), "%s", r.err);
	cr_assert(strstr(r.out, "\n1 regression, 0 improvements, 4 unchanged\n"), "%s", r.out);
	cr_assert(strstr(r.out, "## Regressions"));
	outcome_free(&r);

	struct nb_compare c;
	build("base", "drop", NULL, &c);
	const struct nb_cmp_cell *cell = &row_of(&c, P1)->cells[0];
	cr_assert_eq(cell->verdict, NB_CMP_REGRESSION);
	cr_assert_float_eq(cell->change, -0.20, 1e-9);
	cr_assert(cell->welch.t < -cell->welch.t_crit);
	nb_compare_free(&c);
}

Test(compare, three_percent_inside_the_noise_is_not_significant)
{
	struct nb_compare c;
	build("base", "noise", NULL, &c);
	const struct nb_cmp_cell *p4 = &row_of(&c, P4)->cells[0];
	cr_assert_float_eq(p4->change, -0.03, 1e-9);
	cr_assert_eq(p4->test, NB_CMP_TEST_WELCH);
	cr_assert_not(p4->significant);
	cr_assert_eq(p4->verdict, NB_CMP_UNCHANGED);
	cr_assert_str_eq(p4->reason, "within noise");
	/* The same 3 % with a tight stddev is real, but under the 5 % threshold. */
	const struct nb_cmp_cell *p1 = &row_of(&c, P1)->cells[0];
	cr_assert(p1->significant);
	cr_assert_eq(p1->verdict, NB_CMP_UNCHANGED);
	cr_assert_str_eq(p1->reason, "below threshold");
	nb_compare_free(&c);
}

Test(compare, latency_up_is_a_regression_and_rr_rate_up_an_improvement)
{
	struct nb_compare c;
	build("base", "mixed", NULL, &c);
	const struct nb_cmp_row *lat = row_of(&c, LAT), *rr = row_of(&c, RR);
	cr_assert_str_eq(lat->metric, "lat_p50_us");
	cr_assert_eq(lat->cells[0].verdict, NB_CMP_REGRESSION);
	cr_assert_float_eq(lat->cells[0].change, 0.30, 1e-9);
	cr_assert_str_eq(rr->metric, "trans_per_s");
	cr_assert_eq(rr->cells[0].verdict, NB_CMP_IMPROVEMENT);
	cr_assert_float_eq(rr->cells[0].change, 0.15, 1e-9);
	nb_compare_free(&c);

	struct outcome r;
	compare2("base", "mixed", &r);
	cr_assert_eq(r.rc, 1);
	cr_assert(strstr(r.out, "\n1 regression, 1 improvement, 3 unchanged\n"), "%s", r.out);
	cr_assert(strstr(r.err, LAT), "%s", r.err);
	outcome_free(&r);
}

Test(compare, throughput_up_is_an_improvement_and_exit_0)
{
	const char *names[] = { "base", "vendor-b" };
	struct nb_compare c;
	build(names[0], names[1], NULL, &c);
	const struct nb_cmp_cell *p1 = &row_of(&c, P1)->cells[0];
	cr_assert_eq(p1->verdict, NB_CMP_IMPROVEMENT);
	cr_assert_float_eq(p1->change, 0.12, 1e-9);
	nb_compare_free(&c);
}

Test(compare, unmatched_cases_are_listed_on_both_sides)
{
	struct outcome r;
	compare2("base", "mismatch", &r);
	cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
	cr_assert(strstr(r.out, "## Unmatched cases"), "%s", r.out);
	cr_assert(strstr(r.out, "1 case only in base, missing from `mismatch`: `" UDP "`"), "%s", r.out);
	cr_assert(strstr(r.out, "1 case only in `mismatch`: `tcp-stream/tcp/s128K/p8/forward`"));
	cr_assert(strstr(r.out, "4 unchanged"));
	outcome_free(&r);

	const char *names[] = { "base", "mismatch" };
	compare_opts(names, 2, "csv", NULL, NULL, &r);
	cr_assert(strstr(r.out, "\n" UDP ",udp-stream,rx_bps,bit/s,higher,base,mismatch,5,"), "%s", r.out);
	cr_assert(strstr(r.out, ",only in base,not in new\n"));
	cr_assert(strstr(r.out, "\ntcp-stream/tcp/s128K/p8/forward,,,,,base,mismatch,0,"));
	cr_assert(strstr(r.out, ",only in new,not in base\n"));
	outcome_free(&r);
}

Test(compare, environment_differences_are_reported_at_the_top)
{
	struct outcome r;
	compare2("base", "envdiff", &r);
	cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
	const char *warn = strstr(r.out, "results were taken under different conditions");
	const char *table = strstr(r.out, "## Results");
	cr_assert(warn && table && warn < table, "%s", r.out);
	cr_assert(strstr(r.out, "peer iface.mtu: 9001 → 1500"));
	cr_assert(strstr(r.out, "peer tcp.congestion_control: cubic → bbr"));
	cr_assert(strstr(r.out, "peer cpu.governor: unknown (not exposed: no cpufreq in this VM) → powersave"));
	cr_assert(strstr(r.out, "peer iface.offload.gro: on → off"));
	cr_assert_null(strstr(r.out, "hostname"), "host names are not conditions");
	cr_assert(strstr(r.err, "warning: results were taken under different conditions (4 environment"),
		  "%s", r.err);
	outcome_free(&r);
}

struct bad_input {
	const char *folder;
	const char *message;
};

Test(compare, bad_input_exits_2_naming_the_file_and_line)
{
	static const struct bad_input cases[] = {
		{ "corrupt", "compare/corrupt/runs.csv:5: wrong field count (20 of 63 fields)" },
		{ "badvalue", "compare/badvalue/runs.csv:4: value '4.98e8x' is not a number" },
		{ "notresult", "compare/notresult: not an nbrun results folder (no readable runs.csv)" },
		{ "absent", "compare/absent: No such file or directory" },
		{ "base/env.txt", "env.txt: No such file or directory" },
		{ "base/meta.json/x", "meta.json/x: Not a directory" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct outcome r;
		compare2("base", cases[i].folder, &r);
		cr_assert_eq(r.rc, 2, "%s: rc %d", cases[i].folder, r.rc);
		cr_assert(strstr(r.err, cases[i].message), "%s: got %s", cases[i].folder, r.err);
		cr_assert_eq(strchr(r.err, '\n'), r.err + r.elen - 1, "one line: %s", r.err);
		cr_assert_eq(r.olen, 0, "nothing written on error");
		outcome_free(&r);
	}
}

Test(compare, unknown_metric_is_a_usage_error)
{
	const char *names[] = { "base", "same" };
	struct outcome r;
	compare_opts(names, 2, "md", "rx_bpz", NULL, &r);
	cr_assert_eq(r.rc, 2);
	cr_assert(strstr(r.err, "--metric 'rx_bpz': not a metric column"), "%s", r.err);
	outcome_free(&r);
}

struct welch_case {
	double a[6], b[6];
	size_t na, nb;
	double t, df;
	bool significant;
};

/* t and df computed by hand (Python, statistics.variance) for each pair. */
Test(compare, welch_t_and_df_match_hand_computed_values)
{
	static const struct welch_case cases[] = {
		{ { 10, 12, 14 }, { 20, 21, 22, 23 }, 3, 4, 7.181324987175317, 3.234718826405868, true },
		{ { 1, 2, 3, 4, 5 }, { 1, 2, 3, 4, 5 }, 5, 5, 0.0, 8.0, false },
		{ { 100, 102, 98, 101, 99 }, { 80, 80.5, 79.5, 80.2, 79.8 }, 5, 5, -27.498066610159817,
		  4.462444337249495, true },
		{ { 5.1, 4.9 }, { 5.3, 5.5, 5.2 }, 2, 3, 2.500000000000003, 2.426540284360196, false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct welch_case *w = &cases[i];
		struct nb_stats a, b;
		nb_stats_init(&a);
		nb_stats_init(&b);
		for (size_t k = 0; k < w->na; k++)
			nb_stats_add(&a, w->a[k]);
		for (size_t k = 0; k < w->nb; k++)
			nb_stats_add(&b, w->b[k]);
		struct nb_welch out;
		cr_assert(nb_welch_test(&a, &b, &out));
		cr_assert_float_eq(out.t, w->t, 1e-9, "case %zu: t %.12g", i, out.t);
		cr_assert_float_eq(out.df, w->df, 1e-9, "case %zu: df %.12g", i, out.df);
		cr_assert_eq(out.significant, w->significant, "case %zu", i);
		size_t lo = (size_t)floor(w->df);
		cr_assert(out.t_crit <= nb_stats_t95(lo) && out.t_crit >= nb_stats_t95(lo + 1),
			  "case %zu: t_crit %g between t(%zu) and t(%zu)", i, out.t_crit, lo, lo + 1);
	}
}

Test(compare, welch_needs_two_runs_per_side_and_leaves_output_alone)
{
	struct nb_stats a, b;
	nb_stats_init(&a);
	nb_stats_init(&b);
	nb_stats_add(&a, 1.0);
	nb_stats_add(&b, 2.0);
	nb_stats_add(&b, 3.0);
	struct nb_welch out = { .t = 42.0 };
	cr_assert_not(nb_welch_test(&a, &b, &out));
	cr_assert_float_eq(out.t, 42.0, 0.0);
	cr_assert_float_eq(nb_cmp_t95(4.0), nb_stats_t95(4), 1e-12);
	cr_assert_float_eq(nb_cmp_t95(0.5), 164.55767348048853, 1e-8); /* exact, tests/tools */
}

/* Two runs against three: df 1.2 is common, and its critical value is 8.6488 (mpmath, see
 * tests/tools/t_quantile_ref.py), where interpolating between t(1) and t(2) said 9.91. */
Test(compare, welch_critical_value_is_the_exact_t_quantile_at_fractional_df)
{
	cr_assert_float_eq(nb_cmp_t95(1.2), 8.6488265107488727, 1e-9);
	cr_assert_float_eq(nb_cmp_t95(2.426540284360196), nb_stats_t_quantile(0.975, 2.426540284360196),
			   0);
	cr_assert_float_eq(nb_cmp_t95(INFINITY), 1.959963984540054, 1e-12);
}

struct judge_case {
	double base[3], nw[3];
	size_t nbase, nnew;
	int col;
	enum nb_cmp_test test;
	enum nb_cmp_verdict verdict;
	const char *reason;
};

Test(compare, judge_small_samples_and_directions)
{
	static const struct judge_case cases[] = {
		/* one run each: no spread, the threshold alone decides */
		{ { 100 }, { 80 }, 1, 1, NB_COL_RX_BPS, NB_CMP_TEST_N1, NB_CMP_REGRESSION, "n=1" },
		{ { 100 }, { 97 }, 1, 1, NB_COL_RX_BPS, NB_CMP_TEST_N1, NB_CMP_UNCHANGED, "below threshold" },
		/* one run against three: outside the 95 % prediction interval of the three? */
		{ { 100, 101, 99 }, { 90 }, 3, 1, NB_COL_RX_BPS, NB_CMP_TEST_OVERLAP, NB_CMP_REGRESSION,
		  "overlap" },
		{ { 100, 110, 90 }, { 93 }, 3, 1, NB_COL_RX_BPS, NB_CMP_TEST_OVERLAP, NB_CMP_UNCHANGED,
		  "within noise" },
		{ { 50 }, { 60, 61, 59 }, 1, 3, NB_COL_LAT_P99_US, NB_CMP_TEST_OVERLAP, NB_CMP_REGRESSION,
		  "overlap" },
		/* loss from 0: infinitely worse; a column without direction: changed */
		{ { 0, 0, 0 }, { 1, 1.2, 1.1 }, 3, 3, NB_COL_LOSS_PCT, NB_CMP_TEST_WELCH, NB_CMP_REGRESSION, "welch" },
		{ { 600, 601 }, { 900, 901 }, 2, 2, NB_COL_CWND, NB_CMP_TEST_WELCH, NB_CMP_CHANGED, "welch" },
		{ { 1, 2 }, { 0 }, 2, 0, NB_COL_RX_BPS, NB_CMP_TEST_NONE, NB_CMP_NODATA, "no value in new" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct judge_case *j = &cases[i];
		struct nb_stats base;
		struct nb_cmp_cell cell = { .present = true };
		nb_stats_init(&base);
		nb_stats_init(&cell.st);
		for (size_t k = 0; k < j->nbase; k++)
			nb_stats_add(&base, j->base[k]);
		for (size_t k = 0; k < j->nnew; k++)
			nb_stats_add(&cell.st, j->nw[k]);
		nb_cmp_judge(&cell, &base, j->col, 0.05);
		cr_assert_eq(cell.test, j->test, "case %zu: test %d", i, cell.test);
		cr_assert_eq(cell.verdict, j->verdict, "case %zu: verdict %s", i,
			     nb_cmp_verdict_name(cell.verdict));
		cr_assert_str_eq(cell.reason, j->reason, "case %zu", i);
	}
}

Test(compare, several_new_folders_get_one_column_group_each)
{
	const char *names[] = { "base", "drop", "vendor-b" };
	struct outcome r;
	compare_opts(names, 3, "md", NULL, NULL, &r);
	cr_assert_eq(r.rc, 1);
	cr_assert(strstr(r.out, "| case | metric | base | drop | change | verdict | vendor-b | change | "
			 "verdict |\n|---|---|---:|---:|---:|---|---:|---:|---|\n"), "%s", r.out);
	/* drop: p1 regression; vendor-b: p1 improvement, p4 -25 % regression */
	cr_assert(strstr(r.out, "\n2 regressions, 1 improvement, 7 unchanged\n"), "%s", r.out);
	cr_assert(strstr(r.out, "| 1 regression, 0 improvements, 4 unchanged |"));
	cr_assert(strstr(r.out, "| 1 regression, 1 improvement, 3 unchanged |"));
	cr_assert(strstr(r.err, P1 " (drop)"));
	cr_assert(strstr(r.err, P4 " (vendor-b): rx_bps -25.0 %"), "%s", r.err);
	outcome_free(&r);
}

Test(compare, json_output_carries_counts_and_welch_values)
{
	const char *names[] = { "base", "drop" };
	struct outcome r;
	compare_opts(names, 2, "json", NULL, NULL, &r);
	cr_assert_eq(r.rc, 1);
	json_error_t je;
	json_t *doc = json_loads(r.out, 0, &je);
	cr_assert(doc, "line %d: %s", je.line, je.text);
	cr_assert_str_eq(json_string_value(json_object_get(doc, "summary")),
			 "1 regression, 0 improvements, 4 unchanged");
	json_t *counts = json_object_get(doc, "counts");
	cr_assert_eq(json_integer_value(json_object_get(counts, "regression")), 1);
	json_t *p1 = json_array_get(json_object_get(doc, "cases"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(p1, "case_id")), P1);
	json_t *cell = json_array_get(json_object_get(p1, "new"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(cell, "verdict")), "regression");
	cr_assert_float_eq(json_number_value(json_object_get(cell, "change_pct")), -20.0, 1e-6);
	cr_assert(json_number_value(json_object_get(cell, "welch_t")) < -10.0);
	json_decref(doc);
	outcome_free(&r);
}

Test(compare, metric_option_compares_any_column)
{
	struct nb_compare c;
	build("base", "mixed", "lat_p99_us", &c);
	const struct nb_cmp_row *lat = row_of(&c, LAT), *rr = row_of(&c, RR), *p1 = row_of(&c, P1);
	cr_assert_eq(lat->cells[0].verdict, NB_CMP_REGRESSION);
	cr_assert_float_eq(lat->cells[0].change, 0.30, 1e-6);
	/* rr latency is 1/rate: +15 % rate is -13 % p99 */
	cr_assert_eq(rr->cells[0].verdict, NB_CMP_IMPROVEMENT);
	cr_assert_eq(p1->cells[0].verdict, NB_CMP_NODATA, "stream runs have no p99");
	cr_assert_eq(c.count[NB_CMP_NODATA], 3);
	nb_compare_free(&c);
}

Test(compare, out_file_gets_markdown_and_the_chart_data_beside_it)
{
	char dir[64];
	cr_assert(nbt_tmpdir("compare", dir, sizeof(dir)));
	char out[256], dat[300], gp[300];
	snprintf(out, sizeof(out), "%s/compare.md", dir);
	snprintf(dat, sizeof(dat), "%s/compare-charts/compare.dat", dir);
	snprintf(gp, sizeof(gp), "%s/compare-charts/compare.gp", dir);
	const char *names[] = { "base", "drop", "vendor-b" };
	struct outcome r;
	compare_opts(names, 3, "md", NULL, out, &r);
	cr_assert_eq(r.rc, 1, "%s", r.err);
	cr_assert_eq(r.olen, 0, "nothing on stdout with --out");
	char *md = nbt_slurp(out, NULL), *d = nbt_slurp(dat, NULL), *g = nbt_slurp(gp, NULL);
	cr_assert(md && d && g);
	cr_assert(strncmp(md, "# nbrun compare\n\n2 regressions", 30) == 0, "%s", md);
	cr_assert(strstr(d, "\n\"" P1 "\" 100 0.388361 80 0.310689 \"-20%\" 12986408 112 "), "%s", d);
	cr_assert(strstr(g, "'' using 8:9 title \"vendor-b\""), "%s", g);
	free(md);
	free(d);
	free(g);
	outcome_free(&r);
	nbt_rmtree(dir);
}

Test(compare, summary_line_grammar)
{
	size_t count[NB_CMP_NVERDICTS] = { [NB_CMP_REGRESSION] = 3, [NB_CMP_IMPROVEMENT] = 1,
					   [NB_CMP_UNCHANGED] = 14 };
	char buf[256];
	nb_cmp_summary_line(count, buf, sizeof(buf));
	cr_assert_str_eq(buf, "3 regressions, 1 improvement, 14 unchanged");
	count[NB_CMP_CHANGED] = 1;
	count[NB_CMP_NODATA] = 2;
	nb_cmp_summary_line(count, buf, sizeof(buf));
	cr_assert_str_eq(buf, "3 regressions, 1 improvement, 14 unchanged, 1 changed (no better "
			 "direction), 2 without data");
}

/* nbrun compare, the statistics on their own: the threshold parser, Welch's CI of a
 * difference, the Mann-Whitney test, the verdict rules and the parameter diff. Reference
 * values come from tests/fixtures/compare/reference.py (mpmath's exact Student t quantile,
 * Mann-Whitney by brute-force enumeration), never from the code under test. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* ---- the threshold ---- */

struct threshold_case {
	const char *text;
	bool ok;
	double value;       /* fraction when ok */
	const char *error;  /* part of the message when not */
};

Test(compare_stats, threshold_is_a_percentage_from_0_to_100)
{
	static const struct threshold_case cases[] = {
		{ "5%", true, 0.05, NULL },
		{ "0.5%", true, 0.005, NULL },
		{ "0%", true, 0.0, NULL },
		{ "100%", true, 1.0, NULL },
		{ "10", false, 0, "a bare number is ambiguous; write it as a percentage, e.g. 10%" },
		{ "0.05", false, 0, "a bare number is ambiguous" },
		{ "150%", false, 0, "above 100 % no change can be a regression" },
		{ "100.1%", false, 0, "above 100 %" },
		{ "-5%", false, 0, "expected a percentage from 0% to 100%" },
		{ "nan%", false, 0, "expected a percentage from 0% to 100%" },
		{ "inf%", false, 0, "expected a percentage from 0% to 100%" },
		{ "abc", false, 0, "expected a percentage from 0% to 100%" },
		{ "", false, 0, "expected a percentage from 0% to 100%" },
		{ "5%%", false, 0, "expected a percentage, e.g. 5%" },
		{ "5%x", false, 0, "expected a percentage, e.g. 5%" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double out = 42.0;
		struct nb_error err = { "" };
		bool ok = nb_cmp_parse_threshold(cases[i].text, &out, &err);
		cr_assert_eq(ok, cases[i].ok, "'%s': %s", cases[i].text, err.msg);
		if (ok) {
			cr_assert_float_eq(out, cases[i].value, 1e-15, "'%s'", cases[i].text);
			continue;
		}
		cr_assert_float_eq(out, 42.0, 0.0, "'%s': a refused threshold leaves out alone",
				   cases[i].text);
		cr_assert(strstr(err.msg, cases[i].error), "'%s': %s", cases[i].text, err.msg);
		cr_assert(strncmp(err.msg, "--threshold '", 13) == 0, "%s", err.msg);
	}
}

/* ---- Welch's CI of a difference ---- */

static void stats_of(const double *v, size_t n, struct nb_stats *s)
{
	nb_stats_init(s);
	for (size_t i = 0; i < n; i++)
		nb_stats_add(s, v[i]);
}

struct welch_case {
	double a[6], b[6];
	size_t na, nb;
	double diff, se, df, t_exact, lo, hi;   /* reference.py */
};

/* Every number exact to the reference: nb_cmp_t95 is the exact Student t quantile
 * (nb_stats_t_quantile), so the bounds are too (1e-7 of the mpmath values). */
Test(compare_stats, welch_ci_of_the_difference_matches_the_reference)
{
	static const struct welch_case cases[] = {
		{ { 100, 102, 98, 101, 99 }, { 93, 94, 92.5, 93.5, 93.2 }, 5, 5, -6.76,
		  0.750066663703967, 4.98614218185375, 2.57273217524958, -8.68972063929331,
		  -4.8302793607067 },
		{ { 10, 12, 14 }, { 20, 21, 22, 23 }, 3, 4, 9.5, 1.3228756555323, 3.23471882640587,
		  3.0557127104259, 5.45767204507697, 13.542327954923 },
		{ { 5.1, 4.9 }, { 5.3, 5.5, 5.2 }, 2, 3, 0.333333333333333, 0.133333333333333,
		  2.4265402843602, 3.65328188754536, -0.153770918339381, 0.820437585006047 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct welch_case *w = &cases[i];
		struct nb_stats a, b;
		stats_of(w->a, w->na, &a);
		stats_of(w->b, w->nb, &b);
		struct nb_welch out;
		cr_assert(nb_welch_test(&a, &b, &out));
		cr_assert_float_eq(out.diff, w->diff, 1e-9, "case %zu: diff %.15g", i, out.diff);
		cr_assert_float_eq(out.se, w->se, 1e-9, "case %zu: se %.15g", i, out.se);
		cr_assert_float_eq(out.df, w->df, 1e-9, "case %zu: df %.15g", i, out.df);
		cr_assert_float_eq(out.hi - out.lo, 2.0 * out.t_crit * out.se, 1e-9);
		cr_assert_float_eq(out.t_crit, w->t_exact, 1e-8, "case %zu: t %.12g", i, out.t_crit);
		cr_assert_float_eq(out.lo, w->lo, 1e-7, "case %zu: lo %.12g", i, out.lo);
		cr_assert_float_eq(out.hi, w->hi, 1e-7, "case %zu: hi %.12g", i, out.hi);
	}
}

/* Two runs against three: df 1.2 is common, and its critical value is 8.6488 (mpmath, see
 * tests/tools/t_quantile_ref.py), where interpolating between t(1) and t(2) said 9.91. */
Test(compare_stats, welch_critical_value_is_the_exact_t_quantile_at_fractional_df)
{
	cr_assert_float_eq(nb_cmp_t95(1.2), 8.6488265107488727, 1e-9);
	cr_assert_float_eq(nb_cmp_t95(2.426540284360196), nb_stats_t_quantile(0.975, 2.426540284360196),
			   0);
	cr_assert_float_eq(nb_cmp_t95(INFINITY), 1.959963984540054, 1e-12);
	cr_assert_float_eq(nb_cmp_t95(4.0), nb_stats_t95(4), 1e-12);
	cr_assert_float_eq(nb_cmp_t95(0.5), 164.55767348048853, 1e-8); /* exact, tests/tools */
}

Test(compare_stats, welch_needs_two_runs_per_side_and_leaves_output_alone)
{
	static const double one[] = { 1.0 }, two[] = { 2.0, 3.0 };
	struct nb_stats a, b;
	stats_of(one, 1, &a);
	stats_of(two, 2, &b);
	struct nb_welch out = { .t = 42.0 };
	cr_assert_not(nb_welch_test(&a, &b, &out));
	cr_assert_float_eq(out.t, 42.0, 0.0);
	/* one run against two: the prediction-style CI, the larger side's spread for both */
	cr_assert(nb_cmp_pred_ci(&a, &b, &out));
	cr_assert_float_eq(out.diff, 1.5, 1e-12);
	cr_assert_float_eq(out.se, sqrt(0.5) * sqrt(1.5), 1e-12, "s = 0.7071, sqrt(1 + 1/2)");
	cr_assert_float_eq(out.df, 1.0, 0.0);
	cr_assert_not(nb_cmp_pred_ci(&a, &a, &out), "one run each: no spread at all");
}

/* ---- Mann-Whitney ---- */

/* Two-sided 5 % critical values of U from the published tables (reference.py enumerates the
 * same); -1: with 3 and 3 runs even U = 0 has P = 0.05 two-sided, so no 95 % CI exists. */
Test(compare_stats, mann_whitney_critical_values_match_the_table)
{
	static const struct {
		size_t m, n;
		int c;
	} table[] = {
		{ 3, 3, -1 }, { 4, 4, 0 }, { 3, 5, 0 }, { 5, 5, 2 }, { 4, 6, 2 }, { 6, 8, 8 },
		{ 8, 6, 8 }, { 7, 9, 12 }, { 8, 8, 13 }, { 10, 10, 23 },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		cr_assert_eq(nb_mw_critical(table[i].m, table[i].n), table[i].c, "m %zu n %zu: %d",
			     table[i].m, table[i].n, nb_mw_critical(table[i].m, table[i].n));
	cr_assert_float_eq(nb_mw_cdf(2, 5, 5), 1.0 / 63.0, 1e-12, "P(U <= 2 | 5, 5) = 4/252");
	cr_assert_float_eq(nb_mw_cdf(0, 5, 5), 1.0 / 252.0, 1e-12);
	cr_assert_float_eq(nb_mw_cdf(25, 5, 5), 1.0, 1e-12);
}

Test(compare_stats, mann_whitney_separated_samples_give_the_exact_p_and_moses_ci)
{
	static const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
	struct nb_mw mw;
	cr_assert(nb_mw_test(a, 5, b, 5, &mw));
	cr_assert_float_eq(mw.u, 25.0, 0.0);
	cr_assert(mw.exact);
	cr_assert_float_eq(mw.p, 2.0 / 252.0, 1e-12);
	/* differences 1..9 (counts 1,2,3,4,5,4,3,2,1): median 5, 3rd smallest 2, 3rd largest 8 */
	cr_assert_float_eq(mw.shift, 5.0, 1e-12);
	cr_assert(mw.ci);
	cr_assert_float_eq(mw.lo, 2.0, 1e-12);
	cr_assert_float_eq(mw.hi, 8.0, 1e-12);
}

Test(compare_stats, mann_whitney_with_ties_uses_the_normal_approximation)
{
	static const double a[] = { 1, 2, 2, 3 }, b[] = { 2, 3, 3, 4 };
	struct nb_mw mw;
	cr_assert(nb_mw_test(a, 4, b, 4, &mw));
	cr_assert_not(mw.exact);
	/* b > a: 4 pairs for a = 1, 3 for each a = 2 (+ a tie), 1 for a = 3 (+ two ties): U = 13 */
	cr_assert_float_eq(mw.u, 13.0, 1e-12);
	/* ties 2,2,2 and 3,3,3: sum t³ - t = 48; variance 16/12 (9 - 48/56); z = (|13 - 8| - 0.5)/sd */
	double sd = sqrt(16.0 / 12.0 * (9.0 - 48.0 / 56.0));
	cr_assert_float_eq(mw.p, erfc(4.5 / sd / sqrt(2.0)), 1e-12);
	struct nb_mw small;
	cr_assert(nb_mw_test(a, 3, b, 3, &small));
	cr_assert_not(small.ci, "3 and 3 runs: no 95 %% CI");
}

/* ---- verdict rules ---- */

struct judge_case {
	double base[7], nw[7];
	size_t nbase, nnew;
	int col;
	bool rank;
	enum nb_cmp_test test;
	enum nb_cmp_verdict verdict;
	const char *reason;
};

static void sample_of(const double *v, size_t n, double *copy, struct nb_cmp_sample *s)
{
	memset(s, 0, sizeof(*s));
	memcpy(copy, v, n * sizeof(*v));
	nb_stats_sort(copy, n);
	s->v = copy;
	stats_of(copy, n, &s->st);
	s->median = nb_stats_percentile(copy, n, 50.0);
	s->runs = n;
}

static void judge(const struct judge_case *j, struct nb_cmp_cell *cell)
{
	static double vb[7], vn[7];
	struct nb_cmp_sample base;
	sample_of(j->base, j->nbase, vb, &base);
	memset(cell, 0, sizeof(*cell));
	cell->present = true;
	sample_of(j->nw, j->nnew, vn, &cell->s);
	nb_cmp_judge(cell, &base, j->col, j->rank, 0.05);
}

Test(compare_stats, verdict_is_read_off_the_ci_against_the_threshold)
{
	static const struct judge_case cases[] = {
		/* the whole CI below -5 % on a higher-is-better metric */
		{ { 100, 101, 99, 100.5, 99.5 }, { 90, 91, 89, 90.5, 89.5 }, 5, 5, NB_COL_RX_BPS, false,
		  NB_CMP_TEST_WELCH, NB_CMP_REGRESSION, "CI beyond threshold" },
		{ { 100, 101, 99, 100.5, 99.5 }, { 110, 111, 109, 110.5, 109.5 }, 5, 5, NB_COL_RX_BPS,
		  false, NB_CMP_TEST_WELCH, NB_CMP_IMPROVEMENT, "CI beyond threshold" },
		/* the whole CI inside +-5 %: unchanged, said with confidence */
		{ { 100, 101, 99, 100.5, 99.5 }, { 101, 102, 100, 101.5, 100.5 }, 5, 5, NB_COL_RX_BPS,
		  false, NB_CMP_TEST_WELCH, NB_CMP_UNCHANGED, "CI within threshold" },
		/* -29 % at a CV near 47 %: not "within noise" any more, inconclusive */
		{ { 100, 160, 40, 130, 70 }, { 71, 110, 30, 95, 49 }, 5, 5, NB_COL_RX_BPS, false,
		  NB_CMP_TEST_WELCH, NB_CMP_INCONCLUSIVE, "CI crosses the threshold" },
		/* real (the CI excludes 0) but it reaches inside the threshold */
		{ { 100, 100.2, 99.8 }, { 96, 94, 95 }, 3, 3, NB_COL_RX_BPS, false, NB_CMP_TEST_WELCH,
		  NB_CMP_INCONCLUSIVE, "CI crosses the threshold" },
		/* latency up is worse; a column without direction only "changed" */
		{ { 50, 51, 49 }, { 60, 61, 59 }, 3, 3, NB_COL_LAT_P99_US, false, NB_CMP_TEST_WELCH,
		  NB_CMP_REGRESSION, "CI beyond threshold" },
		{ { 600, 601 }, { 900, 901 }, 2, 2, NB_COL_CWND, false, NB_CMP_TEST_WELCH,
		  NB_CMP_CHANGED, "CI beyond threshold" },
		/* loss from 0: beyond any relative threshold, judged on the absolute CI */
		{ { 0, 0, 0 }, { 1, 1.2, 1.1 }, 3, 3, NB_COL_LOSS_PCT, false, NB_CMP_TEST_WELCH,
		  NB_CMP_REGRESSION, "base 0, CI excludes 0" },
		{ { 0, 0, 0 }, { 0, 0, 0 }, 3, 3, NB_COL_LOSS_PCT, false, NB_CMP_TEST_WELCH,
		  NB_CMP_UNCHANGED, "0 on both sides" },
		/* one run against three: the three's spread, one-run CI [-20, -10] % */
		{ { 100, 101, 99 }, { 85 }, 3, 1, NB_COL_RX_BPS, false, NB_CMP_TEST_PRED,
		  NB_CMP_REGRESSION, "CI beyond threshold" },
		{ { 100 }, { 80 }, 1, 1, NB_COL_RX_BPS, false, NB_CMP_TEST_NONE, NB_CMP_INCONCLUSIVE,
		  "one run on each side: no spread known" },
		{ { 1, 2 }, { 0 }, 2, 0, NB_COL_RX_BPS, false, NB_CMP_TEST_NONE, NB_CMP_NODATA,
		  "no value in new" },
		/* latency by ranks: shift 6 µs, Moses CI [3, 9] on a 12 µs median: +25..+75 % */
		{ { 10, 11, 12, 13, 14 }, { 16, 17, 18, 19, 20 }, 5, 5, NB_COL_LAT_P50_US, true,
		  NB_CMP_TEST_RANK, NB_CMP_REGRESSION, "CI beyond threshold" },
		/* a rank metric with 3 runs a side has no rank CI: Welch decides */
		{ { 10, 11, 12 }, { 16, 17, 18 }, 3, 3, NB_COL_LAT_P50_US, true, NB_CMP_TEST_WELCH,
		  NB_CMP_REGRESSION, "CI beyond threshold" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_cmp_cell cell;
		judge(&cases[i], &cell);
		cr_assert_eq(cell.test, cases[i].test, "case %zu: test %s", i, nb_cmp_test_name(cell.test));
		cr_assert_eq(cell.verdict, cases[i].verdict, "case %zu: verdict %s", i,
			     nb_cmp_verdict_name(cell.verdict));
		cr_assert_str_eq(cell.reason, cases[i].reason, "case %zu", i);
	}
}

Test(compare_stats, rank_verdict_numbers_match_the_reference)
{
	/* reference.py: a bimodal latency (runs at ~15 and ~80 µs), 1 of 6 slow in base, 5 of 6 in
	 * new: Hodges-Lehmann shift 64.9, Moses CI [0.3, 65.6] on a base median of 15.25 µs. */
	static const struct judge_case bimodal = {
		{ 15.1, 15.4, 15.2, 15.3, 15.0, 80.2 }, { 79.9, 80.4, 80.1, 15.6, 80.6, 81.0 }, 6, 6,
		NB_COL_LAT_P50_US, true, NB_CMP_TEST_RANK, NB_CMP_INCONCLUSIVE, "",
	};
	struct nb_cmp_cell cell;
	judge(&bimodal, &cell);
	cr_assert_eq(cell.test, NB_CMP_TEST_RANK);
	cr_assert_float_eq(cell.diff, 64.9, 1e-9);
	cr_assert_float_eq(cell.lo, 0.3, 1e-9);
	cr_assert_float_eq(cell.hi, 65.6, 1e-9);
	cr_assert_float_eq(cell.change, 64.9 / 15.25, 1e-9);
	cr_assert_float_eq(cell.ch_lo, 0.3 / 15.25, 1e-9);
	cr_assert_eq(cell.verdict, NB_CMP_INCONCLUSIVE, "+2 %% to +430 %%: crosses +5 %%");
	cr_assert(cell.have_welch, "Welch is computed beside it for the record");
}

Test(compare_stats, inconclusive_says_what_change_could_be_detected)
{
	static const struct judge_case noisy = {
		{ 100, 160, 40, 130, 70 }, { 71, 110, 30, 95, 49 }, 5, 5, NB_COL_RX_BPS, false,
		NB_CMP_TEST_WELCH, NB_CMP_INCONCLUSIVE, "",
	};
	struct nb_cmp_cell cell;
	judge(&noisy, &cell);
	/* detectable = threshold + CI half-width relative to base */
	cr_assert_float_eq(cell.detectable, 0.05 + (cell.ch_hi - cell.ch_lo) / 2.0, 1e-12);
	cr_assert_float_eq(cell.detectable, 0.05 + cell.welch.t_crit * cell.welch.se / 100.0, 1e-12);
	struct nb_compare c = { .threshold = 0.05 };
	struct nb_cmp_row row = { .metric = "rx_bps", .col = NB_COL_RX_BPS };
	double v[5];
	sample_of(noisy.base, 5, v, &row.base);
	char why[256], want[256];
	nb_cmp_fmt_reason(&c, &row, &cell, why, sizeof(why));
	snprintf(want, sizeof(want), "CV %.1f %%: changes smaller than %.1f %% cannot be detected "
		 "with n = 5/5", 100.0 * nb_stats_cv(&row.base.st), 100.0 * cell.detectable);
	cr_assert_str_eq(why, want);
	cr_assert(strstr(why, "CV 47.4 %"), "%s", why);
}

Test(compare_stats, a_zero_base_prints_the_absolute_change_not_infinity)
{
	static const struct judge_case loss = {
		{ 0, 0, 0 }, { 1, 1.2, 1.1 }, 3, 3, NB_COL_LOSS_PCT, false, NB_CMP_TEST_WELCH,
		NB_CMP_REGRESSION, "",
	};
	struct nb_cmp_cell cell;
	judge(&loss, &cell);
	struct nb_cmp_row row = { .metric = "loss_pct", .col = NB_COL_LOSS_PCT };
	char buf[64];
	nb_cmp_fmt_change(&row, &cell, buf, sizeof(buf));
	cr_assert_str_eq(buf, "+1.10 % (base 0)");
	cr_assert_null(strstr(buf, "∞"));
}

/* Two runs each of 10 and 90, then 5 and 95: Welch's CI of the change reaches -518 %, a
 * negative new value, which no metric can have. It is cut at -100 %; what the noise can
 * detect still reads the whole width. */
Test(compare_stats, a_ci_below_minus_100_percent_is_cut_there_and_says_n_too_small)
{
	static const struct judge_case wide = {
		{ 10, 90 }, { 5, 95 }, 2, 2, NB_COL_TRANS_PER_S, false, NB_CMP_TEST_WELCH,
		NB_CMP_INCONCLUSIVE, "",
	};
	struct nb_cmp_cell cell;
	judge(&wide, &cell);
	cr_assert_eq(cell.test, NB_CMP_TEST_WELCH);
	double half = cell.welch.t_crit * cell.welch.se / 50.0;
	cr_assert_gt(half, 1.0, "the t interval itself reaches below -100 %%: %g", -half);
	cr_assert(cell.clipped);
	cr_assert_float_eq(cell.ch_lo, -1.0, 0.0);
	cr_assert_float_eq(cell.lo, -50.0, 0.0);
	cr_assert_float_eq(cell.ch_hi, half, 1e-12);
	cr_assert_float_eq(cell.detectable, 0.05 + half, 1e-12);
	cr_assert_eq(cell.verdict, NB_CMP_INCONCLUSIVE);
	struct nb_cmp_row row = { .metric = "trans_per_s", .col = NB_COL_TRANS_PER_S };
	char buf[128], want[128];
	nb_cmp_fmt_change_ci(&row, &cell, buf, sizeof(buf));
	snprintf(want, sizeof(want), "0.0 %% (95 %% CI -100.0 to %+.1f %%, n too small)", half * 100.0);
	cr_assert_str_eq(buf, want);
}

/* ---- parameters ---- */

static void table(const char *text, struct nb_csv_table *t)
{
	struct nb_error err = { "" };
	cr_assert(nb_csv_parse(text, strlen(text), "plan.csv", t, &err), "%s", err.msg);
}

Test(compare_stats, parameter_diff_names_each_changed_column_in_base_order)
{
	struct nb_csv_table a, b;
	table("case_id,mss,duration_s,repetitions,window\nx,0,10,5,0\ny,0,10,5,0\n", &a);
	table("case_id,duration_s,mss,repetitions,extra\nx,1,536,3,z\ny,10,0,9,z\n", &b);
	char buf[256] = "sentinel";
	size_t expected = 0;
	cr_assert_eq(nb_cmp_param_diff(&a, &b, "x", NULL, 0, &expected, buf, sizeof(buf)), 2);
	cr_assert_str_eq(buf, "mss 0 → 536, duration_s 10 → 1");
	cr_assert_eq(expected, 0);
	/* repetitions differ (9 vs 5) but only change n; window and extra are in one file only */
	cr_assert_eq(nb_cmp_param_diff(&a, &b, "y", NULL, 0, NULL, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "");
	const char *const expect[] = { "mss" };
	cr_assert_eq(nb_cmp_param_diff(&a, &b, "x", expect, 1, &expected, buf, sizeof(buf)), 2);
	cr_assert_eq(expected, 1, "mss is declared, duration_s is not");
	cr_assert_eq(nb_cmp_param_diff(&a, &b, "nosuch", NULL, 0, NULL, buf, sizeof(buf)), 0);
	nb_csv_table_free(&a);
	nb_csv_table_free(&b);
}

Test(compare_stats, expected_keys_match_with_or_without_the_end)
{
	const char *const keys[] = { "iface.mtu", "peer.tcp.congestion_control" };
	cr_assert(nb_cmp_expected(keys, 2, "local", "iface.mtu"));
	cr_assert(nb_cmp_expected(keys, 2, "peer", "iface.mtu"));
	cr_assert(nb_cmp_expected(keys, 2, "peer", "tcp.congestion_control"));
	cr_assert_not(nb_cmp_expected(keys, 2, "local", "tcp.congestion_control"));
	cr_assert_not(nb_cmp_expected(keys, 2, "", "mtu"));
}

Test(compare_stats, summary_line_grammar)
{
	size_t count[NB_CMP_NVERDICTS] = { [NB_CMP_REGRESSION] = 3, [NB_CMP_IMPROVEMENT] = 1,
					   [NB_CMP_UNCHANGED] = 14 };
	char buf[256];
	nb_cmp_summary_line(count, buf, sizeof(buf));
	cr_assert_str_eq(buf, "3 regressions, 1 improvement, 14 unchanged");
	count[NB_CMP_INCONCLUSIVE] = 2;
	count[NB_CMP_CHANGED] = 1;
	count[NB_CMP_NODATA] = 2;
	count[NB_CMP_DIFFERENT] = 1;
	nb_cmp_summary_line(count, buf, sizeof(buf));
	cr_assert_str_eq(buf, "3 regressions, 1 improvement, 14 unchanged, 2 inconclusive, 1 changed "
			 "(no better direction), 2 without data, 1 not compared (parameters differ)");
}

Test(compare_stats, chart_folder_is_named_after_the_out_file)
{
	char dir[256];
	nb_compare_chart_dir("x/vendor.md", dir, sizeof(dir));
	cr_assert_str_eq(dir, "x/vendor-charts");
	nb_compare_chart_dir("compare.md", dir, sizeof(dir));
	cr_assert_str_eq(dir, "compare-charts");
	nb_compare_chart_dir("out/report", dir, sizeof(dir));
	cr_assert_str_eq(dir, "out/report-charts");
	nb_compare_chart_dir("a.b/c", dir, sizeof(dir));
	cr_assert_str_eq(dir, "a.b/c-charts");
}

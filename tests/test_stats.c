/* Statistics across repetitions, checked against values computed by hand. */
#include <criterion/criterion.h>
#include <math.h>

#include "stats.h"

static struct nb_stats of(const double *v, size_t n)
{
	struct nb_stats s;
	nb_stats_init(&s);
	for (size_t i = 0; i < n; i++)
		nb_stats_add(&s, v[i]);
	return s;
}

Test(stats, mean_and_sample_stddev_match_hand_computation)
{
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct nb_stats s = of(v, 8);
	cr_assert_eq(s.n, 8);
	cr_assert_float_eq(nb_stats_mean(&s), 5.0, 1e-12);
	cr_assert_float_eq(nb_stats_stddev(&s), sqrt(32.0 / 7.0), 1e-12); /* sum sq dev 32, n-1 = 7 */
	cr_assert_float_eq(nb_stats_cv(&s), sqrt(32.0 / 7.0) / 5.0, 1e-12);
	cr_assert_float_eq(s.min, 2.0, 0);
	cr_assert_float_eq(s.max, 9.0, 0);
}

Test(stats, one_sample_has_no_spread_and_no_interval)
{
	const double v[] = { 9.41e9 };
	struct nb_stats s = of(v, 1);
	cr_assert_float_eq(nb_stats_mean(&s), 9.41e9, 0);
	cr_assert(isnan(nb_stats_stddev(&s)));
	cr_assert(isnan(nb_stats_cv(&s)));
	cr_assert(isnan(nb_stats_ci95_half(&s)));
	cr_assert_not(nb_stats_ci_reached(&s, 0.5));
	cr_assert_eq(nb_stats_reps_needed(&s, 0.02, 1000), 0);
}

Test(stats, empty_mean_is_nan_and_nan_inputs_are_ignored)
{
	struct nb_stats s;
	nb_stats_init(&s);
	cr_assert(isnan(nb_stats_mean(&s)));
	nb_stats_add(&s, NAN);
	nb_stats_add(&s, INFINITY);
	nb_stats_add(&s, 3.0);
	cr_assert_eq(s.n, 1);
	cr_assert_float_eq(nb_stats_mean(&s), 3.0, 0);
}

Test(stats, welford_keeps_precision_with_a_large_offset)
{
	/* 1e9 + {4, 7, 13, 16}: mean 1e9 + 10, squared deviations 36 + 9 + 9 + 36 = 90, var 30. */
	const double v[] = { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 };
	struct nb_stats s = of(v, 4);
	cr_assert_float_eq(nb_stats_mean(&s), 1e9 + 10, 1e-6);
	cr_assert_float_eq(nb_stats_stddev(&s), sqrt(30.0), 1e-6);
}

/* Reference quantiles from tests/tools/t_quantile_ref.py: mpmath 1.3.0 at 50 digits, the
 * regularized incomplete beta (mpmath.betainc) inverted by bisection; df 1 and 2 also agree
 * with their closed forms tan(pi (p - 1/2)) and (2p - 1) sqrt(2 / (4p(1 - p))). */
static const struct { double p, df, t; } t_ref[] = {
	{ 0.975, 1, 12.706204736174705 },   { 0.975, 1.2, 8.6488265107488727 },
	{ 0.975, 2, 4.3026527297494639 },   { 0.975, 2.5, 3.5746548420036832 },
	{ 0.975, 3, 3.1824463052837096 },   { 0.975, 5, 2.5705818356363155 },
	{ 0.975, 10, 2.2281388519862747 },  { 0.975, 29, 2.0452296421327043 },
	{ 0.975, 30, 2.0422724563012383 },  { 0.975, 40.7, 2.0199931459948037 },
	{ 0.975, 120, 1.9799304050824408 }, { 0.975, 1e6, 1.959966356814107 },
	{ 0.95, 1, 6.3137515146750431 },    { 0.95, 7.3, 1.8829300179564316 },
	{ 0.995, 4, 4.6040948713499932 },   { 0.9995, 1, 636.61924876871962 },
	{ 0.6, 3, 0.27667066233268991 },    { 0.025, 1.2, -8.6488265107488727 },
	{ 0.99, 100, 2.3642173662384821 },  { 0.975, 0.5, 164.55767348048853 },
};

Test(stats, t_quantile_matches_independent_reference_values_at_real_df)
{
	for (size_t i = 0; i < sizeof(t_ref) / sizeof(t_ref[0]); i++) {
		double got = nb_stats_t_quantile(t_ref[i].p, t_ref[i].df);
		cr_assert(fabs(got - t_ref[i].t) <= 1e-10 * fabs(t_ref[i].t), "t(%g, %g) = %.17g, want %.17g",
			  t_ref[i].p, t_ref[i].df, got, t_ref[i].t);
	}
}

Test(stats, t_quantile_edges)
{
	cr_assert_float_eq(nb_stats_t_quantile(0.975, INFINITY), 1.959963984540054, 1e-12);
	cr_assert_float_eq(nb_stats_t_quantile(0.5, 3), 0.0, 0);
	cr_assert(isnan(nb_stats_t_quantile(0.975, 0)));
	cr_assert(isnan(nb_stats_t_quantile(0.975, -1)));
	cr_assert(isnan(nb_stats_t_quantile(1.0, 5)));
	cr_assert(isnan(nb_stats_t_quantile(0.0, 5)));
	cr_assert(isnan(nb_stats_t95(0)));
	cr_assert_float_eq(nb_stats_t95(2), 4.3026527297494639, 1e-12);
}

Test(stats, ci95_half_width_uses_student_t)
{
	/* 9.0, 9.3, 9.6: sd 0.3, half = t(0.975, 2) * 0.3 / sqrt(3) = 4.30265273 * 0.173205 */
	const double v[] = { 9.0, 9.3, 9.6 };
	struct nb_stats s = of(v, 3);
	cr_assert_float_eq(nb_stats_stddev(&s), 0.3, 1e-12);
	cr_assert_float_eq(nb_stats_ci95_half(&s), 4.3026527297494639 * 0.3 / sqrt(3.0), 1e-12);
}

Test(stats, percentiles_interpolate_linearly)
{
	const double v[] = { 1, 2, 3, 4 };
	cr_assert_float_eq(nb_stats_percentile(v, 4, 0), 1.0, 1e-12);
	cr_assert_float_eq(nb_stats_percentile(v, 4, 25), 1.75, 1e-12);
	cr_assert_float_eq(nb_stats_percentile(v, 4, 50), 2.5, 1e-12);
	cr_assert_float_eq(nb_stats_percentile(v, 4, 100), 4.0, 1e-12);
	cr_assert(isnan(nb_stats_percentile(v, 0, 50)));
	const double one[] = { 7 };
	cr_assert_float_eq(nb_stats_percentile(one, 1, 99), 7.0, 0);
}

/* A case with no successful run has no values: its summary sorts nothing, and passing
 * qsort a NULL array is undefined even with zero elements (UBSan in the sanitizer build). */
Test(stats, sorting_no_values_is_fine_and_leaves_nothing_to_read)
{
	nb_stats_sort(NULL, 0);
	double one = 4.0;
	nb_stats_sort(&one, 1);
	cr_assert_eq(one, 4.0);
	cr_assert(isnan(nb_stats_percentile(NULL, 0, 50.0)));
}

Test(stats, outliers_beyond_one_and_a_half_iqr_are_flagged_not_dropped)
{
	/* sorted 9.8 9.9 10 10.1 10.2 15: Q1 9.925, Q3 10.175, IQR 0.25, fences 9.55 .. 10.55 */
	const double v[] = { 10.0, 10.1, 15.0, 9.9, 10.2, 9.8 };
	bool flags[6];
	cr_assert_eq(nb_stats_outliers(v, 6, flags), 1);
	for (size_t i = 0; i < 6; i++)
		cr_assert_eq(flags[i], i == 2, "index %zu", i);
	cr_assert_float_eq(v[2], 15.0, 0); /* input untouched */
}

Test(stats, fewer_than_four_values_have_no_outliers)
{
	const double v[] = { 1, 1, 1000 };
	bool flags[3] = { true, true, true };
	cr_assert_eq(nb_stats_outliers(v, 3, flags), 0);
	cr_assert_not(flags[0] || flags[1] || flags[2]);
}

Test(stats, ci_target_rule_follows_netperf)
{
	/* 99, 100, 101: half-width 4.3027 / sqrt(3) = 2.484 = 2.48 % of the mean */
	const double v[] = { 99, 100, 101 };
	struct nb_stats s = of(v, 3);
	cr_assert_not(nb_stats_ci_reached(&s, 0.02));
	cr_assert(nb_stats_ci_reached(&s, 0.025));
	cr_assert_not(nb_stats_autorep_done(&s, 3, 30, 0.02));
	cr_assert(nb_stats_autorep_done(&s, 3, 30, 0.025));
	cr_assert(nb_stats_autorep_done(&s, 3, 3, 0.02)); /* max reached */
	struct nb_stats two = of(v, 2);                   /* 99, 100: tight but below min */
	cr_assert_not(nb_stats_autorep_done(&two, 3, 30, 1.0));
}

Test(stats, repetitions_needed_for_a_two_percent_interval)
{
	/* sd 1, mean 100: need t(n-1) / sqrt(n) <= 2: n=3 gives 2.484, n=4 gives 1.591 */
	const double v[] = { 99, 100, 101 };
	struct nb_stats s = of(v, 3);
	cr_assert_eq(nb_stats_reps_needed(&s, 0.02, 1000), 4);
	/* sd 10 on mean 100 needs ~ (1.96 * 10 / 2)^2 = 96 plus the t correction: 99 */
	const double w[] = { 90, 100, 110 };
	struct nb_stats s2 = of(w, 3);
	uint32_t n = nb_stats_reps_needed(&s2, 0.02, 1000);
	cr_assert(n >= 97 && n <= 101, "n = %u", n);
	cr_assert_eq(nb_stats_reps_needed(&s2, 0.02, 30), 30);
}

Test(stats, repetitions_estimate_is_not_capped_below_what_the_pitfall_says)
{
	/* CV 33 %: (1.96 x 0.33 / 0.02)^2 = 1045.9, so about 1048 repetitions; the estimate used to
	 * stop at 1000 in summary.csv while the pitfall text said 1045. */
	uint32_t n = nb_stats_reps_for_cv(0.33, 0.02, NB_STATS_REPS_CAP);
	cr_assert(n > 1040 && n < 1060, "n = %u", n);
	cr_assert(nb_stats_t95(n - 1) * 0.33 / sqrt((double)n) <= 0.02);
	cr_assert(nb_stats_t95(n - 2) * 0.33 / sqrt((double)n - 1) > 0.02);
	const double v[] = { 67, 100, 133 }; /* sd 33, mean 100 */
	struct nb_stats s = of(v, 3);
	cr_assert_eq(nb_stats_reps_needed(&s, 0.02, NB_STATS_REPS_CAP), n);
	cr_assert_eq(nb_stats_reps_for_cv(0.33, 0.02, 500), 500);
}

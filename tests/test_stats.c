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

Test(stats, t_table_and_large_df_approximation)
{
	const struct { size_t df; double t; double eps; } cases[] = {
		{ 1, 12.7062, 1e-4 }, { 2, 4.3027, 1e-4 }, { 5, 2.5706, 1e-4 }, { 10, 2.2281, 1e-4 },
		{ 29, 2.0452, 1e-4 }, { 30, 2.0423, 1e-4 }, { 40, 2.0211, 2e-4 }, { 60, 2.0003, 2e-4 },
		{ 120, 1.9799, 2e-4 }, { 1000000, 1.9600, 1e-4 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_assert_float_eq(nb_stats_t95(cases[i].df), cases[i].t, cases[i].eps, "df %zu",
				   cases[i].df);
	cr_assert(isnan(nb_stats_t95(0)));
}

Test(stats, ci95_half_width_uses_student_t)
{
	/* 9.0, 9.3, 9.6: sd 0.3, half = t(2) * 0.3 / sqrt(3) = 4.3027 * 0.173205 = 0.745250 */
	const double v[] = { 9.0, 9.3, 9.6 };
	struct nb_stats s = of(v, 3);
	cr_assert_float_eq(nb_stats_stddev(&s), 0.3, 1e-12);
	cr_assert_float_eq(nb_stats_ci95_half(&s), 4.3027 * 0.3 / sqrt(3.0), 1e-9);
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

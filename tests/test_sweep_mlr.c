/* A search's result in MLRsearch's words (runner/run/sweep_mlr.c) against tables computed by
 * hand from RFC 9971's Appendix A (load classification) and Appendix B (conditional
 * throughput), then over a list of trials: the relevant bounds, the conditional throughput,
 * and a trial whose sender fell short left out. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "sweep_mlr.h"

/* ---- Appendix A ----------------------------------------------------------------------- */

struct class_row {
	double exceed, dsum, good_long, bad_long, good_short, bad_short;
	bool optimistic, pessimistic;
};

/* By hand: balancing = gs*x/(1-x), eff_bad = bl + max(0, bs - balancing),
 * whole = max(gl + eff_bad, dsum), q = whole*x; opt = eff_bad <= q, pes = whole - gl <= q. */
static const struct class_row class_rows[] = {
	{ 0.5, 10, 6, 4, 0, 0, true, true },   /* eff_bad 4 <= 5; 10 - 6 = 4 <= 5: lower bound */
	{ 0.5, 10, 4, 6, 0, 0, false, false }, /* 6 > 5; 10 - 4 = 6 > 5: upper bound */
	{ 0.5, 10, 3, 2, 0, 0, true, false },  /* 2 <= 5; whole 10 - 3 = 7 > 5: undecided */
	{ 0.5, 10, 0, 0, 2, 3, true, false },  /* balancing 2, eff_bad 1 <= 5; 10 > 5: undecided */
	{ 0, 2, 2, 0, 0, 0, true, true },      /* exceed 0: every long trial good and 2 s of them */
	{ 0, 2, 2, 0, 0, 0.5, false, false },  /* one bad short trial: eff_bad 0.5 > 0; 2.5 - 2 > 0 */
	{ 0, 3, 2, 0, 0, 0, true, false },     /* 1 s of the duration sum missing: undecided */
};

Test(mlr, classifies_loads_as_appendix_a_does)
{
	for (size_t i = 0; i < sizeof(class_rows) / sizeof(class_rows[0]); i++) {
		const struct class_row *r = &class_rows[i];
		struct nb_mlr_goal g = { .loss_ratio = 0, .exceed_ratio = r->exceed,
					 .duration_sum_s = r->dsum, .final_trial_s = 1 };
		bool opt, pes;
		nb_mlr_classify(&g, r->good_long, r->bad_long, r->good_short, r->bad_short, &opt, &pes);
		cr_expect_eq(opt, r->optimistic, "row %zu optimistic", i);
		cr_expect_eq(pes, r->pessimistic, "row %zu pessimistic", i);
	}
}

/* ---- Appendix B ----------------------------------------------------------------------- */

Test(mlr, conditional_throughput_is_the_quantile_of_appendix_b)
{
	/* Five 2 s trials at load 1000, sorted by loss ratio; goal 0.5 %. */
	const double loss[] = { 0, 0.001, 0.004, 0.01, 0.02 }, dur[] = { 2, 2, 2, 2, 2 };
	struct nb_mlr_goal g = { .loss_ratio = 0.005, .exceed_ratio = 0.5, .duration_sum_s = 10,
				 .final_trial_s = 2 };
	double q;
	/* remaining = 10 * 0.5 = 5: 0 (3 left), 0.001 (1 left), 0.004 (-1): 1000 * 0.996 */
	cr_expect_float_eq(nb_mlr_conditional(&g, 1000, loss, dur, 5, &q), 996, 1e-9);
	cr_expect_float_eq(q, 0.004, 1e-12);
	/* exceed 0: remaining 10 takes every trial, the worst one: 1000 * 0.98 */
	g.exceed_ratio = 0;
	cr_expect_float_eq(nb_mlr_conditional(&g, 1000, loss, dur, 5, &q), 980, 1e-9);
	/* 4 s of trials against a duration sum of 10 s: the missing 6 s count as lost */
	cr_expect_float_eq(nb_mlr_conditional(&g, 1000, loss, dur, 2, &q), 0, 1e-9);
	cr_expect_float_eq(q, 1.0, 1e-12);
	/* durations that add up in ns, not exactly in binary seconds: 3 x 0.1 s against 0.3 s */
	const double d3[] = { 0.1, 0.1, 0.1 }, l3[] = { 0, 0, 0 };
	g.duration_sum_s = 0.3;
	g.final_trial_s = 0.1;
	cr_expect_float_eq(nb_mlr_conditional(&g, 1000, l3, d3, 3, &q), 1000, 1e-9);
}

/* ---- over a search's trials ----------------------------------------------------------- */

#define T(rate, ms, loss) { .offered = rate, .duration_ns = (ms) * 1000000ull, .ok = true, \
			    .valid = true, .loss_ratio = loss }

Test(mlr, bounds_and_conditional_throughput_of_ndr_and_pdr_from_one_list)
{
	struct nb_trial t[] = {
		T(100, 500, 0),       /* short, good: 0.5 s of 2 s: undecided */
		T(200, 500, 0.02),    /* short, bad for both goals: upper bound */
		T(150, 1000, 0), T(150, 1000, 0),         /* 2 s good: lower bound */
		T(180, 1000, 0), T(180, 1000, 0.001),     /* NDR: upper; PDR: lower */
		T(170, 1000, 0),                          /* 1 s of 2 s: undecided */
		T(190, 1000, 0), T(190, 1000, 0),         /* the sender fell short: not counted */
	};
	t[7].valid = t[8].valid = false;
	struct nb_sweep s = { .search = true, .loss = { 0, 0.005 }, .nloss = 2, .precision = 0.01,
			      .trial_ns = 1000000000ull, .short_trial_ns = 500000000ull, .confirm = 2 };
	struct nb_mlr_result r;
	struct nb_mlr_goal ndr = nb_mlr_goal_of(&s, 0), pdr = nb_mlr_goal_of(&s, 0.005);
	cr_assert(nb_mlr_result(&ndr, t, sizeof(t) / sizeof(t[0]), &r));
	cr_expect_eq(r.upper, 180);
	cr_expect_eq(r.lower, 150);
	cr_expect_float_eq(r.conditional, 150, 1e-9);
	cr_assert(nb_mlr_result(&pdr, t, sizeof(t) / sizeof(t[0]), &r));
	cr_expect_eq(r.upper, 200);
	cr_expect_eq(r.lower, 180);
	cr_expect_float_eq(r.conditional, 180 * 0.999, 1e-9); /* the worse of its two trials */
	/* nothing passed: no lower bound, no conditional throughput */
	struct nb_trial bad[] = { T(100, 1000, 0.5) };
	cr_assert(nb_mlr_result(&pdr, bad, 1, &r));
	cr_expect_eq(r.lower, 0);
	cr_expect_eq(r.upper, 100);
	cr_expect(isnan(r.conditional));
}

Test(mlr, the_goal_attributes_come_from_the_search_keys)
{
	struct nb_sweep s = { .search = true, .loss = { 0, 0.001, 0.005 }, .nloss = 3,
			      .precision = 0.02, .trial_ns = 5000000000ull,
			      .short_trial_ns = 1000000000ull, .confirm = 3 };
	struct nb_mlr_goal g = nb_mlr_goal_of(&s, 0.001);
	cr_expect_float_eq(g.loss_ratio, 0.001, 1e-15);
	cr_expect_float_eq(g.exceed_ratio, 0, 1e-15);
	cr_expect_float_eq(g.final_trial_s, 5, 1e-12);
	cr_expect_float_eq(g.duration_sum_s, 15, 1e-12);
	cr_expect_float_eq(g.initial_trial_s, 1, 1e-12);
	cr_expect_float_eq(g.width, 0.02, 1e-15);
	char name[24];
	nb_mlr_goal_name(&s, 0, name, sizeof(name));
	cr_expect_str_eq(name, "NDR");
	nb_mlr_goal_name(&s, 1, name, sizeof(name));
	cr_expect_str_eq(name, "PDR 0.1%");
	s.nloss = 2, s.loss[1] = 0.005;
	nb_mlr_goal_name(&s, 1, name, sizeof(name));
	cr_expect_str_eq(name, "PDR");
}

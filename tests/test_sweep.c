/* The loss-threshold search and plain sweeps, driven by simulated loss functions: a drop-tail
 * bottleneck (step), a graded device (NDR below PDR), noise near the knee (seeded PRNG), a
 * non-monotonic device, short trials that pass where full ones fail, interruption and broken
 * trials. Every search is also checked against the invariants: the threshold passed every
 * trial at it, lies below the lowest failing rate, and the bracket is within precision when
 * the status says found. A sender that falls short is test_sweep_short.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sweep_sim.h"

/* ---- a drop-tail bottleneck: converges within precision ----------------------------------- */

struct step_case {
	uint64_t from, to, knee;
	double precision;
	bool blind;
};

static const struct step_case step_cases[] = {
	{ 10 * M, 1 * G, 500 * M, 0.01, false },
	{ 10 * M, 10 * G, 187400 * 1000, 0.01, false },
	{ 10 * M, 10 * G, 187400 * 1000, 0.01, true },
	{ 1 * M, 100 * M, 73 * M, 0.005, true },
	{ 100, 100000, 4321, 0.02, true },
	{ 10 * M, 1 * G, 11 * M, 0.01, false },
	{ 10 * M, 1 * G, 999 * M, 0.01, true },
	{ 10 * M, 1 * G, 350 * M, 0.001, true },
	{ 10 * M, 1 * G, 350 * M, 0.05, true },
};

Test(sweep, step_loss_converges_below_the_knee_within_precision)
{
	for (size_t i = 0; i < sizeof(step_cases) / sizeof(step_cases[0]); i++) {
		const struct step_case *k = &step_cases[i];
		struct nb_sweep cfg = nbt_search_cfg(k->from, k->to, 0.0, k->precision);
		struct nbt_sim sim = { .knee = k->knee, .blind = k->blind };
		struct nb_sweep_outcome o;
		nbt_sim_search(&cfg, &sim, &o);
		nbt_check_invariants(&cfg, &o);
		const struct nb_sweep_goal *g = &o.goal[0];
		cr_assert_eq(g->status, NB_SWEEP_FOUND, "case %zu: %s", i, nb_sweep_status_name(g->status));
		cr_assert_leq(g->threshold, k->knee, "case %zu", i);
		cr_assert_gt(g->lowest_fail, k->knee, "case %zu", i);
		cr_assert_geq((double)g->threshold, (double)k->knee / (1 + k->precision) - 1, "case %zu", i);
		cr_assert_eq(sim.calls, o.ntrials, "case %zu: one call per trial", i);
		nb_sweep_outcome_free(&o);
	}
}

Test(sweep, received_rate_guess_saves_trials_on_a_bottleneck)
{
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct nbt_sim guided = { .knee = 500 * M }, blind = { .knee = 500 * M, .blind = true };
	struct nb_sweep_outcome a, b;
	nbt_sim_search(&cfg, &guided, &a);
	nbt_sim_search(&cfg, &blind, &b);
	/* 10..640 (7) + guess + just above it + 2 confirmations. */
	cr_assert_eq(a.ntrials, 11);
	cr_assert_lt(a.ntrials, b.ntrials);
	cr_assert_geq((double)a.goal[0].threshold, 0.99 * 500 * M);
	nb_sweep_outcome_free(&a);
	nb_sweep_outcome_free(&b);
}

Test(sweep, precision_bounds_the_final_bracket)
{
	static const double precisions[] = { 0.001, 0.005, 0.01, 0.03, 0.1 };
	for (size_t i = 0; i < sizeof(precisions) / sizeof(precisions[0]); i++) {
		struct nb_sweep cfg = nbt_search_cfg(1 * M, 1 * G, 0.001, precisions[i]);
		struct nbt_sim sim = { .knee = 321987654, .blind = true };
		struct nb_sweep_outcome o;
		nbt_sim_search(&cfg, &sim, &o);
		const struct nb_sweep_goal *g = &o.goal[0];
		cr_assert_eq(g->status, NB_SWEEP_FOUND);
		double width = (double)(g->lowest_fail - g->threshold) / (double)g->threshold;
		cr_assert_leq(width, precisions[i], "precision %g: width %g", precisions[i], width);
		nb_sweep_outcome_free(&o);
	}
}

/* ---- the ends of the range ---------------------------------------------------------------- */

Test(sweep, loss_even_at_from_reports_no_threshold)
{
	struct nb_sweep cfg = nbt_search_cfg(100 * M, 1 * G, 0.001, 0.01);
	struct nbt_sim sim = { .knee = 50 * M };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	nbt_check_invariants(&cfg, &o);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_BELOW_FROM);
	cr_assert_eq(o.goal[0].threshold, 0);
	cr_assert_eq(o.goal[0].lowest_fail, 100 * M);
	cr_assert_eq(o.ntrials, 1, "a failure at from needs no more trials");
	nb_sweep_outcome_free(&o);
}

Test(sweep, no_loss_even_at_to_reports_to_as_a_lower_bound)
{
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct nbt_sim sim = { .knee = 5 * G };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	nbt_check_invariants(&cfg, &o);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_AT_OR_ABOVE_TO);
	cr_assert_eq(o.goal[0].threshold, 1 * G);
	cr_assert_eq(o.goal[0].lowest_fail, 0);
	uint32_t at_to = 0, full_at_to = 0;
	for (size_t i = 0; i < o.ntrials; i++) {
		at_to += o.trials[i].offered == 1 * G;
		full_at_to += o.trials[i].offered == 1 * G && o.trials[i].duration_ns == 5 * S;
	}
	cr_assert_eq(at_to, 3, "one probe at to and 2 confirmations");
	cr_assert_eq(full_at_to, 2);
	nb_sweep_outcome_free(&o);
}

/* ---- short trials, confirmation ----------------------------------------------------------- */

Test(sweep, short_trials_first_full_trials_confirm)
{
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct nbt_sim sim = { .knee = 500 * M };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	cr_assert_eq(o.trials[0].duration_ns, cfg.short_trial_ns);
	cr_assert_eq(o.trials[0].confirm, false);
	uint32_t full_at = 0;
	for (size_t i = 0; i < o.ntrials; i++)
		full_at += o.trials[i].offered == o.goal[0].threshold && o.trials[i].duration_ns == 5 * S;
	cr_assert_eq(full_at, cfg.confirm);
	cr_assert_eq(o.trials[o.ntrials - 1].duration_ns, 5 * S);
	cr_assert_eq(o.trial_ns, (o.ntrials - cfg.confirm) * cfg.short_trial_ns + cfg.confirm * 5 * S);
	nb_sweep_outcome_free(&o);
}

/* `trial:` is the length of every trial unless `short_trial:` asks for short coarse ones. */
Test(sweep, without_short_trial_every_trial_lasts_trial)
{
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.0, 0.01);
	cfg.short_trial_ns = 0;
	cfg.trial_ns = 2 * S;
	struct nbt_sim sim = { .knee = 500 * M };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	cr_assert_gt(o.ntrials, 5);
	for (size_t i = 0; i < o.ntrials; i++)
		cr_assert_eq(o.trials[i].duration_ns, 2 * S, "trial %zu lasted %llu ns", i,
			     (unsigned long long)o.trials[i].duration_ns);
	cr_assert_eq(o.trial_ns, o.ntrials * 2 * S);
	nb_sweep_outcome_free(&o);
}

Test(sweep, failed_confirmation_continues_below)
{
	/* Short trials pass up to 400M; full-length trials lose 1 % above 300M. */
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.001, 0.01);
	struct nbt_sim sim = { .knee = 400 * M, .long_knee = 300 * M, .blind = true };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	nbt_check_invariants(&cfg, &o);
	bool confirm_failed = false;
	for (size_t i = 0; i < o.ntrials; i++)
		confirm_failed |= o.trials[i].confirm && o.trials[i].offered > 300 * M &&
				  !(o.trials[i].pass_mask & 1);
	cr_assert(confirm_failed, "a confirmation above 300M must have failed");
	cr_assert_eq(o.goal[0].status, NB_SWEEP_FOUND);
	cr_assert_leq(o.goal[0].threshold, 300 * M);
	cr_assert_geq((double)o.goal[0].threshold, 300.0 * M / 1.01 - 1);
	nb_sweep_outcome_free(&o);
}

/* ---- noise and non-monotonic devices ------------------------------------------------------ */

Test(sweep, noisy_loss_near_the_knee_never_reports_a_failed_rate)
{
	static const uint64_t seeds[] = { 1, 2, 3, 42, 4242, 123456789, 987654321, 55555 };
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.0, 0.01);
		struct nbt_sim sim = { .knee = 400 * M, .noise = 0.03, .rng = seeds[i] };
		struct nb_sweep_outcome o;
		nbt_sim_search(&cfg, &sim, &o);
		nbt_check_invariants(&cfg, &o);
		const struct nb_sweep_goal *g = &o.goal[0];
		cr_assert_eq(g->status, NB_SWEEP_FOUND, "seed %llu: %s", (unsigned long long)seeds[i],
			     nb_sweep_status_name(g->status));
		cr_assert_geq((double)g->threshold, 400.0 * M * 0.97 / 1.01 - 1, "seed %llu",
			      (unsigned long long)seeds[i]);
		cr_assert_leq((double)g->threshold, 400.0 * M * 1.03, "seed %llu",
			      (unsigned long long)seeds[i]);
		nb_sweep_outcome_free(&o);
	}
}

Test(sweep, non_monotonic_loss_stays_below_the_first_failing_rate)
{
	/* Loss inside 150M..170M, none between 170M and the 600M knee. */
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.001, 0.01);
	struct nbt_sim sim = { .knee = 600 * M, .win_lo = 150 * M, .win_hi = 170 * M };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	nbt_check_invariants(&cfg, &o);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_FOUND);
	cr_assert_lt(o.goal[0].threshold, 150 * M);
	cr_assert_geq((double)o.goal[0].threshold, 150.0 * M / 1.01 - 1);
	nb_sweep_outcome_free(&o);
}

/* ---- several goals in one pass ------------------------------------------------------------ */

static uint32_t calls_for(const double *loss, uint32_t n, const struct nbt_sim *proto,
			  struct nb_sweep_outcome *keep)
{
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, loss[0], 0.01);
	for (uint32_t i = 0; i < n; i++)
		cfg.loss[i] = loss[i];
	cfg.nloss = n;
	struct nbt_sim sim = *proto;
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	nbt_check_invariants(&cfg, &o);
	cr_assert_eq(sim.calls, o.ntrials);
	if (keep)
		*keep = o;
	else
		nb_sweep_outcome_free(&o);
	return sim.calls;
}

Test(sweep, two_goals_in_one_pass_reuse_trials)
{
	/* 0.2 % loss from 200M, drop-tail from 400M: NDR ~200M, PDR (0.5 %) ~400M. */
	const struct nbt_sim dev = { .knee = 400 * M, .ndr_knee = 200 * M };
	const double both[] = { 0.0, 0.005 }, ndr[] = { 0.0 }, pdr[] = { 0.005 };
	struct nb_sweep_outcome o;
	uint32_t together = calls_for(both, 2, &dev, &o);
	uint32_t apart = calls_for(ndr, 1, &dev, NULL) + calls_for(pdr, 1, &dev, NULL);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_FOUND);
	cr_assert_eq(o.goal[1].status, NB_SWEEP_FOUND);
	cr_assert_leq(o.goal[0].threshold, 200 * M);
	cr_assert_geq((double)o.goal[0].threshold, 200.0 * M / 1.01 - 1);
	cr_assert_leq(o.goal[1].threshold, 400 * M);
	cr_assert_geq((double)o.goal[1].threshold, 400.0 * M / 1.01 - 1);
	cr_assert_lt(together, apart, "%u trials together, %u apart", together, apart);
	cr_assert_eq(o.goal[0].trials + o.goal[1].trials, together);
	nb_sweep_outcome_free(&o);
}

Test(sweep, second_goal_on_a_sharp_knee_needs_no_trial_of_its_own)
{
	const struct nbt_sim dev = { .knee = 500 * M };
	const double both[] = { 0.0, 0.005 }, ndr[] = { 0.0 };
	struct nb_sweep_outcome o;
	uint32_t together = calls_for(both, 2, &dev, &o);
	cr_assert_eq(together, calls_for(ndr, 1, &dev, NULL));
	cr_assert_eq(o.goal[1].trials, 0);
	cr_assert_eq(o.goal[1].threshold, o.goal[0].threshold);
	nb_sweep_outcome_free(&o);
}

/* ---- stopping early ----------------------------------------------------------------------- */

Test(sweep, interruption_keeps_the_bracket)
{
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct nbt_sim sim = { .knee = 300 * M, .blind = true, .stop_at = 9 };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	nbt_check_invariants(&cfg, &o);
	cr_assert(o.interrupted);
	cr_assert_eq(o.ntrials, 8, "the interrupted trial is not kept");
	const struct nb_sweep_goal *g = &o.goal[0];
	cr_assert_eq(g->status, NB_SWEEP_INCOMPLETE);
	cr_assert_eq(g->threshold, 0, "an unconfirmed rate is not a threshold");
	cr_assert_lt(g->bracket_lo, 300 * M);
	cr_assert_gt(g->bracket_hi, 300 * M);
	cr_assert_lt(g->bracket_lo, g->bracket_hi);
	bool failed, passed;
	nbt_rate_record(&o, g->bracket_lo, 0, &failed, &passed);
	cr_assert(passed && !failed);
	nbt_rate_record(&o, g->bracket_hi, 0, &failed, &passed);
	cr_assert(failed);
	nb_sweep_outcome_free(&o);
}

Test(sweep, trial_budget_is_bounded)
{
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.0, 0.0001);
	struct nbt_sim sim = { .knee = 300 * M, .blind = true };
	struct nb_sweep_opts opts = { .max_trials = 6 };
	struct nb_sweep_outcome o;
	sim.full_ns = cfg.trial_ns;
	cr_assert(nb_sweep_execute(&cfg, &opts, nbt_sim_run, &sim, &o));
	cr_assert(o.trial_limit);
	cr_assert_eq(o.ntrials, 6);
	cr_assert_eq(sim.calls, 6);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_INCOMPLETE);
	nb_sweep_outcome_free(&o);
}

Test(sweep, trials_that_do_not_run_stop_the_search)
{
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct nbt_sim sim = { .knee = 300 * M, .broken_from = 3 };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	cr_assert_eq(o.broken, 3);
	cr_assert_eq(o.ntrials, 5);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_INCOMPLETE);
	cr_assert_eq(o.goal[0].bracket_lo, 20 * M, "the last rate that ran and passed");
	nb_sweep_outcome_free(&o);
}

/* ---- plain sweeps ------------------------------------------------------------------------- */

struct plain_case {
	struct nb_sweep s;
	uint64_t want[8];
	size_t n;
};

static const struct plain_case plain_cases[] = {
	{ { .enabled = true, .from = 100 * M, .to = 500 * M, .steps = { 100 * M, 200 * M, 500 * M },
	    .nsteps = 3 }, { 100 * M, 200 * M, 500 * M }, 3 },
	{ { .enabled = true, .from = 100 * M, .to = 400 * M, .step = 100 * M },
	  { 100 * M, 200 * M, 300 * M, 400 * M }, 4 },
	{ { .enabled = true, .from = 100 * M, .to = 350 * M, .step = 100 * M },
	  { 100 * M, 200 * M, 300 * M, 350 * M }, 4 },
	{ { .enabled = true, .from = 10 * M, .to = 100 * M, .factor = 2 },
	  { 10 * M, 20 * M, 40 * M, 80 * M, 100 * M }, 5 },
};

Test(sweep, plain_sweep_runs_each_rate_once_in_order)
{
	for (size_t i = 0; i < sizeof(plain_cases) / sizeof(plain_cases[0]); i++) {
		const struct plain_case *k = &plain_cases[i];
		struct nb_sweep cfg = k->s;
		cfg.trial_ns = 2 * S;
		struct nbt_sim sim = { .knee = 250 * M };
		struct nb_sweep_outcome o;
		nbt_sim_search(&cfg, &sim, &o);
		cr_assert_eq(o.search, false);
		cr_assert_eq(o.ngoals, 0);
		cr_assert_eq(sim.calls, k->n, "case %zu", i);
		cr_assert_eq(o.ntrials, k->n, "case %zu", i);
		for (size_t j = 0; j < k->n; j++) {
			cr_assert_eq(sim.rates[j], k->want[j], "case %zu rate %zu", i, j);
			cr_assert_eq(o.trials[j].duration_ns, 2 * S);
		}
		nb_sweep_outcome_free(&o);
	}
}

Test(sweep, plain_sweep_keeps_loss_per_rate_and_stops_when_told)
{
	struct nb_sweep cfg = { .enabled = true, .from = 100 * M, .to = 500 * M, .step = 100 * M,
				.trial_ns = S };
	struct nbt_sim sim = { .knee = 250 * M, .stop_at = 5 };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	cr_assert(o.interrupted);
	cr_assert_eq(o.ntrials, 4);
	cr_assert_float_eq(o.trials[1].loss_ratio, 0.0, 1e-12);
	cr_assert_float_eq(o.trials[2].loss_ratio, 50.0 / 300.0, 1e-9);
	cr_assert_float_eq(o.trials[3].loss_ratio, 150.0 / 400.0, 1e-9);
	nb_sweep_outcome_free(&o);
}

Test(sweep, status_names)
{
	cr_assert_str_eq(nb_sweep_status_name(NB_SWEEP_FOUND), "found");
	cr_assert_str_eq(nb_sweep_status_name(NB_SWEEP_BELOW_FROM), "below-from");
	cr_assert_str_eq(nb_sweep_status_name(NB_SWEEP_AT_OR_ABOVE_TO), "at-or-above-to");
	cr_assert_str_eq(nb_sweep_status_name(NB_SWEEP_HOST_BOUND), "host-bound");
	cr_assert_str_eq(nb_sweep_status_name(NB_SWEEP_SENDER_SHORT), "sender-short");
	cr_assert_str_eq(nb_sweep_status_name(NB_SWEEP_INCOMPLETE), "incomplete");
}

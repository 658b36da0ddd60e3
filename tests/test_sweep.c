/* The loss-threshold search and plain sweeps, driven by simulated loss functions: a drop-tail
 * bottleneck (step), a graded device (NDR below PDR), noise near the knee (seeded PRNG), a
 * non-monotonic device, short trials that pass where full ones fail, a sender that falls
 * short once (a hiccup, retried) or always (host-bound), a host that holds back a sender the
 * calibration burst showed capable, interruption and broken trials. Every search is also checked against the invariants: the
 * threshold passed every trial at it, lies below the lowest failing rate, and the bracket is
 * within precision when the status says found. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sweep.h"

#define M 1000000ull
#define G 1000000000ull
#define S 1000000000ull

/* A simulated device under test and its traffic generator. */
struct sim {
	uint64_t knee;          /* drop-tail capacity: loss = (r - knee) / r above it */
	uint64_t ndr_knee;      /* graded: 0.2 % loss between ndr_knee and knee (0 = none) */
	uint64_t win_lo, win_hi;/* non-monotonic: 5 % loss inside [win_lo, win_hi] */
	uint64_t long_knee;     /* full-length trials above this lose 1 % (0 = none) */
	uint64_t host_max;      /* offered above this: the sender falls short (0 = none) */
	double noise;           /* relative half-width of a random zone around knee */
	uint64_t rng;           /* xorshift64 state (the seed) */
	bool blind;             /* recv_rate NAN: no hint for the guess */
	uint32_t stop_at;       /* this call returns false (0 = never) */
	uint32_t broken_from;   /* calls from this one on fail to run (0 = never) */
	uint64_t full_ns;       /* what counts as a full-length trial */
	uint32_t hiccup[8];     /* these calls (1-based) stall: the sender sends 95 % of offered */
	uint32_t busy_from;     /* from this call on the sender reaches at most busy_max (0 = never) */
	uint64_t busy_max;
	uint64_t line;          /* what an unpaced burst sends (0 = 10G) */
	struct nb_trial_host on_short; /* what a sender that fell short says held it back */
	uint32_t calls;
	uint64_t rates[128];    /* offered rate of every call, in order */
};

static double uniform(struct sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (double)(s->rng >> 11) / 9007199254740992.0;
}

static double sim_loss(struct sim *s, double r, bool full)
{
	double k = (double)s->knee;
	if (s->noise > 0 && r > k * (1 - s->noise) && r < k * (1 + s->noise))
		return uniform(s) < (r - k * (1 - s->noise)) / (2 * s->noise * k) ? 0.02 : 0.0;
	if (s->knee && r > k)
		return (r - k) / r;
	if (s->win_hi && r >= (double)s->win_lo && r <= (double)s->win_hi)
		return 0.05;
	if (s->long_knee && full && r > (double)s->long_knee)
		return 0.01;
	if (s->ndr_knee && r > (double)s->ndr_knee)
		return 0.002;
	return 0.0;
}

static bool stalls(const struct sim *s)
{
	for (size_t i = 0; i < sizeof(s->hiccup) / sizeof(s->hiccup[0]); i++)
		if (s->hiccup[i] == s->calls)
			return true;
	return false;
}

/* What the simulated sender sends when asked for r (0: unpaced, as fast as it can). */
static double sim_sent(const struct sim *s, double r)
{
	if (r == 0)
		r = s->line ? (double)s->line : 1e10;
	if (s->host_max && r > (double)s->host_max)
		r = (double)s->host_max;
	if (s->busy_from && s->calls >= s->busy_from && r > (double)s->busy_max)
		r = (double)s->busy_max;
	return stalls(s) ? r * 0.95 : r;
}

static bool sim_run(void *ctx, struct nb_trial *t)
{
	struct sim *s = ctx;
	if (s->calls < 128)
		s->rates[s->calls] = t->offered;
	s->calls++;
	if (s->stop_at && s->calls == s->stop_at)
		return false;
	t->ok = !(s->broken_from && s->calls >= s->broken_from);
	double r = (double)t->offered;
	t->sent_rate = sim_sent(s, r);
	t->valid = t->sent_rate >= r * (1 - NB_SWEEP_SHORTFALL);
	t->host = t->valid ? (struct nb_trial_host){ 30, 40, 0, 0 } : s->on_short;
	t->loss_ratio = sim_loss(s, t->sent_rate, t->duration_ns >= s->full_ns);
	t->recv_rate = s->blind ? NAN : t->sent_rate * (1 - t->loss_ratio);
	t->jitter_us = 1;
	return true;
}

static struct nb_sweep search_cfg(uint64_t from, uint64_t to, double loss, double precision)
{
	struct nb_sweep s = { .enabled = true, .search = true, .from = from, .to = to,
			      .loss = { loss }, .nloss = 1, .precision = precision,
			      .trial_ns = 5 * S, .confirm = 2 };
	return s;
}

static void run(const struct nb_sweep *cfg, struct sim *sim, struct nb_sweep_outcome *out)
{
	sim->full_ns = cfg->trial_ns;
	cr_assert(nb_sweep_execute(cfg, NULL, sim_run, sim, out));
}

/* Loss of goal g at a rate over all trials: whether any trial failed / passed it. */
static void rate_record(const struct nb_sweep_outcome *o, uint64_t rate, uint32_t g, bool *failed,
			bool *passed)
{
	*failed = *passed = false;
	for (size_t i = 0; i < o->ntrials; i++) {
		const struct nb_trial *t = &o->trials[i];
		if (t->offered != rate || !t->ok || !t->valid)
			continue;
		if (t->pass_mask & (1u << g))
			*passed = true;
		else
			*failed = true;
	}
}

/* What every search result must satisfy, whatever the device did. */
static void check_invariants(const struct nb_sweep *cfg, const struct nb_sweep_outcome *o)
{
	cr_assert_leq(o->ntrials, NB_SWEEP_MAX_TRIALS);
	for (size_t i = 0; i < o->ntrials; i++) {
		cr_assert_geq(o->trials[i].offered, cfg->from, "trial %zu below from", i);
		cr_assert_leq(o->trials[i].offered, cfg->to, "trial %zu above to", i);
	}
	for (uint32_t g = 0; g < o->ngoals; g++) {
		const struct nb_sweep_goal *goal = &o->goal[g];
		bool failed, passed;
		if (goal->threshold) {
			rate_record(o, goal->threshold, g, &failed, &passed);
			cr_assert(passed && !failed, "goal %u: threshold %llu failed a trial", g,
				  (unsigned long long)goal->threshold);
		}
		if (goal->threshold && goal->lowest_fail)
			cr_assert_lt(goal->threshold, goal->lowest_fail);
		if (goal->status == NB_SWEEP_FOUND)
			cr_assert_leq((double)(goal->lowest_fail - goal->threshold),
				      cfg->precision * (double)goal->threshold + 1e-9,
				      "goal %u: bracket %llu..%llu wider than precision", g,
				      (unsigned long long)goal->threshold,
				      (unsigned long long)goal->lowest_fail);
	}
}

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
		struct nb_sweep cfg = search_cfg(k->from, k->to, 0.0, k->precision);
		struct sim sim = { .knee = k->knee, .blind = k->blind };
		struct nb_sweep_outcome o;
		run(&cfg, &sim, &o);
		check_invariants(&cfg, &o);
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
	struct nb_sweep cfg = search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct sim guided = { .knee = 500 * M }, blind = { .knee = 500 * M, .blind = true };
	struct nb_sweep_outcome a, b;
	run(&cfg, &guided, &a);
	run(&cfg, &blind, &b);
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
		struct nb_sweep cfg = search_cfg(1 * M, 1 * G, 0.001, precisions[i]);
		struct sim sim = { .knee = 321987654, .blind = true };
		struct nb_sweep_outcome o;
		run(&cfg, &sim, &o);
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
	struct nb_sweep cfg = search_cfg(100 * M, 1 * G, 0.001, 0.01);
	struct sim sim = { .knee = 50 * M };
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	check_invariants(&cfg, &o);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_BELOW_FROM);
	cr_assert_eq(o.goal[0].threshold, 0);
	cr_assert_eq(o.goal[0].lowest_fail, 100 * M);
	cr_assert_eq(o.ntrials, 1, "a failure at from needs no more trials");
	nb_sweep_outcome_free(&o);
}

Test(sweep, no_loss_even_at_to_reports_to_as_a_lower_bound)
{
	struct nb_sweep cfg = search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct sim sim = { .knee = 5 * G };
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	check_invariants(&cfg, &o);
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
	struct nb_sweep cfg = search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct sim sim = { .knee = 500 * M };
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	cr_assert_eq(o.trials[0].duration_ns, NB_SWEEP_SHORT_NS);
	cr_assert_eq(o.trials[0].confirm, false);
	uint32_t full_at = 0;
	for (size_t i = 0; i < o.ntrials; i++)
		full_at += o.trials[i].offered == o.goal[0].threshold && o.trials[i].duration_ns == 5 * S;
	cr_assert_eq(full_at, cfg.confirm);
	cr_assert_eq(o.trials[o.ntrials - 1].duration_ns, 5 * S);
	cr_assert_eq(o.trial_ns, (o.ntrials - cfg.confirm) * NB_SWEEP_SHORT_NS + cfg.confirm * 5 * S);
	nb_sweep_outcome_free(&o);
}

Test(sweep, failed_confirmation_continues_below)
{
	/* Short trials pass up to 400M; full-length trials lose 1 % above 300M. */
	struct nb_sweep cfg = search_cfg(10 * M, 1 * G, 0.001, 0.01);
	struct sim sim = { .knee = 400 * M, .long_knee = 300 * M, .blind = true };
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	check_invariants(&cfg, &o);
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
		struct nb_sweep cfg = search_cfg(10 * M, 1 * G, 0.0, 0.01);
		struct sim sim = { .knee = 400 * M, .noise = 0.03, .rng = seeds[i] };
		struct nb_sweep_outcome o;
		run(&cfg, &sim, &o);
		check_invariants(&cfg, &o);
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
	struct nb_sweep cfg = search_cfg(10 * M, 1 * G, 0.001, 0.01);
	struct sim sim = { .knee = 600 * M, .win_lo = 150 * M, .win_hi = 170 * M };
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	check_invariants(&cfg, &o);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_FOUND);
	cr_assert_lt(o.goal[0].threshold, 150 * M);
	cr_assert_geq((double)o.goal[0].threshold, 150.0 * M / 1.01 - 1);
	nb_sweep_outcome_free(&o);
}

/* ---- several goals in one pass ------------------------------------------------------------ */

static uint32_t calls_for(const double *loss, uint32_t n, const struct sim *proto,
			  struct nb_sweep_outcome *keep)
{
	struct nb_sweep cfg = search_cfg(10 * M, 1 * G, loss[0], 0.01);
	for (uint32_t i = 0; i < n; i++)
		cfg.loss[i] = loss[i];
	cfg.nloss = n;
	struct sim sim = *proto;
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	check_invariants(&cfg, &o);
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
	const struct sim dev = { .knee = 400 * M, .ndr_knee = 200 * M };
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
	const struct sim dev = { .knee = 500 * M };
	const double both[] = { 0.0, 0.005 }, ndr[] = { 0.0 };
	struct nb_sweep_outcome o;
	uint32_t together = calls_for(both, 2, &dev, &o);
	cr_assert_eq(together, calls_for(ndr, 1, &dev, NULL));
	cr_assert_eq(o.goal[1].trials, 0);
	cr_assert_eq(o.goal[1].threshold, o.goal[0].threshold);
	nb_sweep_outcome_free(&o);
}

/* ---- host-bound senders ------------------------------------------------------------------- */

Test(sweep, invalid_trials_are_neither_pass_nor_fail)
{
	struct nb_sweep cfg = search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct sim sim = { .knee = 500 * M, .host_max = 300 * M };
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	check_invariants(&cfg, &o);
	const struct nb_sweep_goal *g = &o.goal[0];
	cr_assert_eq(g->status, NB_SWEEP_HOST_BOUND, "%s", nb_sweep_status_name(g->status));
	cr_assert_eq(g->lowest_fail, 0, "an invalid trial is no failure");
	cr_assert_neq(o.host_bound_above, 0);
	cr_assert_gt(o.host_bound_above, 300 * M);
	cr_assert_leq(g->threshold, 300 * M * 100 / 99);
	cr_assert_geq((double)g->threshold * 1.01, (double)o.host_bound_above);
	for (size_t i = 0; i < o.ntrials; i++) {
		if (!o.trials[i].valid)
			cr_assert_eq(o.trials[i].pass_mask, 0);
		cr_assert_leq(o.trials[i].offered, 640 * M, "nothing above the first invalid rate");
	}
	nb_sweep_outcome_free(&o);
}

Test(sweep, host_bound_at_from_has_no_threshold)
{
	struct nb_sweep cfg = search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct sim sim = { .knee = 500 * M, .host_max = 5 * M };
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_HOST_BOUND);
	cr_assert_eq(o.goal[0].threshold, 0);
	cr_assert_eq(o.host_bound_above, 10 * M);
	cr_assert_eq(o.ntrials, 1);
	nb_sweep_outcome_free(&o);
}

Test(sweep, host_limit_above_the_knee_does_not_hide_it)
{
	struct nb_sweep cfg = search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct sim sim = { .knee = 500 * M, .host_max = 600 * M };
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	check_invariants(&cfg, &o);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_FOUND);
	cr_assert_geq((double)o.goal[0].threshold, 500.0 * M / 1.01 - 1);
	nb_sweep_outcome_free(&o);
}

/* ---- a sender that falls short: retries, lower bounds, what may be claimed ----------------- */

static struct nb_sweep retry_cfg(uint32_t retries)
{
	struct nb_sweep cfg = search_cfg(10 * M, 1 * G, 0.001, 0.01);
	cfg.retries = retries;
	return cfg;
}

/* The trials at rate (visited once, so their attempts count 0, 1, ...): how many, and
 * whether each fell short. */
static uint32_t attempts_at(const struct nb_sweep_outcome *o, uint64_t rate, bool *short_, uint32_t max)
{
	uint32_t n = 0;
	for (size_t i = 0; i < o->ntrials; i++) {
		if (o->trials[i].offered != rate)
			continue;
		if (n < max)
			short_[n] = !o->trials[i].valid;
		cr_assert_eq(o->trials[i].attempt, n, "attempts number up");
		n++;
	}
	return n;
}

/* One hiccup (the 40M probe stalls twice: calls 3 and 4) is retried away and the search lands
 * on the knee; the same sender that cannot go above 300M in any attempt is the limit. */
Test(sweep, transient_shortfall_is_retried_persistent_one_is_the_limit)
{
	struct nb_sweep cfg = retry_cfg(2);
	struct sim transient = { .knee = 500 * M, .hiccup = { 3, 4 } };
	struct nb_sweep_outcome a;
	run(&cfg, &transient, &a);
	check_invariants(&cfg, &a);
	bool sh[8];
	cr_assert_eq(attempts_at(&a, 40 * M, sh, 8), 3, "40M: the first run and two retries");
	cr_assert(sh[0] && sh[1] && !sh[2]);
	cr_assert_eq(a.retries, 2);
	cr_assert_eq(a.unreached, 0);
	cr_assert_eq(a.host_bound_above, 0, "no host-bound claim");
	cr_assert_eq(a.goal[0].status, NB_SWEEP_FOUND, "%s", nb_sweep_status_name(a.goal[0].status));
	cr_assert_geq((double)a.goal[0].threshold, 500.0 * M / 1.01 - 1);
	cr_assert_leq(a.goal[0].threshold, 500 * M);

	struct sim persistent = { .knee = 500 * M, .host_max = 300 * M,
				  .on_short = { 99.5, 60, 0, 700 } };
	struct nb_sweep_outcome b;
	run(&cfg, &persistent, &b);
	check_invariants(&cfg, &b);
	cr_assert_eq(attempts_at(&b, 320 * M, sh, 8), 3, "320M: every attempt fell short");
	cr_assert(sh[0] && sh[1] && sh[2]);
	/* The short trials at 320M sent 300M without loss: the search went on from there. */
	cr_assert_gt(b.unreached, 300 * M);
	cr_assert_leq((double)b.unreached, 300.0 * M * 1.01 / 0.99, "within precision of the limit");
	cr_assert_eq(b.host_bound_above, b.unreached, "nothing ever sent that much");
	cr_assert_eq(b.goal[0].status, NB_SWEEP_HOST_BOUND, "%s", nb_sweep_status_name(b.goal[0].status));
	cr_assert_geq((double)b.goal[0].threshold, 300.0 * M * 0.99);
	cr_assert_lt(b.goal[0].threshold, b.unreached);
	cr_assert_eq(b.limits, NB_SWEEP_LIMIT_CPU, "the sending thread used 99.5 %% of a core");
	cr_assert_float_eq(b.short_host.forgiven_ms, 3 * 700.0, 1e-9, "the three attempts' debt");
	nb_sweep_outcome_free(&a);
	nb_sweep_outcome_free(&b);
}

Test(sweep, without_retries_one_hiccup_caps_the_search)
{
	struct nb_sweep cfg = retry_cfg(0);
	struct sim sim = { .knee = 500 * M, .hiccup = { 3 } };
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	check_invariants(&cfg, &o);
	cr_assert_eq(o.unreached, 40 * M);
	cr_assert_lt(o.goal[0].threshold, 40 * M, "what retries are for");
	nb_sweep_outcome_free(&o);
}

/* A rate every attempt missed, but that the calibration burst (or any trial) sent, caps the
 * search without a host-bound claim: the host held back a sender that can do more. */
Test(sweep, a_shortfall_something_disproves_is_no_host_bound_claim)
{
	struct nb_sweep cfg = retry_cfg(2);
	struct nb_sweep_opts opts = { .calibrate_ns = 250000000 };
	/* Calls: 1 the calibration (10G), 2.. trials; from call 6 (after 10, 20, 40, 80M) the host
	 * lets the sender reach only 100M. */
	struct sim sim = { .knee = 500 * M, .busy_from = 6, .busy_max = 100 * M,
			   .on_short = { 35, 100, 0, 60 } };
	struct nb_sweep_outcome o;
	sim.full_ns = cfg.trial_ns;
	cr_assert(nb_sweep_execute(&cfg, &opts, sim_run, &sim, &o));
	check_invariants(&cfg, &o);
	cr_assert_eq(sim.rates[0], 0, "the calibration burst comes first, unpaced");
	cr_assert(o.calibration.ok && o.calibration.calibration);
	cr_assert_eq(o.calibration.duration_ns, 250000000);
	cr_assert_float_eq(o.sender_max, 1e10, 1);
	cr_assert_eq(sim.calls, o.ntrials + 1, "the calibration is not a trial");
	cr_assert_gt(o.unreached, 100 * M);
	cr_assert_leq((double)o.unreached, 100.0 * M * 1.01 / 0.99);
	cr_assert_eq(o.host_bound_above, 0, "the calibration sent 10G: no host-bound claim");
	cr_assert_eq(o.goal[0].status, NB_SWEEP_SENDER_SHORT, "%s", nb_sweep_status_name(o.goal[0].status));
	cr_assert_eq(o.limits, NB_SWEEP_LIMIT_LATE, "CPU to spare, debt forgiven: descheduled");
	nb_sweep_outcome_free(&o);

	struct sim alone = sim;
	alone.calls = 0;
	alone.busy_from = 5;
	run(&cfg, &alone, &o);
	cr_assert_gt(o.unreached, 100 * M);
	cr_assert_eq(o.host_bound_above, o.unreached, "without the burst nothing sent that much");
	cr_assert_eq(o.goal[0].status, NB_SWEEP_HOST_BOUND);
	nb_sweep_outcome_free(&o);
}

/* A trial that fell short with loss within the goal shows the rate it sent passes: the search
 * goes on from there instead of bisecting below it. */
Test(sweep, a_short_trial_that_passes_is_a_lower_bound_at_the_rate_sent)
{
	struct nb_sweep cfg = retry_cfg(0);
	struct sim sim = { .knee = 500 * M, .hiccup = { 6 } }; /* the 320M probe sends 304M */
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	check_invariants(&cfg, &o);
	const struct nb_trial *t = &o.trials[5];
	cr_assert_eq(t->offered, 320 * M);
	cr_assert_not(t->valid);
	cr_assert_eq(t->pass_mask, 0, "no verdict at the offered rate");
	cr_assert_eq(t->bound_mask, 1, "a lower bound at the rate sent");
	for (size_t i = 6; i < o.ntrials; i++)
		cr_assert_geq(o.trials[i].offered, 304 * M, "trial %zu went below the lower bound", i);
	cr_assert_geq(o.goal[0].threshold, 304 * M);
	cr_assert_lt(o.goal[0].threshold, 320 * M);
	nb_sweep_outcome_free(&o);
}

/* What held the sender back, from the attempts that fell short. */
Test(sweep, the_limit_says_what_held_the_sender_back)
{
	static const struct { struct nb_trial_host h; uint32_t want; } cases[] = {
		{ { 99, 60, 0, 500 }, NB_SWEEP_LIMIT_CPU },
		{ { 40, 60, 12, 30 }, NB_SWEEP_LIMIT_SEND_ERRORS | NB_SWEEP_LIMIT_LATE },
		{ { 95, 99, 7, 900 }, NB_SWEEP_LIMIT_CPU | NB_SWEEP_LIMIT_SEND_ERRORS },
		{ { 20, 100, 0, 60 }, NB_SWEEP_LIMIT_LATE },
		{ { NAN, NAN, NAN, NAN }, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_sweep cfg = retry_cfg(1);
		struct sim sim = { .knee = 500 * M, .host_max = 100 * M, .on_short = cases[i].h };
		struct nb_sweep_outcome o;
		run(&cfg, &sim, &o);
		cr_assert_gt(o.unreached, 100 * M, "case %zu", i);
		cr_assert_eq(o.limits, cases[i].want, "case %zu: limits %u", i, o.limits);
		nb_sweep_outcome_free(&o);
	}
}

/* ---- stopping early ----------------------------------------------------------------------- */

Test(sweep, interruption_keeps_the_bracket)
{
	struct nb_sweep cfg = search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct sim sim = { .knee = 300 * M, .blind = true, .stop_at = 9 };
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	check_invariants(&cfg, &o);
	cr_assert(o.interrupted);
	cr_assert_eq(o.ntrials, 8, "the interrupted trial is not kept");
	const struct nb_sweep_goal *g = &o.goal[0];
	cr_assert_eq(g->status, NB_SWEEP_INCOMPLETE);
	cr_assert_eq(g->threshold, 0, "an unconfirmed rate is not a threshold");
	cr_assert_lt(g->bracket_lo, 300 * M);
	cr_assert_gt(g->bracket_hi, 300 * M);
	cr_assert_lt(g->bracket_lo, g->bracket_hi);
	bool failed, passed;
	rate_record(&o, g->bracket_lo, 0, &failed, &passed);
	cr_assert(passed && !failed);
	rate_record(&o, g->bracket_hi, 0, &failed, &passed);
	cr_assert(failed);
	nb_sweep_outcome_free(&o);
}

Test(sweep, trial_budget_is_bounded)
{
	struct nb_sweep cfg = search_cfg(10 * M, 1 * G, 0.0, 0.0001);
	struct sim sim = { .knee = 300 * M, .blind = true };
	struct nb_sweep_opts opts = { .max_trials = 6 };
	struct nb_sweep_outcome o;
	sim.full_ns = cfg.trial_ns;
	cr_assert(nb_sweep_execute(&cfg, &opts, sim_run, &sim, &o));
	cr_assert(o.trial_limit);
	cr_assert_eq(o.ntrials, 6);
	cr_assert_eq(sim.calls, 6);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_INCOMPLETE);
	nb_sweep_outcome_free(&o);
}

Test(sweep, trials_that_do_not_run_stop_the_search)
{
	struct nb_sweep cfg = search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct sim sim = { .knee = 300 * M, .broken_from = 3 };
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
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
		struct sim sim = { .knee = 250 * M };
		struct nb_sweep_outcome o;
		run(&cfg, &sim, &o);
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
	struct sim sim = { .knee = 250 * M, .stop_at = 5 };
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	cr_assert(o.interrupted);
	cr_assert_eq(o.ntrials, 4);
	cr_assert_float_eq(o.trials[1].loss_ratio, 0.0, 1e-12);
	cr_assert_float_eq(o.trials[2].loss_ratio, 50.0 / 300.0, 1e-9);
	cr_assert_float_eq(o.trials[3].loss_ratio, 150.0 / 400.0, 1e-9);
	nb_sweep_outcome_free(&o);
}

/* Plain sweeps keep the rules: a step that fell short is retried; once a step is the
 * generator's limit, the steps above it run once. */
Test(sweep, plain_sweep_retries_a_step_that_fell_short)
{
	struct nb_sweep cfg = { .enabled = true, .from = 100 * M, .to = 400 * M, .step = 100 * M,
				.trial_ns = S, .retries = 2 };
	struct sim sim = { .knee = 250 * M, .hiccup = { 2 } };
	struct nb_sweep_outcome o;
	run(&cfg, &sim, &o);
	static const uint64_t want[] = { 100 * M, 200 * M, 200 * M, 300 * M, 400 * M };
	cr_assert_eq(o.ntrials, 5);
	for (size_t i = 0; i < 5; i++)
		cr_assert_eq(o.trials[i].offered, want[i], "trial %zu", i);
	cr_assert_eq(o.trials[2].attempt, 1);
	cr_assert(o.trials[2].valid);
	cr_assert_eq(o.retries, 1);
	cr_assert_eq(o.unreached, 0);
	cr_assert_eq(o.host_bound_above, 0);
	nb_sweep_outcome_free(&o);

	struct sim slow = { .knee = 250 * M, .host_max = 150 * M };
	run(&cfg, &slow, &o);
	static const uint64_t want_slow[] = { 100 * M, 200 * M, 200 * M, 200 * M, 300 * M, 400 * M };
	cr_assert_eq(o.ntrials, 6);
	for (size_t i = 0; i < 6; i++)
		cr_assert_eq(o.trials[i].offered, want_slow[i], "trial %zu", i);
	cr_assert_eq(o.unreached, 200 * M);
	cr_assert_eq(o.host_bound_above, 200 * M);
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

/* The search and plain sweeps with a sender that falls short of the offered rate (issue 18):
 * once (a hiccup, retried away) or always (host-bound); a host that holds back a sender the
 * calibration burst showed capable (no host-bound claim); a short trial that still passes (a
 * lower bound at the rate sent); a sender that cannot hold a rate; and the sentences that say
 * what held the sender back. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "sweep_run.h"
#include "sweep_sim.h"

/* What a sender that fell short says held it back: its busiest thread's CPU, the host's busy
 * share, refused sends, and pacer debt forgiven (ms per flow). */
#define HELD(cpu, busy, errs, late)                                                             \
	{ .cpu_pct = (cpu), .host_cpu_pct = (busy), .steal_pct = NAN, .snd_errs = (errs),        \
	  .forgiven_ms = (late) }

/* ---- host-bound senders ------------------------------------------------------------------- */

Test(sweep, invalid_trials_are_neither_pass_nor_fail)
{
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct nbt_sim sim = { .knee = 500 * M, .host_max = 300 * M };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	nbt_check_invariants(&cfg, &o);
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
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct nbt_sim sim = { .knee = 500 * M, .host_max = 5 * M };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_HOST_BOUND);
	cr_assert_eq(o.goal[0].threshold, 0);
	cr_assert_eq(o.host_bound_above, 10 * M);
	cr_assert_eq(o.ntrials, 1);
	nb_sweep_outcome_free(&o);
}

Test(sweep, host_limit_above_the_knee_does_not_hide_it)
{
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct nbt_sim sim = { .knee = 500 * M, .host_max = 600 * M };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	nbt_check_invariants(&cfg, &o);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_FOUND);
	cr_assert_geq((double)o.goal[0].threshold, 500.0 * M / 1.01 - 1);
	nb_sweep_outcome_free(&o);
}

/* ---- a sender that falls short: retries, lower bounds, what may be claimed ----------------- */

static struct nb_sweep retry_cfg(uint32_t retries)
{
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.001, 0.01);
	cfg.retries = retries;
	return cfg;
}

/* The trials at rate (visited once, so their attempts count 0, 1, ...): how many, and
 * whether each fell short. */
static uint32_t attempts_at(const struct nb_sweep_outcome *o, uint64_t rate, bool *short_,
			    uint32_t max)
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
	struct nbt_sim transient = { .knee = 500 * M, .hiccup = { 3, 4 } };
	struct nb_sweep_outcome a;
	nbt_sim_search(&cfg, &transient, &a);
	nbt_check_invariants(&cfg, &a);
	bool sh[8];
	cr_assert_eq(attempts_at(&a, 40 * M, sh, 8), 3, "40M: the first run and two retries");
	cr_assert(sh[0] && sh[1] && !sh[2]);
	cr_assert_eq(a.retries, 2);
	cr_assert_eq(a.unreached, 0);
	cr_assert_eq(a.host_bound_above, 0, "no host-bound claim");
	cr_assert_eq(a.goal[0].status, NB_SWEEP_FOUND, "%s", nb_sweep_status_name(a.goal[0].status));
	cr_assert_geq((double)a.goal[0].threshold, 500.0 * M / 1.01 - 1);
	cr_assert_leq(a.goal[0].threshold, 500 * M);

	struct nbt_sim persistent = { .knee = 500 * M, .host_max = 300 * M,
				  .on_short = HELD(99.5, 60, 0, 700) };
	struct nb_sweep_outcome b;
	nbt_sim_search(&cfg, &persistent, &b);
	nbt_check_invariants(&cfg, &b);
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
	struct nbt_sim sim = { .knee = 500 * M, .hiccup = { 3 } };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	nbt_check_invariants(&cfg, &o);
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
	struct nbt_sim sim = { .knee = 500 * M, .busy_from = 6, .busy_max = 100 * M,
			   .on_short = HELD(35, 100, 0, 60) };
	struct nb_sweep_outcome o;
	sim.full_ns = cfg.trial_ns;
	cr_assert(nb_sweep_execute(&cfg, &opts, nbt_sim_run, &sim, &o));
	nbt_check_invariants(&cfg, &o);
	cr_assert_eq(sim.rates[0], 0, "the calibration burst comes first, unpaced");
	cr_assert(o.calibration.ok && o.calibration.calibration);
	cr_assert_eq(o.calibration.duration_ns, 250000000);
	cr_assert_float_eq(o.sender_max, 1e10, 1);
	cr_assert_eq(sim.calls, o.ntrials + 1, "the calibration is not a trial");
	cr_assert_gt(o.unreached, 100 * M);
	cr_assert_leq((double)o.unreached, 100.0 * M * 1.01 / 0.99);
	cr_assert_eq(o.host_bound_above, 0, "the calibration sent 10G: no host-bound claim");
	cr_assert_eq(o.goal[0].status, NB_SWEEP_SENDER_SHORT, "%s",
		     nb_sweep_status_name(o.goal[0].status));
	cr_assert_eq(o.limits, NB_SWEEP_LIMIT_LATE, "CPU to spare, debt forgiven: descheduled");
	nb_sweep_outcome_free(&o);

	struct nbt_sim alone = sim;
	alone.calls = 0;
	alone.busy_from = 5;
	nbt_sim_search(&cfg, &alone, &o);
	cr_assert_gt(o.unreached, 100 * M);
	cr_assert_eq(o.host_bound_above, o.unreached, "without the burst nothing sent that much");
	cr_assert_eq(o.goal[0].status, NB_SWEEP_HOST_BOUND);
	nb_sweep_outcome_free(&o);
}

/* A sender that reached a rate once and then misses it in every attempt cannot hold a rate:
 * the search stops with its bracket instead of walking down after it. */
Test(sweep, a_sender_that_cannot_hold_a_rate_stops_the_search)
{
	struct nb_sweep cfg = retry_cfg(2);
	/* 10..320M pass (calls 1-6), 640M fails (7); from call 8 the host lets it send 100M. */
	struct nbt_sim sim = { .knee = 500 * M, .busy_from = 8, .busy_max = 100 * M,
			   .on_short = HELD(30, 100, 0, 400) };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	nbt_check_invariants(&cfg, &o);
	cr_assert_eq(o.unsteady, 320 * M, "320M passed in call 6, then fell short three times");
	cr_assert_eq(o.goal[0].status, NB_SWEEP_INCOMPLETE, "%s", nb_sweep_status_name(o.goal[0].status));
	cr_assert_eq(o.goal[0].threshold, 0);
	cr_assert_eq(o.goal[0].bracket_hi, 320 * M);
	for (size_t i = 5; i < o.ntrials; i++)
		cr_assert_geq(o.trials[i].offered, 320 * M, "trial %zu walked down", i);
	cr_assert_leq(o.ntrials, 6 + 1 + 3 * 4, "%zu trials", o.ntrials);
	nb_sweep_outcome_free(&o);
}

/* A sender that stalled and caught up sent the rate, in a burst the path dropped: no failure
 * at that rate, the trial is run again. */
Test(sweep, a_stall_that_was_caught_up_is_retried_not_a_failure)
{
	struct nb_sweep cfg = retry_cfg(2);
	struct nbt_sim sim = { .knee = 500 * M, .catch_up = { 4 } }; /* the 80M probe */
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	nbt_check_invariants(&cfg, &o);
	cr_assert_eq(o.trials[3].offered, 80 * M);
	cr_assert_not(o.trials[3].valid);
	cr_assert_eq(o.trials[3].pass_mask | o.trials[3].bound_mask, 0, "lost 0.5 %%: no evidence");
	cr_assert_eq(o.trials[4].offered, 80 * M, "retried at its rate");
	cr_assert_eq(o.trials[4].attempt, 1);
	cr_assert_eq(o.goal[0].status, NB_SWEEP_FOUND);
	cr_assert_geq((double)o.goal[0].threshold, 500.0 * M / 1.01 - 1);
	nb_sweep_outcome_free(&o);
}

/* A trial that fell short with loss within the goal shows the rate it sent passes: the search
 * goes on from there instead of bisecting below it. */
Test(sweep, a_short_trial_that_passes_is_a_lower_bound_at_the_rate_sent)
{
	struct nb_sweep cfg = retry_cfg(0);
	struct nbt_sim sim = { .knee = 500 * M, .hiccup = { 6 } }; /* the 320M probe sends 304M */
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
	nbt_check_invariants(&cfg, &o);
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
		{ HELD(99, 60, 0, 500), NB_SWEEP_LIMIT_CPU },
		{ HELD(40, 60, 12, 30), NB_SWEEP_LIMIT_SEND_ERRORS },
		{ HELD(95, 99, 7, 900), NB_SWEEP_LIMIT_CPU | NB_SWEEP_LIMIT_SEND_ERRORS },
		{ HELD(20, 100, 0, 60), NB_SWEEP_LIMIT_LATE },
		{ HELD(NAN, NAN, NAN, NAN), 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_sweep cfg = retry_cfg(1);
		struct nbt_sim sim = { .knee = 500 * M, .host_max = 100 * M, .on_short = cases[i].h };
		struct nb_sweep_outcome o;
		nbt_sim_search(&cfg, &sim, &o);
		cr_assert_gt(o.unreached, 100 * M, "case %zu", i);
		cr_assert_eq(o.limits, cases[i].want, "case %zu: limits %u", i, o.limits);
		nb_sweep_outcome_free(&o);
	}
}

/* ---- what the sentences say --------------------------------------------------------------- */

/* A UDP stream case of one flow with sweep cfg, for the sentences. */
static struct nb_case stream_case(const struct nb_sweep *cfg)
{
	struct nb_case c = { .id = "s/udp/s1400/p1/forward/search", .engine = nb_engine_find("stream"),
			     .params = { .engine = "stream", .proto = NB_PROTO_UDP, .size = 1400,
					 .streams = 1 },
			     .sweep = *cfg };
	cr_assert_not_null(c.engine);
	return c;
}

static void sentence_of(const struct nb_sweep *cfg, struct nbt_sim *sim,
			const struct nb_sweep_opts *opts, char *buf, size_t len)
{
	struct nb_case c = stream_case(cfg);
	struct nb_sweep_outcome o;
	sim->full_ns = cfg->trial_ns;
	cr_assert(nb_sweep_execute(cfg, opts, nbt_sim_run, sim, &o));
	nb_sweep_sentence(&c, &o, cfg->search ? 0 : UINT32_MAX, buf, len);
	nb_sweep_outcome_free(&o);
}

/* Host-bound says what was limited and what to do; a shortfall something disproves claims no
 * limit; retries are counted. */
Test(sweep, sentences_say_what_held_the_sender_back)
{
	char buf[NB_SWEEP_SENTENCE_MAX];
	struct nb_sweep cfg = retry_cfg(2);
	struct nbt_sim cpu = { .knee = 500 * M, .host_max = 300 * M, .on_short = HELD(99.5, 60, 0, 700) };
	sentence_of(&cfg, &cpu, NULL, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "host-bound above 30"), "%s", buf);
	cr_assert_not_null(strstr(buf, "no trial sent as much"), "%s", buf);
	cr_assert_not_null(strstr(buf, "a sending thread used 100 % of a core (CPU-bound: spread the "
				       "rate over more streams"), "%s", buf);

	struct nbt_sim errs = { .knee = 500 * M, .host_max = 300 * M, .on_short = HELD(40, 50, 812, 30) };
	sentence_of(&cfg, &errs, NULL, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "the kernel refused 2436 sends (ENOBUFS"), "%s", buf);

	struct nb_sweep_opts opts = { .calibrate_ns = 250000000 };
	struct nbt_sim busy = { .knee = 500 * M, .busy_from = 6, .busy_max = 100 * M,
			    .on_short = HELD(35, 100, 0, 60) };
	busy.on_short.steal_pct = 12;
	sentence_of(&cfg, &busy, &opts, buf, sizeof(buf));
	cr_assert_null(strstr(buf, "host-bound"), "%s", buf);
	cr_assert_not_null(strstr(buf, "though the calibration burst sent 10 Gbit/s, so no limit of "
				       "the sender is claimed"), "%s", buf);
	cr_assert_not_null(strstr(buf, "the pacer forgave"), "%s", buf);
	cr_assert_not_null(strstr(buf, "host CPU 100 % busy, 12 % stolen by the hypervisor"), "%s", buf);
	cr_assert_not_null(strstr(buf, "chrt -f 20"), "%s", buf);

	struct nbt_sim hiccup = { .knee = 500 * M, .hiccup = { 3, 4 } };
	sentence_of(&cfg, &hiccup, NULL, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "highest rate with loss ≤ 0.1 %: 49"), "%s", buf);
	cr_assert_not_null(strstr(buf, ", 2 retries, "), "%s", buf);
	cr_assert_null(strstr(buf, "host-bound"), "%s", buf);
}

Test(sweep, plain_sentence_names_the_generator_limit_only_when_nothing_sent_more)
{
	char buf[NB_SWEEP_SENTENCE_MAX];
	struct nb_sweep cfg = { .enabled = true, .from = 100 * M, .to = 400 * M, .step = 100 * M,
				.trial_ns = S, .retries = 2 };
	struct nbt_sim slow = { .knee = 250 * M, .host_max = 150 * M, .on_short = HELD(99, 99, 0, 500) };
	sentence_of(&cfg, &slow, NULL, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "sweep of 4 rates"), "%s", buf);
	cr_assert_not_null(strstr(buf, "2 retries"), "%s", buf);
	cr_assert_not_null(strstr(buf, "host-bound above 200 Mbit/s"), "%s", buf);

	struct nbt_sim hiccup = { .knee = 250 * M, .hiccup = { 2 } };
	sentence_of(&cfg, &hiccup, NULL, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "1 retry,"), "%s", buf);
	cr_assert_null(strstr(buf, "host-bound"), "%s", buf);
	cr_assert_null(strstr(buf, "fell short"), "%s", buf);
}

/* Plain sweeps keep the rules: a step that fell short is retried; once a step is the
 * generator's limit, the steps above it run once. */
Test(sweep, plain_sweep_retries_a_step_that_fell_short)
{
	struct nb_sweep cfg = { .enabled = true, .from = 100 * M, .to = 400 * M, .step = 100 * M,
				.trial_ns = S, .retries = 2 };
	struct nbt_sim sim = { .knee = 250 * M, .hiccup = { 2 } };
	struct nb_sweep_outcome o;
	nbt_sim_search(&cfg, &sim, &o);
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

	struct nbt_sim slow = { .knee = 250 * M, .host_max = 150 * M };
	nbt_sim_search(&cfg, &slow, &o);
	static const uint64_t want_slow[] = { 100 * M, 200 * M, 200 * M, 200 * M, 300 * M, 400 * M };
	cr_assert_eq(o.ntrials, 6);
	for (size_t i = 0; i < 6; i++)
		cr_assert_eq(o.trials[i].offered, want_slow[i], "trial %zu", i);
	cr_assert_eq(o.unreached, 200 * M);
	cr_assert_eq(o.host_bound_above, 200 * M);
	nb_sweep_outcome_free(&o);
}


/* Interrupted before any rate failed: the bracket's top is `to`, named, never a placeholder. */
Test(sweep, an_interrupted_search_names_both_ends_of_its_bracket)
{
	char buf[NB_SWEEP_SENTENCE_MAX];
	struct nb_sweep cfg = nbt_search_cfg(10 * M, 1 * G, 0.0, 0.01);
	struct nbt_sim up = { .knee = 300 * M, .blind = true, .stop_at = 4 };
	sentence_of(&cfg, &up, NULL, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "incomplete (interrupted): the threshold lies between 40 Mbit/s "
				       "and 1 Gbit/s"), "%s", buf);
	cr_assert_null(strstr(buf, "and to"), "%s", buf);

	struct nbt_sim first = { .knee = 300 * M, .blind = true, .stop_at = 1 };
	sentence_of(&cfg, &first, NULL, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "incomplete (interrupted): no trial bounded the threshold "
				       "(the search spans 10 Mbit/s to 1 Gbit/s)"), "%s", buf);
	cr_assert_null(strstr(buf, "from and"), "%s", buf);
}

/* A trial that lost packets after its sender fell more than NB_SWEEP_STALL_NS behind its schedule
 * beyond its burst is not valid: its loss may be the sender's own catch-up. Only a loss the
 * strictest goal refuses counts, and only a lag beyond burst + 5 ms; a lag not known is none. */
Test(sweep_short, stalled_loss_rule)
{
	struct nb_sweep s = { .enabled = true, .search = true, .nloss = 2, .loss = { 0.0, 0.005 } };
	static const struct { double loss, lag_us; uint32_t burst_us; bool want; } cases[] = {
		{ 0.0, 9000, 250, false },     /* lost nothing: a pass, however late */
		{ 0.001, 9000, 250, true },    /* fails NDR (0 %) after 9 ms behind */
		{ 0.001, 5250, 250, false },   /* exactly burst + 5 ms: not beyond */
		{ 0.001, 5251, 250, true },
		{ 0.001, 3200, 250, false },   /* a quiet VM's routine lag (3.2 ms seen at 100M) */
		{ 0.001, 9000, 5000, false },  /* a 5 ms burst asked for: 9 ms is within 5 + 5 */
		{ 0.001, NAN, 250, false },    /* lag not known (a sender that records none) */
		{ 0.3, 20000, 250, true },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(nb_sweep_stalled_loss(&s, cases[i].loss, cases[i].lag_us, cases[i].burst_us),
			     cases[i].want, "case %zu: loss %g lag %g us burst %u us", i, cases[i].loss,
			     cases[i].lag_us, cases[i].burst_us);
	struct nb_sweep pdr = { .enabled = true, .search = true, .nloss = 1, .loss = { 0.005 } };
	cr_expect(!nb_sweep_stalled_loss(&pdr, 0.004, 9000, 250), "within the only goal: a pass");
	cr_expect(nb_sweep_stalled_loss(&pdr, 0.006, 9000, 250), "beyond it after 9 ms behind");
}

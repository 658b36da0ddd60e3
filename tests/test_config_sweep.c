/* The config language, part two: what repeats a case. Auto repetitions ({auto: true, min,
 * max, ci}) and rate sweeps (steps, step, factor, loss searches), each error with its broken
 * YAML inline and the exact line:col. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "config_util.h"

Test(config, repetitions_auto_and_its_mapping)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("tests:\n  - name: a\n    engine: stream\n    repetitions: auto\n"
			    "  - name: b\n    engine: stream\n    repetitions: {auto: true, min: 4, "
			    "max: 12, ci: 2%}\n", NULL, 0, &cfg, &err), "%s", err.msg);
	const struct nb_reps *a = &cfg.tests[0].reps, *b = &cfg.tests[1].reps;
	cr_assert(a->autorep);
	cr_assert_eq(a->min, 3);
	cr_assert_eq(a->max, 30);
	cr_assert_eq(a->count, 3);
	cr_assert_float_eq(a->ci, 0.05, 1e-12);
	cr_assert(b->autorep);
	cr_assert_eq(b->min, 4);
	cr_assert_eq(b->max, 12);
	cr_assert_eq(b->count, 4);
	cr_assert_float_eq(b->ci, 0.02, 1e-12);
	nb_config_free(&cfg);
}

Test(config, bad_repetitions_mappings)
{
	static const char *head = "tests:\n  - name: a\n    engine: stream\n    repetitions: ";
	static const struct nbt_err_case t[] = {
		{ "{auto: false}", "4:25", "auto: false (expected an integer for a fixed count)" },
		{ "{min: 3}", "4:18", "repetitions mapping without auto" },
		{ "{auto: true, min: 9, max: 4}", "4:44", "4 is out of range (expected an integer from 9" },
		{ "{auto: true, mni: 3}", "4:31", "unknown key 'mni' in repetitions (did you mean 'min'?)" },
		{ "[1, 2]", "4:18", "expected an integer, auto, or {auto: true" },
		{ "{auto: true, ci: 2}", "4:35", "bad percentage '2': missing '%'" },
	};
	assert_errs(head, t, sizeof(t) / sizeof(t[0]));
}

Test(config, sweeps_parse_each_mode)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("tests:\n"
			    "  - name: a\n    engine: stream\n    protocol: udp\n"
			    "    sweep: {rate: {steps: [100M, 200M, 500M]}}\n"
			    "  - name: b\n    engine: stream\n    sweep: {rate: {from: 1G, to: 10G, "
			    "step: 1G}}\n"
			    "  - name: c\n    engine: pps\n    sweep: {rate: {from: 10kpps, to: 1Mpps, "
			    "factor: 2}, trial: 3s}\n"
			    "  - name: d\n    engine: stream\n    protocol: udp\n    sweep: {rate: {from: "
			    "10M, to: 1G, loss: [0%, 0.5%]}, confirm: 3, retries: 0}\n",
			    NULL, 0, &cfg, &err), "%s", err.msg);
	const struct nb_sweep *a = &cfg.tests[0].sweep, *b = &cfg.tests[1].sweep,
			      *c = &cfg.tests[2].sweep, *d = &cfg.tests[3].sweep;
	cr_assert_eq(a->nsteps, 3);
	cr_assert_eq(a->from, 100000000);
	cr_assert_eq(a->to, 500000000);
	cr_assert_not(a->search);
	cr_assert_eq(b->step, 1000000000);
	cr_assert_float_eq(c->factor, 2.0, 1e-12);
	cr_assert_eq(c->trial_ns, 3000000000ull);
	cr_assert_eq(c->from, 10000, "pps sweeps in packets/s");
	cr_assert(d->search);
	cr_assert_eq(d->nloss, 2);
	cr_assert_float_eq(d->loss[1], 0.005, 1e-12);
	cr_assert_eq(d->confirm, 3);
	cr_assert_eq(d->retries, 0);
	cr_assert_eq(a->retries, 2, "a trial that fell short is re-run twice by default");
	cr_assert_eq(c->retries, 2);
	nb_config_free(&cfg);
}

/* `trial` is every trial's length; a search asks for short coarse trials with short_trial. */
Test(config, short_trial_is_a_search_key_and_trial_stays_every_trials_length)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("tests:\n  - name: a\n    engine: stream\n    protocol: udp\n"
			    "    sweep: {rate: {from: 10M, to: 1G, loss: 0.1%}, trial: 2s}\n"
			    "  - name: b\n    engine: stream\n    protocol: udp\n"
			    "    sweep: {rate: {from: 10M, to: 1G, loss: 0.1%}, trial: 2s, "
			    "short_trial: 500ms}\n", NULL, 0, &cfg, &err), "%s", err.msg);
	cr_assert_eq(cfg.tests[0].sweep.trial_ns, 2000000000ull);
	cr_assert_eq(cfg.tests[0].sweep.short_trial_ns, 0, "no short trials unless asked");
	cr_assert_eq(cfg.tests[1].sweep.trial_ns, 2000000000ull);
	cr_assert_eq(cfg.tests[1].sweep.short_trial_ns, 500000000ull);
	nb_config_free(&cfg);
}

/* MLRsearch's goal attributes (RFC 9971) under their own names: final_trial is trial,
 * initial_trial short_trial, duration_sum confirm x trial, loss_ratio loss, exceed_ratio 0. */
Test(config, a_search_takes_mlrsearchs_names_for_todays_keys)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("tests:\n  - name: a\n    engine: stream\n    protocol: udp\n"
			    "    sweep: {rate: {from: 10M, to: 1G, loss_ratio: [0%, 0.5%]}, final_trial: 2s, "
			    "initial_trial: 500ms, duration_sum: 6s, exceed_ratio: 0}\n",
			    NULL, 0, &cfg, &err), "%s", err.msg);
	const struct nb_sweep *s = &cfg.tests[0].sweep;
	cr_assert(s->search);
	cr_assert_eq(s->nloss, 2);
	cr_assert_float_eq(s->loss[1], 0.005, 1e-12);
	cr_assert_eq(s->trial_ns, 2000000000ull);
	cr_assert_eq(s->short_trial_ns, 500000000ull);
	cr_assert_eq(s->confirm, 3, "6 s of 2 s trials");
	nb_config_free(&cfg);
}

Test(config, mlrsearch_names_and_their_errors)
{
	static const char *head = "tests:\n  - name: a\n    engine: stream\n    protocol: udp\n"
				  "    sweep: ";
	static const struct nbt_err_case t[] = {
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, trial: 1s, final_trial: 2s}", "5:60",
		  "'trial' and 'final_trial' name the same thing" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%, loss_ratio: 1%}}", "5:48",
		  "'loss' and 'loss_ratio' exclude each other" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, trial: 2s, duration_sum: 3s}", "5:74",
		  "duration_sum 3s is not 1 to 100 full-length trials of 2s (expected e.g. 4s)" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, confirm: 2, duration_sum: 2s}", "5:61",
		  "'confirm' and 'duration_sum' say the same thing" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, exceed_ratio: 0.5}", "5:63",
		  "exceed_ratio 0.5: this search takes a load as a lower bound only when every "
		  "full-length trial there passed (expected 0)" },
		{ "{rate: {steps: [1M, 2M]}, duration_sum: 2s}", "5:38",
		  "duration_sum applies to a loss search only" },
		{ "{rate: {from: 1M, to: 1G, step: 1M}, initial_trial: 1s}", "5:49",
		  "initial_trial applies to a loss search only" },
	};
	assert_errs(head, t, sizeof(t) / sizeof(t[0]));
}

Test(config, sweep_validation_table)
{
	static const char *head = "tests:\n  - name: a\n    engine: stream\n    protocol: udp\n"
				  "    sweep: ";
	static const struct nbt_err_case t[] = {
		{ "{rate: {from: 1G, to: 10M, loss: 0.1%}}", "5:34", "to (10M) is not above from (1G)" },
		{ "{rate: {from: 1M, to: 1G}}", "5:19", "the sweep has no steps, step, factor or loss" },
		{ "{rate: {from: 1M, to: 1G, step: 1M, loss: 1%}}", "5:48",
		  "'step' and 'loss' exclude each other" },
		{ "{rate: {to: 1G, loss: 1%}}", "5:19", "the sweep has no 'from'" },
		{ "{rate: {from: 1M, to: 1G, factor: 1}}", "5:46", "bad factor '1'" },
		{ "{rate: {from: 1M, to: 1G, step: 1k}}", "5:44", "step 1k gives 999001 rates" },
		{ "{rate: {from: 1M, to: 1G, step: 1M, precision: 1%}}", "5:48",
		  "precision applies to a loss search only" },
		{ "{rate: {from: 1M, to: 1G, step: 1M}, confirm: 2}", "5:49",
		  "confirm applies to a loss search only" },
		{ "{rate: {from: 1M, to: 1G, loss: [1%, 0.1%]}}", "5:49", "loss thresholds must ascend" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, trail: 2s}", "5:49",
		  "unknown key 'trail' in sweep (did you mean 'trial'?)" },
		{ "{rate: {form: 1M, to: 1G, loss: 1%}}", "5:20",
		  "unknown key 'form' in sweep.rate (did you mean 'from'?)" },
		{ "{rate: {from: 10kpps, to: 1G, loss: 1%}}", "5:26", "'10kpps' is a packet rate" },
		{ "{rate: {steps: [2M, 1M]}}", "5:32", "steps must ascend" },
		{ "{trial: 2s}", "5:12", "the sweep has no rate" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, retries: 11}", "5:58",
		  "11 is out of range (expected an integer from 0 to 10" },
		{ "{rate: {steps: [1M, 2M]}, retries: many}", "5:47", "'many' is not an integer" },
		{ "{rate: {steps: [1M, 2M]}, retires: 1}", "5:38",
		  "unknown key 'retires' in sweep (did you mean 'retries'?)" },
		{ "[1M, 2M]", "5:12", "expected a mapping such as {rate:" },
		{ "{rate: {from: 1M, to: 1G, step: 1M}, short_trial: 1s}", "5:49",
		  "short_trial applies to a loss search only" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, trial: 2s, short_trial: 2s}", "5:73",
		  "short_trial 2s is not below trial (2s)" },
	};
	assert_errs(head, t, sizeof(t) / sizeof(t[0]));
}

Test(config, sweep_conflicts_with_rate_and_a_search_needs_udp)
{
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n    protocol: udp\n    rate: 1G\n"
			"    sweep: {rate: {from: 1M, to: 1G, loss: 1%}}\n"), "6:12",
		   "a test with a sweep has no rate");
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n"
			"    sweep: {rate: {from: 1M, to: 1G, loss: 1%}}\n"), "4:12",
		   "a loss search needs UDP (expected protocol udp)");
	assert_err(fail("tests:\n  - name: a\n    engine: rr\n    sweep: {rate: {from: 1M, to: 1G, "
			"loss: 1%}}\n"), "4:5", "'sweep' does not apply to engine rr");
}

/* latency_at: FD.io CSIT's latency at % of PDR, fractions of the search's PDR rate. */
Test(config, a_search_takes_the_fractions_of_its_pdr_for_latency)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("tests:\n  - name: a\n    engine: stream\n    protocol: udp\n"
			    "    sweep: {rate: {from: 10M, to: 1G, loss: [0%, 0.5%]}, "
			    "latency_at: [0%, 10%, 50%, 90%]}\n  - name: b\n    engine: stream\n"
			    "    protocol: udp\n    sweep: {rate: {from: 10M, to: 1G, loss: 0.5%}}\n",
			    NULL, 0, &cfg, &err), "%s", err.msg);
	const struct nb_sweep *s = &cfg.tests[0].sweep;
	cr_assert_eq(s->nlatency_at, 4);
	cr_assert_float_eq(s->latency_at[0], 0.0, 1e-12);
	cr_assert_float_eq(s->latency_at[3], 0.9, 1e-12);
	cr_assert_eq(s->latency_rate, 9000, "CSIT's latency streams");
	cr_assert_eq(cfg.tests[1].sweep.nlatency_at, 0, "off unless asked");
	nb_config_free(&cfg);
}

Test(config, latency_at_and_its_errors)
{
	static const char *head = "tests:\n  - name: a\n    engine: stream\n    protocol: udp\n"
				  "    sweep: ";
	static const struct nbt_err_case t[] = {
		{ "{rate: {from: 1M, to: 1G, loss: 0%}, latency_at: [50%]}", "5:49",
		  "latency_at needs a search with a PDR (expected rate.loss with a non-zero goal" },
		{ "{rate: {steps: [1M, 2M]}, latency_at: [50%]}", "5:38",
		  "latency_at needs a search with a PDR" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, latency_at: [90%, 50%]}", "5:67",
		  "latency_at must ascend" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, latency_at: [0%]}", "5:61",
		  "latency_at has no fraction above 0%" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, latency_at: [50]}", "5:62",
		  "bad percentage '50': missing '%'" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, latency_at: [120%]}", "5:62",
		  "bad percentage '120%': over 100%" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, latency_at: []}", "5:61",
		  "expected a list of percentages of the PDR rate" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, latency_rate: 1kpps}", "5:49",
		  "latency_rate applies with latency_at only" },
		{ "{rate: {from: 1M, to: 1G, loss: 1%}, latency_at: [50%], latency_rate: 10M}", "5:82",
		  "rate '10M' has no unit: engine" },
	};
	assert_errs(head, t, sizeof(t) / sizeof(t[0]));
}

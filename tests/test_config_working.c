/* A working test (load: and probes:, docs/config.md "Working conditions"): the load is a stream
 * test, each probe a test of its engine whose timeline spans idle + duration + after; the plan
 * has one case and its probes' cases; every mistake is one located line. */
#include <criterion/criterion.h>
#include <string.h>

#include "config_util.h"
#include "plan.h"

#define S 1000000000ull

static const char rrul[] =
	"tests:\n"
	"  - name: rrul\n"
	"    idle: 2s\n"
	"    after: 1s\n"
	"    duration: 4s\n"
	"    interval: 500ms\n"
	"    omit: 1s\n"
	"    load: {streams: 4, congestion: bbr}\n"
	"    probes:\n"
	"      - {engine: latency, protocol: udp, rate: 10pps}\n"
	"      - {engine: icmp, rate: 5pps}\n"
	"      - {engine: crr, rate: 10pps}\n";

Test(config_working, the_load_is_a_stream_test_and_each_probe_spans_every_phase)
{
	struct nb_config cfg;
	struct nb_error err = { { 0 } };
	cr_assert(load_sets(rrul, NULL, 0, &cfg, &err), "%s", err.msg);
	const struct nb_test *t = &cfg.tests[0];
	cr_assert_not_null(t->working);
	cr_expect_str_eq(t->engine->name, "stream");
	cr_expect_eq(t->direction.v[0], NB_DIR_BIDIR, "both ways unless the load says");
	cr_expect_eq(t->streams.v[0], 4);
	cr_expect_str_eq(t->base.congestion, "bbr");
	cr_expect_eq(t->timing.duration_ns, 4 * S);
	const struct nb_working *w = t->working;
	cr_assert_eq(w->nprobes, 3);
	cr_expect_eq(w->idle_ns, 2 * S);
	cr_expect_eq(w->after_ns, 1 * S);
	for (uint32_t i = 0; i < 3; i++) {
		cr_expect_eq(w->probes[i].timing.duration_ns, 7 * S, "idle + duration + after");
		cr_expect_eq(w->probes[i].timing.omit_ns, 0, "the ramp is the load's");
		cr_expect_eq(w->probes[i].timing.interval_ns, t->timing.interval_ns);
	}
	struct nb_plan plan;
	cr_assert(nb_plan_build(&cfg, NULL, 0, &plan, &err), "%s", err.msg);
	cr_assert_eq(plan.ncases, 1, "one working case");
	struct nb_case pc;
	cr_assert(nb_plan_probe_case(&plan.cases[0], 0, &pc));
	cr_expect_str_eq(pc.id, "rrul.p1/udp/s32/f1/r10pps");
	cr_assert(nb_plan_probe_case(&plan.cases[0], 1, &pc));
	cr_expect_str_eq(pc.id, "rrul.p2/icmp/s56/f1/r5pps");
	cr_assert(nb_plan_probe_case(&plan.cases[0], 2, &pc));
	cr_expect_str_eq(pc.id, "rrul.p3/tcp/q32r128/f1/r10pps", "crr at a rate says so in its id");
	cr_expect_not(nb_plan_probe_case(&plan.cases[0], 3, &pc));
	/* warm-up 1 s + idle 2 + duration 4 + after 1, and the 1 s overhead */
	cr_expect_float_eq(nb_plan_estimate_s(&plan), 9.0, 1e-9);
	nb_plan_free(&plan);
	nb_config_free(&cfg);
}

Test(config_working, every_mistake_is_one_located_line)
{
	static const struct { const char *yaml, *loc, *frag; } bad[] = {
		{ "tests:\n  - name: a\n    idle: 0.7s\n    interval: 500ms\n    load: {}\n"
		  "    probes: [{engine: latency, rate: 1pps}]\n",
		  "3:11", "idle 0.7s is not a whole number of intervals of 0.5s" },
		{ "tests:\n  - name: a\n    idle: 0s\n    load: {}\n"
		  "    probes: [{engine: latency, rate: 1pps}]\n",
		  "3:11", "leaves no idle interval" },
		{ "tests:\n  - name: a\n    idle: 121s\n    load: {}\n"
		  "    probes: [{engine: latency, rate: 1pps}]\n",
		  "3:11", "idle 121s is too long (expected at most 120s" },
		{ "tests:\n  - name: a\n    load: {direction: sideways}\n"
		  "    probes: [{engine: latency, rate: 1pps}]\n",
		  "3:23", "bad load direction 'sideways' (expected up, down or both)" },
		{ "tests:\n  - name: a\n    load: {streams: [1, 2]}\n"
		  "    probes: [{engine: latency, rate: 1pps}]\n",
		  "3:21", "'streams' of a load takes one value" },
		{ "tests:\n  - name: a\n    load: {}\n    probes: [{engine: stream}]\n",
		  "4:23", "engine stream measures no round trips" },
		{ "tests:\n  - name: a\n    load: {}\n    probes: [{engine: latency}]\n",
		  "4:14", "a probe of engine latency needs a rate > 0" },
		{ "tests:\n  - name: a\n    load: {}\n    probes: [{engine: rr}]\n",
		  "4:14", "a probe of engine rr needs a rate > 0" },
		{ "tests:\n  - name: a\n    load: {}\n    probes: [{rate: 1pps}]\n",
		  "4:14", "a probe without an engine" },
		{ "tests:\n  - name: a\n    engine: stream\n    load: {}\n"
		  "    probes: [{engine: latency, rate: 1pps}]\n",
		  "3:5", "a test with load: and probes: runs the engines they name" },
		{ "tests:\n  - name: a\n    load: {}\n", "2:5", "has load: without probes:" },
		{ "tests:\n  - name: a\n    engine: stream\n    idle: 1s\n",
		  "4:5", "'idle' is a phase of a working test" },
		{ "hosts: {h1: {address: 10.0.0.1}, h2: {address: 10.0.0.2}}\n"
		  "tests:\n  - name: a\n    paths: [{from: local, to: h1}, {from: h1, to: h2}]\n"
		  "    load: {}\n    probes: [{engine: latency, rate: 1pps}]\n",
		  "4:36", "its paths start at local, not at h1 (expected from: local)" },
		{ "hosts: {h1: {address: 10.0.0.1}, h2: {address: 10.0.0.2}}\n"
		  "tests:\n  - name: a\n    paths: [{from: local, to: h1}, {from: local, to: h2}]\n"
		  "    load: {}\n    probes: [{engine: latency, rate: 1pps}, {engine: icmp, rate: 1pps}]\n",
		  "4:12", "probe 2 (engine icmp) reaches one host by itself" },
		{ "hosts: {h1: {address: 10.0.0.1}, h2: {address: 10.0.0.2}, h3: {address: 10.0.0.3}}\n"
		  "tests:\n  - name: a\n    paths: [{from: local, to: h1}, {from: local, to: h2},"
		  " {from: local, to: h3}]\n    load: {}\n    probes: [{engine: latency, rate: 1pps},"
		  " {engine: latency, rate: 2pps}, {engine: latency, rate: 3pps},"
		  " {engine: latency, rate: 4pps}, {engine: latency, rate: 5pps}]\n",
		  "4:12", "3 paths x (a load + 5 probes) make more than 16 parts" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_err(fail(bad[i].yaml), bad[i].loc, bad[i].frag);
}

/* Each probe is checked by its engine as a test of its own is, at the probe's line; a connect
 * probe without port: is one to the case's agent's control port, and its id says so. */
Test(config_working, a_probe_is_validated_by_its_engine_at_its_line)
{
	static const struct { const char *probe, *frag; } bad[] = {
		{ "{engine: connect, rate: 200kpps}",
		  "probe 2 of case a/tcp/s128K/p1/bidir: rate must be at most 100000 attempts/s" },
	};
	char yaml[512];
	struct nb_config cfg;
	struct nb_plan plan;
	struct nb_error err = { { 0 } };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(yaml, sizeof(yaml), "tests:\n  - name: a\n    load: {}\n    probes:\n"
			 "      - {engine: latency, rate: 1pps}\n      - %s\n", bad[i].probe);
		cr_assert(load_sets(yaml, NULL, 0, &cfg, &err), "%s", err.msg);
		cr_assert_not(nb_plan_build(&cfg, NULL, 0, &plan, &err), "planned:\n%s", yaml);
		size_t plen = strlen(path);
		cr_assert(strncmp(err.msg, path, plen) == 0, "no file: %s", err.msg);
		assert_err(err.msg + plen + 1, "6:9", bad[i].frag);
		nb_config_free(&cfg);
	}
	snprintf(yaml, sizeof(yaml), "tests:\n  - name: a\n    load: {}\n    probes:\n"
		 "      - {engine: connect, rate: 5pps}\n");
	cr_assert(load_sets(yaml, NULL, 0, &cfg, &err), "%s", err.msg);
	cr_assert(nb_plan_build(&cfg, NULL, 0, &plan, &err), "%s", err.msg);
	struct nb_case pc;
	cr_assert(nb_plan_probe_case(&plan.cases[0], 0, &pc));
	cr_expect_str_eq(pc.id, "a.p1/tcp/portagent/f1/r5pps", "the agent's control port");
	cr_expect(nb_plan_probe_agent_port(&pc));
	nb_plan_free(&plan);
	nb_config_free(&cfg);
}

/* The config language: what a good file becomes, and one test per error class with the
 * broken YAML inline, asserting the exact line:col and the words of the message. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config_util.h"

static const char *issue_example =
	"name: cloud-vm\n"
	"description: free text\n"
	"defaults:\n"
	"  duration: 30s\n"
	"  warmup: 2s\n"
	"  omit: 2s\n"
	"  interval: 1s\n"
	"  repetitions: 5\n"
	"  order: interleaved\n"
	"  seed: 1\n"
	"tests:\n"
	"  - name: tcp-throughput\n"
	"    engine: stream\n"
	"    protocol: [tcp]\n"
	"    size: [1440, 128K]\n"
	"    streams: [1, 4, 8]\n"
	"    direction: [forward, reverse, bidir]\n"
	"  - name: udp-rate\n"
	"    engine: stream\n"
	"    protocol: udp\n"
	"    size: 1400\n"
	"    rate: [100M, 1G]\n"
	"  - name: tcp-rr\n"
	"    engine: rr\n"
	"    protocol: tcp\n"
	"    request: 32\n"
	"    response: 128\n"
	"    flows: [1, 16]\n"
	"  - name: udp-loss-threshold\n"
	"    engine: stream\n"
	"    protocol: udp\n"
	"    size: 1400\n"
	"    sweep: { rate: { from: 10M, to: 10G, loss: 0.1%, precision: 1% } }\n";

Test(config, the_issue_example_loads_with_its_axes)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets(issue_example, NULL, 0, &cfg, &err), "%s", err.msg);
	cr_assert_str_eq(cfg.name, "cloud-vm");
	cr_assert_str_eq(cfg.description, "free text");
	cr_assert_eq(cfg.order, NB_ORDER_INTERLEAVED);
	cr_assert_eq(cfg.ntests, 4);
	const struct nb_test *t = &cfg.tests[0];
	cr_assert_str_eq(t->name, "tcp-throughput");
	cr_assert_eq(t->line, 12);
	cr_assert_eq(t->col, 5);
	cr_assert_eq(t->size.n, 2);
	cr_assert_eq(t->size.v[0], 1440);
	cr_assert_eq(t->size.v[1], 131072);
	cr_assert_eq(t->streams.n, 3);
	cr_assert_eq(t->direction.v[2], NB_DIR_BIDIR);
	cr_assert_eq(t->timing.duration_ns, 30000000000ull);
	cr_assert_eq(t->reps.count, 5);
	cr_assert_eq(cfg.tests[1].rate.v[1], 1000000000ull);
	cr_assert_eq(cfg.tests[2].streams.v[1], 16, "flows is streams");
	cr_assert_eq(cfg.tests[2].request.v[0], 32);
	const struct nb_sweep *s = &cfg.tests[3].sweep;
	cr_assert(s->enabled && s->search);
	cr_assert_eq(s->from, 10000000);
	cr_assert_eq(s->to, 10000000000ull);
	cr_assert_eq(s->nloss, 1);
	cr_assert_float_eq(s->loss[0], 0.001, 1e-12);
	cr_assert_float_eq(s->precision, 0.01, 1e-12);
	cr_assert_eq(s->trial_ns, 30000000000ull, "trial defaults to duration");
	cr_assert_eq(cfg.text_len, strlen(issue_example));
	nb_config_free(&cfg);
}

Test(config, built_in_defaults_fill_what_the_file_omits)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("tests:\n  - name: a\n    engine: pps\n  - name: b\n    engine: rr\n",
			    NULL, 0, &cfg, &err), "%s", err.msg);
	const struct nb_test *a = &cfg.tests[0], *b = &cfg.tests[1];
	cr_assert_eq(a->engine, nb_engine_find("pps"), "each test carries its engine's table");
	cr_assert_eq(b->engine, nb_engine_find("rr"));
	cr_assert_eq(cfg.order, NB_ORDER_SEQUENTIAL);
	cr_assert_eq(cfg.seed, 1);
	cr_assert_eq(a->protocol.v[0], NB_PROTO_UDP, "pps defaults to udp");
	cr_assert_eq(a->size.n, 0, "size left to the per-protocol default");
	cr_assert_eq(a->timing.duration_ns, 10000000000ull);
	cr_assert_eq(a->timing.warmup_ns, 1000000000ull);
	cr_assert_eq(a->timing.interval_ns, 1000000000ull);
	cr_assert_eq(a->base.tos, -1);
	cr_assert_eq(b->protocol.v[0], NB_PROTO_TCP);
	cr_assert_eq(b->request.v[0], 32);
	cr_assert_eq(b->response.v[0], 128);
	cr_assert_eq(b->base.timeout_ms, 1000);
	cr_assert_eq(b->base.wait, NB_WAIT_BLOCK);
	cr_assert_eq(b->reps.count, 1);
	nb_config_free(&cfg);
}

Test(config, a_test_overrides_defaults_and_set_overrides_both)
{
	static const char *yaml = "defaults:\n  duration: 20s\n  streams: 2\n  warmup: 3s\n"
				  "tests:\n  - name: a\n    engine: stream\n    duration: 5s\n"
				  "    streams: 4\n";
	const char *sets[] = { "duration=7s", "warmup=0" };
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets(yaml, NULL, 0, &cfg, &err), "%s", err.msg);
	cr_assert_eq(cfg.tests[0].timing.duration_ns, 5000000000ull);
	cr_assert_eq(cfg.tests[0].timing.warmup_ns, 3000000000ull);
	cr_assert_eq(cfg.tests[0].streams.v[0], 4);
	nb_config_free(&cfg);
	cr_assert(load_sets(yaml, sets, 2, &cfg, &err), "%s", err.msg);
	cr_assert_eq(cfg.tests[0].timing.duration_ns, 7000000000ull);
	cr_assert_eq(cfg.tests[0].timing.warmup_ns, 0);
	cr_assert_eq(cfg.tests[0].streams.v[0], 4);
	nb_config_free(&cfg);
}

Test(config, set_values_are_yaml_so_lists_work_and_the_last_set_wins)
{
	const char *sets[] = { "size=[64, 1400]", "flows=3", "flows=5", "order=random", "seed=42" };
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("tests:\n  - name: a\n    engine: stream\n    protocol: udp\n", sets, 5,
			    &cfg, &err), "%s", err.msg);
	cr_assert_eq(cfg.tests[0].size.n, 2);
	cr_assert_eq(cfg.tests[0].size.v[1], 1400);
	cr_assert_eq(cfg.tests[0].streams.v[0], 5);
	cr_assert_eq(cfg.order, NB_ORDER_RANDOM);
	cr_assert_eq(cfg.seed, 42);
	nb_config_free(&cfg);
}

Test(config, set_errors_name_the_set)
{
	static const char *yaml = "tests:\n  - name: a\n    engine: stream\n";
	const char *bad_value[] = { "duration=soon" }, *unknown[] = { "repetiton=3" },
		   *no_eq[] = { "duration" }, *empty[] = { "size=" }, *name[] = { "name=x" };
	cr_assert(strstr(fail_sets(yaml, bad_value, 1), "--set duration: bad duration 'soon'"));
	cr_assert(strstr(fail_sets(yaml, unknown, 1), "--set repetiton: unknown key 'repetiton' "
						       "(did you mean 'repetitions'?)"));
	cr_assert(strstr(fail_sets(yaml, no_eq, 1), "--set duration: expected KEY=VALUE"));
	cr_assert(strstr(fail_sets(yaml, empty, 1), "--set size: missing value"));
	cr_assert(strstr(fail_sets(yaml, name, 1), "--set name: 'name' is not allowed in defaults"));
}

Test(config, set_checks_its_value_in_the_test_context)
{
	const char *sets[] = { "size=70000" };
	const char *e = fail_sets("tests:\n  - name: a\n    engine: stream\n    protocol: udp\n",
				  sets, 1);
	cr_assert(strstr(e, "--set size: size 70000 is too large for UDP (expected at most 65507"),
		  "%s", e);
}

Test(config, unknown_key_suggests_the_nearest)
{
	assert_err(fail("defaults:\n  repetiton: 3\ntests:\n  - name: a\n    engine: stream\n"),
		   "2:3", "unknown key 'repetiton' (did you mean 'repetitions'?)");
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n    durration: 1s\n"), "4:5",
		   "did you mean 'duration'?");
	assert_err(fail("nmae: x\ntests:\n  - name: a\n    engine: stream\n"), "1:1",
		   "did you mean 'name'?");
}

Test(config, unknown_key_far_from_any_gets_no_guess)
{
	const char *e = fail("tests:\n  - name: a\n    engine: stream\n    bananas: 3\n");
	assert_err(e, "4:5", "unknown key 'bananas' in a test (expected a key listed in docs/config.md)");
	cr_assert_null(strstr(e, "did you mean"));
}

Test(config, a_key_in_the_wrong_place_says_where_it_belongs)
{
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n    order: random\n"), "4:5",
		   "'order' is not allowed in a test (expected it at the top level or in defaults)");
	assert_err(fail("defaults:\n  description: x\ntests:\n  - name: a\n    engine: rr\n"), "2:3",
		   "'description' is not allowed in defaults");
}

Test(config, a_key_of_another_engine_is_an_error_in_a_test_but_not_in_defaults)
{
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n    request: 32\n"), "4:5",
		   "'request' does not apply to engine stream (expected with rr, crr)");
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("defaults:\n  request: 64\ntests:\n  - name: a\n    engine: stream\n",
			    NULL, 0, &cfg, &err), "%s", err.msg);
	cr_assert_eq(cfg.tests[0].request.v[0], 0);
	nb_config_free(&cfg);
}

Test(config, yaml_syntax_errors_use_libyaml_position)
{
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n   size: 64\n"), "4:4",
		   "YAML syntax error: did not find expected '-' indicator");
	assert_err(fail("tests: [a, b\n"), "2:1", "YAML syntax error: did not find expected");
	assert_err(fail("name: \"open\ntests: []\n"), "3:1", "found unexpected end of stream");
}

Test(config, missing_file_directory_and_empty_file_each_have_their_message)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert_not(nb_config_load("/nonexistent/x.yaml", NULL, 0, &cfg, &err));
	cr_assert_str_eq(err.msg, "/nonexistent/x.yaml: no such file (expected a YAML config file)");
	cr_assert_not(nb_config_load("/tmp", NULL, 0, &cfg, &err));
	cr_assert_str_eq(err.msg, "/tmp: is a directory (expected a YAML config file)");
	cr_assert_str_eq(fail(""), "empty file (expected a YAML mapping with tests:)");
	cr_assert_str_eq(fail("# only a comment\n\n"), "empty file (expected a YAML mapping with tests:)");
}

Test(config, an_unreadable_file_says_so)
{
	if (geteuid() == 0)
		cr_skip_test("root reads everything");
	write_yaml("tests: []\n");
	chmod(path, 0);
	struct nb_config cfg;
	struct nb_error err;
	cr_assert_not(nb_config_load(path, NULL, 0, &cfg, &err));
	cr_assert(strstr(err.msg, "cannot open: Permission denied"), "%s", err.msg);
	unlink(path);
}

Test(config, duplicate_keys_point_at_the_second_and_name_the_first)
{
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n    size: 64\n    size: 128\n"),
		   "5:5", "duplicate key 'size' (first at line 4, column 5)");
}

Test(config, duplicate_test_names_are_rejected)
{
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n  - name: a\n    engine: rr\n"),
		   "4:11", "duplicate test name 'a' (first at line 2, column 5)");
}

Test(config, wrong_types_say_what_was_expected)
{
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n    duration: [1s, 2s]\n"),
		   "4:15", "expected a duration such as 500ms, 10s or 2m, got a list");
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n    size: {a: 1}\n"), "4:11",
		   "expected a value or a list, got a mapping");
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n    nodelay: maybe\n"), "4:14",
		   "'maybe' is not a boolean (expected true or false)");
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n    streams: [1, [2]]\n"), "4:18",
		   "expected a value, got a list");
	assert_err(fail("tests: {a: 1}\n"), "1:8", "expected a list of tests, got a mapping");
	assert_err(fail("- a\n- b\n"), "1:1", "expected a mapping with name, defaults and tests");
	assert_err(fail("tests:\n  - just-a-name\n"), "2:5", "expected a test (a mapping");
}

Test(config, empty_lists_are_rejected)
{
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n    streams: []\n"), "4:14",
		   "empty list (expected at least one value)");
	assert_err(fail("tests: []\n"), "1:8", "empty list of tests");
}

Test(config, a_missing_value_is_not_an_empty_string)
{
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n    duration:\n"), "4:14",
		   "missing value (expected a duration");
}

Test(config, out_of_range_values_are_rejected_table)
{
	static const struct nbt_err_case t[] = {
		{ "size: 0", "4:11", "size 0 is out of range" },
		{ "protocol: udp\n    size: 70000", "5:11", "size 70000 is too large for UDP" },
		{ "protocol: udp\n    size: 16", "5:11", "size 16 is too small for stream over UDP "
							"(expected at least 28 bytes" },
		{ "streams: 0", "4:14", "0 is out of range (expected an integer from 1 to 256)" },
		{ "streams: 257", "4:14", "257 is out of range" },
		{ "repetitions: 0", "4:18", "0 is out of range (expected an integer from 1 to 1000)" },
		{ "duration: -5s", "4:15", "negative duration '-5s'" },
		{ "duration: 0s", "4:15", "duration must be positive" },
		{ "duration: 5s\n    omit: 5s", "5:11", "omit 5s is not shorter than duration 5s" },
		{ "duration: 2s\n    interval: 3s", "5:15", "interval 3s is longer than duration 2s" },
		/* issue 12: this config ran as status ok, value 0 (no interval was ever measured) */
		{ "duration: 1s\n    interval: 500ms\n    omit: 700ms", "6:11",
		  "omit 0.7s is not a whole number of intervals of 0.5s (expected 0.5s: the measured "
		  "window starts on a tick)" },
		{ "duration: 10s\n    interval: 1s\n    omit: 1500ms", "6:11",
		  "omit 1.5s is not a whole number of intervals of 1s (expected 1s or 2s" },
		{ "duration: 1200ms\n    interval: 500ms\n    omit: 1s", "6:11",
		  "omit 1s leaves 0.2s of duration 1.2s, less than one interval of 0.5s (expected omit "
		  "at most 0.5s)" },
		{ "rate: -1M", "4:11", "bad rate '-1M': negative" },
		{ "tos: 256", "4:10", "tos 256 is out of range (expected a TOS byte 0..255 or 0x00..0xff" },
		{ "direction: sideways", "4:16", "unknown value 'sideways' (expected forward, reverse "
						 "or bidir)" },
		{ "protocol: sctp", "4:15", "unknown value 'sctp' (expected tcp, udp or icmp; did you mean 'tcp'?)" },
	};
	assert_errs("tests:\n  - name: a\n    engine: stream\n    ", t, sizeof(t) / sizeof(t[0]));
}

Test(config, omit_error_points_at_omit_even_from_defaults)
{
	assert_err(fail("defaults:\n  omit: 3s\ntests:\n  - name: a\n    engine: stream\n"
			"    duration: 2s\n"), "2:9", "omit 3s is not shorter than duration 2s");
}

/* The window a run measures: omit on a tick, at least one whole interval after it. */
Test(config, an_omit_on_a_tick_that_leaves_one_interval_is_accepted)
{
	struct nb_config cfg;
	struct nb_error err = { { 0 } };
	const char *yaml = "tests:\n  - name: a\n    engine: stream\n    duration: 1s\n"
			   "    interval: 500ms\n    omit: 500ms\n";
	cr_assert(load_sets(yaml, NULL, 0, &cfg, &err), "%s", err.msg);
	cr_assert_eq(cfg.tests[0].timing.omit_ns, 500000000ull);
	nb_config_free(&cfg);
}

Test(config, engines_get_their_protocol_and_size_checks)
{
	assert_err(fail("tests:\n  - name: a\n    engine: crr\n    protocol: [tcp, udp]\n"), "4:15",
		   "engine crr connects per transaction over TCP only (expected protocol tcp)");
	assert_err(fail("tests:\n  - name: a\n    engine: pps\n    protocol: tcp\n"), "4:15",
		   "engine pps sends UDP only (expected protocol udp)");
	assert_err(fail("tests:\n  - name: a\n    engine: rr\n    protocol: udp\n    request: 65508\n"),
		   "5:14", "request 65508 is too large for UDP");
	assert_err(fail("tests:\n  - name: a\n    engine: pps\n    size: [64, 27]\n"), "4:16",
		   "size 27 is too small for pps over UDP (expected at least 28 bytes");
	assert_err(fail("tests:\n  - name: a\n    engine: latency\n    size: 10\n"), "4:11",
		   "size 10 is too small for latency over TCP (expected at least 24 bytes");
}

Test(config, unknown_engine_is_suggested)
{
	assert_err(fail("tests:\n  - name: a\n    engine: strem\n"), "3:13",
		   "unknown value 'strem' (expected stream, pps, rr, crr, latency, icmp or connect; did you mean "
		   "'stream'?)");
	assert_err(fail("tests:\n  - name: a\n    size: 64\n"), "2:5",
		   "test 'a' has no engine (expected engine: stream, pps, rr, crr, latency, icmp or connect)");
}

Test(config, engine_in_defaults_serves_every_test)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("defaults:\n  engine: latency\ntests:\n  - name: a\n  - name: b\n    "
			    "engine: rr\n", NULL, 0, &cfg, &err), "%s", err.msg);
	cr_assert_str_eq(cfg.tests[0].base.engine, "latency");
	cr_assert_str_eq(cfg.tests[1].base.engine, "rr");
	nb_config_free(&cfg);
}

/* gso follows the engine's traits: stream uses GSO where the kernel offers it unless told off,
 * pps only when asked; `auto` is the spelling of the default. */
Test(config, gso_defaults_to_auto_for_stream_and_off_for_pps)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("tests:\n  - name: a\n    engine: stream\n  - name: b\n    engine: pps\n"
			    "  - name: c\n    engine: stream\n    gso: off\n"
			    "  - name: d\n    engine: pps\n    gso: auto\n", NULL, 0, &cfg, &err), "%s",
		  err.msg);
	cr_assert(cfg.tests[0].base.gso, "stream: auto by default");
	cr_assert_not(cfg.tests[1].base.gso, "pps: off by default");
	cr_assert_not(cfg.tests[2].base.gso, "gso: off");
	cr_assert(cfg.tests[3].base.gso, "gso: auto");
	nb_config_free(&cfg);
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n    gso: maybe\n"), "4:10",
		   "'maybe' is not a gso mode (expected auto or off)");
}

Test(config, rate_units_follow_the_engine)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("tests:\n  - name: a\n    engine: pps\n    rate: [500kpps, 200kpps, 1000pps]\n"
			    "  - name: b\n    engine: stream\n    rate: [1Gbps, 10kpps]\n",
			    NULL, 0, &cfg, &err), "%s", err.msg);
	cr_assert_eq(cfg.tests[0].rate.v[0], 500000);
	cr_assert_eq(cfg.tests[0].rate.v[2], 1000);
	cr_assert_eq(cfg.tests[0].rate_pps_mask, 0);
	cr_assert_eq(cfg.tests[1].rate.v[0], 1000000000);
	cr_assert_eq(cfg.tests[1].rate_pps_mask, 2u, "the second stream rate is in packets/s");
	nb_config_free(&cfg);
	assert_err(fail("tests:\n  - name: a\n    engine: latency\n    rate: 1Gbps\n"), "4:11",
		   "'1Gbps' is a bit rate but engine latency paces packets (expected a packet rate");
	/* a packet rate needs its unit; 0 (unpaced) needs none */
	assert_err(fail("tests:\n  - name: a\n    engine: pps\n    rate: [0, 200k]\n"), "4:15",
		   "rate '200k' has no unit: engine pps paces in pkt/s, where a bare number is "
		   "ambiguous (expected 200kpps)");
}

Test(config, repeated_list_values_are_rejected)
{
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n    size: [128K, 131072]\n"), "4:18",
		   "'131072' repeats a value of this list");
}

Test(config, flows_and_streams_are_one_key)
{
	assert_err(fail("tests:\n  - name: a\n    engine: rr\n    streams: 2\n    flows: 3\n"), "5:5",
		   "'flows' and 'streams' are the same key (expected only one of them)");
}

Test(config, scalar_only_keys_reject_lists_and_cpus_take_a_list)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("tests:\n  - name: a\n    engine: latency\n    cpus: [2, 3]\n"
			    "    timeout: 250ms\n    wait: busy-poll\n", NULL, 0, &cfg, &err),
		  "%s", err.msg);
	cr_assert_eq(cfg.tests[0].base.ncpus, 2);
	cr_assert_eq(cfg.tests[0].base.cpus[1], 3);
	cr_assert_eq(cfg.tests[0].base.timeout_ms, 250);
	cr_assert_eq(cfg.tests[0].base.wait, NB_WAIT_BUSY_POLL);
	nb_config_free(&cfg);
	assert_err(fail("tests:\n  - name: a\n    engine: latency\n    wait: [block, spin]\n"), "4:11",
		   "expected block, spin or busy-poll, got a list");
}

Test(config, tests_list_must_exist)
{
	assert_err(fail("name: x\n"), "1:1", "no tests (expected tests: a list of tests)");
	assert_err(fail("tests:\n  - engine: stream\n"), "2:5", "test without a name");
	assert_err(fail("tests:\n  - name: a/b\n    engine: stream\n"), "2:11", "bad name 'a/b'");
}

Test(config, aliases_and_second_documents_are_refused)
{
	assert_err(fail("defaults: &d\n  duration: 1s\ntests:\n  - name: a\n    engine: stream\n"
			"    x: *d\n"), "6:8", "aliases are not supported");
	assert_err(fail("tests:\n  - name: a\n    engine: stream\n---\ntests: []\n"), "4:1",
		   "a second YAML document");
}

Test(config, order_and_seed_may_be_top_level_but_not_twice)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("order: random\nseed: 99\ntests:\n  - name: a\n    engine: pps\n", NULL,
			    0, &cfg, &err), "%s", err.msg);
	cr_assert_eq(cfg.order, NB_ORDER_RANDOM);
	cr_assert_eq(cfg.seed, 99);
	nb_config_free(&cfg);
	assert_err(fail("seed: 1\ndefaults:\n  seed: 2\ntests:\n  - name: a\n    engine: pps\n"),
		   "3:3", "'seed' is given both at the top level (line 1) and in defaults");
	assert_err(fail("order: shuffled\ntests:\n  - name: a\n    engine: pps\n"), "1:8",
		   "unknown value 'shuffled' (expected sequential, interleaved or random)");
}

Test(config, a_bad_default_is_reported_even_if_no_test_uses_it)
{
	assert_err(fail("defaults:\n  size: banana\ntests:\n  - name: a\n    engine: rr\n"), "2:9",
		   "bad size 'banana'");
}

Test(config, the_name_defaults_to_the_file_name)
{
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("tests:\n  - name: a\n    engine: pps\n", NULL, 0, &cfg, &err));
	const char *base = strrchr(path, '/') + 1;
	char want[64];
	snprintf(want, sizeof(want), "%.*s", (int)(strchr(base, '.') - base), base);
	cr_assert_str_eq(cfg.name, want);
	cr_assert_str_eq(cfg.path, path);
	nb_config_free(&cfg);
}

Test(config, invalid_utf8_is_a_reader_error)
{
	const char *e = fail("tests:\n  - name: \xff\xfe\n");
	cr_assert(strstr(e, "invalid text: "), "%s", e);
}

Test(config, free_is_safe_twice)
{
	static const struct nb_config zero;
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets("tests:\n  - name: a\n    engine: pps\n", NULL, 0, &cfg, &err), "%s",
		  err.msg);
	cr_assert(cfg.tests && cfg.text, "a loaded config owns its tests and its text");
	nb_config_free(&cfg);
	cr_assert_eq(memcmp(&cfg, &zero, sizeof(cfg)), 0, "freed: every field zero");
	nb_config_free(&cfg);
	cr_assert_eq(memcmp(&cfg, &zero, sizeof(cfg)), 0, "freed twice: still zero");
	nb_config_free(NULL);
}

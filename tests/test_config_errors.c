/* Config errors as issue 15 asks: every error of a file at once, each located; the names
 * people bring from iperf3 and netperf mapped; CPU ranges and DSCP names accepted; a rejected
 * value says why; a bare packet rate asks for its unit; a --set that collides with the file
 * says which other key to set. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_util.h"

/* Every error of yaml (with sets), the file's path stripped from each. */
static struct nb_config_errors *all_errors(const char *yaml, const char *const *sets, size_t nsets)
{
	static struct nb_config_errors errs;
	struct nb_config cfg;
	write_yaml(yaml);
	cr_assert_not(nb_config_load_all(path, sets, nsets, &cfg, &errs), "loaded:\n%s", yaml);
	unlink(path);
	cr_assert_null(cfg.tests, "a failed load leaves cfg zeroed");
	size_t plen = strlen(path);
	for (size_t i = 0; i < errs.n; i++)
		if (strncmp(errs.v[i].msg, path, plen) == 0)
			memmove(errs.v[i].msg, errs.v[i].msg + plen + 1, strlen(errs.v[i].msg + plen));
	return &errs;
}

Test(config_errors, a_file_with_three_errors_gets_three_located_messages)
{
	struct nb_config_errors *e = all_errors("defaults:\n  duration: 10x\ntests:\n"
						"  - name: a\n    engine: stream\n    sizes: 64\n"
						"  - name: b\n    engine: rr\n    window: 4mb\n", NULL, 0);
	cr_assert_eq(e->n, 3, "%s | %s", e->v[0].msg, e->n > 1 ? e->v[1].msg : "");
	assert_err(e->v[0].msg, "2:13", "bad duration '10x'");
	assert_err(e->v[1].msg, "6:5", "unknown key 'sizes' (did you mean 'size'?)");
	assert_err(e->v[2].msg, "9:13", "bad window '4mb'");
	cr_expect_eq(e->more, 0);
}

/* A bad default is one error, not one per test that uses it; errors come in file order. */
Test(config_errors, a_bad_default_is_reported_once_and_errors_keep_file_order)
{
	struct nb_config_errors *e = all_errors("tests:\n  - name: a\n    engine: stream\n"
						"    window: 4mb\n  - name: b\n    engine: stream\n"
						"defaults:\n  omit: -1s\n", NULL, 0);
	cr_assert_eq(e->n, 2);
	assert_err(e->v[0].msg, "4:13", "window");
	assert_err(e->v[1].msg, "8:9", "negative duration '-1s'");
}

Test(config_errors, at_most_twenty_errors_are_kept_and_the_rest_counted)
{
	char yaml[4096] = "tests:\n";
	for (int i = 0; i < 25; i++)
		snprintf(yaml + strlen(yaml), sizeof(yaml) - strlen(yaml),
			 "  - name: t%d\n    engine: stream\n    bogus%d: 1\n", i, i);
	struct nb_config_errors *e = all_errors(yaml, NULL, 0);
	cr_expect_eq(e->n, NB_CONFIG_MAX_ERRORS);
	cr_expect_eq(e->more, 25 - NB_CONFIG_MAX_ERRORS);
}

/* The key people type from iperf3 or netperf, and what the message says to write instead. */
Test(config_errors, iperf3_and_netperf_names_are_mapped_in_the_suggestion)
{
	static const struct { const char *key, *fragment; } t[] = {
		{ "parallel", "iperf3's -P/--parallel is 'streams: N' in nbrun" },
		{ "-P", "iperf3's -P/--parallel is 'streams: N' in nbrun" },
		{ "bandwidth", "iperf3's -b/--bandwidth is 'rate: 100M (per stream)' in nbrun" },
		{ "-b", "is 'rate: 100M (per stream)'" },
		{ "reverse", "iperf3's -R/--reverse is 'direction: reverse' in nbrun" },
		{ "length", "iperf3's -l/--length is 'size: 1400' in nbrun" },
		{ "-l", "is 'size: 1400'" },
		{ "time", "iperf3's -t/--time is 'duration: 10s' in nbrun" },
		{ "-t", "is 'duration: 10s'" },
		{ "send_size", "netperf's -m (send size) is 'size: 1400'" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char yaml[256];
		snprintf(yaml, sizeof(yaml), "tests:\n  - name: a\n    engine: stream\n    %s: 4\n",
			 t[i].key);
		const char *got = fail(yaml);
		assert_err(got, "4:5", t[i].fragment);
		cr_expect_not_null(strstr(got, t[i].key), "%s", got);
	}
	const char *sets[] = { "parallel=4" };
	cr_expect_not_null(strstr(fail_sets("tests:\n  - name: a\n    engine: stream\n", sets, 1),
				  "--set parallel: unknown key 'parallel' (iperf3's -P"));
}

/* The one test of a stream config with `line` added ("cpus: 0-3"); it must load. */
static struct nb_test one_test(const char *line)
{
	char yaml[256];
	snprintf(yaml, sizeof(yaml), "tests:\n  - name: a\n    engine: stream\n    %s\n", line);
	struct nb_config cfg;
	struct nb_error err;
	cr_assert(load_sets(yaml, NULL, 0, &cfg, &err), "%s: %s", line, err.msg);
	struct nb_test t = cfg.tests[0];
	nb_config_free(&cfg);
	return t;
}

Test(config_errors, cpus_take_numbers_ranges_and_lists_of_them)
{
	static const struct { const char *v; uint32_t n; int16_t want[6]; } t[] = {
		{ "2", 1, { 2 } },
		{ "0-3,8", 5, { 0, 1, 2, 3, 8 } },
		{ "[0-1, 4, 6-7]", 5, { 0, 1, 4, 6, 7 } },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char line[64];
		snprintf(line, sizeof(line), "cpus: %s", t[i].v);
		struct nb_test got = one_test(line);
		cr_expect_eq(got.base.ncpus, t[i].n, "%s", t[i].v);
		for (uint32_t k = 0; k < t[i].n; k++)
			cr_expect_eq(got.base.cpus[k], t[i].want[k], "%s cpu %u", t[i].v, k);
	}
	static const struct nbt_err_case bad[] = {
		{ "3-1", "4:11", "CPU range in '3-1' is backwards" },
		{ "0-x", "4:11", "bad CPU list '0-x' (expected CPU numbers or ranges such as 0-3,8)" },
		{ "1,0-2", "4:11", "CPU 1 is listed twice in '1,0-2'" },
		{ "0-4096", "4:11", "out of range" },
		{ "0-99", "4:11", "more than 64 CPUs" },
	};
	assert_errs("tests:\n  - name: a\n    engine: stream\n    cpus: ", bad, sizeof(bad) / sizeof(bad[0]));
}

Test(config_errors, tos_takes_a_byte_hex_or_a_dscp_name)
{
	static const struct { const char *v; int tos; } t[] = {
		{ "16", 16 }, { "0x10", 16 }, { "0xb8", 184 }, { "ef", 184 }, { "EF", 184 },
		{ "af41", 136 }, { "af11", 40 }, { "cs1", 32 }, { "cs0", 0 }, { "le", 4 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char line[64];
		snprintf(line, sizeof(line), "tos: %s", t[i].v);
		cr_expect_eq(one_test(line).base.tos, t[i].tos, "tos %s", t[i].v);
	}
	static const struct nbt_err_case bad[] = {
		{ "af51", "4:10", "bad tos 'af51': neither a number nor a DSCP name (expected a TOS byte" },
		{ "0x100", "4:10", "tos 0x100 is out of range" },
		{ "0x", "4:10", "bad tos '0x'" },
		{ "-1", "4:10", "bad tos '-1'" },
	};
	assert_errs("tests:\n  - name: a\n    engine: stream\n    tos: ", bad, sizeof(bad) / sizeof(bad[0]));
}

/* burst: a duration of whole microseconds from 0 to 10 ms (the pacer forgives older debt), for
 * the engines that pace UDP; the default is 250 us. */
Test(config_errors, burst_takes_whole_microseconds_up_to_10_ms)
{
	static const struct { const char *v; uint32_t us; } t[] = {
		{ "500us", 500 }, { "1ms", 1000 }, { "0.25ms", 250 }, { "0", 0 }, { "10ms", 10000 },
		{ "1us", 1 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char line[64];
		snprintf(line, sizeof(line), "burst: %s", t[i].v);
		cr_expect_eq(one_test(line).base.burst_us, t[i].us, "burst %s", t[i].v);
	}
	cr_expect_eq(one_test("size: 1400").base.burst_us, 250, "the default");
	static const struct nbt_err_case bad[] = {
		{ "20ms", "4:12", "burst '20ms' is out of range (expected 0 to 10ms such as 500us)" },
		{ "1", "4:12", "burst '1' is out of range" }, /* a bare number is seconds */
		{ "1500ns", "4:12", "burst '1500ns' is finer than a microsecond (expected 0 to 10ms" },
		{ "-1ms", "4:12", "negative duration '-1ms'" },
		{ "fast", "4:12", "bad duration 'fast'" },
		{ "[1ms, 2ms]", "4:12", "expected a duration such as 500ms, 10s or 2m, got a list" },
	};
	assert_errs("tests:\n  - name: a\n    engine: stream\n    burst: ", bad, sizeof(bad) / sizeof(bad[0]));
	assert_err(fail("tests:\n  - name: a\n    engine: rr\n    burst: 1ms\n"), "4:5",
		   "'burst' does not apply to engine rr (expected with stream, pps)");	/* a millisecond row refuses a finer duration too, rather than cut it short */
	assert_err(fail("tests:\n  - name: a\n    engine: rr\n    timeout: 1500us\n"), "4:14",
		   "timeout '1500us' is finer than a millisecond (expected 1ms to 60s)");
}

Test(config_errors, a_rejected_size_says_why)
{
	static const struct nbt_err_case bad[] = {
		{ "window: 4mb", "4:13", "bad window '4mb': 'mb' reads as bits, but a window is bytes "
					 "(expected a buffer size up to 1G such as 4M; K, M and G are "
					 "KiB, MiB and GiB)" },
		{ "window: 4Mbit", "4:13", "'Mbit' reads as bits" },
		{ "window: 4x", "4:13", "bad window '4x': unknown unit 'x'" },
		{ "window: 2G", "4:13", "window 2G is too large (expected a buffer size up to 1G" },
		{ "size: 1.5", "4:11", "bad size '1.5': not a whole number" },
		{ "size: 64kb", "4:11", "bad size '64kb': 'kb' reads as bits, but a size is bytes" },
	};
	assert_errs("tests:\n  - name: a\n    engine: stream\n    ", bad, sizeof(bad) / sizeof(bad[0]));
}

Test(config_errors, a_bare_packet_rate_asks_for_its_unit)
{
	static const struct nbt_err_case bad[] = {
		{ "engine: pps\n    rate: 500k", "4:11", "rate '500k' has no unit: engine pps paces in "
		  "pkt/s, where a bare number is ambiguous (expected 500kpps)" },
		{ "engine: latency\n    protocol: udp\n    rate: 10000", "5:11", "(expected 10000pps)" },
		{ "engine: pps\n    sweep: {rate: {from: 10k, to: 20kpps, factor: 2}}", "4:26",
	  "rate '10k' has no unit" },
	};
	assert_errs("tests:\n  - name: a\n    ", bad, sizeof(bad) / sizeof(bad[0]));
}

/* --set duration=2s against the file's omit: the --set is named, with the other key to set. */
Test(config_errors, a_set_colliding_with_the_file_names_the_other_key)
{
	const char *yaml = "defaults:\n  duration: 10s\n  omit: 3s\ntests:\n  - name: a\n    engine: stream\n";
	const char *d[] = { "duration=2s" }, *o[] = { "omit=12s" }, *i[] = { "interval=20s" };
	const char *got = fail_sets(yaml, d, 1);
	cr_expect_eq(strncmp(got, "--set duration: duration 2s leaves no room for omit 3s (", 56), 0, "%s", got);
	cr_expect_not_null(strstr(got, ":3:9): also set omit, e.g. --set omit=0s"), "%s", got);
	got = fail_sets(yaml, o, 1);
	cr_expect_not_null(strstr(got, "--set omit: omit 12s does not fit in duration 10s ("), "%s", got);
	cr_expect_not_null(strstr(got, ":2:13): also set duration, e.g. --set duration=22s"), "%s", got);
	got = fail_sets(yaml, i, 1);
	cr_expect_not_null(strstr(got, "--set interval: interval 20s does not fit in duration 10s"), "%s", got);
	const char *short_d[] = { "duration=500ms", "omit=0s" };
	got = fail_sets(yaml, short_d, 2);
	cr_expect_not_null(strstr(got, "--set duration: duration 0.5s leaves no room for interval 1s "
				  "(the default): also set interval, e.g. --set interval=0.5s"), "%s", got);
}

/* bottleneck: a bit rate for the report's RFC 6349 numbers (stream only; never a packet rate). */
Test(config_errors, bottleneck_takes_a_bit_rate)
{
	static const struct { const char *v; uint64_t bps; } t[] = {
		{ "1G", 1000000000ull }, { "100Mbit/s", 100000000ull }, { "2.5Gbps", 2500000000ull },
		{ "0", 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char line[64];
		snprintf(line, sizeof(line), "bottleneck: %s", t[i].v);
		cr_expect_eq(one_test(line).base.bottleneck_bps, t[i].bps, "bottleneck %s", t[i].v);
	}
	cr_expect_eq(one_test("size: 1400").base.bottleneck_bps, 0, "unknown by default");
	static const struct nbt_err_case bad[] = {
		{ "10kpps", "4:17", "bottleneck '10kpps' is a packet rate (expected a bit rate such as 1G" },
		{ "fast", "4:17", "bad bottleneck 'fast'" },
	};
	assert_errs("tests:\n  - name: a\n    engine: stream\n    bottleneck: ", bad, sizeof(bad) / sizeof(bad[0]));
	assert_err(fail("tests:\n  - name: a\n    engine: rr\n    bottleneck: 1G\n"), "4:5",
		   "'bottleneck' does not apply to engine rr (expected with stream)");
}

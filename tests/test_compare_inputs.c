/* nbrun compare's gate on its inputs: a case missing, interrupted or failed, parameters that
 * differ, environments that differ, the neutral wording's names, bad input and options. The
 * verdicts themselves are test_compare.c's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "fixture_util.h"
#include "nbt_compare.h"

TestSuite(compare, .init = nbt_cmp_setup);

Test(compare, a_case_missing_from_new_fails_the_gate_with_exit_5)
{
	struct outcome r;
	nbt_compare2("base", "mismatch", &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_MISSING, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "nbrun: compare: missing: " UDP " (mismatch): in base, not in this "
			 "folder\n"), "%s", r.err);
	cr_assert(strstr(r.out, "- **missing**: `" UDP "` in `mismatch`"), "%s", r.out);
	cr_assert(strstr(r.out, "## Unmatched cases"), "%s", r.out);
	cr_assert(strstr(r.out, "1 case only in base, missing from `mismatch`: `" UDP "`"), "%s", r.out);
	cr_assert(strstr(r.out, "1 case only in `mismatch`: `tcp-stream/tcp/s128K/p8/forward`"));
	nbt_outcome_free(&r);

	const char *names[] = { "base", "mismatch" };
	nbt_cmp_opts(names, 2, "csv", NULL, NULL, &r);
	cr_assert(strstr(r.out, "\n" UDP ",udp-stream,rx_bps,bit/s,higher,base,mismatch,5,"), "%s", r.out);
	cr_assert(strstr(r.out, ",only in base,not in this folder,,,\n"), "%s", r.out);
	cr_assert(strstr(r.out, "\ntcp-stream/tcp/s128K/p8/forward,,,,,base,mismatch,0,"));
	cr_assert(strstr(r.out, ",only in new,not in base,,,\n"));
	nbt_outcome_free(&r);
}

Test(compare, an_interrupted_new_fails_the_gate_with_exit_3)
{
	struct outcome r;
	nbt_compare2("base", "interrupt", &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_INTERRUPTED, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "nbrun: compare: interrupted: interrupt: the batch did not finish "
			 "(meta.json: complete false): 5 of 25 planned runs ok\n"), "%s", r.err);
	cr_assert(strstr(r.out, "**Gate: fail** (exit 3: a results folder is from an interrupted "
			 "batch)"), "%s", r.out);
	cr_assert(strstr(r.out, "- **interrupted**: `interrupt`: the batch did not finish"), "%s", r.out);
	cr_assert(strstr(r.out, "| new | `"), "%s", r.out);
	cr_assert(strstr(r.out, "| **no** | 5 | 5 |"), "%s", r.out);
	nbt_outcome_free(&r);
}

Test(compare, a_failed_case_in_new_fails_the_gate_with_exit_4_naming_it)
{
	struct outcome r;
	nbt_compare2("base", "failed", &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_FAILED, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "nbrun: compare: failed: " UDP " (failed): 5 of 5 runs failed: peer "
			 "closed the data connection\n"), "%s", r.err);
	cr_assert(strstr(r.err, "nbrun: compare: failed: " P4 " (failed): 1 of 5 runs failed"), "%s",
		  r.err);
	cr_assert(strstr(r.out, "- **failed**: `" UDP "` in `failed`: 5 of 5 runs failed"), "%s", r.out);
	cr_assert(strstr(r.out, "no data (all 5 runs failed in new: peer closed the data connection)"),
		  "%s", r.out);
	nbt_outcome_free(&r);
}

Test(compare, allow_missing_lists_the_problems_but_passes)
{
	static const char *const pairs[][2] = { { "base", "failed" }, { "base", "interrupt" },
						{ "base", "mismatch" } };
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct nb_compare_opts o = { .allow_missing = true };
		struct outcome r;
		nbt_cmp_run(pairs[i], 2, &o, &r);
		cr_assert_eq(r.rc, 0, "%s: %s", pairs[i][1], r.err);
		cr_assert(strstr(r.out, "## Problems"), "%s", r.out);
		cr_assert(strstr(r.out, "allowed by `--allow-missing`"), "%s", r.out);
		nbt_outcome_free(&r);
	}
}

Test(compare, different_parameters_are_not_compared_and_exit_6)
{
	struct outcome r;
	nbt_compare2("base", "params", &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_PARAMS, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "nbrun: compare: parameters differ: " P1 " (params): duration_s 10 → 1, "
			 "mss 0 → 536\n"), "%s", r.err);
	cr_assert(strstr(r.err, "parameters differ: " P4 " (params): window 0 → 262144\n"), "%s", r.err);
	cr_assert(strstr(r.out, "not compared (parameters differ: duration_s 10 → 1, mss 0 → 536)"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "- case `" P1 "`: duration_s 10 → 1, mss 0 → 536 — **not compared**"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "2 not compared (parameters differ)"), "%s", r.out);
	nbt_outcome_free(&r);
}

Test(compare, expected_parameter_differences_are_judged_as_context)
{
	const char *names[] = { "base", "params" };
	const char *const expect[] = { "mss", "duration_s", "window" };
	struct nb_compare_opts o = { .expect = expect, .nexpect = 3 };
	struct outcome r;
	nbt_cmp_run(names, 2, &o, &r);
	cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
	cr_assert(strstr(r.out, "- case `" P1 "`: duration_s 10 → 1, mss 0 → 536 (expected)"), "%s",
		  r.out);
	cr_assert_null(strstr(r.out, "not compared"), "%s", r.out);
	nbt_outcome_free(&r);
}

Test(compare, environment_differences_are_reported_at_the_top)
{
	struct outcome r;
	nbt_compare2("base", "envdiff", &r);
	cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
	const char *warn = strstr(r.out, "results were taken under different conditions");
	const char *table = strstr(r.out, "## Results");
	cr_assert(warn && table && warn < table, "%s", r.out);
	/* the answer first: each case's verdict with its CI, then what differs */
	const char *verdicts = strstr(r.out, "## Verdicts\n\n- `tcp-stream/tcp/s128K/p1/forward` "
				      "rx_bps: **unchanged** 0.0 % (95 % CI -0.6 to +0.5 %) · 9.410 ± "
				      "0.037 Gbit/s → 9.406 ± 0.037 Gbit/s\n");
	cr_assert(verdicts && verdicts < warn, "%s", r.out);
	cr_assert(strstr(r.out, "peer iface.mtu: 9001 → 1500"));
	cr_assert(strstr(r.out, "peer tcp.congestion_control: cubic → bbr"));
	cr_assert(strstr(r.out, "peer cpu.governor: unknown (not exposed: no cpufreq in this VM) → powersave"));
	cr_assert(strstr(r.out, "peer iface.offload.gro: on → off"));
	cr_assert(strstr(r.out, "## Differences"));
	cr_assert_null(strstr(r.out, "hostname"), "host names are not conditions");
	cr_assert(strstr(r.err, "warning: results were taken under different conditions (4 differences"),
		  "%s", r.err);
	nbt_outcome_free(&r);
}

Test(compare, expect_diff_makes_an_environment_difference_context)
{
	const char *names[] = { "base", "envdiff" };
	const char *const expect[] = { "iface.mtu", "peer.tcp.congestion_control", "nosuch.key" };
	struct nb_compare_opts o = { .expect = expect, .nexpect = 3 };
	struct outcome r;
	nbt_cmp_run(names, 2, &o, &r);
	cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
	cr_assert(strstr(r.out, "Expected differences (declared with `--expect-diff`, context rather "
			 "than a warning): peer iface.mtu: 9001 → 1500; peer tcp.congestion_control: "
			 "cubic → bbr.\n"), "%s", r.out);
	cr_assert(strstr(r.out, "- peer iface.mtu: 9001 → 1500 (expected)\n"), "%s", r.out);
	cr_assert(strstr(r.err, "(2 differences, e.g. peer cpu.governor"), "%s", r.err);
	cr_assert(strstr(r.err, "note: --expect-diff nosuch.key: no such difference"), "%s", r.err);
	nbt_outcome_free(&r);
}

Test(compare, fail_on_inconclusive_exits_7)
{
	const char *names[] = { "base", "same" };
	struct nb_compare_opts o = { .fail_on_inconclusive = true };
	struct outcome r;
	nbt_cmp_run(names, 2, &o, &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_INCONCLUSIVE, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "exit 7 (an inconclusive verdict (--fail-on-inconclusive))"), "%s", r.err);
	nbt_outcome_free(&r);
}

Test(compare, neutral_names_give_one_sentence_per_side_and_metric)
{
	const char *names[] = { "base", "vendor-b" };
	struct nb_compare_opts o = { .names = "A,B" };
	struct outcome r;
	nbt_cmp_run(names, 2, &o, &r);
	cr_assert_eq(r.rc, 0, "no gate between vendors: %s", r.err);
	cr_assert(strstr(r.out, "# nbrun compare: A vs B\n\n2 different beyond ±5 %, 3 the same within "
			 "±5 %\n"), "%s", r.out);
	cr_assert(strstr(r.out, "- **rx_bps**: over 3 cases, B is slower than A in 1 (by 25.0 %), "
			 "faster in 1 (by 12.0 %), the same within ±5 % in 1 and not distinguishable "
			 "in 0.\n"), "%s", r.out);
	cr_assert(strstr(r.out, "  - `" P1 "`: B is 12.0 % faster than A (95 % CI 11.4–12.6 %).\n"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "- **lat_p50_us**: B is 0.2 % faster than A in the median (95 % CI "),
		  "%s", r.out);
	cr_assert(strstr(r.out, "**B slower** (whole 95 % CI beyond -5 %)"), "%s", r.out);
	cr_assert_null(strstr(r.out, "regression"), "%s", r.out);
	nbt_outcome_free(&r);
}

Test(compare, neutral_without_names_uses_the_folder_labels)
{
	const char *names[] = { "base", "vendor-b" };
	struct nb_compare_opts o = { .neutral = true };
	struct outcome r;
	nbt_cmp_run(names, 2, &o, &r);
	cr_assert_eq(r.rc, 0, "%s", r.err);
	cr_assert(strstr(r.out, "# nbrun compare: base vs vendor-b\n"), "%s", r.out);
	cr_assert(strstr(r.out, "vendor-b is 12.0 % faster than base (95 % CI 11.4–12.6 %)"), "%s",
		  r.out);
	nbt_outcome_free(&r);
	/* a failed case still fails a vendor comparison: it would not be a fair one */
	const char *failed[] = { "base", "failed" };
	o = (struct nb_compare_opts){ .names = "A,B" };
	nbt_cmp_run(failed, 2, &o, &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_FAILED, "%s", r.err);
	cr_assert(strstr(r.out, "B and A cannot be compared on rx_bps: all 5 runs failed in new"), "%s",
		  r.out);
	nbt_outcome_free(&r);
}

Test(compare, names_must_match_the_folders)
{
	const char *names[] = { "base", "vendor-b" };
	struct nb_compare_opts o = { .names = "A,B,C" };
	struct outcome r;
	nbt_cmp_run(names, 2, &o, &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_INPUT);
	cr_assert(strstr(r.err, "--names 'A,B,C': 3 names for 2 folders"), "%s", r.err);
	nbt_outcome_free(&r);
	o = (struct nb_compare_opts){ .names = "A," };
	nbt_cmp_run(names, 2, &o, &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_INPUT);
	cr_assert(strstr(r.err, "each name 1 to 63 characters"), "%s", r.err);
	nbt_outcome_free(&r);
}

struct bad_input {
	const char *folder;
	const char *message;
};

Test(compare, bad_input_exits_2_naming_the_file_and_line)
{
	static const struct bad_input cases[] = {
		{ "corrupt", "compare/corrupt/runs.csv:5: wrong field count (20 of 118 fields)" },
		{ "badvalue", "compare/badvalue/runs.csv:4: value '4.98e8x' is not a number" },
		{ "notresult", "compare/notresult: not an nbrun results folder (no readable runs.csv)" },
		{ "absent", "compare/absent: No such file or directory" },
		{ "base/env.txt", "env.txt: No such file or directory" },
		{ "base/meta.json/x", "meta.json/x: Not a directory" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct outcome r;
		nbt_compare2("base", cases[i].folder, &r);
		cr_assert_eq(r.rc, 2, "%s: rc %d", cases[i].folder, r.rc);
		cr_assert(strstr(r.err, cases[i].message), "%s: got %s", cases[i].folder, r.err);
		cr_assert_eq(strchr(r.err, '\n'), r.err + r.elen - 1, "one line: %s", r.err);
		cr_assert_eq(r.olen, 0, "nothing written on error");
		nbt_outcome_free(&r);
	}
}

Test(compare, unknown_metric_is_a_usage_error)
{
	const char *names[] = { "base", "same" };
	struct outcome r;
	nbt_cmp_opts(names, 2, "md", "rx_bpz", NULL, &r);
	cr_assert_eq(r.rc, 2);
	cr_assert(strstr(r.err, "--metric 'rx_bpz': not a metric column"), "%s", r.err);
	nbt_outcome_free(&r);
}

/* A repetition that stalled and ran again (engines.md: a stall is the host's moment) is one
 * counted run, its stalled attempt neither counted nor failed; one whose every attempt stalled
 * is a failed run, the stall its words. */
Test(compare, a_stalled_attempt_that_ran_again_is_no_failed_run_but_every_attempt_stalled_is)
{
	struct outcome r;
	nbt_compare2("base", "stalled", &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_FAILED, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "nbrun: compare: failed: " UDP " (stalled): 1 of 5 runs failed: "
			 "timeline stall: the client's tick 2 came 0.06 s late"), "%s", r.err);
	cr_assert_null(strstr(r.err, "failed: " P4), "%s", r.err);
	cr_assert(strstr(r.err, P4 " (stalled): rx_bps +1.1 % (95 % CI -6.0 to +8.3 %) — CV 4.9 %: "
			 "changes smaller than 12.1 % cannot be detected with n = 5/5"), "%s", r.err);
	nbt_outcome_free(&r);
}

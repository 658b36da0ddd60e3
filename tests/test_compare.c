/* nbrun compare end to end: verdicts, exit codes and reports on the fixture results folders
 * of tests/fixtures/compare (made by make.py there). The statistics on their own are in
 * test_compare_stats.c. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "env_json.h"
#include "fixture_util.h"

#define P1 "tcp-stream/tcp/s128K/p1/forward"
#define P4 "tcp-stream/tcp/s128K/p4/forward"
#define UDP "udp-stream/udp/s1400/p1/forward"
#define RR "tcp-rr/tcp/r1/1/p1"
#define LAT "latency/udp/r64/64"

struct outcome {
	int rc;
	char *out, *err;
	size_t olen, elen;
};

static void fixture(const char *name, char *buf, size_t len)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "compare/%s", name);
	nbt_fixture_path(rel, buf, len);
}

/* Run `nbrun compare` on fixture folders (a name may carry "/runs.csv" and so on); o carries
 * the options, its paths are filled here. */
static void run_opts(const char *const *names, size_t n, struct nb_compare_opts *o,
		     struct outcome *r)
{
	static char paths[8][512];
	const char *argv[8];
	for (size_t i = 0; i < n; i++) {
		fixture(names[i], paths[i], sizeof(paths[i]));
		argv[i] = paths[i];
	}
	o->paths = argv;
	o->npaths = n;
	if (o->threshold == 0.0)
		o->threshold = 0.05;
	FILE *out = open_memstream(&r->out, &r->olen), *err = open_memstream(&r->err, &r->elen);
	cr_assert(out && err);
	r->rc = nb_compare_run(o, out, err);
	fclose(out);
	fclose(err);
}

static void compare_opts(const char *const *names, size_t n, const char *format, const char *metric,
			 const char *outfile, struct outcome *r)
{
	struct nb_compare_opts o = { .metrics = &metric, .nmetrics = metric != NULL, .format = format,
				     .out = outfile };
	run_opts(names, n, &o, r);
}

static void compare2(const char *base, const char *nw, struct outcome *r)
{
	const char *names[] = { base, nw };
	compare_opts(names, 2, "md", NULL, NULL, r);
}

static void outcome_free(struct outcome *r)
{
	free(r->out);
	free(r->err);
}

/* The comparison itself, for value checks. */
static void build(const char *base, const char *nw, const char *metric, struct nb_compare *c)
{
	char a[512], b[512];
	fixture(base, a, sizeof(a));
	fixture(nw, b, sizeof(b));
	const char *paths[] = { a, b };
	struct nb_compare_opts o = { .paths = paths, .npaths = 2, .threshold = 0.05,
				     .metrics = &metric, .nmetrics = metric != NULL };
	struct nb_error err = { "" };
	cr_assert(nb_compare_build(c, &o, &err), "build: %s", err.msg);
}

static const struct nb_cmp_row *row_of(const struct nb_compare *c, const char *case_id)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (strcmp(c->rows[i].case_id, case_id) == 0)
			return &c->rows[i];
	cr_assert_fail("no row for %s", case_id);
	return NULL;
}

static void setup(void)
{
	setenv("NBRUN_GNUPLOT", "none", 1);
}

TestSuite(compare, .init = setup);

Test(compare, identical_folders_exit_0_unchanged_where_the_noise_allows)
{
	struct outcome r;
	compare2("base", "same", &r);
	cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
	cr_assert(strstr(r.out, "# nbrun compare\n\n0 regressions, 0 improvements, 4 unchanged, "
			 "1 inconclusive\n\n**Gate: pass** (exit 0: pass).\n"), "%s", r.out);
	cr_assert(strstr(r.out, "unchanged (95 % CI within ±5 %)"), "%s", r.out);
	/* p4's 5 % CV: even a 0.0 % change cannot be told from a 12 % one with 5 runs */
	cr_assert(strstr(r.out, "| 0.0 % (95 % CI -7.1 to +7.1 %) | welch t=0.00, df=8.0 | "
			 "inconclusive (CV 4.9 %: changes smaller than 12.1 % cannot be detected with "
			 "n = 5/5) |"), "%s", r.out);
	cr_assert(strstr(r.err, "inconclusive: " P4 " (same): rx_bps 0.0 %"), "%s", r.err);
	cr_assert(strstr(r.out, "5 comparisons were judged, each at 95 %"), "multiple comparisons");
	cr_assert_null(strstr(r.out, "different conditions"));
	outcome_free(&r);
}

Test(compare, identical_means_give_zero_change_and_t_zero)
{
	struct nb_compare c;
	build("base", "same", NULL, &c);
	const struct nb_cmp_row *row = row_of(&c, P1);
	cr_assert_eq(row->base.st.n, 5, "the failed run must not count");
	cr_assert_eq(row->base.failed, 1);
	cr_assert_eq(row->cells[0].test, NB_CMP_TEST_WELCH);
	cr_assert_float_eq(row->cells[0].change, 0.0, 1e-12);
	cr_assert_float_eq(row->cells[0].welch.t, 0.0, 1e-9);
	cr_assert_eq(c.count[NB_CMP_UNCHANGED], 4);
	cr_assert_eq(c.count[NB_CMP_INCONCLUSIVE], 1);
	cr_assert_eq(c.nproblems, 0, "a failed run in base with others ok is not a problem");
	nb_compare_free(&c);
}

Test(compare, a_file_inside_the_folder_names_the_folder)
{
	struct outcome r;
	compare2("base/runs.csv", "same/plan.csv", &r);
	cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
	cr_assert(strstr(r.out, "4 unchanged"));
	outcome_free(&r);
}

Test(compare, throughput_drop_of_20_percent_is_a_regression_with_its_ci)
{
	struct outcome r;
	compare2("base", "drop", &r);
	cr_assert_eq(r.rc, 1, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "regression: " P1 " (drop): rx_bps -20.0 % (95 % CI -20.5 to -19.5 %)"),
		  "%s", r.err);
	cr_assert(strstr(r.out, "\n1 regression, 0 improvements, 3 unchanged, 1 inconclusive\n"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "**Gate: fail** (exit 1: a regression beyond the threshold)"));
	cr_assert(strstr(r.out, "## Regressions"));
	cr_assert(strstr(r.out, "**regression** (whole 95 % CI beyond -5 %)"), "%s", r.out);
	outcome_free(&r);

	struct nb_compare c;
	build("base", "drop", NULL, &c);
	const struct nb_cmp_cell *cell = &row_of(&c, P1)->cells[0];
	cr_assert_eq(cell->verdict, NB_CMP_REGRESSION);
	cr_assert_float_eq(cell->change, -0.20, 1e-9);
	cr_assert(cell->ch_hi < -0.05 && cell->ch_lo < cell->change && cell->ch_hi > cell->change);
	nb_compare_free(&c);
}

Test(compare, three_percent_inside_the_noise_is_inconclusive_and_tight_three_unchanged)
{
	struct nb_compare c;
	build("base", "noise", NULL, &c);
	const struct nb_cmp_cell *p4 = &row_of(&c, P4)->cells[0];
	cr_assert_float_eq(p4->change, -0.03, 1e-9);
	cr_assert_eq(p4->test, NB_CMP_TEST_WELCH);
	cr_assert_eq(p4->verdict, NB_CMP_INCONCLUSIVE);
	cr_assert(p4->detectable > 0.10, "5 %% CV, 5 runs: %g", p4->detectable);
	/* the same 3 % with a tight stddev: real, and the whole CI inside the 5 % threshold */
	const struct nb_cmp_cell *p1 = &row_of(&c, P1)->cells[0];
	cr_assert(p1->welch.significant);
	cr_assert_eq(p1->verdict, NB_CMP_UNCHANGED);
	cr_assert(p1->ch_lo > -0.05 && p1->ch_hi < 0.0);
	nb_compare_free(&c);
}

Test(compare, latency_and_rr_are_decided_by_the_rank_test)
{
	struct nb_compare c;
	build("base", "mixed", NULL, &c);
	const struct nb_cmp_row *lat = row_of(&c, LAT), *rr = row_of(&c, RR), *p1 = row_of(&c, P1);
	cr_assert_str_eq(lat->metric, "lat_p50_us");
	cr_assert(lat->rank && rr->rank && !p1->rank);
	cr_assert_eq(lat->cells[0].test, NB_CMP_TEST_RANK);
	cr_assert_eq(lat->cells[0].verdict, NB_CMP_REGRESSION);
	/* five runs each, every new one above every base one: U = 25, p = 2/252 exactly */
	cr_assert_float_eq(lat->cells[0].mw.u, 25.0, 0.0);
	cr_assert_float_eq(lat->cells[0].mw.p, 2.0 / 252.0, 1e-12);
	cr_assert_str_eq(rr->metric, "trans_per_s");
	cr_assert_eq(rr->cells[0].test, NB_CMP_TEST_RANK);
	cr_assert_eq(rr->cells[0].verdict, NB_CMP_IMPROVEMENT);
	nb_compare_free(&c);

	struct outcome r;
	compare2("base", "mixed", &r);
	cr_assert_eq(r.rc, 1);
	cr_assert(strstr(r.out, "\n1 regression, 1 improvement, 2 unchanged, 1 inconclusive\n"), "%s",
		  r.out);
	cr_assert(strstr(r.out, "| mann-whitney U=25.0, p=0.00794 (exact) | **regression**"), "%s", r.out);
	cr_assert(strstr(r.err, LAT), "%s", r.err);
	outcome_free(&r);
}

Test(compare, run_warnings_are_carried_onto_their_rows)
{
	struct outcome r;
	compare2("base", "mixed", &r);
	/* the rr runs of "mixed" carry a flag; p1 (one stream at half the p4 rate) a pitfall */
	cr_assert(strstr(r.out, " | 5/5 | ⚠ mixed: littles-law |\n"), "%s", r.out);
	cr_assert(strstr(r.out, " | 5/5 | ⚠ base: single-stream; ⚠ mixed: single-stream |\n"), "%s",
		  r.out);
	outcome_free(&r);
	const char *names[] = { "base", "mixed" };
	compare_opts(names, 2, "csv", NULL, NULL, &r);
	cr_assert(strstr(r.out, ",single-stream,single-stream,\n"), "%s", r.out);
	cr_assert(strstr(r.out, ",,littles-law,\n"), "%s", r.out);
	outcome_free(&r);
}

Test(compare, throughput_up_is_an_improvement_and_exit_0)
{
	struct nb_compare c;
	build("base", "vendor-b", NULL, &c);
	const struct nb_cmp_cell *p1 = &row_of(&c, P1)->cells[0];
	cr_assert_eq(p1->verdict, NB_CMP_IMPROVEMENT);
	cr_assert_float_eq(p1->change, 0.12, 1e-9);
	nb_compare_free(&c);
}

Test(compare, a_case_missing_from_new_fails_the_gate_with_exit_5)
{
	struct outcome r;
	compare2("base", "mismatch", &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_MISSING, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "nbrun: compare: missing: " UDP " (mismatch): in base, not in this "
			 "folder\n"), "%s", r.err);
	cr_assert(strstr(r.out, "- **missing**: `" UDP "` in `mismatch`"), "%s", r.out);
	cr_assert(strstr(r.out, "## Unmatched cases"), "%s", r.out);
	cr_assert(strstr(r.out, "1 case only in base, missing from `mismatch`: `" UDP "`"), "%s", r.out);
	cr_assert(strstr(r.out, "1 case only in `mismatch`: `tcp-stream/tcp/s128K/p8/forward`"));
	outcome_free(&r);

	const char *names[] = { "base", "mismatch" };
	compare_opts(names, 2, "csv", NULL, NULL, &r);
	cr_assert(strstr(r.out, "\n" UDP ",udp-stream,rx_bps,bit/s,higher,base,mismatch,5,"), "%s", r.out);
	cr_assert(strstr(r.out, ",only in base,not in this folder,,,\n"), "%s", r.out);
	cr_assert(strstr(r.out, "\ntcp-stream/tcp/s128K/p8/forward,,,,,base,mismatch,0,"));
	cr_assert(strstr(r.out, ",only in new,not in base,,,\n"));
	outcome_free(&r);
}

Test(compare, an_interrupted_new_fails_the_gate_with_exit_3)
{
	struct outcome r;
	compare2("base", "interrupt", &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_INTERRUPTED, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "nbrun: compare: interrupted: interrupt: the batch did not finish "
			 "(meta.json: complete false): 5 of 25 planned runs ok\n"), "%s", r.err);
	cr_assert(strstr(r.out, "**Gate: fail** (exit 3: a results folder is from an interrupted "
			 "batch)"), "%s", r.out);
	cr_assert(strstr(r.out, "- **interrupted**: `interrupt`: the batch did not finish"), "%s", r.out);
	cr_assert(strstr(r.out, "| new | `"), "%s", r.out);
	cr_assert(strstr(r.out, "| **no** | 5 | 5 |"), "%s", r.out);
	outcome_free(&r);
}

Test(compare, a_failed_case_in_new_fails_the_gate_with_exit_4_naming_it)
{
	struct outcome r;
	compare2("base", "failed", &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_FAILED, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "nbrun: compare: failed: " UDP " (failed): 5 of 5 runs failed: peer "
			 "closed the data connection\n"), "%s", r.err);
	cr_assert(strstr(r.err, "nbrun: compare: failed: " P4 " (failed): 1 of 5 runs failed"), "%s",
		  r.err);
	cr_assert(strstr(r.out, "- **failed**: `" UDP "` in `failed`: 5 of 5 runs failed"), "%s", r.out);
	cr_assert(strstr(r.out, "no data (all 5 runs failed in new: peer closed the data connection)"),
		  "%s", r.out);
	outcome_free(&r);
}

Test(compare, allow_missing_lists_the_problems_but_passes)
{
	static const char *const pairs[][2] = { { "base", "failed" }, { "base", "interrupt" },
						{ "base", "mismatch" } };
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct nb_compare_opts o = { .allow_missing = true };
		struct outcome r;
		run_opts(pairs[i], 2, &o, &r);
		cr_assert_eq(r.rc, 0, "%s: %s", pairs[i][1], r.err);
		cr_assert(strstr(r.out, "## Problems"), "%s", r.out);
		cr_assert(strstr(r.out, "allowed by `--allow-missing`"), "%s", r.out);
		outcome_free(&r);
	}
}

Test(compare, different_parameters_are_not_compared_and_exit_6)
{
	struct outcome r;
	compare2("base", "params", &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_PARAMS, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "nbrun: compare: parameters differ: " P1 " (params): duration_s 10 → 1, "
			 "mss 0 → 536\n"), "%s", r.err);
	cr_assert(strstr(r.err, "parameters differ: " P4 " (params): window 0 → 262144\n"), "%s", r.err);
	cr_assert(strstr(r.out, "not compared (parameters differ: duration_s 10 → 1, mss 0 → 536)"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "- case `" P1 "`: duration_s 10 → 1, mss 0 → 536 — **not compared**"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "2 not compared (parameters differ)"), "%s", r.out);
	outcome_free(&r);
}

Test(compare, expected_parameter_differences_are_judged_as_context)
{
	const char *names[] = { "base", "params" };
	const char *const expect[] = { "mss", "duration_s", "window" };
	struct nb_compare_opts o = { .expect = expect, .nexpect = 3 };
	struct outcome r;
	run_opts(names, 2, &o, &r);
	cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
	cr_assert(strstr(r.out, "- case `" P1 "`: duration_s 10 → 1, mss 0 → 536 (expected)"), "%s",
		  r.out);
	cr_assert_null(strstr(r.out, "not compared"), "%s", r.out);
	outcome_free(&r);
}

Test(compare, environment_differences_are_reported_at_the_top)
{
	struct outcome r;
	compare2("base", "envdiff", &r);
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
	outcome_free(&r);
}

Test(compare, expect_diff_makes_an_environment_difference_context)
{
	const char *names[] = { "base", "envdiff" };
	const char *const expect[] = { "iface.mtu", "peer.tcp.congestion_control", "nosuch.key" };
	struct nb_compare_opts o = { .expect = expect, .nexpect = 3 };
	struct outcome r;
	run_opts(names, 2, &o, &r);
	cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
	cr_assert(strstr(r.out, "Expected differences (declared with `--expect-diff`, context rather "
			 "than a warning): peer iface.mtu: 9001 → 1500; peer tcp.congestion_control: "
			 "cubic → bbr.\n"), "%s", r.out);
	cr_assert(strstr(r.out, "- peer iface.mtu: 9001 → 1500 (expected)\n"), "%s", r.out);
	cr_assert(strstr(r.err, "(2 differences, e.g. peer cpu.governor"), "%s", r.err);
	cr_assert(strstr(r.err, "note: --expect-diff nosuch.key: no such difference"), "%s", r.err);
	outcome_free(&r);
}

Test(compare, fail_on_inconclusive_exits_7)
{
	const char *names[] = { "base", "same" };
	struct nb_compare_opts o = { .fail_on_inconclusive = true };
	struct outcome r;
	run_opts(names, 2, &o, &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_INCONCLUSIVE, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "exit 7 (an inconclusive verdict (--fail-on-inconclusive))"), "%s", r.err);
	outcome_free(&r);
}

Test(compare, neutral_names_give_one_sentence_per_side_and_metric)
{
	const char *names[] = { "base", "vendor-b" };
	struct nb_compare_opts o = { .names = "A,B" };
	struct outcome r;
	run_opts(names, 2, &o, &r);
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
	outcome_free(&r);
}

Test(compare, neutral_without_names_uses_the_folder_labels)
{
	const char *names[] = { "base", "vendor-b" };
	struct nb_compare_opts o = { .neutral = true };
	struct outcome r;
	run_opts(names, 2, &o, &r);
	cr_assert_eq(r.rc, 0, "%s", r.err);
	cr_assert(strstr(r.out, "# nbrun compare: base vs vendor-b\n"), "%s", r.out);
	cr_assert(strstr(r.out, "vendor-b is 12.0 % faster than base (95 % CI 11.4–12.6 %)"), "%s",
		  r.out);
	outcome_free(&r);
	/* a failed case still fails a vendor comparison: it would not be a fair one */
	const char *failed[] = { "base", "failed" };
	o = (struct nb_compare_opts){ .names = "A,B" };
	run_opts(failed, 2, &o, &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_FAILED, "%s", r.err);
	cr_assert(strstr(r.out, "B and A cannot be compared on rx_bps: all 5 runs failed in new"), "%s",
		  r.out);
	outcome_free(&r);
}

Test(compare, names_must_match_the_folders)
{
	const char *names[] = { "base", "vendor-b" };
	struct nb_compare_opts o = { .names = "A,B,C" };
	struct outcome r;
	run_opts(names, 2, &o, &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_INPUT);
	cr_assert(strstr(r.err, "--names 'A,B,C': 3 names for 2 folders"), "%s", r.err);
	outcome_free(&r);
	o = (struct nb_compare_opts){ .names = "A," };
	run_opts(names, 2, &o, &r);
	cr_assert_eq(r.rc, NB_CMP_EXIT_INPUT);
	cr_assert(strstr(r.err, "each name 1 to 63 characters"), "%s", r.err);
	outcome_free(&r);
}

struct bad_input {
	const char *folder;
	const char *message;
};

Test(compare, bad_input_exits_2_naming_the_file_and_line)
{
	static const struct bad_input cases[] = {
		{ "corrupt", "compare/corrupt/runs.csv:5: wrong field count (20 of 97 fields)" },
		{ "badvalue", "compare/badvalue/runs.csv:4: value '4.98e8x' is not a number" },
		{ "notresult", "compare/notresult: not an nbrun results folder (no readable runs.csv)" },
		{ "absent", "compare/absent: No such file or directory" },
		{ "base/env.txt", "env.txt: No such file or directory" },
		{ "base/meta.json/x", "meta.json/x: Not a directory" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct outcome r;
		compare2("base", cases[i].folder, &r);
		cr_assert_eq(r.rc, 2, "%s: rc %d", cases[i].folder, r.rc);
		cr_assert(strstr(r.err, cases[i].message), "%s: got %s", cases[i].folder, r.err);
		cr_assert_eq(strchr(r.err, '\n'), r.err + r.elen - 1, "one line: %s", r.err);
		cr_assert_eq(r.olen, 0, "nothing written on error");
		outcome_free(&r);
	}
}

Test(compare, unknown_metric_is_a_usage_error)
{
	const char *names[] = { "base", "same" };
	struct outcome r;
	compare_opts(names, 2, "md", "rx_bpz", NULL, &r);
	cr_assert_eq(r.rc, 2);
	cr_assert(strstr(r.err, "--metric 'rx_bpz': not a metric column"), "%s", r.err);
	outcome_free(&r);
}

Test(compare, several_new_folders_get_one_column_group_each)
{
	const char *names[] = { "base", "drop", "vendor-b" };
	struct outcome r;
	compare_opts(names, 3, "md", NULL, NULL, &r);
	cr_assert_eq(r.rc, 1);
	cr_assert(strstr(r.out, "| case | metric | base | drop | change (95 % CI) | verdict | vendor-b | "
			 "change (95 % CI) | verdict | n | warnings |\n"
			 "|---|---|---:|---:|---:|---|---:|---:|---|---:|---|\n"), "%s", r.out);
	/* drop: p1 regression; vendor-b: p1 improvement, p4 -25 % regression */
	cr_assert(strstr(r.out, "\n2 regressions, 1 improvement, 6 unchanged, 1 inconclusive\n"), "%s",
		  r.out);
	cr_assert(strstr(r.out, " | 5/5/5 | "), "n printed once per row: %s", r.out);
	cr_assert(strstr(r.err, P1 " (drop)"));
	cr_assert(strstr(r.err, P4 " (vendor-b): rx_bps -25.0 %"), "%s", r.err);
	outcome_free(&r);
}

Test(compare, json_output_carries_the_ci_and_the_gate)
{
	const char *names[] = { "base", "drop" };
	struct outcome r;
	compare_opts(names, 2, "json", NULL, NULL, &r);
	cr_assert_eq(r.rc, 1);
	json_error_t je;
	json_t *doc = json_loads(r.out, 0, &je);
	cr_assert(doc, "line %d: %s", je.line, je.text);
	cr_assert_str_eq(json_string_value(json_object_get(doc, "summary")),
			 "1 regression, 0 improvements, 3 unchanged, 1 inconclusive");
	cr_assert_eq(json_integer_value(json_object_get(doc, "exit")), 1);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(doc, "counts"),
							"inconclusive")), 1);
	json_t *p1 = json_array_get(json_object_get(doc, "cases"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(p1, "case_id")), P1);
	json_t *cell = json_array_get(json_object_get(p1, "new"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(cell, "verdict")), "regression");
	cr_assert_str_eq(json_string_value(json_object_get(cell, "decided_by")), "welch");
	cr_assert_float_eq(json_number_value(json_object_get(cell, "change_pct")), -20.0, 1e-6);
	double lo = json_number_value(json_object_get(cell, "ci_lo_pct"));
	double hi = json_number_value(json_object_get(cell, "ci_hi_pct"));
	cr_assert(lo < -20.0 && hi > -20.0 && hi < -5.0, "%g %g", lo, hi);
	json_t *welch = json_object_get(json_object_get(cell, "tests"), "welch");
	cr_assert(json_number_value(json_object_get(welch, "t")) < -10.0);
	json_decref(doc);
	outcome_free(&r);
}

Test(compare, metric_option_compares_any_column)
{
	struct nb_compare c;
	build("base", "mixed", "lat_p99_us", &c);
	const struct nb_cmp_row *lat = row_of(&c, LAT), *rr = row_of(&c, RR), *p1 = row_of(&c, P1);
	cr_assert_eq(lat->cells[0].verdict, NB_CMP_REGRESSION);
	cr_assert_float_eq(lat->cells[0].change, 0.30, 1e-6);
	/* rr latency is 1/rate: +15 % rate is -13 % p99 */
	cr_assert_eq(rr->cells[0].verdict, NB_CMP_IMPROVEMENT);
	cr_assert_eq(p1->cells[0].verdict, NB_CMP_NODATA, "stream runs have no p99");
	cr_assert_eq(c.count[NB_CMP_NODATA], 3);
	cr_assert_eq(c.nproblems, 0, "a metric a case does not measure is not a failure");
	nb_compare_free(&c);
}

Test(compare, out_file_gets_markdown_and_its_own_chart_folder)
{
	char dir[64];
	cr_assert(nbt_tmpdir("compare", dir, sizeof(dir)));
	char out[256], dat[300], gp[300];
	snprintf(out, sizeof(out), "%s/vendor.md", dir);
	snprintf(dat, sizeof(dat), "%s/vendor-charts/compare.dat", dir);
	snprintf(gp, sizeof(gp), "%s/vendor-charts/compare.gp", dir);
	const char *names[] = { "base", "drop", "vendor-b" };
	struct outcome r;
	compare_opts(names, 3, "md", NULL, out, &r);
	cr_assert_eq(r.rc, 1, "%s", r.err);
	cr_assert_eq(r.olen, 0, "nothing on stdout with --out");
	char *md = nbt_slurp(out, NULL), *d = nbt_slurp(dat, NULL), *g = nbt_slurp(gp, NULL);
	cr_assert(md && d && g);
	cr_assert(strncmp(md, "# nbrun compare\n\n2 regressions", 30) == 0, "%s", md);
	/* ratio 0.8 with its CI, the label above... below the bar, in the regression colour */
	cr_assert(strstr(d, "\n\"" P1 " (↑ better)\" 0.8 0.79"), "%s", d);
	cr_assert(strstr(d, " \"-20.0 %\" 12986408 "), "%s", d);
	/* bars in their verdict's colour, the second folder told apart by its fill, in the key */
	cr_assert(strstr(g, ":2:7 with boxxyerror fs solid 0.85 lc rgb variable notitle"), "%s", g);
	cr_assert(strstr(g, ":8:13 with boxxyerror fs pattern 1 lc rgb variable notitle"), "%s", g);
	cr_assert(strstr(g, "NaN with boxes fs pattern 1 lc rgb \"#505050\" title \"vendor-b\""), "%s", g);
	cr_assert(strstr(g, "lc rgb \"#c62828\" title \"regression\""), "%s", g);
	cr_assert(strstr(g, ":(0):($10-$9) with vectors heads"), "the CI bars: %s", g);
	/* vendor-b's p4 at 0.75 (CI down to 0.69) is the lowest point: the axis starts just below */
	cr_assert(strstr(g, "set yrange [0.63"), "zoomed to the data, not from 0: %s", g);
	free(md);
	free(d);
	free(g);
	outcome_free(&r);
	nbt_rmtree(dir);
}

/* Runs on several agent hosts: each host's facts are compared with the same-named host's (vm3's
 * MTU, not only path 0's host as "the peer"), and a host in one folder only is a difference. */
Test(compare, with_several_hosts_each_hosts_environment_is_compared_by_name)
{
	char dir[2][256], env[300];
	struct nb_facts local, vm2, vm3[2];
	nb_facts_init(&local);
	nb_facts_init(&vm2);
	nb_facts_set(&local, "iface", "mtu", "1500");
	nb_facts_set(&vm2, "iface", "mtu", "1500");
	for (int s = 0; s < 2; s++) {
		nb_facts_init(&vm3[s]);
		nb_facts_set(&vm3[s], "iface", "mtu", s ? "9000" : "1500");
		cr_assert(nbt_fixture_copy("compare/base", dir[s], sizeof(dir[s])));
		snprintf(env, sizeof(env), "%s/env.json", dir[s]);
		struct nb_env_host hosts[3] = { { "vm2", &vm2 }, { "vm3", &vm3[s] }, { "vm4", &vm2 } };
		struct nb_error err = { "" };
		cr_assert(nb_env_json_write_hosts(env, &local, hosts, s ? 3 : 2, &err), "%s", err.msg);
	}
	const char *paths[] = { dir[0], dir[1] };
	struct nb_compare_opts o = { .paths = paths, .npaths = 2, .threshold = 0.05 };
	struct outcome r;
	FILE *out = open_memstream(&r.out, &r.olen), *err = open_memstream(&r.err, &r.elen);
	r.rc = nb_compare_run(&o, out, err);
	fclose(out);
	fclose(err);
	cr_expect_not_null(strstr(r.out, "vm3 iface.mtu: 1500 → 9000"), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "vm4 host: absent → present"), "%s", r.out);
	cr_expect_null(strstr(r.out, "peer iface.mtu"), "no host is \"the peer\" here: %s", r.out);
	cr_expect_null(strstr(r.out, "vm2 iface"), "vm2 is the same: %s", r.out);
	cr_expect_not_null(strstr(r.err, "different conditions (2 differences"), "%s", r.err);
	outcome_free(&r);
	const char *const expect[] = { "vm3.iface.mtu" }; /* one host's difference, declared */
	o.expect = expect;
	o.nexpect = 1;
	out = open_memstream(&r.out, &r.olen);
	err = open_memstream(&r.err, &r.elen);
	r.rc = nb_compare_run(&o, out, err);
	fclose(out);
	fclose(err);
	cr_expect_not_null(strstr(r.out, "- vm3 iface.mtu: 1500 → 9000 (expected)\n"), "%s", r.out);
	cr_expect_not_null(strstr(r.err, "different conditions (1 difference"), "%s", r.err);
	outcome_free(&r);
	for (int s = 0; s < 2; s++) {
		nbt_rmtree(dir[s]);
		nb_facts_free(&vm3[s]);
	}
	nb_facts_free(&local);
	nb_facts_free(&vm2);
}

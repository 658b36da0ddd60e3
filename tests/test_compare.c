/* nbrun compare end to end: verdicts, exit codes and reports on the fixture results folders
 * of tests/fixtures/compare (made by make.py there). The statistics on their own are in
 * test_compare_stats.c, the gate on its inputs (missing, failed, differing cases, names, bad
 * input) in test_compare_inputs.c. */
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

#include "nbt_compare.h"

TestSuite(compare, .init = nbt_cmp_setup);

Test(compare, identical_folders_exit_0_unchanged_where_the_noise_allows)
{
	struct outcome r;
	nbt_compare2("base", "same", &r);
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
	nbt_outcome_free(&r);
}

Test(compare, identical_means_give_zero_change_and_t_zero)
{
	struct nb_compare c;
	nbt_cmp_build("base", "same", NULL, &c);
	const struct nb_cmp_row *row = nbt_cmp_row(&c, P1);
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
	nbt_compare2("base/runs.csv", "same/plan.csv", &r);
	cr_assert_eq(r.rc, 0, "stderr: %s", r.err);
	cr_assert(strstr(r.out, "4 unchanged"));
	nbt_outcome_free(&r);
}

Test(compare, throughput_drop_of_20_percent_is_a_regression_with_its_ci)
{
	struct outcome r;
	nbt_compare2("base", "drop", &r);
	cr_assert_eq(r.rc, 1, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "regression: " P1 " (drop): rx_bps -20.0 % (95 % CI -20.5 to -19.5 %)"),
		  "%s", r.err);
	cr_assert(strstr(r.out, "\n1 regression, 0 improvements, 3 unchanged, 1 inconclusive\n"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "**Gate: fail** (exit 1: a regression beyond the threshold)"));
	cr_assert(strstr(r.out, "## Regressions"));
	cr_assert(strstr(r.out, "**regression** (whole 95 % CI beyond -5 %)"), "%s", r.out);
	nbt_outcome_free(&r);

	struct nb_compare c;
	nbt_cmp_build("base", "drop", NULL, &c);
	const struct nb_cmp_cell *cell = &nbt_cmp_row(&c, P1)->cells[0];
	cr_assert_eq(cell->verdict, NB_CMP_REGRESSION);
	cr_assert_float_eq(cell->change, -0.20, 1e-9);
	cr_assert(cell->ch_hi < -0.05 && cell->ch_lo < cell->change && cell->ch_hi > cell->change);
	nb_compare_free(&c);
}

Test(compare, three_percent_inside_the_noise_is_inconclusive_and_tight_three_unchanged)
{
	struct nb_compare c;
	nbt_cmp_build("base", "noise", NULL, &c);
	const struct nb_cmp_cell *p4 = &nbt_cmp_row(&c, P4)->cells[0];
	cr_assert_float_eq(p4->change, -0.03, 1e-9);
	cr_assert_eq(p4->test, NB_CMP_TEST_WELCH);
	cr_assert_eq(p4->verdict, NB_CMP_INCONCLUSIVE);
	cr_assert(p4->detectable > 0.10, "5 %% CV, 5 runs: %g", p4->detectable);
	/* the same 3 % with a tight stddev: real, and the whole CI inside the 5 % threshold */
	const struct nb_cmp_cell *p1 = &nbt_cmp_row(&c, P1)->cells[0];
	cr_assert(p1->welch.significant);
	cr_assert_eq(p1->verdict, NB_CMP_UNCHANGED);
	cr_assert(p1->ch_lo > -0.05 && p1->ch_hi < 0.0);
	nb_compare_free(&c);
}

Test(compare, latency_and_rr_are_decided_by_the_rank_test)
{
	struct nb_compare c;
	nbt_cmp_build("base", "mixed", NULL, &c);
	const struct nb_cmp_row *lat = nbt_cmp_row(&c, LAT), *rr = nbt_cmp_row(&c, RR), *p1 = nbt_cmp_row(&c, P1);
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
	nbt_compare2("base", "mixed", &r);
	cr_assert_eq(r.rc, 1);
	cr_assert(strstr(r.out, "\n1 regression, 1 improvement, 2 unchanged, 1 inconclusive\n"), "%s",
		  r.out);
	cr_assert(strstr(r.out, "| mann-whitney U=25.0, p=0.00794 (exact) | **regression**"), "%s", r.out);
	cr_assert(strstr(r.err, LAT), "%s", r.err);
	nbt_outcome_free(&r);
}

Test(compare, run_warnings_are_carried_onto_their_rows)
{
	struct outcome r;
	nbt_compare2("base", "mixed", &r);
	/* the rr runs of "mixed" carry a flag; p1 (one stream at half the p4 rate) a pitfall */
	cr_assert(strstr(r.out, " | 5/5 | ⚠ mixed: littles-law |\n"), "%s", r.out);
	cr_assert(strstr(r.out, " | 5/5 | ⚠ base: single-stream; ⚠ mixed: single-stream |\n"), "%s",
		  r.out);
	nbt_outcome_free(&r);
	const char *names[] = { "base", "mixed" };
	nbt_cmp_opts(names, 2, "csv", NULL, NULL, &r);
	cr_assert(strstr(r.out, ",single-stream,single-stream,\n"), "%s", r.out);
	cr_assert(strstr(r.out, ",,littles-law,\n"), "%s", r.out);
	nbt_outcome_free(&r);
}

Test(compare, throughput_up_is_an_improvement_and_exit_0)
{
	struct nb_compare c;
	nbt_cmp_build("base", "vendor-b", NULL, &c);
	const struct nb_cmp_cell *p1 = &nbt_cmp_row(&c, P1)->cells[0];
	cr_assert_eq(p1->verdict, NB_CMP_IMPROVEMENT);
	cr_assert_float_eq(p1->change, 0.12, 1e-9);
	nb_compare_free(&c);
}

Test(compare, several_new_folders_get_one_column_group_each)
{
	const char *names[] = { "base", "drop", "vendor-b" };
	struct outcome r;
	nbt_cmp_opts(names, 3, "md", NULL, NULL, &r);
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
	nbt_outcome_free(&r);
}

Test(compare, json_output_carries_the_ci_and_the_gate)
{
	const char *names[] = { "base", "drop" };
	struct outcome r;
	nbt_cmp_opts(names, 2, "json", NULL, NULL, &r);
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
	nbt_outcome_free(&r);
}

Test(compare, metric_option_compares_any_column)
{
	struct nb_compare c;
	nbt_cmp_build("base", "mixed", "lat_p99_us", &c);
	const struct nb_cmp_row *lat = nbt_cmp_row(&c, LAT), *rr = nbt_cmp_row(&c, RR), *p1 = nbt_cmp_row(&c, P1);
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
	nbt_cmp_opts(names, 3, "md", NULL, out, &r);
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
	nbt_outcome_free(&r);
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
	nbt_outcome_free(&r);
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
	nbt_outcome_free(&r);
	for (int s = 0; s < 2; s++) {
		nbt_rmtree(dir[s]);
		nb_facts_free(&vm3[s]);
	}
	nb_facts_free(&local);
	nb_facts_free(&vm2);
}

/* Reports from a results folder: summary values against hand computation, CSV
 * reading (quoting, CRLF, truncated rows), Markdown table shape, no NaN text. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "csv_read.h"
#include "fixture_util.h"
#include "report.h"
#include "results.h"

static char dir[256];

static void setup(void)
{
	setenv("NBRUN_GNUPLOT", "none", 1); /* charts are test_chart's job; keep this suite fast */
	cr_assert(nbt_fixture_copy("results-basic", dir, sizeof(dir)), "fixture copy");
}

static void teardown(void)
{
	nbt_rmtree(dir);
}

static void build(struct nb_report_info *info)
{
	struct nb_error err = { "" };
	cr_assert(nb_report_build(dir, info, &err), "report: %s", err.msg);
}

/* The summary.csv row of case_id, as a table row index. */
static size_t summary_row(struct nb_csv_table *t, const char *case_id)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	struct nb_error err = { "" };
	cr_assert(nb_csv_read(path, t, &err), "%s", err.msg);
	int c = nb_csv_col(t, "case_id");
	for (size_t r = 0; r < t->nrows; r++)
		if (strcmp(nb_csv_cell(t, r, c), case_id) == 0)
			return r;
	cr_assert_fail("no summary row for %s", case_id);
	return 0;
}

static double cell(struct nb_csv_table *t, size_t r, const char *col)
{
	int c = nb_csv_col(t, col);
	cr_assert_geq(c, 0, "no column %s", col);
	return nb_csv_num_cell(t, r, c);
}

Test(report, counts_cases_runs_and_no_incomplete_rows, .init = setup, .fini = teardown)
{
	struct nb_report_info info;
	build(&info);
	cr_assert_eq(info.cases, 6);
	cr_assert_eq(info.runs, 22);
	cr_assert_eq(info.failed_runs, 1);
	cr_assert_eq(info.incomplete_rows, 0);
	cr_assert_geq(info.charts, 10);
}

Test(report, stream_summary_matches_hand_computation, .init = setup, .fini = teardown)
{
	struct nb_report_info info;
	build(&info);
	struct nb_csv_table t;
	size_t r = summary_row(&t, "tcp-throughput/tcp/s1440/p1/forward");
	/* 9.0, 9.3, 9.6 Gbit/s: mean 9.3e9, sd 0.3e9, CV 3.2258 %, half = t(0.975, 2) * 0.3e9 / sqrt 3 */
	double half = 4.3026527297494639 * 0.3e9 / sqrt(3.0);
	cr_assert_float_eq(cell(&t, r, "value_mean"), 9.3e9, 1e2);
	cr_assert_float_eq(cell(&t, r, "value_stddev"), 0.3e9, 1e2);
	cr_assert_float_eq(cell(&t, r, "value_cv_pct"), 100.0 * 0.3 / 9.3, 1e-5);
	cr_assert_float_eq(cell(&t, r, "value_min"), 9.0e9, 1);
	cr_assert_float_eq(cell(&t, r, "value_median"), 9.3e9, 1e2);
	cr_assert_float_eq(cell(&t, r, "value_ci95_lo"), 9.3e9 - half, 1e3);
	cr_assert_float_eq(cell(&t, r, "value_ci95_hi"), 9.3e9 + half, 1e3);
	cr_assert_float_eq(cell(&t, r, "n"), 3, 0);
	cr_assert_float_eq(cell(&t, r, "n_failed"), 0, 0);
	cr_assert_float_eq(cell(&t, r, "retrans_mean"), 24, 1e-9); /* 12, 24, 36 */
	cr_assert_float_eq(cell(&t, r, "cpu_local_pct_mean"), 50, 1e-9);
	cr_assert_str_eq(nb_csv_cell(&t, r, nb_csv_col(&t, "unit")), "bit/s");
	nb_csv_table_free(&t);
}

Test(report, failed_run_is_counted_apart_from_the_statistics, .init = setup, .fini = teardown)
{
	struct nb_report_info info;
	build(&info);
	struct nb_csv_table t;
	size_t r = summary_row(&t, "tcp-rr/tcp/r32x128/f1");
	cr_assert_float_eq(cell(&t, r, "n"), 2, 0);
	cr_assert_float_eq(cell(&t, r, "n_failed"), 1, 0);
	cr_assert_float_eq(cell(&t, r, "value_mean"), 12300, 1e-6);
	cr_assert_float_eq(cell(&t, r, "value_stddev"), sqrt(2 * 300.0 * 300.0), 1e-6);
	nb_csv_table_free(&t);
}

Test(report, latency_percentiles_come_from_merged_histograms, .init = setup, .fini = teardown)
{
	struct nb_report_info info;
	build(&info);
	struct nb_csv_table t;
	size_t r = summary_row(&t, "udp-latency/udp/s14/r10000");
	/* 3 runs x {50 us: 900, 60 us: 90, 200 us: 9, 1 ms: 1}: p50 50, p99 60, p99.9 200; 3000
	 * samples cannot give a p99.99 (it needs 10 000), so that cell is empty */
	cr_assert_float_eq(cell(&t, r, "latency_count"), 3000, 0);
	cr_assert_float_eq(cell(&t, r, "latency_us_p50"), 50, 0.5);
	cr_assert_float_eq(cell(&t, r, "latency_us_p99"), 60, 0.6);
	cr_assert_float_eq(cell(&t, r, "latency_us_p999"), 200, 2);
	cr_assert(isnan(cell(&t, r, "latency_us_p9999")));
	cr_assert_float_eq(cell(&t, r, "latency_us_p99_runmean"), 60, 0.6);
	/* headline lat_p50_us 52, 54, 50 and repetitions: auto with a 2 % target */
	cr_assert_float_eq(cell(&t, r, "value_mean"), 52, 1e-9);
	cr_assert_float_eq(cell(&t, r, "autorep"), 1, 0);
	cr_assert_float_eq(cell(&t, r, "ci_target_pct"), 2, 1e-9);
	cr_assert_float_eq(cell(&t, r, "ci_reached"), 0, 0); /* half 4.97 = 9.6 % */
	nb_csv_table_free(&t);
}

/* A percentile q needs n >= 1/(1-q) samples: below that it is the maximum under another name.
 * Each run of the fixture has 1000 samples and runs.csv says p99.99 = 1000 us for each. */
Test(report, percentiles_beyond_the_samples_are_left_out_everywhere, .init = setup, .fini = teardown)
{
	struct nb_report_info info;
	build(&info);
	struct nb_csv_table t;
	size_t r = summary_row(&t, "udp-latency/udp/s14/r10000");
	cr_expect(isnan(cell(&t, r, "latency_us_p9999_runmean")));
	cr_expect(isnan(cell(&t, r, "lat_p9999_us_mean")));
	cr_expect_float_eq(cell(&t, r, "latency_us_p999_runmean"), 200, 2);
	cr_expect_float_eq(cell(&t, r, "lat_p999_us_mean"), 200, 1e-9);
	nb_csv_table_free(&t);
	char path[512];
	snprintf(path, sizeof(path), "%s/results.json", dir);
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	cr_assert_not_null(root, "%s", je.text);
	json_t *run = json_array_get(json_object_get(root, "runs"), 12); /* run_id 13 */
	cr_expect_eq(json_integer_value(json_object_get(run, "run_id")), 13);
	json_t *m = json_object_get(run, "metrics");
	cr_expect_null(json_object_get(m, "lat_p9999_us"));
	cr_expect_not_null(json_object_get(m, "lat_p999_us"));
	json_t *lat = json_object_get(json_array_get(json_object_get(root, "summary"), 4), "latency");
	cr_expect(json_is_null(json_object_get(lat, "p9999_us")));
	cr_expect(json_is_number(json_object_get(lat, "p999_us")));
	json_decref(root);
	snprintf(path, sizeof(path), "%s/report.md", dir);
	char *md = nbt_slurp(path, NULL);
	cr_assert_not_null(md);
	cr_expect_not_null(strstr(md, "| `udp-latency/udp/s14/r10000` | 3000 | 49.7 | 49.9 | 49.9 | 60.2 | 200 | — | 1008 |"),
			   "%s", md);
	cr_expect_not_null(strstr(md, "— : too few samples for that percentile"));
	free(md);
}

Test(report, sweep_threshold_reaches_the_summary, .init = setup, .fini = teardown)
{
	struct nb_report_info info;
	build(&info);
	struct nb_csv_table t;
	size_t r = summary_row(&t, "udp-loss/udp/s1400");
	cr_assert_float_eq(cell(&t, r, "trials"), 7, 0);
	cr_assert_float_eq(cell(&t, r, "n"), 0, 0);
	cr_assert_float_eq(cell(&t, r, "sweep_threshold"), 3e8, 1);
	cr_assert_float_eq(cell(&t, r, "sweep_loss_target_pct"), 0.1, 1e-9);
	cr_assert(isnan(cell(&t, r, "value_mean")), "no repetitions, no mean");
	nb_csv_table_free(&t);
}

Test(report, truncated_runs_csv_still_reports_and_counts_the_row, .init = setup, .fini = teardown)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/runs.csv", dir);
	size_t n = 0;
	char *text = nbt_slurp(path, &n);
	cr_assert_not_null(text);
	cr_assert(nbt_write(path, text, n - 40)); /* a crash in the middle of the last row */
	free(text);
	struct nb_report_info info;
	build(&info);
	cr_assert_eq(info.runs, 21);
	cr_assert_eq(info.incomplete_rows, 1);
	cr_assert(strstr(info.note, "runs.csv:"), "note names the file and line: %s", info.note);
	snprintf(path, sizeof(path), "%s/report.md", dir);
	char *md = nbt_slurp(path, NULL);
	cr_assert(strstr(md, "1 incomplete row skipped"));
	free(md);
}

/* Every line of a table block has the same number of unescaped '|'. */
static void check_tables(const char *md)
{
	int want = -1, tables = 0;
	for (const char *line = md; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (len && line[0] == '|') {
			int bars = 0;
			for (size_t i = 0; i < len; i++)
				bars += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
			if (want < 0) {
				want = bars;
				tables++;
			}
			cr_assert_eq(bars, want, "table row has %d cells, header %d: %.*s", bars, want,
				     (int)len, line);
		} else {
			want = -1;
		}
		line += len + (end != NULL);
	}
	cr_assert_geq(tables, 6, "environment, differences, results, latency, sweep, method");
}

/* Builds the report and returns report.md (to free), its tables checked. */
static char *report_md(struct nb_report_info *info)
{
	build(info);
	char path[512];
	snprintf(path, sizeof(path), "%s/report.md", dir);
	char *md = nbt_slurp(path, NULL);
	cr_assert_not_null(md);
	check_tables(md);
	return md;
}

Test(report, markdown_tables_have_consistent_shape, .init = setup, .fini = teardown)
{
	struct nb_report_info info;
	char *md = report_md(&info);
	cr_assert(strstr(md, "# nbrun report: fixture"));
	cr_assert(strstr(md, "9.30 ± 0.30 (3.2 %)"), "stream result in Gbit/s with CV");
	cr_assert(strstr(md, "Mean ± stddev (CV), Gbit/s"));
	cr_assert(strstr(md, "connection reset, peer gone\" \\| retry later"), "pipe escaped");
	cr_assert(strstr(md, "**300 Mbit/s**"), "sweep threshold sentence");
	cr_assert(strstr(md, "## Method"));
	free(md);
}

Test(report, warnings_list_every_pitfall_found, .init = setup, .fini = teardown)
{
	struct nb_report_info info;
	build(&info);
	char path[512];
	snprintf(path, sizeof(path), "%s/report.md", dir);
	char *md = nbt_slurp(path, NULL);
	size_t n = 0;
	for (const char *p = md; (p = strstr(p, "- ⚠️ **")); p++)
		n++;
	cr_assert_eq(n, info.warning_codes, "one line per pitfall");
	cr_assert_gt(info.warnings, 0, "MTU 9001 vs 1500 in the fixture");
	cr_assert(strstr(md, "| iface | mtu | 9001 | 1500 |"), "difference table");
	free(md);
}

static bool has_nan_word(const char *s)
{
	for (const char *p = s; (p = strcasestr(p, "nan")); p++) {
		bool before = p > s && isalpha((unsigned char)p[-1]);
		bool after = isalpha((unsigned char)p[3]);
		if (!before && !after)
			return true;
	}
	return false;
}

Test(report, a_single_repetition_gives_empty_cells_never_nan, .init = setup, .fini = teardown)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/runs.csv", dir);
	size_t n = 0;
	char *text = nbt_slurp(path, &n);
	char *second = strchr(strchr(text, '\n') + 1, '\n') + 1; /* keep the header and run 1 */
	cr_assert(nbt_write(path, text, (size_t)(second - text)));
	free(text);
	struct nb_report_info info;
	build(&info);
	struct nb_csv_table t;
	size_t r = summary_row(&t, "tcp-throughput/tcp/s1440/p1/forward");
	cr_assert_float_eq(cell(&t, r, "n"), 1, 0);
	cr_assert_str_eq(nb_csv_cell(&t, r, nb_csv_col(&t, "value_stddev")), "");
	cr_assert_str_eq(nb_csv_cell(&t, r, nb_csv_col(&t, "value_cv_pct")), "");
	cr_assert_str_eq(nb_csv_cell(&t, r, nb_csv_col(&t, "value_ci95_lo")), "");
	nb_csv_table_free(&t);
	const char *files[] = { "summary.csv", "report.md", "results.json" };
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		char *s = nbt_slurp(path, NULL);
		cr_assert_not(has_nan_word(s), "%s contains NaN text", files[i]);
		free(s);
	}
}

/* Every ",from," in the fixture's file name becomes ",to,". */
static void rename_cells(const char *name, const char *from, const char *to)
{
	char path[512], *out = NULL;
	size_t n = 0, len = 0, lf = strlen(from);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	char *text = nbt_slurp(path, &n);
	cr_assert_not_null(text);
	FILE *f = open_memstream(&out, &len);
	for (const char *p = text; *p;)
		if (strncmp(p, from, lf) == 0) {
			fputs(to, f);
			p += lf;
		} else {
			fputc(*p++, f);
		}
	fclose(f);
	cr_assert(nbt_write(path, out, len));
	free(out);
	free(text);
}

Test(report, an_engine_this_build_does_not_know_is_reported_as_written, .init = setup,
     .fini = teardown)
{
	rename_cells("plan.csv", ",stream,", ",quic,");
	rename_cells("runs.csv", ",stream,", ",quic,");
	struct nb_report_info info;
	char *md = report_md(&info);
	cr_assert_eq(info.cases, 6);
	cr_assert(strstr(md, "Engine `quic`"));
	cr_assert(strstr(md, "headline `rx_bps` · protocol tcp · direction forward"),
		  "plan.csv's direction is shown (on the test's line: the same for all its cases), not "
		  "ruled out");
	cr_assert(strstr(md, "9.30 ± 0.30 (3.2 %)"), "the headline still comes from runs.csv");
	cr_assert(strstr(md, "**300 Mbit/s**"), "a sweep of an unknown engine reads bit rates");
	free(md);
}

/* Two runs of 1000 and 30000 transactions/s: mean ± t(0.975, 1) · s / √2 is -168740 – 199740,
 * below 0, which no rate can be. Every file cuts it at 0 and the report says why. */
Test(report, a_ci_reaching_below_zero_is_cut_at_zero_and_says_n_too_small, .init = setup,
     .fini = teardown)
{
	rename_cells("runs.csv", ",trans_per_s,12000,", ",trans_per_s,1000,");
	rename_cells("runs.csv", ",trans_per_s,12600,", ",trans_per_s,30000,");
	struct nb_report_info info;
	char *md = report_md(&info);
	struct nb_csv_table t;
	size_t r = summary_row(&t, "tcp-rr/tcp/r32x128/f1");
	double hi = 15500.0 + 12.706204736174707 * 14500.0;
	cr_assert_float_eq(cell(&t, r, "value_ci95_lo"), 0.0, 0.0);
	cr_assert_float_eq(cell(&t, r, "value_ci95_hi"), hi, 1e-6);
	cr_assert(strstr(md, "| 0 – 199740 (n too small) |"), "the CI cell of the rr case");
	cr_assert(strstr(md, "*n too small*: the t interval of the mean reached below 0"));
	cr_assert(strstr(md, "mean ± t(0.975, n − 1) · stddev / √n; no measured value can be "
			     "negative, so an interval reaching below 0 is cut at 0"),
		  "the Method section names the CI and its cut");
	cr_assert_null(strstr(md, "| -"), "no cell starts with a negative number");
	free(md);
	char path[512];
	snprintf(path, sizeof(path), "%s/results.json", dir);
	json_t *root = json_load_file(path, 0, NULL);
	cr_assert_not_null(root);
	json_t *cases = json_object_get(root, "summary");
	size_t i;
	json_t *c;
	bool seen = false;
	json_array_foreach(cases, i, c)
		if (strcmp(json_string_value(json_object_get(c, "case_id")), "tcp-rr/tcp/r32x128/f1") == 0) {
			cr_assert_float_eq(json_real_value(json_object_get(c, "ci95_lo")), 0.0, 0.0);
			seen = true;
		}
	cr_assert(seen, "results.json has the case");
	json_decref(root);
}

/* The latency case's headline is the mean of each run's p50 (52.0 µs), its latency table's p50
 * the percentile of every sample merged (49.9 µs): each column says which it is. */
Test(report, the_two_p50s_say_which_they_are, .init = setup, .fini = teardown)
{
	struct nb_report_info info;
	char *md = report_md(&info);
	cr_assert(strstr(md, "| Mean of the runs' p50 ± stddev (CV), µs | Min – max | 95 % CI | n |"));
	cr_assert(strstr(md, "headline `lat_p50_us` · protocol udp · size 14 B · streams / flows 1 · "
			     "rate per flow 10000 msg/s · wait spin."), "what its one case ran with");
	cr_assert(strstr(md, "| `udp-latency/udp/s14/r10000` | 52.0 ± 2.0 "));
	cr_assert(strstr(md, "| Case | Samples | Min | p50 of all samples | p90 |"));
	cr_assert(strstr(md, "| `udp-latency/udp/s14/r10000` | 3000 | 49.7 | 49.9 |"), "%s", md);
	cr_assert(strstr(md, "| Mean ± stddev (CV), Gbit/s |"), "a rate's headline is a mean only");
	free(md);
}

Test(report, a_missing_folder_is_an_error_naming_it)
{
	struct nb_report_info info;
	struct nb_error err = { "" };
	cr_assert_not(nb_report_build("/nonexistent/nbrun-results", &info, &err));
	cr_assert(strstr(err.msg, "/nonexistent/nbrun-results"), "%s", err.msg);
}

static char *report_with_sweeps(const char *sweeps)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	const char *meta = "{\"nbrun_version\": \"0.1.0\", \"config_name\": \"basic\"}";
	cr_assert(nbt_write(path, meta, strlen(meta)));
	snprintf(path, sizeof(path), "%s/sweeps.json", dir);
	cr_assert(nbt_write(path, sweeps, strlen(sweeps)));
	struct nb_report_info info;
	build(&info);
	snprintf(path, sizeof(path), "%s/report.md", dir);
	return nbt_slurp(path, NULL);
}

Test(report, searches_from_sweeps_json_get_one_sentence_per_goal, .init = setup, .fini = teardown)
{
	const char *sweeps =
		"{\"sweeps\": ["
		"{\"case_id\": \"udp-loss/udp/s1400\", \"loss\": 0, \"threshold\": 250000000,"
		" \"lowest_fail\": 260000000, \"status\": \"found\", \"complete\": true},"
		"{\"case_id\": \"udp-loss/udp/s1400\", \"loss\": 0.005, \"threshold\": 400000000,"
		" \"lowest_fail\": null, \"status\": \"at-or-above-to\", \"host_bound_above\": 410000000,"
		" \"complete\": true}]}";
	char *md = report_with_sweeps(sweeps);
	cr_assert_not_null(strstr(md, "loss ≤ 0 % in every trial: **250 Mbit/s** (lowest failing rate 260 Mbit/s)"), "%s", md);
	cr_assert_not_null(strstr(md, "loss ≤ 0.5 % in every trial: **400 Mbit/s**"));
	cr_assert_not_null(strstr(md, "the threshold is at or above it"));
	cr_assert_not_null(strstr(md, "could not offer more than 410 Mbit/s (host-bound)"));
	free(md);
}

/* A search capped where every attempt fell short, although a trial had sent more, claims no
 * limit of the sender; its retries and what held the sender back are told. */
Test(report, a_sender_short_search_claims_no_host_bound, .init = setup, .fini = teardown)
{
	const char *sweeps =
		"{\"sweeps\": ["
		"{\"case_id\": \"udp-loss/udp/s1400\", \"loss\": 0.001, \"threshold\": 79400000,"
		" \"lowest_fail\": null, \"status\": \"sender-short\", \"host_bound_above\": null,"
		" \"unreached\": 80000000, \"sender_max\": 155800000, \"retries\": 3,"
		" \"limit\": \"the pacer forgave 150 ms of sending per flow with CPU to spare\","
		" \"complete\": true}]}";
	char *md = report_with_sweeps(sweeps);
	cr_assert_not_null(strstr(md, "**79.4 Mbit/s**"), "%s", md);
	cr_assert_not_null(strstr(md, "3 of them retries of a trial whose sender fell short"));
	cr_assert_not_null(strstr(md, "Every attempt at 80.0 Mbit/s fell short, though the sender had "
				      "sent 156 Mbit/s in this search"), "%s", md);
	cr_assert_not_null(strstr(md, "no limit of the sender is claimed — the pacer forgave 150 ms"));
	cr_assert_null(strstr(md, "host-bound"), "nothing here shows the generator's limit");
	free(md);
}

static const char *at(const char *md, const char *what)
{
	const char *p = strstr(md, what);
	cr_assert_not_null(p, "report.md has no %s", what);
	return p;
}

/* The answer first: the key numbers, the verdict, the conditions every case shares, then the
 * tables; the differences between the ends in view, the full environment folded. */
Test(report, the_report_leads_with_the_key_numbers_then_the_verdict_and_conditions,
     .init = setup, .fini = teardown)
{
	struct nb_report_info info;
	char *md = report_md(&info);
	cr_expect_eq(at(md, "\n## "), at(md, "\n## Key numbers"), "the first section is the answer");
	const char *verdict = at(md, "**Verdict:** 6 of 6 cases measured in 22 runs (1 failed).");
	cr_expect_lt(at(md, "## Key numbers"), verdict);
	cr_expect_lt(verdict, at(md, "## Conditions"));
	cr_expect_lt(at(md, "## Conditions"), at(md, "## Results"));
	cr_expect_lt(at(md, "## Results"), at(md, "## Warnings"));
	cr_expect_lt(at(md, "## Warnings"), at(md, "## Environment"));
	const char *diff = at(md, "| iface | mtu | 9001 | 1500 |");
	const char *details = at(md, "<details>\n<summary>Every fact of both ends");
	cr_expect_lt(diff, details, "the differences stay outside the fold");
	cr_expect_gt(at(md, "| host | hostname |"), details, "every fact is inside it");
	cr_expect_not_null(strstr(verdict, "3 pitfalls (mtu-mismatch, offload-mismatch, single-stream)"));
	free(md);
}

/* A batch a signal cut: the report says so, and an interrupted run is no failed one. */
Test(report, an_interrupted_run_is_named_as_such_and_the_status_says_by_what, .init = setup,
     .fini = teardown)
{
	rename_cells("runs.csv", ",failed,", ",interrupted,");
	rename_cells("meta.json", "\"complete\": true", "\"complete\": false, \"stopped_by\": \"SIGTERM\"");
	struct nb_report_info info;
	char *md = report_md(&info);
	cr_expect_eq(info.failed_runs, 0);
	at(md, "(1 interrupted); the batch is incomplete.");
	at(md, "- Interrupted: `tcp-rr/tcp/r32x128/f1` repetition 3: agent said");
	at(md, "**incomplete** — interrupted by SIGTERM");
	cr_expect_null(strstr(md, "(1 failed)"));
	free(md);
}

/* A plain sweep has no loss goal: the report states its sentence, never "loss ≤ nan %"; a
 * resumed sweep shows the trials of its recorded attempt and counts the earlier ones. */
Test(report, a_plain_sweep_states_its_sentence_and_only_its_attempts_trials, .init = setup,
     .fini = teardown)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	const char *meta = "{\"nbrun_version\": \"0.1.0\", \"config_name\": \"basic\"}";
	cr_assert(nbt_write(path, meta, strlen(meta)));
	snprintf(path, sizeof(path), "%s/sweeps.json", dir);
	const char *sweeps = "{\"sweeps\": [{\"case_id\": \"udp-loss/udp/s1400\", \"rep\": 1, "
			     "\"first_run_id\": 19, \"search\": false, \"interrupted\": false, "
			     "\"sentence\": \"udp-loss/udp/s1400: sweep of 4 rates\"}]}";
	cr_assert(nbt_write(path, sweeps, strlen(sweeps)));
	struct nb_report_info info;
	char *md = report_md(&info);
	cr_expect_not(has_nan_word(md), "NaN text in the report");
	at(md, "udp-loss/udp/s1400: sweep of 4 rates\n");
	at(md, "| 4 | 450 Mbit/s |");
	cr_expect_null(strstr(md, "| 5 | "), "trials before run 19 are not in the table");
	at(md, "3 trials of an earlier, interrupted attempt are in runs.csv, not above.");
	free(md);
}

/* The console's warning lines and the report's count the same findings: both show the first
 * case's other end in full and say "+N more like it" of the rest with one N (issue 27: they
 * said +3 and +2 of the same findings). */
Test(report, the_console_and_the_report_count_similar_warnings_alike, .init = setup,
     .fini = teardown)
{
	rename_cells("runs.csv", ",30,35,", ",95,96,"); /* both ends' hosts busy in 3 cases */
	char *con = NULL;
	size_t clen = 0;
	FILE *f = open_memstream(&con, &clen);
	struct nb_report_info info;
	struct nb_error err = { "" };
	cr_assert(nb_report_build_warn(dir, &info, f, &err), "%s", err.msg);
	fclose(f);
	char path[512];
	snprintf(path, sizeof(path), "%s/report.md", dir);
	char *md = nbt_slurp(path, NULL);
	/* a busy host with no thread of ours at a core is host-busy, not cpu-bound */
	const char *line = strstr(con, "warning: host-busy in 3 cases");
	cr_assert_not_null(line, "%s", con);
	cr_expect_not_null(strstr(line, "(+2 more like it)\n  also: the host was 96 % busy on the peer "
				  "end"), "%s", line);
	const char *item = strstr(md, "- ⚠️ **host-busy**");
	cr_assert_not_null(item, "%s", md);
	cr_expect_not_null(strstr(item, "(+2 more like it; each is in results.json)\n  - the host was "
				  "96 % busy on the peer end"), "%s", item);
	free(md);
	free(con);
}

/* One unstable case is one that "varies", several "vary". */
Test(report, the_verdict_counts_unstable_cases_in_good_grammar, .init = setup, .fini = teardown)
{
	rename_cells("runs.csv", ",rx_bps,9.6e+09,", ",rx_bps,1.5e+10,");
	struct nb_report_info info;
	char *md = report_md(&info);
	cr_expect_not_null(strstr(md, " 1 case varies by more than 5 % (CV) between repetitions."),
			   "%s", at(md, "**Verdict:**"));
	free(md);
	rename_cells("runs.csv", ",rx_bps,1.86e+10,", ",rx_bps,2.5e+10,");
	md = report_md(&info);
	cr_expect_not_null(strstr(md, " 2 cases vary by more than 5 % (CV) between repetitions."),
			   "%s", at(md, "**Verdict:**"));
	free(md);
}

/* A search's goals in MLRsearch's words: NDR and PDR, each with its attributes, relevant
 * bounds and conditional throughput, and the definitions they follow. */
Test(report, a_search_names_its_goals_as_mlrsearch_does, .init = setup, .fini = teardown)
{
	const char *sweeps =
		"{\"sweeps\": ["
		"{\"case_id\": \"udp-loss/udp/s1400\", \"search\": true, \"loss\": 0,"
		" \"threshold\": 250000000, \"status\": \"found\", \"complete\": true, \"goal\": \"NDR\","
		" \"exceed_ratio\": 0, \"final_trial_s\": 2, \"duration_sum_s\": 4,"
		" \"relevant_lower_bound\": 250000000, \"relevant_upper_bound\": 260000000,"
		" \"conditional_throughput\": 250000000},"
		"{\"case_id\": \"udp-loss/udp/s1400\", \"search\": true, \"loss\": 0.005,"
		" \"threshold\": 300000000, \"status\": \"found\", \"complete\": true, \"goal\": \"PDR\","
		" \"exceed_ratio\": 0, \"final_trial_s\": 2, \"duration_sum_s\": 4,"
		" \"relevant_lower_bound\": 300000000, \"relevant_upper_bound\": null,"
		" \"conditional_throughput\": 298800000}]}";
	char *md = report_with_sweeps(sweeps);
	cr_assert_not_null(strstr(md, "| Goal | Loss ratio | Exceed ratio | Final trial | Duration sum | "
				      "Relevant lower bound | Relevant upper bound | Conditional throughput |"),
			   "%s", md);
	cr_assert_not_null(strstr(md, "| NDR | 0 % | 0 | 2.00 s | 4.00 s | 250 Mbit/s | 260 Mbit/s | "
				      "250 Mbit/s |"), "%s", md);
	cr_assert_not_null(strstr(md, "| PDR | 0.5 % | 0 | 2.00 s | 4.00 s | 300 Mbit/s | — | "
				      "299 Mbit/s |"), "%s", md);
	cr_assert_not_null(strstr(md, "RFC 9971 Appendix A"));
	free(md);
}

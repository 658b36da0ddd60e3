/* Charts: .dat and .gp always written; real gnuplot renders valid PNGs when present. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chart.h"
#include "fixture_util.h"
#include "report.h"

static char dir[256];

static void setup(void)
{
	cr_assert(nbt_fixture_copy("results-basic", dir, sizeof(dir)));
}

static void teardown(void)
{
	nbt_rmtree(dir);
}

static const char *const expected[] = {
	"tcp-throughput-vs-size", "tcp-throughput-vs-streams", "tcp-throughput-repetitions",
	"tcp-rr-repetitions", "udp-latency-repetitions", "tcp-rr-latency", "tcp-rr-latency-cdf",
	"udp-latency-latency", "udp-latency-latency-cdf",
	"sweep-udp-loss-udp-s1400", "ts-tcp-throughput-tcp-s1440-p1-forward",
	"ts-tcp-throughput-tcp-s64K-p1-forward", "ts-tcp-throughput-tcp-s1440-p4-forward",
	"ts-tcp-rr-tcp-r32x128-f1", "ts-udp-latency-udp-s14-r10000",
};
#define NEXPECTED (sizeof(expected) / sizeof(expected[0]))

static long file_size(const char *name, const char *ext)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/charts/%s.%s", dir, name, ext);
	struct stat st;
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

Test(chart, data_and_script_are_always_written, .init = setup, .fini = teardown)
{
	struct nb_report_info info;
	struct nb_error err = { "" };
	cr_assert(nb_report_build(dir, &info, &err), "%s", err.msg);
	cr_assert_eq(info.charts, NEXPECTED);
	for (size_t i = 0; i < NEXPECTED; i++) {
		cr_assert_gt(file_size(expected[i], "dat"), 40, "%s.dat", expected[i]);
		char path[512];
		snprintf(path, sizeof(path), "%s/charts/%s.gp", dir, expected[i]);
		char *gp = nbt_slurp(path, NULL);
		cr_assert_not_null(gp, "%s.gp", expected[i]);
		char want[200];
		snprintf(want, sizeof(want), "\"%s.dat\" index 0", expected[i]);
		cr_assert(strstr(gp, want), "%s.gp plots its data", expected[i]);
		cr_assert(strstr(gp, "set xlabel") && strstr(gp, "set ylabel") && strstr(gp, "set title"));
		free(gp);
	}
}

Test(chart, size_chart_has_one_series_per_stream_count, .init = setup, .fini = teardown)
{
	struct nb_report_info info;
	cr_assert(nb_report_build(dir, &info, NULL));
	char path[512];
	snprintf(path, sizeof(path), "%s/charts/tcp-throughput-vs-size.dat", dir);
	char *dat = nbt_slurp(path, NULL);
	/* 1 stream: 1440 B 9.3 +- 0.3 and 64 KiB 18.4 +- 0.2 Gbit/s; 4 streams: 1440 B only; each
	 * with the 95 % CI of its mean, mean +- t(0.975, 2) * sd / sqrt(3), in slots 0 and 1 */
	cr_assert(strstr(dat, "# series: tcp, 1 stream, forward\n# x_index x mean ci95_lo ci95_hi hover\n"
			      "0 1440 9.3 8.55475869 10.0452413 \"tcp, 1 stream, forward, 1440: 9.30 "
			      "Gbit/s (95 % CI 8.55 – 10.05)\"\n1 65536 18.4 17.9031725 18.8968275 \"tcp, 1 "
			      "stream, forward, 64K: 18.4 Gbit/s (95 % CI 17.9 – 18.9)\"\n"), "%s", dat);
	cr_assert(strstr(dat, "# series: tcp, 4 streams, forward\n# x_index x mean ci95_lo ci95_hi hover\n"
			      "0 1440 24 23.7515862 24.2484138 \""), "%s", dat);
	free(dat);
}

static char *gp_of(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/charts/%s.gp", dir, name);
	char *gp = nbt_slurp(path, NULL);
	cr_assert_not_null(gp, "%s.gp", name);
	return gp;
}

static void append(const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "a");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* Append to runs.csv a copy of the row starting with prefix, each subst[2k] in it replaced by
 * subst[2k + 1]. */
static void copy_row(const char *prefix, const char *const *subst, size_t n)
{
	char path[512], row[2048], out[2048];
	snprintf(path, sizeof(path), "%s/runs.csv", dir);
	char *text = nbt_slurp(path, NULL);
	cr_assert_not_null(text);
	const char *p = strstr(text, prefix);
	while (p && p != text && p[-1] != '\n')
		p = strstr(p + 1, prefix);
	cr_assert_not_null(p, "no row %s", prefix);
	snprintf(row, sizeof(row), "%.*s", (int)strcspn(p, "\n"), p);
	free(text);
	for (size_t k = 0; k + 1 < n; k += 2) {
		char *at = strstr(row, subst[k]);
		cr_assert_not_null(at, "%s not in %s", subst[k], row);
		snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - row), row, subst[k + 1],
			 at + strlen(subst[k]));
		snprintf(row, sizeof(row), "%s", out);
	}
	append("runs.csv", row);
	append("runs.csv", "\n");
}

/* Issue 28, row 12: every chart says exactly what it shows. A second rr case (4 flows) makes
 * the rr test a chart against flows; one sweep trial sent its full rate but stalled. */
Test(chart, every_chart_says_what_it_shows, .init = setup, .fini = teardown)
{
	setenv("NBRUN_GNUPLOT", "none", 1);
	append("plan.csv", "tcp-rr/tcp/r32x128/f4,tcp-rr,rr,tcp,,32,128,4,,0,block,5,1,0,1,3,\n");
	static const char *const rr4[] = { "10,tcp-rr/tcp/r32x128/f1,", "23,tcp-rr/tcp/r32x128/f4,",
					   ",12000,", ",40000," };
	static const char *const stalled[] = {
		"22,udp-loss/udp/s1400,udp-loss,stream,udp,7,trial,450000000,invalid,rx_bps,409500000,,",
		"24,udp-loss/udp/s1400,udp-loss,stream,udp,8,trial,500000000,invalid,rx_bps,480000000,"
		"stalled;pace-forgiven,", ",360000000,409500000,", ",500000000,480000000,",
	};
	static const char *const paced[2][2] = {
		{ "16,udp-loss/udp/s1400,udp-loss,stream,udp,1,trial,100000000,",
		  "25,udp-r/udp/s1400/p1/forward/r500M,udp-r,stream,udp,1,run,," },
		{ "16,udp-loss/udp/s1400,udp-loss,stream,udp,1,trial,100000000,",
		  "26,udp-r/udp/s1400/p2/forward/r500M,udp-r,stream,udp,1,run,," },
	};
	append("plan.csv", "udp-r/udp/s1400/p1/forward/r500M,udp-r,stream,udp,1400,,,1,forward,"
			   "500000000,block,5,1,0,1,1,\n"
			   "udp-r/udp/s1400/p2/forward/r500M,udp-r,stream,udp,1400,,,2,forward,"
			   "500000000,block,5,1,0,1,1,\n");
	copy_row("10,", rr4, 4);
	copy_row("22,", stalled, 4);
	copy_row("16,", paced[0], 2);
	copy_row("16,", paced[1], 2);
	struct nb_report_info info;
	struct nb_error err = { "" };
	cr_assert(nb_report_build(dir, &info, &err), "%s", err.msg);
	char *rr = gp_of("tcp-rr-vs-streams");
	cr_assert(strstr(rr, "title \"tcp, request 32 B, response 128 B\""), "the sizes it sent: %s", rr);
	cr_assert_null(strstr(rr, "0 B"), "never a size of 0 B: %s", rr);
	cr_assert(strstr(rr, "set xlabel \"Parallel flows\""), "%s", rr);
	cr_assert(strstr(rr, "set title \"tcp-rr: Transactions per second vs the number of parallel "
			     "flows\\nclient-vm → 10.0.0.2 · 2024-05-01 · nbrun 0.1.0\""),
		  "the test, the host pair, the day and the version: %s", rr);
	cr_assert(strstr(rr, "with boxes"), "two x values: grouped bars, no line between them: %s", rr);
	cr_assert_null(strstr(rr, "yerrorlines"), "%s", rr);
	cr_assert(strstr(rr, "title \"error bars: 95 % CI of the mean over the repetitions\""), "%s", rr);
	free(rr);
	char *tcp = gp_of("tcp-throughput-vs-streams");
	cr_assert(strstr(tcp, "set xlabel \"Parallel streams\""), "%s", tcp);
	cr_assert(strstr(tcp, "title \"error bars: 95 % CI of the mean over the repetitions\""), "%s", tcp);
	free(tcp);
	char *udp = gp_of("udp-r-vs-streams");
	cr_assert(strstr(udp, "title \"udp, 1400 B, forward, rate 500 Mbit/s\""), "%s", udp);
	free(udp);
	char *sw = gp_of("sweep-udp-loss-udp-s1400");
	cr_assert(strstr(sw, "set rmargin\nset y2label \"Loss (%)\""),
		  "the right margin fits the loss axis and its label: %s", sw);
	cr_assert(strstr(sw, "title \"Invalid trial (sender below offered rate)\""), "run 22 fell short");
	cr_assert(strstr(sw, "index 2 using 1:2 with points lt 1 pt 4 ps 1.6 title \"Invalid trial "
			     "(sender stalled, then caught up)\""), "run 24 sent its rate: %s", sw);
	free(sw);
}

Test(chart, gnuplot_renders_every_png, .init = setup, .fini = teardown)
{
	if (!nb_chart_gnuplot_available())
		cr_skip("gnuplot is not on PATH");
	struct nb_report_info info;
	struct nb_error err = { "" };
	cr_assert(nb_report_build(dir, &info, &err), "%s", err.msg);
	cr_assert(info.gnuplot);
	cr_assert_eq(info.charts_rendered, NEXPECTED, "%s", info.note);
	for (size_t i = 0; i < NEXPECTED; i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/charts/%s.png", dir, expected[i]);
		size_t n = 0;
		char *png = nbt_slurp(path, &n);
		cr_assert_not_null(png, "%s.png missing", expected[i]);
		cr_assert(memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0, "%s.png signature", expected[i]);
		cr_assert_gt(n, 2048, "%s.png is only %zu bytes", expected[i], n);
		free(png);
		cr_assert_gt(file_size(expected[i], "svg"), 2048, "%s.svg", expected[i]);
	}
}

/* 3000 samples estimate percentiles up to 1 - 1/3000: the latency curve never reaches the
 * x = 1/(1-q) of p99.99 (10 000), where it used to plot the maximum at x = 6000. */
Test(chart, latency_curve_stops_where_its_samples_stop, .init = setup, .fini = teardown)
{
	setenv("NBRUN_GNUPLOT", "none", 1);
	struct nb_report_info info;
	struct nb_error err = { "" };
	cr_assert(nb_report_build(dir, &info, &err), "%s", err.msg);
	char path[512];
	snprintf(path, sizeof(path), "%s/charts/udp-latency-latency.dat", dir);
	char *dat = nbt_slurp(path, NULL);
	cr_assert_not_null(dat);
	double xmax = 0, x, y, q;
	for (char *line = strtok(dat, "\n"); line; line = strtok(NULL, "\n"))
		if (line[0] != '#' && sscanf(line, "%lf %lf %lf", &x, &y, &q) == 3 && x > xmax)
			xmax = x;
	free(dat);
	cr_assert_float_eq(xmax, 3000, 1e-6);
}

/* The box plot of a test: each counted repetition a point with its value to show on hover, and
 * each case's box from its quartiles (3 runs of 9.0, 9.3, 9.6 Gbit/s: 9.15, 9.3, 9.45). */
Test(chart, the_repetitions_chart_has_a_point_per_run_and_a_box_per_case, .init = setup,
     .fini = teardown)
{
	setenv("NBRUN_GNUPLOT", "none", 1);
	struct nb_report_info info;
	struct nb_error err = { "" };
	cr_assert(nb_report_build(dir, &info, &err), "%s", err.msg);
	char path[512];
	snprintf(path, sizeof(path), "%s/charts/tcp-throughput-repetitions.dat", dir);
	char *dat = nbt_slurp(path, NULL);
	cr_assert_not_null(dat);
	cr_assert(strstr(dat, "# series: tcp-throughput/tcp/s1440/p1/forward\n# x value hover\n"
			      "0 9 \"tcp/s1440/p1/forward, repetition 1: 9.00 Gbit/s\"\n0 9.3 "), "%s", dat);
	cr_assert(strstr(dat, "# x whisker_lo q1 median q3 whisker_hi\n0 9 9.15 9.3 9.45 9.6\n"), "%s",
		  dat);
	free(dat);
	char *gp = gp_of("tcp-throughput-repetitions");
	cr_assert(strstr(gp, "with candlesticks whiskerbars"), "%s", gp);
	cr_assert(strstr(gp, "using 1:2:(stringcolumn(3)) with labels hypertext point"), "%s", gp);
	free(gp);
	snprintf(path, sizeof(path), "%s/charts/udp-latency-latency-cdf.dat", dir);
	dat = nbt_slurp(path, NULL);
	cr_assert_not_null(dat);
	cr_assert(strstr(dat, "\n99 60.16 \"udp/s14/r10000: p99 60.2 µs (of 3000 samples)\"\n"),
		  "the CDF marks p99 with its value: %s", dat);
	free(dat);
}

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
	"tcp-throughput-vs-size", "tcp-throughput-vs-streams", "tcp-rr-latency", "udp-latency-latency",
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
	/* 1 stream: 1440 B 9.3 +- 0.3 and 64 KiB 18.4 +- 0.2 Gbit/s; 4 streams: 1440 B only */
	cr_assert(strstr(dat, "# series: tcp, 1 stream, forward\n# x mean stddev\n1440 9.3 0.3\n65536 18.4 0.2\n"),
		  "%s", dat);
	cr_assert(strstr(dat, "# series: tcp, 4 streams, forward\n# x mean stddev\n1440 24 0.1\n"), "%s", dat);
	free(dat);
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

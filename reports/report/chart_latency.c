/* The latency chart of one test: round-trip latency by percentile from each case's merged
 * histograms, on a "nines" axis that keeps the tail visible. */
#include "chart_int.h"

#include <math.h>
#include <string.h>

#include "fmt.h"

static double bucket_mid(const struct nb_hist *h, size_t b)
{
	double lo = (double)nb_hist_bucket_lower(b);
	double hi = b + 1 < NB_HIST_BUCKETS ? (double)nb_hist_bucket_lower(b + 1) : lo;
	double v = (lo + hi) / 2.0;
	return fmin(fmax(v, (double)h->min_ns), (double)h->max_ns);
}

/* "Nines" axis: x = 1 / (1 - q), so 90 %, 99 %, 99.9 % are evenly spaced on a log scale.
 * n samples estimate a percentile only up to x = n (q = 1 - 1/n): the curve stops there,
 * at the largest value seen, and never draws a p99.99 that 2001 samples cannot give.
 * Returns the largest x written. */
static double cdf_block(FILE *dat, const struct nb_hist *h)
{
	uint64_t total = 0, cum = 0;
	for (size_t b = 0; b < NB_HIST_BUCKETS; b++)
		total += h->counts[b];
	double xmax = 1;
	fprintf(dat, "# x=1/(1-q) latency_us percentile (x <= samples)\n%.9g %.9g 0\n", 1.0,
		(double)h->min_ns / 1000.0);
	for (size_t b = 0; b < NB_HIST_BUCKETS && total; b++) {
		if (!h->counts[b])
			continue;
		cum += h->counts[b];
		double q = cum >= total ? 1.0 - 1.0 / (double)total : (double)cum / (double)total;
		double x = fmin(1.0 / (1.0 - q), (double)total);
		if (x <= xmax && cum < total)
			continue;
		xmax = fmax(x, xmax);
		fprintf(dat, "%.9g %.9g %.9g\n", x, bucket_mid(h, b) / 1000.0, q * 100.0);
	}
	return xmax;
}

static void nines_axis(FILE *gp, double xmax, double ymin, double ymax, struct nb_scale sc)
{
	/* tic labels are format strings to gnuplot: a literal % is written %% */
	static const char *const names[] = { "0%%", "50%%", "90%%", "99%%", "99.9%%", "99.99%%",
					     "99.999%%", "99.9999%%" };
	static const double at[] = { 1, 2, 10, 100, 1e3, 1e4, 1e5, 1e6 };
	double top = 10; /* the decade that holds the furthest supported percentile */
	while (top < xmax && top < 1e6)
		top *= 10;
	fprintf(gp, "set logscale x 10\nset xrange [1:%.15g]\nset xtics (", top);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]) && at[i] <= top; i++)
		fprintf(gp, "%s\"%s\" %.15g", i ? ", " : "", names[i], at[i]);
	fprintf(gp, ")\nset mxtics 10\nset xlabel \"Percentile\"\n"
		    "set ylabel \"Round-trip latency (%s)\"\n", sc.unit);
	if (ymin > 0 && ymax / ymin > 20)
		fprintf(gp, "set logscale y 10\n");
	else
		fprintf(gp, "set yrange [0:*]\n");
}

static void pct_points(FILE *dat, const struct nb_case_stats *c, bool nines);
static bool has_latency(const struct nb_case_stats *c, const char *test);

static bool cdf_chart(const char *dir, const struct nb_summary *s, const char *test,
		      struct nb_charts *charts, struct nb_error *err)
{
	char stem[160], title[256];
	snprintf(stem, sizeof(stem), "%s-latency", test);
	snprintf(title, sizeof(title), "%s: round-trip latency by percentile", test);
	FILE *dat, *gp;
	struct nb_chart *ch = nb_chart_begin(charts, dir, NB_CHART_LATENCY_CDF, stem, title, &dat, &gp, err);
	if (!ch)
		return false;
	snprintf(ch->test, sizeof(ch->test), "%s", test);
	snprintf(ch->sentence, sizeof(ch->sentence),
		 "Round-trip latency of each case of test %s at every percentile, from the histograms "
		 "of all repetitions merged; the axis stretches the tail so that rare slow round trips "
		 "stay visible. Each curve stops at the percentile its samples support (n samples: "
		 "up to 1 - 1/n).", test);
	double xmax = 1, ymin = INFINITY, ymax = 0;
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct nb_case_stats *c = &s->c[i];
		if (strcmp(c->pc->test, test) != 0 || !c->merged || !c->lat.count)
			continue;
		fprintf(dat, "%s# series: %s\n", k++ ? "\n\n" : "", c->pc->case_id);
		xmax = fmax(xmax, cdf_block(dat, c->merged));
		ymin = fmin(ymin, (double)c->lat.min_ns / 1000.0);
		ymax = fmax(ymax, (double)c->lat.max_ns / 1000.0);
	}
	for (size_t i = 0; i < s->n; i++)
		if (has_latency(&s->c[i], test))
			pct_points(dat, &s->c[i], true);
	/* the .dat stays in µs; a tail of seconds is drawn in ms, not as 1000000 µs */
	struct nb_scale sc = nb_fmt_scale("us", ymax);
	nines_axis(gp, xmax, ymin, ymax, sc);
	fprintf(gp, "plot ");
	k = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct nb_case_stats *c = &s->c[i];
		if (strcmp(c->pc->test, test) != 0 || !c->merged || !c->lat.count)
			continue;
		char y[32] = "2";
		if (sc.div != 1.0)
			snprintf(y, sizeof(y), "($2/%.15g)", sc.div);
		fprintf(gp, "%s\"%s.dat\" index %zu using 1:%s with fsteps lt %d title \"",
			k ? ", \\\n     " : "", ch->name, k, y, nb_chart_gp_style(k));
		nb_chart_gp_str(gp, nb_chart_short_label(c->pc));
		fprintf(gp, "\"");
		k++;
	}
	for (size_t i = 0, j = 0; i < s->n; i++)
		if (has_latency(&s->c[i], test)) {
			char xy[48];
			snprintf(xy, sizeof(xy), "1:($2/%.15g)", sc.div);
			fputs(", \\\n     ", gp);
			nb_chart_gp_hover(gp, ch->name, k + j, xy, 3, nb_chart_gp_style(j));
			j++;
		}
	fprintf(gp, "\n");
	return nb_chart_end(charts, err);
}

/* Hover points at the reported percentiles of each case: "latency percent "case: p99 60.2 µs"". */
static void pct_points(FILE *dat, const struct nb_case_stats *c, bool nines)
{
	static const char *const names[NB_LAT_NQ] = { "p50", "p90", "p99", "p99.9", "p99.99" };
	fprintf(dat, "\n\n# hover: %s\n# %s latency_us hover\n", c->pc->case_id,
		nines ? "x=1/(1-q)" : "percent");
	for (size_t q = 0; q < NB_LAT_NQ; q++) {
		double ns = nb_case_lat_pct_ns(c, q);
		if (!isfinite(ns))
			continue;
		char v[48], label[160];
		nb_fmt_value(ns / 1000.0, "us", v, sizeof(v));
		snprintf(label, sizeof(label), "%s: %s %s (of %llu samples)", nb_chart_short_label(c->pc),
			 names[q], v, (unsigned long long)c->lat.count);
		double qq = nb_lat_quantiles[q];
		fprintf(dat, "%.9g %.9g ", nines ? 1.0 / (1.0 - qq) : qq * 100.0, ns / 1000.0);
		nb_chart_dat_label(dat, label);
		fputc('\n', dat);
	}
}

static bool has_latency(const struct nb_case_stats *c, const char *test)
{
	return strcmp(c->pc->test, test) == 0 && c->merged && c->lat.count;
}

/* The CDF of one test's latency: the share of round trips at or below each latency (flent's
 * view; the percentile chart above stretches the tail instead). */
static bool dist_chart(const char *dir, const struct nb_summary *s, const char *test,
		       struct nb_charts *charts, struct nb_error *err)
{
	char stem[160], title[256];
	snprintf(stem, sizeof(stem), "%s-latency-cdf", test);
	snprintf(title, sizeof(title), "%s: CDF of round-trip latency", test);
	FILE *dat, *gp;
	struct nb_chart *ch = nb_chart_begin(charts, dir, NB_CHART_LATENCY_DIST, stem, title, &dat,
					     &gp, err);
	if (!ch)
		return false;
	snprintf(ch->test, sizeof(ch->test), "%s", test);
	snprintf(ch->sentence, sizeof(ch->sentence),
		 "Share of the round trips of each case of test %s at or below each latency (the "
		 "cumulative distribution of all repetitions' samples merged); the marked points are "
		 "p50, p90, p99 and beyond as far as the samples support, their values on hover.", test);
	double ymin = INFINITY, ymax = 0;
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++)
		if (has_latency(&s->c[i], test)) {
			fprintf(dat, "%s# series: %s\n", k++ ? "\n\n" : "", s->c[i].pc->case_id);
			cdf_block(dat, s->c[i].merged);
			ymin = fmin(ymin, (double)s->c[i].lat.min_ns / 1000.0);
			ymax = fmax(ymax, (double)s->c[i].lat.max_ns / 1000.0);
		}
	for (size_t i = 0; i < s->n; i++)
		if (has_latency(&s->c[i], test))
			pct_points(dat, &s->c[i], false);
	struct nb_scale sc = nb_fmt_scale("us", ymax);
	fprintf(gp, "set xlabel \"Round-trip latency (%s)\"\nset ylabel \"Round trips at or below "
		    "it (%%)\"\nset yrange [0:100]\nset ytics 10\n%s", sc.unit,
		ymin > 0 && ymax / ymin > 20 ? "set logscale x 10\n" : "");
	fprintf(gp, "plot ");
	for (size_t i = 0, j = 0; i < s->n; i++) {
		if (!has_latency(&s->c[i], test))
			continue;
		int lt = nb_chart_gp_style(j);
		char xy[48];
		snprintf(xy, sizeof(xy), "($2/%.15g):3", sc.div);
		fprintf(gp, "%s\"%s.dat\" index %zu using %s with steps lt %d title \"", j ? ", \\\n     " : "",
			ch->name, j, xy, lt);
		nb_chart_gp_str(gp, nb_chart_short_label(s->c[i].pc));
		fprintf(gp, "\", \\\n     ");
		snprintf(xy, sizeof(xy), "($2/%.15g):1", sc.div);
		nb_chart_gp_hover(gp, ch->name, k + j, xy, 3, lt);
		j++;
	}
	fprintf(gp, "\n");
	return nb_chart_end(charts, err);
}

bool nb_charts_latency(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		       struct nb_charts *c, struct nb_error *err)
{
	for (size_t i = 0; i < s->n; i++) {
		if (!nb_chart_first_of_test(s, i))
			continue;
		bool any = false;
		for (size_t k = i; k < s->n && !any; k++)
			any = strcmp(s->c[k].pc->test, s->c[i].pc->test) == 0 && s->c[k].merged &&
			      s->c[k].lat.count;
		if (any && !(cdf_chart(dir, s, s->c[i].pc->test, c, err) &&
			     dist_chart(dir, s, s->c[i].pc->test, c, err)))
			return false;
	}
	return true;
}

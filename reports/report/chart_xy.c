/* Charts across the cases of one test: the headline against message size and against the
 * number of streams (flows, for engines that are not one sender per flow), one series per
 * remaining variant, each point with the 95 % CI of its mean — the interval the table's
 * "95 % CI" column gives, and the key says so. Three x values or more are joined by lines; one
 * or two are grouped bars: a line through two points draws a trend between them that was
 * never measured. */
#include "chart_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

#define MAX_SERIES 24
#define BARS_BELOW 3 /* fewer distinct x values than this: grouped bars */

struct point {
	double x, y, lo, hi;
};

struct xy_axis {
	enum nb_chart_kind kind;
	const char *suffix, *grouping;
	double (*x)(const struct nb_plan_case *);
	void (*label)(const struct nb_plan_case *, char *, size_t);
	bool bytes;  /* tic labels as 1K, 64K */
};

static double x_size(const struct nb_plan_case *p)
{
	return p->size;
}

static double x_streams(const struct nb_plan_case *p)
{
	return p->streams;
}

/* "stream" for one sender per flow (stream, pps: the config and case ids say streams), "flow"
 * for the rest (rr, crr, latency: each flow one connection or socket of its own). */
static const char *parallel(const struct nb_plan_case *p)
{
	return p->eng && !p->eng->traits.directional ? "flow" : "stream";
}

static void tic_label(double x, bool bytes, char *buf, size_t len)
{
	if (bytes && x >= 1048576 && fmod(x, 1048576) == 0)
		snprintf(buf, len, "%.15gM", x / 1048576);
	else if (bytes && x >= 1024 && fmod(x, 1024) == 0)
		snprintf(buf, len, "%.15gK", x / 1024);
	else
		snprintf(buf, len, "%.15g", x);
}

/* "1440 B", "128 KiB", "1 MiB" */
static void size_words(double b, char *buf, size_t len)
{
	if (b >= 1048576 && fmod(b, 1048576) == 0)
		snprintf(buf, len, "%g MiB", b / 1048576);
	else if (b >= 1024 && fmod(b, 1024) == 0)
		snprintf(buf, len, "%g KiB", b / 1024);
	else
		snprintf(buf, len, "%g B", b);
}

/* ", rate 500 Mbit/s" in the engine's rate unit, or "". */
static void rate_suffix(const struct nb_plan_case *p, char *buf, size_t len)
{
	char r[48];
	buf[0] = '\0';
	if (!isfinite(p->rate) || !(p->rate > 0))
		return;
	nb_fmt_value(p->rate, p->eng && p->eng->traits.rate_unit ? p->eng->traits.rate_unit : "", r,
		     sizeof(r));
	snprintf(buf, len, ", rate %s", r);
}

static void label_by_size(const struct nb_plan_case *p, char *buf, size_t len)
{
	char rate[64];
	rate_suffix(p, rate, sizeof(rate));
	double n = isfinite(p->streams) ? p->streams : 1;
	snprintf(buf, len, "%s, %g %s%s%s%s%s", p->protocol, n, parallel(p), n == 1 ? "" : "s",
		 *p->direction ? ", " : "", p->direction, rate);
}

/* What the case sends: its message size, or for a request/response engine both sizes. */
static void label_by_streams(const struct nb_plan_case *p, char *buf, size_t len)
{
	char rate[64], size[80], resp[24];
	rate_suffix(p, rate, sizeof(rate));
	if (nb_engine_request_response(p->eng) && isfinite(p->request) && isfinite(p->response)) {
		size_words(p->response, resp, sizeof(resp));
		snprintf(size, sizeof(size), "request %g B, response %s", p->request, resp);
	} else {
		size_words(isfinite(p->size) ? p->size : 0, size, sizeof(size));
	}
	snprintf(buf, len, "%s, %s%s%s%s", p->protocol, size, *p->direction ? ", " : "",
		 p->direction, rate);
}

static const struct xy_axis axes[] = {
	{ NB_CHART_SIZE, "vs-size", "protocol, stream count and direction", x_size, label_by_size,
	  true },
	{ NB_CHART_STREAMS, "vs-streams", "protocol, message size and direction", x_streams,
	  label_by_streams, false },
};

static int cmp_point(const void *a, const void *b)
{
	const struct point *p = a, *q = b;
	return (p->x > q->x) - (p->x < q->x);
}

/* Cases of `test` that have a value on this axis and share the first one's headline. */
static size_t pick(const struct nb_summary *s, const char *test, const struct xy_axis *ax,
		   size_t *idx, double *xs, size_t *nx)
{
	size_t n = 0;
	int col = -1;
	*nx = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct nb_case_stats *c = &s->c[i];
		double x = ax->x(c->pc);
		if (strcmp(c->pc->test, test) != 0 || c->pc->swept || c->value.n == 0 || !(x > 0) ||
		    c->metric_col < 0 || (col >= 0 && c->metric_col != col))
			continue;
		col = c->metric_col;
		idx[n++] = i;
		size_t k = 0;
		while (k < *nx && xs[k] != x)
			k++;
		if (k == *nx)
			xs[(*nx)++] = x;
	}
	return n;
}

static size_t x_index(const double *xs, size_t nx, double x)
{
	size_t k = 0;
	while (k + 1 < nx && xs[k] != x)
		k++;
	return k;
}

/* Lines: the x values themselves (log 2 when they span 8× or more). Bars: one slot per value. */
static void x_axis(FILE *gp, const struct xy_axis *ax, const struct nb_plan_case *p, double *xs,
		   size_t nx, bool bars)
{
	bool logx = !bars && xs[nx - 1] / xs[0] >= 8;
	if (bars)
		fprintf(gp, "set xrange [-0.6:%zu.6]\n", nx - 1);
	else if (logx)
		fprintf(gp, "set logscale x 2\nset xrange [%.15g:%.15g]\n", xs[0] / 1.25, xs[nx - 1] * 1.25);
	else
		fprintf(gp, "set xrange [%.15g:%.15g]\n", xs[0] - (xs[nx - 1] - xs[0]) * 0.06,
			xs[nx - 1] + (xs[nx - 1] - xs[0]) * 0.06);
	fprintf(gp, "set xtics (");
	for (size_t i = 0; i < nx; i++) {
		char t[32];
		tic_label(xs[i], ax->bytes, t, sizeof(t));
		fprintf(gp, "%s\"%s\" %.17g", i ? ", " : "", t, bars ? (double)i : xs[i]);
	}
	if (ax->bytes)
		fprintf(gp, ")\nset xlabel \"Message size (bytes)\"\n");
	else
		fprintf(gp, ")\nset xlabel \"Parallel %ss\"\n", parallel(p));
}

/* One series' points: x, mean and the 95 % CI of the mean (the mean itself when n < 2). */
static size_t series_points(const struct nb_summary *s, const struct xy_axis *ax, const size_t *idx,
			    size_t n, size_t from, const char *lab, struct nb_scale sc,
			    struct point *pts)
{
	size_t np = 0;
	for (size_t j = from; j < n; j++) {
		const struct nb_case_stats *c = &s->c[idx[j]];
		char l2[160];
		ax->label(c->pc, l2, sizeof(l2));
		if (strcmp(l2, lab) != 0)
			continue;
		double m = c->value.mean / sc.div;
		pts[np++] = (struct point){ ax->x(c->pc), m, isfinite(c->ci_lo) ? c->ci_lo / sc.div : m,
					    isfinite(c->ci_hi) ? c->ci_hi / sc.div : m };
	}
	qsort(pts, np, sizeof(*pts), cmp_point);
	return np;
}

/* Series k of nl as a bar in each x slot (width 0.8 / nl) with its CI, or as a line. */
static void plot_clause(FILE *gp, const char *name, size_t k, size_t nl, bool bars, const char *lab)
{
	const char *sep = k ? ", \\\n     " : "plot ";
	if (bars) {
		double w = 0.8 / (double)nl, dx = ((double)k - (double)(nl - 1) / 2.0) * w;
		fprintf(gp, "%s\"%s.dat\" index %zu using ($1%+.4f):3:(%.4f) with boxes lt %d title \"",
			sep, name, k, dx, w * 0.9, nb_chart_gp_style(k));
		nb_chart_gp_str(gp, lab);
		fprintf(gp, "\", \\\n     \"%s.dat\" index %zu using ($1%+.4f):3:4:5 with yerrorbars "
			    "lc rgb \"#202020\" pt 7 ps 0.6 notitle, \\\n     ", name, k, dx);
		char xy[32];
		snprintf(xy, sizeof(xy), "($1%+.4f):3", dx);
		nb_chart_gp_hover(gp, name, k, xy, 6, nb_chart_gp_style(k));
		return;
	}
	fprintf(gp, "%s\"%s.dat\" index %zu using 2:3:4:5 with yerrorlines lt %d title \"", sep, name,
		k, nb_chart_gp_style(k));
	nb_chart_gp_str(gp, lab);
	fprintf(gp, "\", \\\n     ");
	nb_chart_gp_hover(gp, name, k, "2:3", 6, nb_chart_gp_style(k));
}

/* Writes one data block per distinct label and the matching plot clause; the key's last entry
 * says what the error bars are. */
static void xy_series(FILE *dat, FILE *gp, const char *name, const struct nb_summary *s,
		      const struct xy_axis *ax, const size_t *idx, size_t n, struct nb_scale sc,
		      const double *xs, size_t nx, bool bars)
{
	char labels[MAX_SERIES][160];
	size_t nl = 0, first[MAX_SERIES];
	struct point *pts = calloc(n + 1, sizeof(*pts));
	if (!pts)
		return;
	for (size_t i = 0; i < n && nl < MAX_SERIES; i++) { /* the labels first: bars need nl */
		char lab[160];
		ax->label(s->c[idx[i]].pc, lab, sizeof(lab));
		size_t k = 0;
		while (k < nl && strcmp(labels[k], lab) != 0)
			k++;
		if (k == nl) {
			first[nl] = i;
			snprintf(labels[nl++], sizeof(labels[0]), "%s", lab);
		}
	}
	for (size_t k = 0; k < nl; k++) {
		size_t np = series_points(s, ax, idx, n, first[k], labels[k], sc, pts);
		fprintf(dat, "%s# series: %s\n# x_index x mean ci95_lo ci95_hi hover\n", k ? "\n\n" : "",
			labels[k]);
		for (size_t j = 0; j < np; j++) {
			char t[32], hover[320];
			tic_label(pts[j].x, ax->bytes, t, sizeof(t));
			int d = nb_fmt_decimals(pts[j].y, NAN);
			snprintf(hover, sizeof(hover), "%s, %s: %.*f %s (95 %% CI %.*f – %.*f)", labels[k],
				 t, d, pts[j].y, sc.unit, d, pts[j].lo, d, pts[j].hi);
			fprintf(dat, "%zu %.17g %.9g %.9g %.9g ", x_index(xs, nx, pts[j].x), pts[j].x,
				pts[j].y, pts[j].lo, pts[j].hi);
			nb_chart_dat_label(dat, hover);
			fputc('\n', dat);
		}
		plot_clause(gp, name, k, nl, bars, labels[k]);
	}
	/* (a function cannot be drawn with error bars: an empty row of the data stands in) */
	fprintf(gp, ", \\\n     \"%s.dat\" index 0 using (NaN):(NaN):(NaN):(NaN) with yerrorbars "
		    "lc rgb \"#202020\" pt 7 ps 0.6 title \"error bars: 95 %% CI of the mean over the "
		    "repetitions\"\n", name);
	free(pts);
}

static bool xy_chart(const char *dir, const struct nb_summary *s, const char *test,
		     const struct xy_axis *ax, struct nb_charts *charts, struct nb_error *err)
{
	size_t *idx = calloc(s->n + 1, sizeof(*idx));
	double *xs = calloc(s->n + 1, sizeof(*xs));
	size_t nx = 0, n = idx && xs ? pick(s, test, ax, idx, xs, &nx) : 0;
	bool ok = true;
	if (nx >= 2) {
		const struct nb_case_stats *c0 = &s->c[idx[0]];
		const struct nb_col_def *col = &nb_cols[c0->metric_col];
		bool bars = nx < BARS_BELOW;
		double mag = 0;
		for (size_t i = 0; i < n; i++)
			mag = fmax(mag, fabs(s->c[idx[i]].value.mean));
		struct nb_scale sc = nb_fmt_scale(col->unit, mag);
		char stem[160], title[256], what[64];
		if (ax->bytes)
			snprintf(what, sizeof(what), "message size");
		else
			snprintf(what, sizeof(what), "the number of parallel %ss", parallel(c0->pc));
		snprintf(stem, sizeof(stem), "%s-%s", test, ax->suffix);
		snprintf(title, sizeof(title), "%s: %s vs %s", test, col->label, what);
		FILE *dat, *gp;
		struct nb_chart *ch = nb_chart_begin(charts, dir, ax->kind, stem, title, &dat, &gp, err);
		ok = ch != NULL;
		if (ok) {
			snprintf(ch->test, sizeof(ch->test), "%s", test);
			snprintf(ch->sentence, sizeof(ch->sentence),
				 "Mean %s of test %s against %s, one %s per %s; error bars show the 95 %% "
				 "confidence interval of the mean across repetitions (the table's 95 %% "
				 "CI).", col->label, test, what, bars ? "bar" : "line", ax->grouping);
			nb_stats_sort(xs, nx);
			x_axis(gp, ax, c0->pc, xs, nx, bars);
			fprintf(gp, "set ylabel \"%s (%s)\"\nset yrange [0:*]\n", col->label, sc.unit);
			if (bars)
				fprintf(gp, "set grid noxtics\nset style fill solid 0.85 border rgb "
					    "\"#505050\"\n");
			xy_series(dat, gp, ch->name, s, ax, idx, n, sc, xs, nx, bars);
			ok = nb_chart_end(charts, err);
		}
	}
	free(idx);
	free(xs);
	return ok;
}

bool nb_charts_xy(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		  struct nb_charts *c, struct nb_error *err)
{
	for (size_t i = 0; i < s->n; i++) {
		if (!nb_chart_first_of_test(s, i))
			continue;
		for (size_t a = 0; a < sizeof(axes) / sizeof(axes[0]); a++)
			if (!xy_chart(dir, s, s->c[i].pc->test, &axes[a], c, err))
				return false;
	}
	return true;
}

/* Charts across the cases of one test: the headline against message size and against the
 * number of streams, one line per remaining variant, with ±1 stddev error bars. */
#include "chart_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

#define MAX_SERIES 24

struct point {
	double x, y, sd;
};

struct xy_axis {
	enum nb_chart_kind kind;
	const char *suffix, *xlabel, *what, *grouping;
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

static void tic_label(double x, bool bytes, char *buf, size_t len)
{
	if (bytes && x >= 1048576 && fmod(x, 1048576) == 0)
		snprintf(buf, len, "%gM", x / 1048576);
	else if (bytes && x >= 1024 && fmod(x, 1024) == 0)
		snprintf(buf, len, "%gK", x / 1024);
	else
		snprintf(buf, len, "%g", x);
}

static void rate_suffix(const struct nb_plan_case *p, char *buf, size_t len)
{
	buf[0] = '\0';
	if (isfinite(p->rate) && p->rate > 0)
		snprintf(buf, len, ", rate %g", p->rate);
}

static void label_by_size(const struct nb_plan_case *p, char *buf, size_t len)
{
	char rate[48];
	rate_suffix(p, rate, sizeof(rate));
	double n = isfinite(p->streams) ? p->streams : 1;
	snprintf(buf, len, "%s, %g stream%s%s%s%s", p->protocol, n, n == 1 ? "" : "s",
		 *p->direction ? ", " : "", p->direction, rate);
}

static void label_by_streams(const struct nb_plan_case *p, char *buf, size_t len)
{
	char rate[48];
	rate_suffix(p, rate, sizeof(rate));
	char size[32];
	double b = isfinite(p->size) ? p->size : 0;
	tic_label(b, true, size, sizeof(size));
	size_t sl = strlen(size);
	bool binary = b >= 1024 && (size[sl - 1] == 'K' || size[sl - 1] == 'M');
	char prefix = binary ? size[sl - 1] : ' ';
	if (binary)
		size[sl - 1] = '\0';
	snprintf(buf, len, "%s, %s %s%s%s%s%s", p->protocol, size, binary ? (prefix == 'K' ? "Ki" : "Mi") : "",
		 "B", *p->direction ? ", " : "", p->direction, rate);
}

static const struct xy_axis axes[] = {
	{ NB_CHART_SIZE, "vs-size", "Message size (bytes)", "message size",
	  "protocol, stream count and direction", x_size, label_by_size, true },
	{ NB_CHART_STREAMS, "vs-streams", "Parallel streams", "the number of parallel streams",
	  "protocol, message size and direction", x_streams, label_by_streams, false },
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

static void x_axis(FILE *gp, const struct xy_axis *ax, double *xs, size_t nx)
{
	nb_stats_sort(xs, nx);
	bool logx = xs[nx - 1] / xs[0] >= 8;
	if (logx)
		fprintf(gp, "set logscale x 2\nset xrange [%g:%g]\n", xs[0] / 1.25, xs[nx - 1] * 1.25);
	else
		fprintf(gp, "set xrange [%g:%g]\n", xs[0] - (xs[nx - 1] - xs[0]) * 0.06,
			xs[nx - 1] + (xs[nx - 1] - xs[0]) * 0.06);
	fprintf(gp, "set xtics (");
	for (size_t i = 0; i < nx; i++) {
		char t[32];
		tic_label(xs[i], ax->bytes, t, sizeof(t));
		fprintf(gp, "%s\"%s\" %.17g", i ? ", " : "", t, xs[i]);
	}
	fprintf(gp, ")\nset xlabel \"%s\"\n", ax->xlabel);
}

/* Writes one data block per distinct label and the matching plot clause. */
static void xy_series(FILE *dat, FILE *gp, const char *name, const struct nb_summary *s,
		      const struct xy_axis *ax, const size_t *idx, size_t n, struct nb_scale sc)
{
	char labels[MAX_SERIES][160];
	size_t nl = 0;
	struct point *pts = calloc(n + 1, sizeof(*pts));
	if (!pts)
		return;
	fprintf(gp, "plot ");
	for (size_t i = 0; i < n && nl < MAX_SERIES; i++) {
		char lab[160];
		ax->label(s->c[idx[i]].pc, lab, sizeof(lab));
		size_t k = 0;
		while (k < nl && strcmp(labels[k], lab) != 0)
			k++;
		if (k < nl)
			continue;
		snprintf(labels[nl++], sizeof(labels[0]), "%s", lab);
		size_t np = 0;
		for (size_t j = i; j < n; j++) {
			const struct nb_case_stats *c = &s->c[idx[j]];
			char l2[160];
			ax->label(c->pc, l2, sizeof(l2));
			if (strcmp(l2, lab) != 0)
				continue;
			double sd = nb_stats_stddev(&c->value);
			pts[np++] = (struct point){ ax->x(c->pc), c->value.mean / sc.div,
						    isfinite(sd) ? sd / sc.div : 0 };
		}
		qsort(pts, np, sizeof(*pts), cmp_point);
		fprintf(dat, "%s# series: %s\n# x mean stddev\n", nl > 1 ? "\n\n" : "", lab);
		for (size_t j = 0; j < np; j++)
			fprintf(dat, "%.17g %.9g %.9g\n", pts[j].x, pts[j].y, pts[j].sd);
		fprintf(gp, "%s\"%s.dat\" index %zu using 1:2:3 with yerrorlines lt %d title \"",
			nl > 1 ? ", \\\n     " : "", name, nl - 1, nb_chart_gp_style(nl - 1));
		nb_chart_gp_str(gp, lab);
		fprintf(gp, "\"");
	}
	fprintf(gp, "\n");
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
		double mag = 0;
		for (size_t i = 0; i < n; i++)
			mag = fmax(mag, fabs(s->c[idx[i]].value.mean));
		struct nb_scale sc = nb_fmt_scale(col->unit, mag);
		char stem[160], title[256];
		snprintf(stem, sizeof(stem), "%s-%s", test, ax->suffix);
		snprintf(title, sizeof(title), "%s: %s vs %s", test, col->label, ax->what);
		FILE *dat, *gp;
		struct nb_chart *ch = nb_chart_begin(charts, dir, ax->kind, stem, title, &dat, &gp, err);
		ok = ch != NULL;
		if (ok) {
			snprintf(ch->test, sizeof(ch->test), "%s", test);
			snprintf(ch->sentence, sizeof(ch->sentence),
				 "Mean %s of test %s against %s, one line per %s; error bars show ±1 "
				 "standard deviation across repetitions.",
				 col->label, test, ax->what, ax->grouping);
			x_axis(gp, ax, xs, nx);
			fprintf(gp, "set ylabel \"%s (%s)\"\nset yrange [0:*]\n",
				col->label, sc.unit);
			xy_series(dat, gp, ch->name, s, ax, idx, n, sc);
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

/* The box plots of a working case over its repetitions (working.csv, each run's row): one chart
 * per unit — the probes' latency (loaded p50 and p99, inflation at p50, per probe), the load's
 * throughput each way, RPM (TCP) loaded and idle — a box per number (quartiles, the median's
 * line, whiskers to 1.5 IQR) and every repetition a point on it, its value on hover. */
#include "chart_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "working_lookup.h"

#define PROBES_MAX NB_WORKING_PROBE_RUNS_MAX
#define BOXES_MAX (3 * PROBES_MAX)
#define RUNS_MAX 512

struct wbox {
	char label[64], part[16];
	const char *phase, *col;
};

struct wgroup {
	const char *stem, *title, *what, *unit, *ylabel;
	struct wbox box[BOXES_MAX];
	size_t n;
};

static void add(struct wgroup *g, const char *label, const char *part, const char *phase,
		const char *col)
{
	if (g->n < BOXES_MAX) {
		struct wbox *b = &g->box[g->n++];
		snprintf(b->label, sizeof(b->label), "%s", label);
		snprintf(b->part, sizeof(b->part), "%s", part);
		b->phase = phase;
		b->col = col;
	}
}

/* Box x's values over the counted runs, in the chart's unit. */
static size_t values(const struct nb_results *res, const char *id, const struct wbox *b,
		     struct nb_scale sc, double *v)
{
	size_t n = nb_working_csv_values(res, id, b->part, b->phase, b->col, v, RUNS_MAX);
	for (size_t i = 0; i < n; i++)
		v[i] /= sc.div;
	return n;
}

/* The points of box x: "x value "label: V"". */
static void points(FILE *dat, const struct nb_results *res, const char *id, const struct wgroup *g,
		   size_t x, struct nb_scale sc)
{
	double v[RUNS_MAX];
	size_t n = values(res, id, &g->box[x], sc, v);
	fprintf(dat, "%s# series: %s\n# x value hover\n", x ? "\n\n" : "", g->box[x].label);
	for (size_t i = 0; i < n; i++) {
		char val[64], label[128];
		nb_fmt_value(v[i] * sc.div, g->unit, val, sizeof(val));
		snprintf(label, sizeof(label), "%s: %s", g->box[x].label, val);
		fprintf(dat, "%zu %.9g ", x, v[i]);
		nb_chart_dat_label(dat, label);
		fputc('\n', dat);
	}
}

static double largest(const struct nb_results *res, const char *id, const struct wgroup *g)
{
	double v[RUNS_MAX], mag = 0;
	for (size_t x = 0; x < g->n; x++) {
		const struct wbox *b = &g->box[x];
		size_t n = nb_working_csv_values(res, id, b->part, b->phase, b->col, v, RUNS_MAX);
		for (size_t i = 0; i < n; i++)
			mag = fmax(mag, fabs(v[i]));
	}
	return mag;
}

static void axes(FILE *gp, const struct wgroup *g, struct nb_scale sc)
{
	fprintf(gp, "set xrange [-0.6:%zu.6]\nset xtics (", g->n - 1);
	for (size_t x = 0; x < g->n; x++) {
		fprintf(gp, "%s\"", x ? ", " : "");
		nb_chart_gp_str(gp, g->box[x].label);
		fprintf(gp, "\" %zu", x);
	}
	fprintf(gp, ")%s\nset ylabel \"%s%s%s%s\"\nset yrange [*:*]\nset offsets 0, 0, graph 0.05, "
		    "graph 0.05\nset grid noxtics\nset boxwidth 0.5\nset bars 0.5\n",
		g->n > 3 ? "\nset xtics rotate by -25 left" : "", g->ylabel, sc.unit[0] ? " (" : "",
		sc.unit, sc.unit[0] ? ")" : "");
}

static bool group_chart(const char *dir, const struct nb_results *res, size_t ci,
			const struct wgroup *g, struct nb_charts *charts, struct nb_error *err)
{
	const char *id = res->cases[ci].case_id;
	double v[RUNS_MAX];
	size_t have = 0;
	for (size_t x = 0; x < g->n; x++)
		have += nb_working_csv_values(res, id, g->box[x].part, g->box[x].phase, g->box[x].col,
					      v, RUNS_MAX) > 0;
	if (have < g->n || g->n == 0)
		return true; /* a number no run has: no chart rather than a hole */
	struct nb_scale sc = nb_fmt_scale(g->unit, largest(res, id, g));
	char stem[192], title[256];
	snprintf(stem, sizeof(stem), "working-%s-%s-repetitions", g->stem, id);
	snprintf(title, sizeof(title), "%s: %s over the repetitions", id, g->title);
	FILE *dat, *gp;
	struct nb_chart *ch = nb_chart_begin(charts, dir, NB_CHART_WORKING_BOX, stem, title, &dat,
					     &gp, err);
	if (!ch)
		return false;
	snprintf(ch->test, sizeof(ch->test), "%s", res->cases[ci].test);
	snprintf(ch->sentence, sizeof(ch->sentence),
		 "Case %s: %s of every counted repetition (a point each, its value on hover in "
		 "report.html); the box spans the middle half of the repetitions, its line is their "
		 "median and the whiskers reach the furthest repetition within 1.5 × the box.", id,
		 g->what);
	for (size_t x = 0; x < g->n; x++)
		points(dat, res, id, g, x, sc);
	fprintf(dat, "\n\n# the boxes\n# x whisker_lo q1 median q3 whisker_hi\n");
	for (size_t x = 0; x < g->n; x++)
		nb_chart_box_dat(dat, v, values(res, id, &g->box[x], sc, v), x);
	axes(gp, g, sc);
	nb_chart_box_plot(gp, ch->name, g->n);
	return nb_chart_end(charts, err);
}

/* The probes' latency: loaded p50 and p99 and the inflation at p50 of each. */
static void latency_group(const struct nb_results *res, const char *id, struct wgroup *g)
{
	*g = (struct wgroup){ .stem = "latency", .title = "the probes' loaded latency", .unit = "us", .ylabel = "Round-trip latency",
			      .what = "each probe's loaded p50 and p99 and its inflation at p50 "
				      "(loaded − idle)" };
	for (size_t i = 0; i < PROBES_MAX; i++) {
		char part[16];
		snprintf(part, sizeof(part), "probe%zu", i + 1);
		if (!nb_working_csv_cell(res, id, part, "part")[0])
			continue;
		char name[40];
		snprintf(name, sizeof(name), "p%zu %.12s/%.12s", i + 1,
			 nb_working_csv_cell(res, id, part, "protocol"),
			 nb_working_csv_cell(res, id, part, "engine"));
		char l[64];
		snprintf(l, sizeof(l), "%s p50", name);
		add(g, l, part, "loaded", "p50_us");
		snprintf(l, sizeof(l), "%s p99", name);
		add(g, l, part, "loaded", "p99_us");
		snprintf(l, sizeof(l), "%s inflation", name);
		add(g, l, part, "loaded", "inflation_p50_us");
	}
}

static bool case_charts(const char *dir, const struct nb_results *res, size_t ci,
			struct nb_charts *c, struct nb_error *err)
{
	const char *id = res->cases[ci].case_id;
	struct wgroup g;
	latency_group(res, id, &g);
	if (!group_chart(dir, res, ci, &g, c, err))
		return false;
	g = (struct wgroup){ .stem = "throughput", .title = "the load's throughput", .unit = "bit/s", .ylabel = "Load received",
			     .what = "the load's throughput each way" };
	add(&g, "up (this host sends)", "load", "", "up_bps");
	add(&g, "down", "load", "", "down_bps");
	if (!group_chart(dir, res, ci, &g, c, err))
		return false;
	g = (struct wgroup){ .stem = "rpm", .title = "RPM (TCP)", .unit = "", .ylabel = "Round trips per minute",
			     .what = "RPM (TCP, not HTTP RPM) under the load and idle" };
	add(&g, "RPM (TCP), loaded", "case", "", "rpm_tcp");
	add(&g, "RPM (TCP), idle", "case", "", "idle_rpm_tcp");
	return group_chart(dir, res, ci, &g, c, err);
}

bool nb_charts_working_box(const char *dir, const struct nb_results *res,
			   const struct nb_summary *s, struct nb_charts *c, struct nb_error *err)
{
	(void)s;
	for (size_t i = 0; i < res->ncases; i++)
		if (nb_working_csv_cell(res, res->cases[i].case_id, "load", "part")[0] &&
		    !case_charts(dir, res, i, c, err))
			return false;
	return true;
}

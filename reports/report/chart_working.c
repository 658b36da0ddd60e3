/* The chart of a working case's first counted run (working.csv, docs/reports.md): the load's
 * throughput per interval (left axis) and each probe's p50 per interval (right axis, ms) on one
 * time axis — the probes' — with the idle phase and the load's ramp shaded. */
#include "chart_int.h"

#include <math.h>
#include <string.h>

#include "fmt.h"
#include "working_lookup.h"

#define PROBES_MAX NB_WORKING_PROBE_RUNS_MAX

/* The load's rows: its sum row per interval, moved onto the probes' axis by idle. */
static void load_block(FILE *dat, const struct nb_results *res, const struct nb_run *r, double idle)
{
	fprintf(dat, "# series: load, received Mbit/s\n# t_mid_s value\n");
	for (size_t j = 0; j < r->iv_n; j++) {
		const struct nb_interval *iv = res->iv_sorted[r->iv_first + j];
		if (iv->t_start >= 0 && isfinite(iv->m.v[NB_COL_RX_BPS]))
			fprintf(dat, "%.9g %.9g\n", idle + (iv->t_start + iv->t_end) / 2.0,
				iv->m.v[NB_COL_RX_BPS] / 1e6);
	}
}

/* Probe part's p50 per interval of run run_id (a path row of its own case); false when none. */
static bool probe_block(FILE *dat, const struct nb_results *res, uint32_t run_id, const char *part)
{
	bool any = false;
	for (size_t i = 0; i < res->npath_ivals; i++) {
		const struct nb_interval *iv = &res->path_ivals[i];
		if (iv->run_id != run_id || !iv->path || strcmp(iv->path, part) != 0 ||
		    iv->stream != -1 || iv->t_start < 0 || !isfinite(iv->m.v[NB_COL_LAT_P50_US]))
			continue;
		if (!any)
			fprintf(dat, "\n\n# series: %s p50, ms\n# t_mid_s value\n", part);
		any = true;
		fprintf(dat, "%.9g %.9g\n", (iv->t_start + iv->t_end) / 2.0,
			iv->m.v[NB_COL_LAT_P50_US] / 1e3);
	}
	return any;
}

static bool working_chart(const char *dir, const struct nb_results *res, size_t ci,
			  struct nb_charts *charts, struct nb_error *err)
{
	const char *id = res->cases[ci].case_id;
	const struct nb_run *r = NULL;
	for (size_t i = 0; i < res->nruns && !r; i++)
		if (res->runs[i].case_idx == ci && nb_run_counts(&res->runs[i]) && res->runs[i].iv_n)
			r = &res->runs[i];
	double idle = nb_working_csv_mean(res, id, "load", "", "idle_s", NULL);
	if (!r || !isfinite(idle))
		return true;
	char stem[192], title[256];
	snprintf(stem, sizeof(stem), "working-%s", id);
	snprintf(title, sizeof(title), "%s: the load and the probes' latency", id);
	FILE *dat, *gp;
	struct nb_chart *ch = nb_chart_begin(charts, dir, NB_CHART_WORKING, stem, title, &dat, &gp, err);
	if (!ch)
		return false;
	snprintf(ch->test, sizeof(ch->test), "%s", res->cases[ci].test);
	snprintf(ch->sentence, sizeof(ch->sentence),
		 "Case %s, run %u: the load's received throughput per interval (left axis) and each "
		 "probe's p50 per interval (right axis) on one time axis; shaded: the idle phase, then "
		 "the load's ramp.", id, (unsigned)r->run_id);
	load_block(dat, res, r, idle);
	char names[PROBES_MAX][16];
	size_t n = 0;
	for (size_t i = 0; i < PROBES_MAX; i++) {
		snprintf(names[n], sizeof(names[n]), "probe%zu", i + 1);
		if (probe_block(dat, res, r->run_id, names[n]))
			n++;
	}
	double omit = 0;
	for (size_t j = 0; j < r->iv_n; j++) {
		const struct nb_interval *iv = res->iv_sorted[r->iv_first + j];
		if (iv->omitted && iv->t_end > omit)
			omit = iv->t_end;
	}
	fprintf(gp, "set xlabel \"Time since the probes began (s)\"\nset ylabel \"Load received "
		    "(Mbit/s)\"\nset y2label \"Probe p50 (ms)\"\nset y2tics\nset ytics nomirror\n"
		    "set yrange [0:*]\nset y2range [0:*]\n"
		    "set object 1 rect from 0, graph 0 to %.9g, graph 1 behind fc rgb \"#9e9e9e\" "
		    "fs transparent solid 0.22 noborder\nset label 1 \"idle\" at %.9g, graph 0.06 "
		    "center tc rgb \"#505050\" front\n", idle, idle / 2.0);
	if (omit > 0)
		fprintf(gp, "set object 2 rect from %.9g, graph 0 to %.9g, graph 1 behind fc rgb "
			    "\"#c8c8c8\" fs transparent solid 0.22 noborder\nset label 2 \"ramp\" at "
			    "%.9g, graph 0.06 center tc rgb \"#505050\" front\n", idle, idle + omit,
			idle + omit / 2.0);
	fprintf(gp, "plot \"%s.dat\" index 0 using 1:2 axes x1y1 with lines lt %d lw 2 title "
		    "\"load\"", ch->name, nb_chart_gp_style(0));
	for (size_t i = 0; i < n; i++)
		fprintf(gp, ", \\\n     \"%s.dat\" index %zu using 1:2 axes x1y2 with linespoints lt %d "
			    "pt 7 ps 0.6 title \"%s p50\"", ch->name, i + 1, nb_chart_gp_style(i + 1),
			names[i]);
	fprintf(gp, "\n");
	return nb_chart_end(charts, err);
}

bool nb_charts_working(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		       struct nb_charts *c, struct nb_error *err)
{
	(void)s;
	for (size_t i = 0; i < res->ncases; i++)
		if (nb_working_csv_cell(res, res->cases[i].case_id, "load", "part")[0] &&
		    !working_chart(dir, res, i, c, err))
			return false;
	return true;
}

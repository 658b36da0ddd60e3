/* The chart of a multi-path case: each path's headline per interval, stacked (gnuplot's
 * rowstacked histogram), so the bar is the sum and its parts say which path carried what. One
 * chart per case, from its first counted repetition. */
#include "chart_int.h"

#include <math.h>
#include <string.h>

#include "fmt.h"
#include "path_stats.h"

/* Path path's row of interval iv of run_id, or NULL. */
static const struct nb_interval *path_iv(const struct nb_results *res, uint32_t run_id,
					 const char *path, const struct nb_interval *iv)
{
	for (size_t i = 0; i < res->npath_ivals; i++) {
		const struct nb_interval *p = &res->path_ivals[i];
		if (p->run_id == run_id && p->stream < 0 && fabs(p->t_start - iv->t_start) < 1e-9 &&
		    strcmp(p->path, path) == 0)
			return p;
	}
	return NULL;
}

static const struct nb_run *first_run(const struct nb_results *res, size_t ci)
{
	for (size_t i = 0; i < res->nruns; i++)
		if (res->runs[i].case_idx == ci && nb_run_counts(&res->runs[i]) && res->runs[i].iv_n)
			return &res->runs[i];
	return NULL;
}

/* One line per interval: its middle, then each path's value (0 when it has none). */
static void blocks(FILE *dat, const struct nb_results *res, const struct nb_run *r, int col,
		   const struct nb_path_stats *ps, size_t n, struct nb_scale sc)
{
	fprintf(dat, "# t_mid_s");
	for (size_t p = 0; p < n; p++)
		fprintf(dat, " \"%s\"", ps[p].path);
	fputc('\n', dat);
	for (size_t k = 0; k < r->iv_n; k++) {
		const struct nb_interval *iv = res->iv_sorted[r->iv_first + k];
		fprintf(dat, "%.6g", (iv->t_start + iv->t_end) / 2.0);
		for (size_t p = 0; p < n; p++) {
			const struct nb_interval *pv = path_iv(res, r->run_id, ps[p].path, iv);
			double v = pv && isfinite(pv->m.v[col]) ? pv->m.v[col] / sc.div : 0;
			fprintf(dat, " %.9g", v);
		}
		fputc('\n', dat);
	}
}

static bool paths_chart(const char *dir, const struct nb_results *res, const struct nb_case_stats *c,
			const struct nb_path_stats *ps, size_t n, struct nb_charts *charts,
			struct nb_error *err)
{
	const struct nb_run *r = first_run(res, (size_t)(c->pc - res->cases));
	if (!r)
		return true;
	double max = 0;
	for (size_t k = 0; k < r->iv_n; k++)
		max = fmax(max, res->iv_sorted[r->iv_first + k]->m.v[c->metric_col]);
	struct nb_scale sc = nb_fmt_scale(nb_cols[c->metric_col].unit, max);
	char stem[192], title[256];
	snprintf(stem, sizeof(stem), "paths-%s", c->pc->case_id);
	snprintf(title, sizeof(title), "%s: %s per path, stacked", c->pc->case_id,
		 nb_cols[c->metric_col].label);
	FILE *dat, *gp;
	struct nb_chart *ch = nb_chart_begin(charts, dir, NB_CHART_PATHS, stem, title, &dat, &gp, err);
	if (!ch)
		return false;
	snprintf(ch->test, sizeof(ch->test), "%s", c->pc->test);
	snprintf(ch->sentence, sizeof(ch->sentence), "%s of each path of case %s per interval of "
		 "run %u, stacked: the bar is the sum over the paths.", nb_cols[c->metric_col].label,
		 c->pc->case_id, (unsigned)r->run_id);
	blocks(dat, res, r, c->metric_col, ps, n, sc);
	fprintf(gp, "set style data histograms\nset style histogram rowstacked\n"
		    "set style fill solid 0.85 border rgb \"#ffffff\"\nset boxwidth 0.8 relative\n"
		    "set xlabel \"Interval (middle, s since the measured window began)\"\n"
		    "set ylabel \"%s (%s)\"\nset yrange [0:*]\nplot ",
		    nb_cols[c->metric_col].label, sc.unit);
	for (size_t p = 0; p < n; p++) {
		fprintf(gp, "%s\"%s.dat\" using %zu%s lt %d title \"", p ? ", \\\n     " : "", ch->name,
			p + 2, p ? "" : ":xtic(1)", nb_chart_gp_style(p));
		nb_chart_gp_str(gp, ps[p].path);
		fputc('"', gp);
	}
	fputc('\n', gp);
	return nb_chart_end(charts, err);
}

bool nb_charts_paths(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		     struct nb_charts *c, struct nb_error *err)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct nb_case_stats *cs = &s->c[i];
		struct nb_path_stats ps[NB_REPORT_PATHS_MAX];
		size_t n = nb_path_stats_of_case(res, i, ps, NB_REPORT_PATHS_MAX);
		if (n == 0 || cs->metric_col < 0 || cs->value.n == 0)
			continue;
		if (!paths_chart(dir, res, cs, ps, n, c, err))
			return false;
	}
	return true;
}

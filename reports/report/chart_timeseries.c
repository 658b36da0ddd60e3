/* The chart of one case over time: the headline per interval of every repetition (stability),
 * the omitted part shaded. */
#include "chart_int.h"

#include <math.h>

#include "fmt.h"

/* The time span of the omitted intervals (lo > hi when none), of the cool-down ones (cd[0] >
 * cd[1] when none), and the largest value. */
static void ts_extent(const struct nb_results *res, const struct nb_run *r, int col, double *lo,
		      double *hi, double *max, double span[2], double cd[2])
{
	for (size_t k = 0; k < r->iv_n; k++) {
		const struct nb_interval *iv = res->iv_sorted[r->iv_first + k];
		span[0] = fmin(span[0], iv->t_start);
		span[1] = fmax(span[1], iv->t_end);
		if (iv->omitted || iv->t_start < 0) {
			*lo = fmin(*lo, iv->t_start);
			*hi = fmax(*hi, iv->t_end);
		}
		if (iv->cooldown) {
			cd[0] = fmin(cd[0], iv->t_start);
			cd[1] = fmax(cd[1], iv->t_end);
		}
		if (isfinite(iv->m.v[col]))
			*max = fmax(*max, iv->m.v[col]);
	}
}

static size_t ts_blocks(FILE *dat, const struct nb_results *res, size_t ci, int col, struct nb_scale sc)
{
	size_t k = 0;
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		if (r->case_idx != ci || !nb_run_counts(r) || r->iv_n == 0)
			continue;
		fprintf(dat, "%s# series: run %u rep %u\n# t_mid_s value hover\n", k++ ? "\n\n" : "",
			(unsigned)r->run_id, (unsigned)r->rep);
		for (size_t j = 0; j < r->iv_n; j++) {
			const struct nb_interval *iv = res->iv_sorted[r->iv_first + j];
			char v[48], hover[160];
			nb_fmt_value(iv->m.v[col], nb_cols[col].unit, v, sizeof(v));
			snprintf(hover, sizeof(hover), "repetition %u, %.3g–%.3g s: %s", (unsigned)r->rep,
				 iv->t_start, iv->t_end, v);
			fprintf(dat, "%.9g %.9g ", (iv->t_start + iv->t_end) / 2.0, iv->m.v[col] / sc.div);
			nb_chart_dat_label(dat, hover);
			fputc('\n', dat);
		}
	}
	return k;
}

static void ts_axes(FILE *gp, const struct nb_case_stats *c, double lo, double hi, const double span[2],
		    const double cd[2], struct nb_scale sc)
{
	const struct nb_col_def *col = &nb_cols[c->metric_col];
	if (span[0] < span[1])
		fprintf(gp, "set xrange [%.9g:%.9g]\n", span[0], span[1]);
	fprintf(gp, "set xlabel \"Time since the measured window began (s)\"\n"
		    "set ylabel \"%s (%s)\"\nset yrange [0:*]\n", col->label, sc.unit);
	if (lo < hi) {
		fprintf(gp, "set object 1 rect from %.9g, graph 0 to %.9g, graph 1 behind "
			    "fc rgb \"#9e9e9e\" fs transparent solid 0.22 noborder\n", lo, hi);
		fprintf(gp, "set label 1 \"omitted\" at %.9g, graph 0.06 center tc rgb \"#505050\" front\n",
			(lo + hi) / 2.0);
	}
	if (cd[0] < cd[1]) { /* the cool-down tail, shaded as omit is */
		fprintf(gp, "set object 2 rect from %.9g, graph 0 to %.9g, graph 1 behind "
			    "fc rgb \"#9e9e9e\" fs transparent solid 0.22 noborder\n", cd[0], cd[1]);
		fprintf(gp, "set label 2 \"cool-down\" at %.9g, graph 0.06 center tc rgb \"#505050\" front\n",
			(cd[0] + cd[1]) / 2.0);
	}
}

static bool ts_chart(const char *dir, const struct nb_results *res, const struct nb_case_stats *c,
		     struct nb_charts *charts, struct nb_error *err)
{
	size_t ci = (size_t)(c->pc - res->cases);
	double lo = INFINITY, hi = -INFINITY, max = 0, span[2] = { INFINITY, -INFINITY };
	double cd[2] = { INFINITY, -INFINITY };
	size_t nruns = 0;
	for (size_t i = 0; i < res->nruns; i++)
		if (res->runs[i].case_idx == ci && nb_run_counts(&res->runs[i]) && res->runs[i].iv_n &&
		    ++nruns)
			ts_extent(res, &res->runs[i], c->metric_col, &lo, &hi, &max, span, cd);
	if (nruns == 0)
		return true;
	struct nb_scale sc = nb_fmt_scale(nb_cols[c->metric_col].unit, max);
	char stem[192], title[256];
	snprintf(stem, sizeof(stem), "ts-%s", c->pc->case_id);
	snprintf(title, sizeof(title), "%s: %s per interval", c->pc->case_id, nb_cols[c->metric_col].label);
	FILE *dat, *gp;
	struct nb_chart *ch = nb_chart_begin(charts, dir, NB_CHART_TIMESERIES, stem, title, &dat, &gp, err);
	if (!ch)
		return false;
	snprintf(ch->test, sizeof(ch->test), "%s", c->pc->test);
	snprintf(ch->sentence, sizeof(ch->sentence),
		 "%s of every repetition of case %s per interval; the shaded part was omitted from "
		 "the statistics and the dashed line is the mean of the repetitions.",
		 nb_cols[c->metric_col].label, c->pc->case_id);
	size_t k = ts_blocks(dat, res, ci, c->metric_col, sc);
	ts_axes(gp, c, lo, hi, span, cd, sc);
	fprintf(gp, "plot ");
	for (size_t i = 0; i < k; i++) {
		fprintf(gp, "\"%s.dat\" index %zu using 1:2 with linespoints lt %d pt 7 ps 0.7 "
			    "title \"repetition %zu\", \\\n     ", ch->name, i, nb_chart_gp_style(i), i + 1);
		nb_chart_gp_hover(gp, ch->name, i, "1:2", 3, nb_chart_gp_style(i));
		fputs(", \\\n     ", gp);
	}
	fprintf(gp, "%.9g with lines lt 8 lw 1.6 dt 2 title \"mean of repetitions\"\n",
		c->value.mean / sc.div);
	return nb_chart_end(charts, err);
}

bool nb_charts_timeseries(const char *dir, const struct nb_results *res, const struct nb_summary *s,
			  struct nb_charts *c, struct nb_error *err)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct nb_case_stats *cs = &s->c[i];
		if (cs->metric_col < 0 || cs->value.n == 0 || cs->n_trials > 0)
			continue;
		if (!ts_chart(dir, res, cs, c, err))
			return false;
	}
	return true;
}

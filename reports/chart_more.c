/* Charts of one case: received rate and loss against offered rate for a sweep, and
 * the headline per interval of every repetition (stability, omitted part shaded). */
#include "chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

struct trial {
	double offered, received, loss;
	bool valid;
};

static int cmp_trial(const void *a, const void *b)
{
	const struct trial *p = a, *q = b;
	return (p->offered > q->offered) - (p->offered < q->offered);
}

static size_t collect_trials(const struct nb_results *res, size_t ci, int rx_col, struct trial *t)
{
	size_t n = 0;
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		if (r->case_idx != ci || !isfinite(r->offered_rate) || strcmp(r->status, "failed") == 0)
			continue;
		double loss = r->m.v[NB_COL_LOSS_PCT];
		t[n++] = (struct trial){ r->offered_rate, r->m.v[rx_col], isfinite(loss) ? loss : 0,
					 strcmp(r->status, "invalid") != 0 };
	}
	qsort(t, n, sizeof(*t), cmp_trial);
	return n;
}

static size_t trial_block(FILE *dat, const struct trial *t, size_t n, bool valid, struct nb_scale sc)
{
	size_t k = 0;
	fprintf(dat, "# %s trials: offered received loss_pct\n", valid ? "valid" : "invalid");
	for (size_t i = 0; i < n; i++)
		if (t[i].valid == valid && ++k)
			fprintf(dat, "%.9g %.9g %.9g\n", t[i].offered / sc.div, t[i].received / sc.div,
				t[i].loss);
	if (k == 0) /* keeps index 1 present and valid for gnuplot */
		fprintf(dat, "NaN NaN NaN\n");
	return k;
}

/* The threshold as a dashed red line, labelled on whichever side has room. */
static void threshold_mark(FILE *gp, const struct nb_results *res, const char *id, struct nb_scale sc,
			   double xmax)
{
	struct nb_sweep_result sw;
	if (!nb_sweeps_json_find(res, id, &sw) || !isfinite(sw.threshold))
		return;
	double t = sw.threshold / sc.div;
	fprintf(gp, "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead lw 2 dt 2 lc rgb \"#d62728\" front\n",
		t, t);
	bool left = t > xmax / 2;
	fprintf(gp, "set label \"threshold %.4g %s (loss ≤ %g %%)%s\" at %.9g, graph 0.94 %s offset %s,0 "
		    "tc rgb \"#d62728\" front\n",
		t, sc.unit, isfinite(sw.loss_target) ? sw.loss_target * 100.0 : 0.0,
		sw.complete_known && !sw.complete ? ", search incomplete" : "", t,
		left ? "right" : "left", left ? "-0.8" : "0.8");
}

static void sweep_plot(FILE *gp, const char *name, size_t ninvalid)
{
	fprintf(gp, "plot \"%s.dat\" index 0 using 1:2 with linespoints lt 1 title \"Received rate\", \\\n"
		    "     \"%s.dat\" index 0 using 1:1 with lines lt 8 lw 1.5 dt 2 title \"Offered rate (no loss)\", \\\n"
		    "     \"%s.dat\" index 0 using 1:3 axes x1y2 with linespoints lt 4 title \"Loss (%%)\"",
		name, name, name);
	if (ninvalid)
		fprintf(gp, ", \\\n     \"%s.dat\" index 1 using 1:2 with points lt 1 pt 6 ps 1.6 "
			    "title \"Invalid trial (sender below offered rate)\"", name);
	fprintf(gp, "\n");
}

static bool sweep_chart(const char *dir, const struct nb_results *res, const struct nb_case_stats *c,
			struct trial *t, struct nb_charts *charts, struct nb_error *err)
{
	bool pps = strcmp(c->pc->engine, "pps") == 0;
	int rx = pps ? NB_COL_RX_PPS : NB_COL_RX_BPS;
	size_t n = collect_trials(res, (size_t)(c->pc - res->cases), rx, t);
	if (n == 0)
		return true;
	struct nb_scale sc = nb_fmt_scale(nb_cols[rx].unit, t[n - 1].offered);
	char stem[192], title[256];
	snprintf(stem, sizeof(stem), "sweep-%s", c->pc->case_id);
	snprintf(title, sizeof(title), "%s: loss and received rate vs offered rate", c->pc->case_id);
	FILE *dat, *gp;
	struct nb_chart *ch = nb_chart_begin(charts, dir, NB_CHART_SWEEP, stem, title, &dat, &gp, err);
	if (!ch)
		return false;
	snprintf(ch->test, sizeof(ch->test), "%s", c->pc->test);
	snprintf(ch->sentence, sizeof(ch->sentence),
		 "Every trial of the sweep of case %s: received rate (left axis) and loss (right axis) "
		 "against the offered rate; the dashed diagonal is loss-free delivery.", c->pc->case_id);
	size_t nvalid = trial_block(dat, t, n, true, sc);
	fprintf(dat, "\n\n");
	size_t ninvalid = trial_block(dat, t, n, false, sc);
	fprintf(gp, "set xlabel \"Offered rate (%s)\"\nset ylabel \"Received rate (%s)\"\n"
		    "set y2label \"Loss (%%)\"\nset ytics nomirror\nset y2tics nomirror\n"
		    "set xrange [0:%.9g]\nset yrange [0:*]\nset y2range [0:*]\nset format y2 \"%%g\"\n",
		sc.unit, sc.unit, t[n - 1].offered / sc.div * 1.08);
	threshold_mark(gp, res, c->pc->case_id, sc, t[n - 1].offered / sc.div * 1.08);
	if (nvalid)
		sweep_plot(gp, ch->name, ninvalid);
	else
		fprintf(gp, "plot \"%s.dat\" index 1 using 1:2 with points lt 1 pt 6 ps 1.6 "
			    "title \"Invalid trial (sender below offered rate)\"\n", ch->name);
	return nb_chart_end(dir, ch, dat, gp, err);
}

bool nb_charts_sweep(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		     struct nb_charts *c, struct nb_error *err)
{
	struct trial *t = calloc(res->nruns + 1, sizeof(*t));
	if (!t)
		return nb_error_set(err, "charts: out of memory");
	bool ok = true;
	for (size_t i = 0; ok && i < s->n; i++)
		if (s->c[i].n_trials > 0)
			ok = sweep_chart(dir, res, &s->c[i], t, c, err);
	free(t);
	return ok;
}

/* The time span of the omitted intervals (lo > hi when none), and the largest value. */
static void ts_extent(const struct nb_results *res, const struct nb_run *r, int col, double *lo,
		      double *hi, double *max, double span[2])
{
	for (size_t k = 0; k < r->iv_n; k++) {
		const struct nb_interval *iv = res->iv_sorted[r->iv_first + k];
		span[0] = fmin(span[0], iv->t_start);
		span[1] = fmax(span[1], iv->t_end);
		if (iv->omitted || iv->t_start < 0) {
			*lo = fmin(*lo, iv->t_start);
			*hi = fmax(*hi, iv->t_end);
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
		fprintf(dat, "%s# series: run %u rep %u\n# t_mid_s value\n", k++ ? "\n\n" : "",
			(unsigned)r->run_id, (unsigned)r->rep);
		for (size_t j = 0; j < r->iv_n; j++) {
			const struct nb_interval *iv = res->iv_sorted[r->iv_first + j];
			fprintf(dat, "%.9g %.9g\n", (iv->t_start + iv->t_end) / 2.0, iv->m.v[col] / sc.div);
		}
	}
	return k;
}

static void ts_axes(FILE *gp, const struct nb_case_stats *c, double lo, double hi, const double span[2],
		    struct nb_scale sc)
{
	const struct nb_col_def *col = &nb_cols[c->metric_col];
	if (span[0] < span[1])
		fprintf(gp, "set xrange [%.9g:%.9g]\n", span[0], span[1]);
	fprintf(gp, "set xlabel \"Time since the measured window began (s)\"\n"
		    "set ylabel \"%s (%s)\"\nset yrange [0:*]\nset format y \"%%g\"\n", col->label, sc.unit);
	if (lo < hi) {
		fprintf(gp, "set object 1 rect from %.9g, graph 0 to %.9g, graph 1 behind "
			    "fc rgb \"#9e9e9e\" fs transparent solid 0.22 noborder\n", lo, hi);
		fprintf(gp, "set label 1 \"omitted\" at %.9g, graph 0.06 center tc rgb \"#505050\" front\n",
			(lo + hi) / 2.0);
	}
}

static bool ts_chart(const char *dir, const struct nb_results *res, const struct nb_case_stats *c,
		     struct nb_charts *charts, struct nb_error *err)
{
	size_t ci = (size_t)(c->pc - res->cases);
	double lo = INFINITY, hi = -INFINITY, max = 0, span[2] = { INFINITY, -INFINITY };
	size_t nruns = 0;
	for (size_t i = 0; i < res->nruns; i++)
		if (res->runs[i].case_idx == ci && nb_run_counts(&res->runs[i]) && res->runs[i].iv_n &&
		    ++nruns)
			ts_extent(res, &res->runs[i], c->metric_col, &lo, &hi, &max, span);
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
	ts_axes(gp, c, lo, hi, span, sc);
	fprintf(gp, "plot ");
	for (size_t i = 0; i < k; i++)
		fprintf(gp, "\"%s.dat\" index %zu using 1:2 with linespoints lt %d pt 7 ps 0.7 "
			    "title \"repetition %zu\", \\\n     ", ch->name, i, nb_gp_style(i), i + 1);
	fprintf(gp, "%.9g with lines lt 8 lw 1.6 dt 2 title \"mean of repetitions\"\n",
		c->value.mean / sc.div);
	return nb_chart_end(dir, ch, dat, gp, err);
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

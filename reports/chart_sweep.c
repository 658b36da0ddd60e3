/* The chart of a swept case: received rate and loss against the offered rate of every trial,
 * with the threshold a search found. */
#include "chart_int.h"

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
	bool pps = c->pc->eng && c->pc->eng->traits.rate == NB_RATE_KIND_PACKETS;
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
		    "set xrange [0:%.9g]\nset yrange [0:*]\nset y2range [0:*]\n",
		sc.unit, sc.unit, t[n - 1].offered / sc.div * 1.08);
	threshold_mark(gp, res, c->pc->case_id, sc, t[n - 1].offered / sc.div * 1.08);
	if (nvalid)
		sweep_plot(gp, ch->name, ninvalid);
	else
		fprintf(gp, "plot \"%s.dat\" index 1 using 1:2 with points lt 1 pt 6 ps 1.6 "
			    "title \"Invalid trial (sender below offered rate)\"\n", ch->name);
	return nb_chart_end(charts, err);
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

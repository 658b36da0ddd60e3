/* The chart of a swept case: received rate and loss against the offered rate of every trial,
 * with the threshold a search found. */
#include "chart_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

/* What a trial is worth to the search: counted, or invalid because its sender fell short of
 * the offered rate, or invalid although it sent the rate, because it stalled and caught up
 * (pace-forgiven, a late tick): a burst the path may drop, not that rate. */
enum trial_kind { TRIAL_VALID, TRIAL_SHORT, TRIAL_STALLED, TRIAL_NKINDS };

static const char *const kind_title[TRIAL_NKINDS] = {
	[TRIAL_SHORT] = "Invalid trial (sender below offered rate)",
	[TRIAL_STALLED] = "Invalid trial (sender stalled, then caught up)",
};

struct trial {
	double offered, received, loss;
	enum trial_kind kind;
};

/* Whether word is one of the ';'-separated flags. */
static bool has_flag(const char *flags, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = flags ? flags : ""; *p; p += strcspn(p, ";"), p += *p == ';')
		if (strncmp(p, word, n) == 0 && (p[n] == ';' || p[n] == '\0'))
			return true;
	return false;
}

/* The search flags an invalid trial "short" or "stalled"; a folder older than those flags had
 * short trials only. */
static enum trial_kind trial_kind(const struct nb_run *r)
{
	if (strcmp(r->status, "invalid") != 0)
		return TRIAL_VALID;
	return has_flag(r->flags, "short") || !r->flags || !*r->flags ? TRIAL_SHORT : TRIAL_STALLED;
}

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
					 trial_kind(r) };
	}
	qsort(t, n, sizeof(*t), cmp_trial);
	return n;
}

static size_t trial_block(FILE *dat, const struct trial *t, size_t n, enum trial_kind kind,
			  struct nb_scale sc)
{
	static const char *const names[TRIAL_NKINDS] = { "valid", "invalid (short)", "invalid (stalled)" };
	size_t k = 0;
	fprintf(dat, "%s# %s trials: offered received loss_pct hover\n", kind ? "\n\n" : "",
		names[kind]);
	for (size_t i = 0; i < n; i++)
		if (t[i].kind == kind && ++k) {
			char hover[160];
			snprintf(hover, sizeof(hover), "%s trial: offered %.4g %s, received %.4g %s, "
				 "loss %.3g %%", names[kind], t[i].offered / sc.div, sc.unit,
				 t[i].received / sc.div, sc.unit, t[i].loss);
			fprintf(dat, "%.9g %.9g %.9g ", t[i].offered / sc.div, t[i].received / sc.div,
				t[i].loss);
			nb_chart_dat_label(dat, hover);
			fputc('\n', dat);
		}
	if (k == 0) /* keeps every index present and valid for gnuplot */
		fprintf(dat, "NaN NaN NaN \"\"\n");
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

/* The valid trials' lines (when any), then each kind of invalid trial that occurred, as its
 * own point style and legend entry. */
static void sweep_plot(FILE *gp, const char *name, const size_t count[TRIAL_NKINDS])
{
	const char *sep = "plot ";
	if (count[TRIAL_VALID]) {
		fprintf(gp, "plot \"%s.dat\" index 0 using 1:2 with linespoints lt 1 title \"Received rate\", \\\n"
			    "     \"%s.dat\" index 0 using 1:1 with lines lt 8 lw 1.5 dt 2 title \"Offered rate (no loss)\", \\\n"
			    "     \"%s.dat\" index 0 using 1:3 axes x1y2 with linespoints lt 4 title \"Loss (%%)\"",
			name, name, name);
		sep = ", \\\n     ";
	}
	for (int k = TRIAL_SHORT; k < TRIAL_NKINDS; k++)
		if (count[k]) {
			fprintf(gp, "%s\"%s.dat\" index %d using 1:2 with points lt 1 pt %d ps 1.6 "
				    "title \"%s\"", sep, name, k, k == TRIAL_SHORT ? 6 : 4, kind_title[k]);
			sep = ", \\\n     ";
		}
	for (int k = TRIAL_VALID; k < TRIAL_NKINDS; k++)
		if (count[k]) {
			fputs(sep, gp);
			nb_chart_gp_hover(gp, name, (size_t)k, "1:2", 4, 1);
		}
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
	size_t count[TRIAL_NKINDS];
	for (int k = 0; k < TRIAL_NKINDS; k++)
		count[k] = trial_block(dat, t, n, (enum trial_kind)k, sc);
	/* the right margin sized by gnuplot to the loss axis' tics and label: the fixed one of the
	 * preamble cut both off when the tics read 0.0005 */
	fprintf(gp, "set xlabel \"Offered rate (%s)\"\nset ylabel \"Received rate (%s)\"\n"
		    "set rmargin\nset y2label \"Loss (%%)\"\nset ytics nomirror\nset y2tics nomirror\n"
		    "set xrange [0:%.9g]\nset yrange [0:*]\nset y2range [0:*]\n",
		sc.unit, sc.unit, t[n - 1].offered / sc.div * 1.08);
	threshold_mark(gp, res, c->pc->case_id, sc, t[n - 1].offered / sc.div * 1.08);
	sweep_plot(gp, ch->name, count);
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

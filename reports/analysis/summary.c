#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double nb_lat_quantiles[NB_LAT_NQ] = { 0.5, 0.9, 0.99, 0.999, 0.9999 };
const char *const nb_lat_names[NB_LAT_NQ] = { "p50", "p90", "p99", "p999", "p9999" };

/* Running state while one case's runs are visited. */
struct acc {
	struct nb_stats cols[NB_COL_COUNT];
	struct nb_stats lat_runs[NB_LAT_NQ];
	double *values;
	size_t *run_idx;
	size_t nvalues;
	struct nb_stats first;
	double *iv_values;
	size_t niv, iv_cap;
};

static const uint64_t *pct_field(const struct nb_hist_summary *h, size_t q)
{
	const uint64_t *f[NB_LAT_NQ] = { &h->p50_ns, &h->p90_ns, &h->p99_ns, &h->p999_ns, &h->p9999_ns };
	return f[q];
}

double nb_run_lat_samples(const struct nb_run *r)
{
	return r->hist ? (double)r->hist->count : r->m.v[NB_COL_TRANS];
}

void nb_summary_hide_thin_pct(struct nb_metrics *m, double n)
{
	static const enum nb_col cols[NB_LAT_NQ] = {
		NB_COL_LAT_P50_US, NB_COL_LAT_P90_US, NB_COL_LAT_P99_US, NB_COL_LAT_P999_US,
		NB_COL_LAT_P9999_US,
	};
	for (size_t q = 0; q < NB_LAT_NQ; q++)
		if (!nb_stats_quantile_supported(nb_lat_quantiles[q], n))
			m->v[cols[q]] = NAN;
}

double nb_case_lat_pct_ns(const struct nb_case_stats *c, size_t q)
{
	if (!c->merged || !c->lat.count || q >= NB_LAT_NQ || !c->lat_ok[q])
		return NAN;
	return (double)*pct_field(&c->lat, q);
}

static bool push_iv(struct acc *a, double v)
{
	if (a->niv == a->iv_cap) {
		size_t cap = a->iv_cap ? a->iv_cap * 2 : 64;
		double *p = realloc(a->iv_values, cap * sizeof(*p));
		if (!p)
			return false;
		a->iv_values = p;
		a->iv_cap = cap;
	}
	a->iv_values[a->niv++] = v;
	return true;
}

/* First interval of the measured window, and every non-omitted interval's headline. */
static bool add_intervals(const struct nb_results *res, const struct nb_run *run, int col, struct acc *a)
{
	if (col < 0)
		return true;
	bool first = true;
	for (size_t k = 0; k < run->iv_n; k++) {
		const struct nb_interval *iv = res->iv_sorted[run->iv_first + k];
		double v = iv->m.v[col];
		if (iv->t_start < -1e-9 || !isfinite(v))
			continue;
		if (first)
			nb_stats_add(&a->first, v);
		first = false;
		if (!iv->omitted && !iv->cooldown && !push_iv(a, v))
			return false;
	}
	return true;
}

static bool add_hist(struct nb_case_stats *c, const struct nb_run *run, struct acc *a)
{
	if (!run->hist)
		return true;
	if (!c->merged && !(c->merged = nb_hist_create()))
		return false;
	nb_hist_merge(c->merged, run->hist);
	struct nb_hist_summary h;
	nb_hist_summarize(run->hist, &h);
	for (size_t q = 0; q < NB_LAT_NQ; q++)
		if (nb_stats_quantile_supported(nb_lat_quantiles[q], (double)h.count))
			nb_stats_add(&a->lat_runs[q], (double)*pct_field(&h, q) / 1000.0);
	return true;
}

static bool add_run(const struct nb_results *res, size_t ri, struct nb_case_stats *c, struct acc *a)
{
	const struct nb_run *run = &res->runs[ri];
	if (strcmp(run->kind, "trial") == 0)
		c->n_trials++;
	if (strcmp(run->status, "failed") == 0)
		c->n_failed++;
	else if (strcmp(run->status, "invalid") == 0 || strcmp(run->status, "suspect") == 0)
		c->n_invalid++; /* measured, but no result: a stall, impossible counters */
	if (!*c->metric || (c->metric_col < 0 && run->metric_col >= 0)) {
		c->metric = run->metric;
		c->metric_col = run->metric_col;
	}
	if (!nb_run_counts(run) || !isfinite(run->value))
		return true;
	nb_stats_add(&c->value, run->value);
	a->values[a->nvalues] = run->value;
	a->run_idx[a->nvalues++] = ri;
	struct nb_metrics m = run->m;
	nb_summary_hide_thin_pct(&m, nb_run_lat_samples(run));
	for (int k = 0; k < NB_COL_COUNT; k++) {
		nb_stats_add(&a->cols[k], m.v[k]);
		if (isfinite(m.v[k]) && !(m.v[k] <= c->metric_max[k]))
			c->metric_max[k] = m.v[k];
		if (isfinite(m.v[k]) && !(m.v[k] >= c->metric_min[k]))
			c->metric_min[k] = m.v[k];
	}
	return add_hist(c, run, a) && add_intervals(res, run, run->metric_col, a);
}

static void finish(struct nb_case_stats *c, struct acc *a, bool *run_outlier)
{
	for (int k = 0; k < NB_COL_COUNT; k++)
		c->metric_mean[k] = nb_stats_mean(&a->cols[k]);
	for (size_t q = 0; q < NB_LAT_NQ; q++)
		c->lat_runmean_us[q] = nb_stats_mean(&a->lat_runs[q]);
	if (c->merged)
		nb_hist_summarize(c->merged, &c->lat);
	for (size_t q = 0; q < NB_LAT_NQ; q++)
		c->lat_ok[q] = c->merged && nb_stats_quantile_supported(nb_lat_quantiles[q],
									 (double)c->lat.count);
	c->ci_half = nb_stats_ci95_half(&c->value);
	c->ci_clipped = nb_stats_ci95(&c->value, &c->ci_lo, &c->ci_hi);
	c->ci_reached = nb_stats_ci_reached(&c->value, c->pc->ci_target);
	c->reps_needed = nb_stats_reps_needed(&c->value, 0.02, NB_STATS_REPS_CAP);
	c->first_interval = nb_stats_mean(&a->first);
	nb_stats_sort(a->iv_values, a->niv);
	c->median_interval = nb_stats_percentile(a->iv_values, a->niv, 50.0);
	bool *flags = calloc(a->nvalues + 1, sizeof(*flags));
	if (flags) {
		c->outliers = nb_stats_outliers(a->values, a->nvalues, flags);
		for (size_t i = 0; i < a->nvalues; i++)
			run_outlier[a->run_idx[i]] = flags[i];
		free(flags);
	}
	nb_stats_sort(a->values, a->nvalues);
	c->median = nb_stats_percentile(a->values, a->nvalues, 50.0);
}

static bool compute_case(const struct nb_results *res, size_t ci, struct nb_summary *s,
			 struct acc *a)
{
	struct nb_case_stats *c = &s->c[ci];
	c->pc = &res->cases[ci];
	c->metric = "";
	c->metric_col = -1;
	nb_stats_init(&c->value);
	nb_stats_init(&a->first);
	for (int k = 0; k < NB_COL_COUNT; k++) {
		nb_stats_init(&a->cols[k]);
		c->metric_max[k] = NAN;
		c->metric_min[k] = NAN;
	}
	for (size_t q = 0; q < NB_LAT_NQ; q++)
		nb_stats_init(&a->lat_runs[q]);
	a->nvalues = a->niv = 0;
	for (size_t ri = 0; ri < res->nruns; ri++)
		if (res->runs[ri].case_idx == ci && !add_run(res, ri, c, a))
			return false;
	finish(c, a, s->run_outlier);
	return true;
}

bool nb_summary_compute(const struct nb_results *res, struct nb_summary *s, struct nb_error *err)
{
	memset(s, 0, sizeof(*s));
	struct acc a = { 0 };
	s->c = calloc(res->ncases + 1, sizeof(*s->c));
	s->run_outlier = calloc(res->nruns + 1, sizeof(*s->run_outlier));
	a.values = calloc(res->nruns + 1, sizeof(*a.values));
	a.run_idx = calloc(res->nruns + 1, sizeof(*a.run_idx));
	bool ok = s->c && s->run_outlier && a.values && a.run_idx;
	for (size_t i = 0; ok && i < res->ncases; i++, s->n++)
		ok = compute_case(res, i, s, &a);
	free(a.values);
	free(a.run_idx);
	free(a.iv_values);
	if (!ok) {
		nb_summary_free(s);
		return nb_error_set(err, "summary: out of memory");
	}
	return true;
}

void nb_summary_free(struct nb_summary *s)
{
	for (size_t i = 0; s->c && i < s->n; i++)
		nb_hist_destroy(s->c[i].merged);
	free(s->c);
	free(s->run_outlier);
	memset(s, 0, sizeof(*s));
}

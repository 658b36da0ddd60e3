/* nbrun — compare: the threshold, Welch's CI of a difference, and the verdict rules. */
#include "compare_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool nb_cmp_parse_threshold(const char *s, double *out, struct nb_error *err)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v) || v < 0.0)
		return nb_error_set(err, "--threshold '%s': expected a percentage from 0%% to 100%%, "
				    "e.g. 5%%", s);
	if (*end != '%')
		return nb_error_set(err, "--threshold '%s': a bare number is ambiguous; write it as a "
				    "percentage, e.g. %g%%", s, v);
	if (end[1] != '\0')
		return nb_error_set(err, "--threshold '%s': expected a percentage, e.g. 5%%", s);
	if (v > 100.0)
		return nb_error_set(err, "--threshold '%s': above 100 %% no change can be a regression "
				    "(expected 0%% to 100%%)", s);
	*out = v / 100.0;
	return true;
}

double nb_cmp_t95(double df)
{
	return nb_stats_t_quantile(0.975, df);
}

static void fill_ci(struct nb_welch *w, double diff, double se, double df)
{
	w->diff = diff;
	w->se = se;
	w->df = df;
	w->t = se > 0.0 ? diff / se : diff == 0.0 ? 0.0 : copysign(INFINITY, diff);
	w->t_crit = nb_cmp_t95(df);
	w->lo = diff - w->t_crit * se;
	w->hi = diff + w->t_crit * se;
	w->significant = fabs(w->t) > w->t_crit;
}

/* Welch's CI does not assume equal variances: a noisy baseline against a tight new run is
 * exactly the case where the pooled (Student) interval would mislead. */
bool nb_welch_test(const struct nb_stats *a, const struct nb_stats *b, struct nb_welch *out)
{
	if (a->n < 2 || b->n < 2)
		return false;
	double na = (double)a->n, nb = (double)b->n;
	double sa = nb_stats_stddev(a), sb = nb_stats_stddev(b);
	double va = sa * sa / na, vb = sb * sb / nb;
	double df = va + vb == 0.0 ? na + nb - 2.0
				   : (va + vb) * (va + vb) / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
	fill_ci(out, b->mean - a->mean, sqrt(va + vb), df);
	return true;
}

/* One run x against n >= 2 runs of spread s: x - mean has variance s²(1 + 1/n), n - 1 df (the
 * prediction interval of one more run of the larger side, turned into a CI of the difference). */
bool nb_cmp_pred_ci(const struct nb_stats *a, const struct nb_stats *b, struct nb_welch *out)
{
	const struct nb_stats *many = a->n >= 2 ? a : b, *one = a->n >= 2 ? b : a;
	if (one->n != 1 || many->n < 2)
		return false;
	double n = (double)many->n;
	fill_ci(out, b->mean - a->mean, nb_stats_stddev(many) * sqrt(1.0 + 1.0 / n), n - 1.0);
	return true;
}

static void reset(struct nb_cmp_cell *cell)
{
	cell->test = NB_CMP_TEST_NONE;
	cell->have_welch = cell->have_mw = cell->clipped = false;
	cell->diff = cell->lo = cell->hi = NAN;
	cell->change = cell->ch_lo = cell->ch_hi = cell->detectable = NAN;
}

/* The deciding estimate: the rank CI for rank metrics when the sample sizes allow one, else
 * Welch's (or the one-run) CI, else none. */
static void estimate(struct nb_cmp_cell *cell, const struct nb_cmp_sample *base, bool rank)
{
	const struct nb_stats *a = &base->st, *b = &cell->s.st;
	cell->have_welch = nb_welch_test(a, b, &cell->welch) || nb_cmp_pred_ci(a, b, &cell->welch);
	if (rank && a->n >= 2 && b->n >= 2)
		cell->have_mw = nb_mw_test(base->v, a->n, cell->s.v, b->n, &cell->mw);
	if (cell->have_mw && cell->mw.ci) {
		cell->test = NB_CMP_TEST_RANK;
		cell->diff = cell->mw.shift;
		cell->lo = cell->mw.lo;
		cell->hi = cell->mw.hi;
	} else if (cell->have_welch) {
		cell->test = a->n >= 2 && b->n >= 2 ? NB_CMP_TEST_WELCH : NB_CMP_TEST_PRED;
		cell->diff = cell->welch.diff;
		cell->lo = cell->welch.lo;
		cell->hi = cell->welch.hi;
	} else {
		cell->diff = b->mean - a->mean;
	}
}

/* The base the change is relative to: the median for the rank estimate, else the mean. */
static double reference(const struct nb_cmp_cell *cell, const struct nb_cmp_sample *base)
{
	return cell->test == NB_CMP_TEST_RANK ? base->median : base->st.mean;
}

/* Every metric is a count, rate, time or share: a new value below 0, a change below -100 %
 * of the base, is impossible. A CI reaching past it (few runs, a wide spread) is cut there, as
 * the report cuts a case's CI at 0: that keeps its coverage, and the row says "n too small".
 * What the noise can detect is still read off the whole width. */
static void relative(struct nb_cmp_cell *cell, double ref, double threshold)
{
	if (ref == 0.0 || !isfinite(ref))
		return;
	cell->change = cell->diff / fabs(ref);
	cell->ch_lo = cell->lo / fabs(ref);
	cell->ch_hi = cell->hi / fabs(ref);
	if (isfinite(cell->ch_lo) && isfinite(cell->ch_hi))
		cell->detectable = threshold + (cell->ch_hi - cell->ch_lo) / 2.0;
	if (cell->ch_lo < -1.0) {
		cell->ch_lo = -1.0;
		cell->lo = -fabs(ref);
		cell->clipped = true;
	}
}

/* Beyond the threshold: up (true) or down; the metric's better direction names it. */
static void beyond(struct nb_cmp_cell *cell, int col, bool up, const char *reason)
{
	enum nb_better better = col >= 0 ? nb_cols[col].better : NB_BETTER_NONE;
	cell->reason = reason;
	if (better == NB_BETTER_NONE)
		cell->verdict = NB_CMP_CHANGED;
	else
		cell->verdict = (better == NB_BETTER_HIGHER) == up ? NB_CMP_IMPROVEMENT
								   : NB_CMP_REGRESSION;
}

static void inconclusive(struct nb_cmp_cell *cell, const char *reason)
{
	cell->verdict = NB_CMP_INCONCLUSIVE;
	cell->reason = reason;
}

/* A base of 0 (no loss, no retransmits): every change is beyond any relative threshold, so
 * the absolute CI decides whether there is one. */
static void decide_absolute(struct nb_cmp_cell *cell, int col)
{
	if (cell->lo > 0.0 || cell->hi < 0.0)
		beyond(cell, col, cell->lo > 0.0, "base 0, CI excludes 0");
	else if (cell->lo == 0.0 && cell->hi == 0.0) {
		cell->verdict = NB_CMP_UNCHANGED;
		cell->reason = "0 on both sides";
	} else
		inconclusive(cell, "base 0, CI includes 0");
}

void nb_cmp_judge(struct nb_cmp_cell *cell, const struct nb_cmp_sample *base, int col, bool rank,
		  double threshold)
{
	reset(cell);
	if (base->st.n == 0 || cell->s.st.n == 0) {
		cell->verdict = NB_CMP_NODATA;
		cell->reason = base->st.n == 0 ? "no value in base" : "no value in new";
		return;
	}
	estimate(cell, base, rank);
	double ref = reference(cell, base);
	relative(cell, ref, threshold);
	if (cell->test == NB_CMP_TEST_NONE) {
		inconclusive(cell, "one run on each side: no spread known");
		return;
	}
	if (ref == 0.0) {
		decide_absolute(cell, col);
		return;
	}
	if (cell->ch_hi < -threshold || cell->ch_lo > threshold)
		beyond(cell, col, cell->ch_lo > threshold, "CI beyond threshold");
	else if (cell->ch_lo >= -threshold && cell->ch_hi <= threshold) {
		cell->verdict = NB_CMP_UNCHANGED;
		cell->reason = "CI within threshold";
	} else
		inconclusive(cell, "CI crosses the threshold");
}

const char *nb_cmp_verdict_name(enum nb_cmp_verdict v)
{
	static const char *const names[NB_CMP_NVERDICTS] = {
		[NB_CMP_UNCHANGED] = "unchanged", [NB_CMP_REGRESSION] = "regression",
		[NB_CMP_IMPROVEMENT] = "improvement", [NB_CMP_CHANGED] = "changed",
		[NB_CMP_INCONCLUSIVE] = "inconclusive", [NB_CMP_NODATA] = "no data",
		[NB_CMP_DIFFERENT] = "not compared",
	};
	return (unsigned)v < NB_CMP_NVERDICTS ? names[v] : "?";
}

const char *nb_cmp_test_name(enum nb_cmp_test t)
{
	switch (t) {
	case NB_CMP_TEST_WELCH: return "welch";
	case NB_CMP_TEST_PRED: return "one-run";
	case NB_CMP_TEST_RANK: return "mann-whitney";
	case NB_CMP_TEST_NONE: break;
	}
	return "-";
}

const char *nb_cmp_problem_name(enum nb_cmp_problem_kind k)
{
	static const char *const names[NB_CMP_P_NKINDS] = {
		[NB_CMP_P_INTERRUPTED] = "interrupted", [NB_CMP_P_FAILED] = "failed",
		[NB_CMP_P_MISSING] = "missing", [NB_CMP_P_PARAMS] = "parameters differ",
	};
	return (unsigned)k < NB_CMP_P_NKINDS ? names[k] : "?";
}

void nb_cmp_summary_line(const size_t count[NB_CMP_NVERDICTS], char *buf, size_t len)
{
	static const char *const extra[NB_CMP_NVERDICTS] = {
		[NB_CMP_INCONCLUSIVE] = "inconclusive",
		[NB_CMP_CHANGED] = "changed (no better direction)",
		[NB_CMP_NODATA] = "without data",
		[NB_CMP_DIFFERENT] = "not compared (parameters differ)",
	};
	static const enum nb_cmp_verdict order[] = { NB_CMP_INCONCLUSIVE, NB_CMP_CHANGED,
						     NB_CMP_NODATA, NB_CMP_DIFFERENT };
	size_t r = count[NB_CMP_REGRESSION], i = count[NB_CMP_IMPROVEMENT];
	int n = snprintf(buf, len, "%zu regression%s, %zu improvement%s, %zu unchanged", r,
			 r == 1 ? "" : "s", i, i == 1 ? "" : "s", count[NB_CMP_UNCHANGED]);
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		if (n > 0 && (size_t)n < len && count[order[k]])
			n += snprintf(buf + n, len - (size_t)n, ", %zu %s", count[order[k]],
				      extra[order[k]]);
}

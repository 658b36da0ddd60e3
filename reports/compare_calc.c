/* nbrun — compare: significance (Welch's t-test, prediction interval) and verdicts. */
#include "compare_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

double nb_cmp_t95(double df)
{
	return nb_stats_t_quantile(0.975, df);
}

/* Welch's test does not assume equal variances: a noisy baseline against a tight new
 * run is exactly the case where the pooled (Student) test would mislead. */
bool nb_welch_test(const struct nb_stats *a, const struct nb_stats *b, struct nb_welch *out)
{
	if (a->n < 2 || b->n < 2)
		return false;
	double na = (double)a->n, nb = (double)b->n;
	double sa = nb_stats_stddev(a), sb = nb_stats_stddev(b);
	double va = sa * sa / na, vb = sb * sb / nb, diff = b->mean - a->mean;
	struct nb_welch w;
	if (va + vb == 0.0) {
		w.t = diff == 0.0 ? 0.0 : copysign(INFINITY, diff);
		w.df = na + nb - 2.0;
	} else {
		w.t = diff / sqrt(va + vb);
		w.df = (va + vb) * (va + vb) / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
	}
	w.t_crit = nb_cmp_t95(w.df);
	w.significant = fabs(w.t) > w.t_crit;
	*out = w;
	return true;
}

/* One run against n >= 2: is it outside where a new single run of that side would fall
 * 95 % of the time (mean ± t·s·√(1 + 1/n))? */
static bool outside_prediction(const struct nb_stats *many, double x)
{
	double n = (double)many->n;
	double half = nb_stats_t95(many->n - 1) * nb_stats_stddev(many) * sqrt(1.0 + 1.0 / n);
	return fabs(x - many->mean) > half;
}

static void significance(struct nb_cmp_cell *cell, const struct nb_stats *base)
{
	const struct nb_stats *nw = &cell->st;
	if (nb_welch_test(base, nw, &cell->welch)) {
		cell->test = NB_CMP_TEST_WELCH;
		cell->significant = cell->welch.significant;
	} else if (base->n >= 2 || nw->n >= 2) {
		cell->test = NB_CMP_TEST_OVERLAP;
		cell->significant = base->n >= 2 ? outside_prediction(base, nw->mean)
						 : outside_prediction(nw, base->mean);
	} else {
		cell->test = NB_CMP_TEST_N1;
		cell->significant = nw->mean != base->mean;
	}
}

void nb_cmp_judge(struct nb_cmp_cell *cell, const struct nb_stats *base, int col, double threshold)
{
	cell->change = NAN;
	cell->test = NB_CMP_TEST_NONE;
	if (base->n == 0 || cell->st.n == 0) {
		cell->verdict = NB_CMP_NODATA;
		cell->reason = base->n == 0 ? "no value in base" : "no value in new";
		return;
	}
	double mb = base->mean, mn = cell->st.mean;
	cell->change = mb != 0.0 ? (mn - mb) / fabs(mb) : mn == mb ? 0.0 : copysign(INFINITY, mn - mb);
	significance(cell, base);
	cell->verdict = NB_CMP_UNCHANGED;
	if (!cell->significant) {
		cell->reason = "within noise";
		return;
	}
	if (!(fabs(cell->change) > threshold)) {
		cell->reason = "below threshold";
		return;
	}
	enum nb_better better = col >= 0 ? nb_cols[col].better : NB_BETTER_NONE;
	cell->reason = nb_cmp_test_name(cell->test);
	if (better == NB_BETTER_NONE)
		cell->verdict = NB_CMP_CHANGED;
	else if ((better == NB_BETTER_HIGHER) == (cell->change < 0))
		cell->verdict = NB_CMP_REGRESSION;
	else
		cell->verdict = NB_CMP_IMPROVEMENT;
}

const char *nb_cmp_verdict_name(enum nb_cmp_verdict v)
{
	static const char *const names[NB_CMP_NVERDICTS] = {
		[NB_CMP_UNCHANGED] = "unchanged", [NB_CMP_REGRESSION] = "regression",
		[NB_CMP_IMPROVEMENT] = "improvement", [NB_CMP_CHANGED] = "changed",
		[NB_CMP_NODATA] = "no data",
	};
	return (unsigned)v < NB_CMP_NVERDICTS ? names[v] : "?";
}

const char *nb_cmp_test_name(enum nb_cmp_test t)
{
	switch (t) {
	case NB_CMP_TEST_WELCH: return "welch";
	case NB_CMP_TEST_OVERLAP: return "overlap";
	case NB_CMP_TEST_N1: return "n=1";
	case NB_CMP_TEST_NONE: break;
	}
	return "-";
}

void nb_cmp_summary_line(const size_t count[NB_CMP_NVERDICTS], char *buf, size_t len)
{
	size_t r = count[NB_CMP_REGRESSION], i = count[NB_CMP_IMPROVEMENT];
	int n = snprintf(buf, len, "%zu regression%s, %zu improvement%s, %zu unchanged", r,
			 r == 1 ? "" : "s", i, i == 1 ? "" : "s", count[NB_CMP_UNCHANGED]);
	if (n > 0 && (size_t)n < len && count[NB_CMP_CHANGED])
		n += snprintf(buf + n, len - (size_t)n, ", %zu changed (no better direction)",
			      count[NB_CMP_CHANGED]);
	if (n > 0 && (size_t)n < len && count[NB_CMP_NODATA])
		snprintf(buf + n, len - (size_t)n, ", %zu without data", count[NB_CMP_NODATA]);
}

void nb_cmp_fmt_stats(const struct nb_stats *st, const char *unit, char *buf, size_t len)
{
	if (st->n == 0) {
		snprintf(buf, len, "—");
		return;
	}
	struct nb_scale s = nb_fmt_scale(unit, st->mean);
	double m = st->mean / s.div, sd = nb_stats_stddev(st) / s.div;
	int d = nb_fmt_decimals(m, sd);
	const char *sp = *s.unit ? " " : "";
	if (st->n < 2)
		snprintf(buf, len, "%.*f%s%s (n=1)", d, m, sp, s.unit);
	else
		snprintf(buf, len, "%.*f ± %.*f%s%s (n=%zu)", d, m, d, sd, sp, s.unit, st->n);
}

void nb_cmp_fmt_change(double change, char *buf, size_t len)
{
	if (isnan(change))
		snprintf(buf, len, "—");
	else if (isinf(change))
		snprintf(buf, len, "%s∞ (base 0)", change > 0 ? "+" : "-");
	else if (fabs(change) < 0.0005)
		snprintf(buf, len, "0.0 %%");
	else
		snprintf(buf, len, "%+.1f %%", change * 100.0);
}

const char *nb_cmp_row_unit(const struct nb_cmp_row *row)
{
	return row->col >= 0 ? nb_cols[row->col].unit : "";
}

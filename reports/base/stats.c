#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void nb_stats_init(struct nb_stats *s)
{
	*s = (struct nb_stats){ .mean = 0.0, .min = INFINITY, .max = -INFINITY };
}

void nb_stats_add(struct nb_stats *s, double x)
{
	if (!isfinite(x))
		return;
	s->n++;
	double d = x - s->mean;
	s->mean += d / (double)s->n;
	s->m2 += d * (x - s->mean);
	if (x < s->min)
		s->min = x;
	if (x > s->max)
		s->max = x;
}

double nb_stats_mean(const struct nb_stats *s)
{
	return s->n ? s->mean : NAN;
}

/* The spread of values that differ only in their last digits carries the rounding of those
 * values into binary (16.63 is stored as 16.629999999999999005...): a stddev of 16.63, 16.64,
 * 16.65 comes out as 0.0100000000000016. Its digits below 10^-15 of the largest value are
 * within that rounding (a double holds 15 to 17 significant digits), not a measurement, so
 * the stddev is rounded there and every file that writes it reads 0.01; 1e9 + {4, 7, 13, 16}
 * keeps its sqrt(30) to 1e-6. */
static double at_data_resolution(double sd, const struct nb_stats *s)
{
	double ref = fmax(fabs(s->min), fabs(s->max));
	if (!(sd > 0.0) || !isfinite(ref) || ref == 0.0)
		return sd;
	double q = pow(10.0, floor(log10(ref)) - 15.0);
	return round(sd / q) * q;
}

double nb_stats_stddev(const struct nb_stats *s)
{
	if (s->n < 2)
		return NAN;
	return at_data_resolution(sqrt(s->m2 / (double)(s->n - 1)), s);
}

double nb_stats_cv(const struct nb_stats *s)
{
	if (s->n < 2 || s->mean == 0.0)
		return NAN;
	return nb_stats_stddev(s) / fabs(s->mean);
}

/* ---- Student's t --------------------------------------------------------------
 *
 * The quantile is found by inverting the t distribution's upper tail,
 * P(T > t) = I_x(df/2, 1/2) / 2 with x = df / (df + t^2), where I is the regularized
 * incomplete beta function. I comes from its continued fraction (evaluated with the
 * modified Lentz method), which converges quickly for x < (a + 1) / (a + b + 2); above that
 * the symmetry I_x(a, b) = 1 - I_(1-x)(b, a) is used, with 1 - x computed directly as
 * t^2 / (df + t^2) so that large df keep their digits. The root is polished by Newton steps
 * on t, kept inside a bracket that bisection narrows whenever a step would leave it: exact
 * to about 1e-13 for any real df > 0, where a table interpolated between integer df was
 * up to 15 % too wide at df near 1. */

#define LENTZ_TINY 1e-300

static double lentz_guard(double v)
{
	return fabs(v) < LENTZ_TINY ? LENTZ_TINY : v;
}

static double beta_cf(double a, double b, double x)
{
	double c = 1.0, d = 1.0 / lentz_guard(1.0 - (a + b) * x / (a + 1.0)), h = d;
	for (int m = 1; m <= 500; m++) {
		double m2 = 2.0 * m;
		double even = m * (b - m) * x / ((a - 1.0 + m2) * (a + m2));
		d = 1.0 / lentz_guard(1.0 + even * d);
		c = lentz_guard(1.0 + even / c);
		h *= d * c;
		double odd = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2));
		d = 1.0 / lentz_guard(1.0 + odd * d);
		c = lentz_guard(1.0 + odd / c);
		h *= d * c;
		if (fabs(d * c - 1.0) < 1e-16)
			break;
	}
	return h;
}

/* I_x(a, b), given x and y = 1 - x each to full precision. */
static double ibeta(double a, double b, double x, double y)
{
	if (x <= 0.0)
		return 0.0;
	if (y <= 0.0)
		return 1.0;
	double front = exp(a * log(x) + b * log(y) - lgamma(a) - lgamma(b) + lgamma(a + b));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_cf(a, b, x) / a;
	return 1.0 - front * beta_cf(b, a, y) / b;
}

/* P(T > t) for t >= 0; df infinite is the standard normal. */
static double t_upper(double t, double df)
{
	if (isinf(df))
		return 0.5 * erfc(t / M_SQRT2);
	double t2 = t * t;
	return 0.5 * ibeta(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2));
}

static double t_density(double t, double df)
{
	if (isinf(df))
		return exp(-0.5 * t * t) / sqrt(2.0 * M_PI);
	double lc = lgamma((df + 1.0) / 2.0) - lgamma(df / 2.0) - 0.5 * log(df * M_PI);
	return exp(lc - (df + 1.0) / 2.0 * log1p(t * t / df));
}

double nb_stats_t_quantile(double p, double df)
{
	if (!(p > 0.0 && p < 1.0) || !(df > 0.0))
		return NAN;
	if (p < 0.5)
		return -nb_stats_t_quantile(1.0 - p, df);
	double q = 1.0 - p, lo = 0.0, hi = 1.0;
	if (q == 0.5)
		return 0.0;
	while (t_upper(hi, df) > q && hi < 1e300) {
		lo = hi;
		hi *= 2.0;
	}
	double t = (lo + hi) / 2.0;
	for (int i = 0; i < 300; i++) {
		double f = t_upper(t, df) - q; /* decreasing in t */
		if (f > 0.0)
			lo = t;
		else
			hi = t;
		double next = t + f / t_density(t, df);
		if (!(next > lo && next < hi))
			next = (lo + hi) / 2.0;
		if (fabs(next - t) <= 1e-15 * next || hi - lo <= 1e-15 * hi)
			return next;
		t = next;
	}
	return t;
}

double nb_stats_t95(size_t df)
{
	return df == 0 ? NAN : nb_stats_t_quantile(0.975, (double)df);
}

double nb_stats_ci95_half(const struct nb_stats *s)
{
	if (s->n < 2)
		return NAN;
	return nb_stats_t95(s->n - 1) * nb_stats_stddev(s) / sqrt((double)s->n);
}

/* Why cut at 0, and not another interval: the t interval of the mean is what the table's mean
 * ± stddev and the ±2 % targets speak of, and cutting a 95 % confidence set at the edge of the
 * possible values keeps its coverage exactly (the part cut away holds no possible mean). A t
 * interval on the logarithms would be one for the geometric mean, another quantity, and it
 * fails on a run of 0; a bootstrap of 2 to 5 runs has only a handful of distinct resamples and
 * covers far less than 95 %. A cut interval still tells the truth it can: its upper end, and
 * that the runs are too few for their spread (the report says "n too small"). */
bool nb_stats_ci95(const struct nb_stats *s, double *lo, double *hi)
{
	double half = nb_stats_ci95_half(s);
	*lo = s->n >= 2 ? s->mean - half : NAN;
	*hi = s->n >= 2 ? s->mean + half : NAN;
	if (!(*lo < 0.0))
		return false;
	*lo = 0.0;
	return true;
}

bool nb_stats_ci_reached(const struct nb_stats *s, double rel_width)
{
	if (s->n < 2)
		return false;
	return nb_stats_ci95_half(s) <= rel_width * fabs(s->mean);
}

/* The 95 % CI half-width relative to the mean is t(n-1)·cv/√n: the smallest n with that
 * ≤ rel. Since t > z = 1.96, n > (z·cv/rel)²: start there and step up (t shrinks with n). */
uint32_t nb_stats_reps_for_cv(double cv, double rel, uint32_t cap)
{
	if (!(rel > 0.0) || !(cv >= 0.0))
		return 0;
	double start = floor(pow(1.959963984540054 * cv / rel, 2));
	if (!(start < (double)cap))
		return cap;
	uint32_t n = start < 2 ? 2 : (uint32_t)start;
	while (n < cap && nb_stats_t95(n - 1) * cv / sqrt((double)n) > rel)
		n++;
	return n;
}

uint32_t nb_stats_reps_needed(const struct nb_stats *s, double rel_width, uint32_t cap)
{
	if (s->n < 2 || s->mean == 0.0)
		return 0;
	return nb_stats_reps_for_cv(nb_stats_stddev(s) / fabs(s->mean), rel_width, cap);
}

bool nb_stats_autorep_done(const struct nb_stats *s, uint32_t min, uint32_t max, double rel_width)
{
	if (s->n >= max)
		return true;
	return s->n >= min && nb_stats_ci_reached(s, rel_width);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void nb_stats_sort(double *v, size_t n)
{
	if (n > 1) /* v may be NULL when n is 0 (no run succeeded): qsort must not see it */
		qsort(v, n, sizeof(*v), cmp_double);
}

double nb_stats_percentile(const double *sorted, size_t n, double p)
{
	if (n == 0)
		return NAN;
	double h = (double)(n - 1) * p / 100.0;
	if (h <= 0.0)
		return sorted[0];
	size_t lo = (size_t)floor(h);
	if (lo >= n - 1)
		return sorted[n - 1];
	return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

bool nb_stats_quantile_supported(double q, double n)
{
	/* n (1 - q) >= 1, with room for q's rounding in binary (1 / (1 - 0.9999) = 10000.0000000009) */
	return q >= 0.0 && q < 1.0 && n * (1.0 - q) >= 1.0 - 1e-9;
}

size_t nb_stats_outliers(const double *v, size_t n, bool *flags)
{
	memset(flags, 0, n * sizeof(*flags));
	if (n < 4)
		return 0;
	double *s = malloc(n * sizeof(*s));
	if (!s)
		return 0;
	memcpy(s, v, n * sizeof(*s));
	nb_stats_sort(s, n);
	double q1 = nb_stats_percentile(s, n, 25.0), q3 = nb_stats_percentile(s, n, 75.0);
	free(s);
	double lo = q1 - 1.5 * (q3 - q1), hi = q3 + 1.5 * (q3 - q1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] < lo || v[i] > hi)
			k += flags[i] = true;
	return k;
}

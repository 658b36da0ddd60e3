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

double nb_stats_stddev(const struct nb_stats *s)
{
	if (s->n < 2)
		return NAN;
	return sqrt(s->m2 / (double)(s->n - 1));
}

double nb_stats_cv(const struct nb_stats *s)
{
	if (s->n < 2 || s->mean == 0.0)
		return NAN;
	return nb_stats_stddev(s) / fabs(s->mean);
}

/* t(0.975, df) for df 1..30, from the standard table. */
static const double t975[31] = {
	NAN, 12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
	2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
	2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
};

double nb_stats_t95(size_t df)
{
	if (df < sizeof(t975) / sizeof(t975[0]))
		return t975[df];
	/* Cornish-Fisher expansion around the normal quantile: error < 1e-4 for df > 30. */
	const double z = 1.959963985;
	double d = (double)df, z3 = z * z * z, z5 = z3 * z * z;
	return z + (z3 + z) / (4.0 * d) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * d * d);
}

double nb_stats_ci95_half(const struct nb_stats *s)
{
	if (s->n < 2)
		return NAN;
	return nb_stats_t95(s->n - 1) * nb_stats_stddev(s) / sqrt((double)s->n);
}

bool nb_stats_ci_reached(const struct nb_stats *s, double rel_width)
{
	if (s->n < 2)
		return false;
	return nb_stats_ci95_half(s) <= rel_width * fabs(s->mean);
}

uint32_t nb_stats_reps_needed(const struct nb_stats *s, double rel_width, uint32_t cap)
{
	if (s->n < 2 || s->mean == 0.0 || !(rel_width > 0.0))
		return 0;
	double sd = nb_stats_stddev(s), target = rel_width * fabs(s->mean);
	for (uint32_t n = 2; n < cap; n++)
		if (nb_stats_t95(n - 1) * sd / sqrt((double)n) <= target)
			return n;
	return cap;
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

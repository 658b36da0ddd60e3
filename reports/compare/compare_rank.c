/* nbrun — compare: the Mann-Whitney U test, the Hodges-Lehmann shift and its CI.
 *
 * Latency and request/response rates across repetitions are often bimodal (runs at ~15 µs
 * and ~80 µs on the same VM, depending on where the scheduler put the threads): a mean and a
 * stddev describe neither mode, and a t interval can call +208 % "unchanged". Ranks do not care
 * about the shape. The shift estimate is the median of all m·n differences b_j - a_i
 * (Hodges-Lehmann); its 95 % CI runs from the (c+1)-th smallest to the (c+1)-th largest of
 * those differences, c being the largest U with P(U <= c) <= 2.5 % (Moses). For m, n <= 30 the
 * null distribution of U is counted exactly; beyond, and for the p-value with ties, the normal
 * approximation (tie- and continuity-corrected) stands in. */
#include "compare_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MW_EXACT_MAX 30
#define Z975 1.959963984540054

/* counts[u] = how many of the C(m+n, m) ways to interleave the samples give U = u. Going up
 * the ranks, taking the k-th smallest value (0-based) as the j-th of the first sample adds
 * the k - (j - 1) second-sample values below it to U. */
static double *mw_counts(size_t m, size_t n)
{
	size_t top = m * n + 1;
	double *dp = calloc((m + 1) * top, sizeof(*dp));
	if (!dp)
		return NULL;
	dp[0] = 1.0;
	for (size_t k = 0; k < m + n; k++) {
		for (size_t j = (k + 1 < m ? k + 1 : m); j >= 1; j--) {
			size_t add = k - (j - 1);
			if (add > n)
				continue;
			for (size_t u = 0; u + add < top; u++)
				dp[j * top + u + add] += dp[(j - 1) * top + u];
		}
	}
	double *counts = malloc(top * sizeof(*counts));
	if (counts)
		memcpy(counts, dp + m * top, top * sizeof(*counts));
	free(dp);
	return counts;
}

double nb_mw_cdf(double u, size_t m, size_t n)
{
	if (m == 0 || n == 0 || m > MW_EXACT_MAX || n > MW_EXACT_MAX || isnan(u))
		return NAN;
	if (u < 0.0)
		return 0.0;
	double *counts = mw_counts(m, n);
	if (!counts)
		return NAN;
	double below = 0.0, total = 0.0;
	for (size_t k = 0; k <= m * n; k++) {
		total += counts[k];
		below += (double)k <= u ? counts[k] : 0.0;
	}
	free(counts);
	return below / total;
}

/* Normal approximation of the critical value for large samples. */
static int critical_normal(size_t m, size_t n)
{
	double mn = (double)m * (double)n;
	double c = floor(mn / 2.0 - Z975 * sqrt(mn * (double)(m + n + 1) / 12.0) - 0.5);
	return c < 0.0 ? -1 : (int)c;
}

int nb_mw_critical(size_t m, size_t n)
{
	if (m == 0 || n == 0)
		return -1;
	if (m > MW_EXACT_MAX || n > MW_EXACT_MAX)
		return critical_normal(m, n);
	double *counts = mw_counts(m, n);
	if (!counts)
		return -1;
	double total = 0.0, cum = 0.0;
	for (size_t k = 0; k <= m * n; k++)
		total += counts[k];
	int c = -1;
	for (size_t k = 0; k <= m * n; k++) {
		cum += counts[k];
		if (cum / total > 0.025)
			break;
		c = (int)k;
	}
	free(counts);
	return c;
}

/* Sum of t³ - t over the groups of tied values of both samples (sorted in place in all). */
static double tie_sum(double *all, size_t n)
{
	qsort(all, n, sizeof(*all), nb_cmp_double);
	double sum = 0.0;
	for (size_t i = 0; i < n;) {
		size_t k = i + 1;
		while (k < n && all[k] == all[i])
			k++;
		double t = (double)(k - i);
		sum += t * t * t - t;
		i = k;
	}
	return sum;
}

static double p_normal(double u, size_t m, size_t n, double ties)
{
	double mn = (double)m * (double)n, N = (double)(m + n);
	double var = mn / 12.0 * ((N + 1.0) - ties / (N * (N - 1.0)));
	if (!(var > 0.0))
		return 1.0;
	double z = (fabs(u - mn / 2.0) - 0.5) / sqrt(var);
	return z <= 0.0 ? 1.0 : erfc(z / sqrt(2.0));
}

/* U, the tie sum and the sorted pairwise differences (into d, m·n long). */
static double pairs(const double *a, size_t m, const double *b, size_t n, double *d)
{
	double u = 0.0;
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			d[i * n + j] = b[j] - a[i];
			u += b[j] > a[i] ? 1.0 : b[j] == a[i] ? 0.5 : 0.0;
		}
	qsort(d, m * n, sizeof(*d), nb_cmp_double);
	return u;
}

static double sorted_median(const double *d, size_t k)
{
	return k % 2 ? d[k / 2] : (d[k / 2 - 1] + d[k / 2]) / 2.0;
}

bool nb_mw_test(const double *a, size_t m, const double *b, size_t n, struct nb_mw *out)
{
	if (m == 0 || n == 0)
		return false;
	size_t k = m * n;
	double *d = malloc(k * sizeof(*d)), *all = malloc((m + n) * sizeof(*all));
	if (!d || !all) {
		free(d);
		free(all);
		return false;
	}
	memcpy(all, a, m * sizeof(*a));
	memcpy(all + m, b, n * sizeof(*b));
	double ties = tie_sum(all, m + n), u = pairs(a, m, b, n, d);
	struct nb_mw r = { .u = u, .shift = sorted_median(d, k), .lo = NAN, .hi = NAN };
	r.exact = ties == 0.0 && m <= MW_EXACT_MAX && n <= MW_EXACT_MAX;
	double low = fmin(u, (double)k - u);
	r.p = r.exact ? fmin(1.0, 2.0 * nb_mw_cdf(low, m, n)) : p_normal(u, m, n, ties);
	int c = nb_mw_critical(m, n);
	r.ci = c >= 0 && (size_t)c <= k - 1 - (size_t)c;
	if (r.ci) {
		r.lo = d[c];
		r.hi = d[k - 1 - (size_t)c];
	}
	free(d);
	free(all);
	*out = r;
	return true;
}

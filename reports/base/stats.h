/* nbrun — statistics across independent repetitions.
 *
 * Running moments use Welford's update, so a series like 1e9+1, 1e9+2, 1e9+3
 * keeps its stddev of 1 where the naive sum-of-squares formula loses it to
 * cancellation. Confidence intervals use Student's t with n-1 degrees of
 * freedom and are only meant for independent repetitions, never for the
 * per-interval or per-packet samples of one run (those are correlated, and a
 * CI over them would be far too narrow). Undefined values (stddev of one
 * sample, CV of a zero mean) are NAN, which every writer prints as an empty cell.
 */
#ifndef NB_STATS_H
#define NB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Running count, mean, M2, min and max (Welford). */
struct nb_stats {
	size_t n;
	double mean, m2, min, max;
};

/** Reset to empty. */
void nb_stats_init(struct nb_stats *s);
/** Add one value (NAN and infinities are ignored). */
void nb_stats_add(struct nb_stats *s, double x);
/** Mean; NAN when empty. */
double nb_stats_mean(const struct nb_stats *s);
/** Sample standard deviation (n-1); NAN when n < 2. */
double nb_stats_stddev(const struct nb_stats *s);
/** Coefficient of variation stddev/|mean| as a fraction; NAN when n < 2 or mean == 0. */
double nb_stats_cv(const struct nb_stats *s);
/** Quantile p (0 < p < 1) of Student's t with df > 0 degrees of freedom (any real df;
 *  INFINITY gives the normal quantile); NAN outside those ranges. */
double nb_stats_t_quantile(double p, double df);
/** Two-sided 95 % Student t critical value t(0.975, df); NAN for df 0. */
double nb_stats_t95(size_t df);
/** Half-width of the 95 % CI of the mean; NAN when n < 2. */
double nb_stats_ci95_half(const struct nb_stats *s);
/** The 95 % CI of the mean, mean ± t(0.975, n−1)·s/√n, cut at 0 below: every metric nbrun
 *  measures is a count, rate, time or share and cannot be negative. Returns true when the
 *  interval had to be cut (too few runs for their spread); lo and hi are NAN when n < 2. */
bool nb_stats_ci95(const struct nb_stats *s, double *lo, double *hi);
/** netperf -I rule: true when the 95 % CI half-width is at most rel_width x |mean| (n >= 2). */
bool nb_stats_ci_reached(const struct nb_stats *s, double rel_width);
/** The cap of every repetitions estimate (the report, summary.csv and the pitfalls say one number). */
#define NB_STATS_REPS_CAP 1000000u
/** Repetitions that bring the 95 % CI half-width under rel x |mean| at this CV (stddev/|mean|):
 *  at least 2, at most cap; 0 when rel <= 0 or cv is not a number. */
uint32_t nb_stats_reps_for_cv(double cv, double rel, uint32_t cap);
/** Repetitions needed for a 95 % CI half-width of rel_width x |mean| if stddev and mean stay
 *  as they are (at least 2, capped at cap); 0 when unknown (n < 2 or mean 0). */
uint32_t nb_stats_reps_needed(const struct nb_stats *s, double rel_width, uint32_t cap);
/** `repetitions: auto` stop rule: n >= max, or n >= min and the CI target is reached. */
bool nb_stats_autorep_done(const struct nb_stats *s, uint32_t min, uint32_t max, double rel_width);

/** Sort v ascending in place (NAN-free input). */
void nb_stats_sort(double *v, size_t n);
/** Percentile p in [0,100] of sorted v with linear interpolation (R type 7); NAN when n == 0. */
double nb_stats_percentile(const double *sorted, size_t n, double p);
/** Whether n samples can estimate quantile q (0.99, 0.9999 ...): n >= 1/(1-q). Below that the
 *  "percentile" is only the sample maximum (p99.99 of 2001 samples), so it is left out. */
bool nb_stats_quantile_supported(double q, double n);
/** Flag values beyond 1.5 IQR outside the quartiles (Tukey fences); flags[i] for v[i]
 *  (v need not be sorted). Returns how many are flagged; none when n < 4. */
size_t nb_stats_outliers(const double *v, size_t n, bool *flags);

#endif

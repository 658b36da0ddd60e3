/* nbrun — per-case statistics across repetitions, and summary.csv.
 *
 * Only repetitions (kind "run") with status "ok" enter the statistics; failed and
 * invalid runs are counted beside them, outliers (1.5 IQR) are flagged, never
 * dropped. Latency percentiles come two ways: from the histograms of all runs
 * merged (the distribution of every transaction), and as the mean of each run's
 * own percentile (how stable the tail is from run to run). */
#ifndef NB_SUMMARY_H
#define NB_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cols.h"
#include "hist.h"
#include "pitfalls.h"
#include "results.h"
#include "stats.h"

#define NB_SUMMARY_CSV_FILE "summary.csv"
#define NB_LAT_NQ 5 /* p50, p90, p99, p99.9, p99.99 */

/** Statistics of one case. */
struct nb_case_stats {
	const struct nb_plan_case *pc;
	const char *metric;          /* headline column name ("" when no run said) */
	int metric_col;              /* its nb_cols index, -1 unknown */
	struct nb_stats value;       /* headline across counted runs */
	double median, ci_half;      /* NAN when undefined */
	double ci_lo, ci_hi;         /* the 95 % CI of the mean, cut at 0 (nb_stats_ci95); NAN n < 2 */
	bool ci_clipped;             /* the t interval reached below 0: n too small for the spread */
	size_t n_failed, n_invalid, n_trials, outliers;
	double metric_mean[NB_COL_COUNT];   /* mean of each column across counted runs */
	double metric_max[NB_COL_COUNT];    /* highest of each column (CPU pitfalls) */
	double metric_min[NB_COL_COUNT];    /* lowest of each column (paced rate met?) */
	struct nb_hist *merged;      /* counted runs' histograms added up, or NULL */
	struct nb_hist_summary lat;  /* of merged */
	bool lat_ok[NB_LAT_NQ];      /* merged has enough samples for the percentile (n >= 1/(1-q));
					writers leave the others out */
	double lat_runmean_us[NB_LAT_NQ];   /* mean over the runs that have enough samples of each
					       run's percentile; NAN when none has */
	bool ci_reached;             /* CI half-width within pc->ci_target */
	uint32_t reps_needed;        /* for a +-2 % CI at the current stddev; 0 unknown */
	double first_interval, median_interval; /* headline, for the slow-start pitfall */
};

struct nb_summary {
	struct nb_case_stats *c;     /* one per nb_results case, same order */
	size_t n;
	bool *run_outlier;           /* per nb_results run */
};

/** Compute every case's statistics. */
bool nb_summary_compute(const struct nb_results *res, struct nb_summary *s, struct nb_error *err);
/** Free; a zeroed summary is fine. */
void nb_summary_free(struct nb_summary *s);
/** Write summary.csv (replacing any previous file) at path. */
bool nb_summary_write_csv(const struct nb_results *res, const struct nb_summary *s, const char *path,
			  struct nb_error *err);
/** Fill one pitfall case per summary case; variants[i] (64 bytes each) backs out[i].variant. */
void nb_summary_pitfall_cases(const struct nb_summary *s, struct nb_pitfall_case *out,
			      char (*variants)[64]);
/** Latency samples behind a run's percentile columns: its histogram's count, else its
 *  transactions; NAN when neither is known. */
double nb_run_lat_samples(const struct nb_run *r);
/** Blank (NAN) the lat_pXX_us columns of m that n samples cannot estimate (n < 1/(1-q)). */
void nb_summary_hide_thin_pct(struct nb_metrics *m, double n);
/** The merged percentile q of c in ns, or NAN when c has none or too few samples for it. */
double nb_case_lat_pct_ns(const struct nb_case_stats *c, size_t q);
/** Percentile q (0.5, 0.9 ...) of the NB_LAT_NQ reported ones, by index. */
extern const double nb_lat_quantiles[NB_LAT_NQ];
/** Their column-name suffixes: "p50", "p90", "p99", "p999", "p9999". */
extern const char *const nb_lat_names[NB_LAT_NQ];

#endif

/* nbrun — compare: BASE against one or more NEW results folders.
 *
 * Cases are matched by case id. For each matched case the repetitions of runs.csv
 * (kind run, status ok) give mean and stddev on both sides; the change is called
 * significant by Welch's t-test at 95 % when both sides have n >= 2, by a 95 %
 * prediction interval when one side has a single run, and not tested at all when
 * both have one (the threshold alone decides, labelled "n=1"). A regression is a
 * significant change beyond the threshold in the worse direction of the metric
 * (nb_cols[].better); an improvement the same in the better direction. Unmatched
 * cases and environment differences are kept and reported, never dropped.
 */
#ifndef NB_COMPARE_H
#define NB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cols.h"
#include "error.h"
#include "results.h"
#include "stats.h"

/** Exit codes of `nbrun compare`. */
enum nb_cmp_exit { NB_CMP_EXIT_OK = 0, NB_CMP_EXIT_REGRESSION = 1, NB_CMP_EXIT_INPUT = 2 };

/** How significance was decided. */
enum nb_cmp_test {
	NB_CMP_TEST_NONE,     /* a side has no counted run */
	NB_CMP_TEST_WELCH,    /* both n >= 2: Welch's t-test */
	NB_CMP_TEST_OVERLAP,  /* one side n = 1: outside the other's 95 % prediction interval */
	NB_CMP_TEST_N1,       /* both n = 1: no spread known, the threshold alone decides */
};

enum nb_cmp_verdict {
	NB_CMP_UNCHANGED,
	NB_CMP_REGRESSION,
	NB_CMP_IMPROVEMENT,
	NB_CMP_CHANGED,       /* significant, beyond threshold, metric has no better direction */
	NB_CMP_NODATA,        /* a side has no counted run or no value for the metric */
	NB_CMP_NVERDICTS
};

/** Welch's unequal-variance t-test of two samples. */
struct nb_welch {
	double t;             /* (mean_b - mean_a) / se; +-INFINITY when se = 0 and means differ */
	double df;            /* Welch-Satterthwaite degrees of freedom */
	double t_crit;        /* two-sided 95 % critical value at df */
	bool significant;     /* |t| > t_crit */
};

/** One case of BASE against one NEW folder. */
struct nb_cmp_cell {
	bool present;         /* the case exists in this NEW folder */
	struct nb_stats st;   /* NEW's counted repetitions */
	double change;        /* (new - base) / |base|; +-INFINITY when base is 0 */
	enum nb_cmp_test test;
	struct nb_welch welch; /* NB_CMP_TEST_WELCH only */
	bool significant;
	enum nb_cmp_verdict verdict;
	const char *reason;   /* "within noise", "below threshold", "welch" ... */
};

/** One case of BASE with its cell per NEW folder. */
struct nb_cmp_row {
	const char *case_id, *test;
	const char *metric;   /* column compared */
	int col;              /* its nb_cols index, -1 unknown */
	struct nb_stats base;
	struct nb_cmp_cell *cells; /* one per NEW folder */
};

/** One results folder taking part. */
struct nb_cmp_side {
	char label[64];       /* folder base name, made unique */
	struct nb_results res;
	const char **only_here;  /* NEW: case ids not in BASE; BASE: unused */
	size_t n_only_here;
	const char **missing;    /* NEW: BASE case ids absent here */
	size_t n_missing;
	char **env_diff;      /* NEW: "local iface.mtu: 9001 → 1500" against BASE */
	size_t n_env_diff;
	size_t count[NB_CMP_NVERDICTS];
};

struct nb_compare {
	double threshold;     /* fraction */
	const char *metric;   /* --metric, or NULL for each case's headline */
	struct nb_cmp_side *sides; /* [0] = BASE, [1..nsides) = NEW */
	size_t nsides;
	struct nb_cmp_row *rows;   /* one per BASE case */
	size_t nrows;
	size_t count[NB_CMP_NVERDICTS]; /* over every row x NEW cell */
	size_t n_env_diff;         /* over every NEW folder */
};

/** Options of one `nbrun compare`. */
struct nb_compare_opts {
	const char *const *paths;  /* BASE, NEW... (folders or a file inside one) */
	size_t npaths;
	double threshold;          /* fraction, 0.05 = 5 % */
	const char *metric;        /* NULL: headline metric of each case */
	const char *format;        /* "md" (default), "csv", "json" */
	const char *out;           /* file to write, or NULL for out */
};

/** Welch's t-test of b against a; false (out untouched) unless both have n >= 2. */
bool nb_welch_test(const struct nb_stats *a, const struct nb_stats *b, struct nb_welch *out);
/** Two-sided 95 % Student t critical value for a real df: nb_stats_t_quantile(0.975, df). */
double nb_cmp_t95(double df);
/** The verdict rule above, for one cell against base in column col (-1: no direction). */
void nb_cmp_judge(struct nb_cmp_cell *cell, const struct nb_stats *base, int col, double threshold);

/** Resolve a BASE/NEW argument to its results folder (a file inside it → its folder). */
bool nb_cmp_resolve(const char *arg, char *dir, size_t len, struct nb_error *err);
/** Load every folder, validate runs.csv strictly, match cases and compute verdicts. */
bool nb_compare_build(struct nb_compare *c, const struct nb_compare_opts *o, struct nb_error *err);
/** Free everything; a zeroed struct is fine. */
void nb_compare_free(struct nb_compare *c);

/** Write the Markdown report; chart_png is a path relative to it, or NULL. */
bool nb_compare_write_md(const struct nb_compare *c, FILE *f, const char *chart_png);
/** Write one CSV row per case x NEW folder (unmatched cases too). */
bool nb_compare_write_csv(const struct nb_compare *c, FILE *f);
/** Write the comparison as one JSON document. */
bool nb_compare_write_json(const struct nb_compare *c, FILE *f, struct nb_error *err);
/** Write dir/compare.{dat,gp} (dir created) and render compare.png when gnuplot is on PATH;
 *  *rendered says whether the PNG was drawn. */
bool nb_compare_chart(const struct nb_compare *c, const char *dir, bool *rendered,
		      struct nb_error *err);

/** Verdict name: "unchanged", "regression", "improvement", "changed", "no data". */
const char *nb_cmp_verdict_name(enum nb_cmp_verdict v);
/** Test name: "-", "welch", "overlap", "n=1". */
const char *nb_cmp_test_name(enum nb_cmp_test t);
/** "3 regressions, 1 improvement, 14 unchanged" (+ changed / without data when any). */
void nb_cmp_summary_line(const size_t count[NB_CMP_NVERDICTS], char *buf, size_t len);

/** The whole command: build, write the chosen format to o->out (or out), the chart beside
 *  --out, regressions and notes on diag. Returns an enum nb_cmp_exit value. */
int nb_compare_run(const struct nb_compare_opts *o, FILE *out, FILE *diag);

#endif

/* nbrun — compare: BASE against one or more NEW results folders.
 *
 * Cases are matched by case id. For each matched case the repetitions of runs.csv (kind run,
 * status ok) of both sides give an estimate of the change and its 95 % confidence interval:
 * Welch's CI of the difference of means (both sides n >= 2), a prediction-based CI when one
 * side has a single run, or - for latency and request/response metrics, whose run-to-run
 * distributions are often bimodal - the Hodges-Lehmann shift with its Mann-Whitney (Moses)
 * CI. The verdict is read off that CI against the threshold: regression or improvement only
 * when the whole CI is beyond it, unchanged when the whole CI is inside it, inconclusive
 * otherwise. The gate fails closed: an interrupted NEW folder, a failed or empty case, a case
 * missing from NEW and a case whose parameters differ are problems, each with its exit code.
 *
 * Everything a writer prints is decided here, in struct nb_compare; the writers (Markdown,
 * CSV, JSON, chart, stderr) only format it, so another output format is one more writer.
 */
#ifndef NB_COMPARE_H
#define NB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cols.h"
#include "nb_error.h"
#include "results.h"
#include "stats.h"

/** Exit codes of `nbrun compare`. When several apply, the first of this order wins:
 *  input, interrupted, failed, missing, parameters, regression, inconclusive. */
enum nb_cmp_exit {
	NB_CMP_EXIT_OK = 0,
	NB_CMP_EXIT_REGRESSION = 1,   /* a regression (gate mode only) */
	NB_CMP_EXIT_INPUT = 2,        /* usage or input error */
	NB_CMP_EXIT_INTERRUPTED = 3,  /* a NEW folder's batch did not finish */
	NB_CMP_EXIT_FAILED = 4,       /* a case with failed runs or no counted run */
	NB_CMP_EXIT_MISSING = 5,      /* a BASE case absent from a NEW folder */
	NB_CMP_EXIT_PARAMS = 6,       /* a case whose parameters differ (not --expect-diff) */
	NB_CMP_EXIT_INCONCLUSIVE = 7, /* an inconclusive verdict with --fail-on-inconclusive */
};

/** How the change and its CI were estimated (the test that decided). */
enum nb_cmp_test {
	NB_CMP_TEST_NONE,     /* no CI: a side has no run, or one run on each side */
	NB_CMP_TEST_WELCH,    /* both n >= 2: Welch's CI of the difference of means */
	NB_CMP_TEST_PRED,     /* one side n = 1: the other side's spread, prediction-interval style */
	NB_CMP_TEST_RANK,     /* Mann-Whitney: Hodges-Lehmann shift and its (Moses) CI */
};

enum nb_cmp_verdict {
	NB_CMP_UNCHANGED,     /* the whole CI inside +-threshold */
	NB_CMP_REGRESSION,    /* the whole CI beyond the threshold in the worse direction */
	NB_CMP_IMPROVEMENT,   /* the whole CI beyond the threshold in the better direction */
	NB_CMP_CHANGED,       /* beyond the threshold, but the metric has no better direction */
	NB_CMP_INCONCLUSIVE,  /* the CI reaches across the threshold (or there is none) */
	NB_CMP_NODATA,        /* a side has no counted run or no value for the metric */
	NB_CMP_DIFFERENT,     /* the case's parameters differ: not judged */
	NB_CMP_NVERDICTS
};

/** Welch's unequal-variance CI of mean(b) - mean(a) (also used for the one-run case). */
struct nb_welch {
	double diff;          /* mean_b - mean_a */
	double se;            /* standard error of diff */
	double df;            /* Welch-Satterthwaite degrees of freedom */
	double t;             /* diff / se; +-INFINITY when se = 0 and diff != 0 */
	double t_crit;        /* two-sided 95 % critical value at df (nb_cmp_t95) */
	double lo, hi;        /* diff -+ t_crit * se */
	bool significant;     /* |t| > t_crit: the CI excludes 0 */
};

/** Mann-Whitney U test of b against a, with the Hodges-Lehmann shift and its CI. */
struct nb_mw {
	double u;             /* pairs (a_i, b_j) with b_j > a_i, ties counted 1/2 */
	double p;             /* two-sided p-value */
	bool exact;           /* p and CI from the exact distribution (no ties, n <= 30 each) */
	double shift;         /* median of all b_j - a_i */
	bool ci;              /* a 95 % CI exists at these sample sizes */
	double lo, hi;        /* its bounds (the shift's CI), when ci */
};

/** What one side measured for one case. */
struct nb_cmp_sample {
	double *v;            /* counted values of the metric */
	struct nb_stats st;   /* of v */
	double median;        /* NAN when empty */
	size_t runs, failed;  /* kind-run rows of the case, and how many failed */
	const char *error;    /* the first failed run's error, or NULL */
	char warn[160];       /* the case's warnings in its folder ("cpu-bound, unstable"), or "" */
};

/** One case of BASE against one NEW folder. */
struct nb_cmp_cell {
	bool present;         /* the case exists in this NEW folder */
	struct nb_cmp_sample s;
	enum nb_cmp_test test;   /* the estimate that decided */
	bool have_welch, have_mw;
	struct nb_welch welch;   /* Welch (or prediction) CI, when both sides have a run */
	struct nb_mw mw;         /* rank test, rank metrics with n >= 2 per side */
	double diff, lo, hi;     /* the deciding estimate, absolute (new - base); NAN none */
	double change, ch_lo, ch_hi; /* the same relative to |base|; NAN when base is 0 */
	double detectable;       /* smallest change this noise and n can call beyond the threshold */
	bool clipped;            /* the CI reached below -100 % (a negative new value): cut there */
	enum nb_cmp_verdict verdict;
	const char *reason;      /* short: "CI beyond threshold", "one run each side" ... */
	char *param_diff;        /* "mss 0 → 536, duration_s 10 → 1" or NULL */
	bool params_expected;    /* every parameter difference was declared by --expect-diff */
};

/** One case of BASE with its cell per NEW folder. */
struct nb_cmp_row {
	const char *case_id, *test;
	const char *metric;   /* column compared */
	int col;              /* its nb_cols index, -1 unknown; a working case's number (below): a
				 column of the same better direction */
	const char *unit;     /* the metric's unit when col's is not it ("RPM"), else NULL */
	const char *working;  /* a working case's inflation or RPM (working.csv): that case's id;
				 NULL for runs.csv's rows */
	bool rank;            /* latency / request-response metric: the rank test decides */
	struct nb_cmp_sample base;
	struct nb_cmp_cell *cells; /* one per NEW folder */
};

/** One difference between BASE and a NEW folder: an environment fact, config or version. */
struct nb_cmp_diff {
	char where[72];       /* "local", "peer", a host's name (runs on several agent hosts), or
				 "" (the run itself) */
	char key[80];         /* "iface.mtu", "config.sha256", "nbrun.version" */
	char from[200], to[200];
	bool expected;        /* declared with --expect-diff */
};

/** What fails the gate (unless --allow-missing relaxes it; parameters always count). */
enum nb_cmp_problem_kind {
	NB_CMP_P_INTERRUPTED, /* the folder's batch did not finish */
	NB_CMP_P_FAILED,      /* a case with failed runs or no counted run */
	NB_CMP_P_MISSING,     /* a BASE case absent from NEW */
	NB_CMP_P_PARAMS,      /* a case whose parameters differ */
	NB_CMP_P_NKINDS
};

struct nb_cmp_problem {
	enum nb_cmp_problem_kind kind;
	size_t side;          /* index into nb_compare.sides */
	const char *case_id;  /* NULL for a folder-wide problem */
	char text[240];       /* "3 of 3 runs failed: congestion control 'nosuchcc' ..." */
};

/** One results folder taking part. */
struct nb_cmp_side {
	char label[64];       /* folder base name, made unique */
	char name[64];        /* how the report names it: --names, else the label */
	struct nb_results res;
	const char **only_here;  /* NEW: case ids not in BASE; BASE: unused */
	size_t n_only_here;
	const char **missing;    /* NEW: BASE case ids absent here */
	size_t n_missing;
	struct nb_cmp_diff *diff; /* NEW: its differences from BASE */
	size_t ndiff;
	size_t count[NB_CMP_NVERDICTS];
};

/** --metric all: each case on its own headline metric (the default). */
#define NB_CMP_METRIC_ALL "all"

struct nb_compare {
	double threshold;     /* fraction */
	const char *const *metrics; /* --metric, each a column or NB_CMP_METRIC_ALL; rows are
				       made per metric, then per BASE case */
	size_t nmetrics;      /* 0: as NB_CMP_METRIC_ALL */
	bool neutral;         /* vendor mode: "B is 6.8 % slower than A", no regression gate */
	bool allow_missing, fail_on_inconclusive;
	struct nb_cmp_side *sides; /* [0] = BASE, [1..nsides) = NEW */
	size_t nsides;
	struct nb_cmp_row *rows;   /* one per metric x BASE case (a case once per column), then
				      with the headlines the working cases' inflation and RPM */
	size_t nrows;
	size_t count[NB_CMP_NVERDICTS]; /* over every row x NEW cell */
	size_t judged;             /* cells with a verdict read off a CI (multiple comparisons) */
	size_t n_env_diff;         /* unexpected differences over every NEW folder */
	struct nb_cmp_problem *problems;
	size_t nproblems;
	const char *const *expect; /* --expect-diff keys */
	size_t nexpect;
};

/** Options of one `nbrun compare`. */
struct nb_compare_opts {
	const char *const *paths;  /* BASE, NEW... (folders or a file inside one) */
	size_t npaths;
	double threshold;          /* fraction, 0.05 = 5 % */
	const char *const *metrics; /* --metric NAME or "all" (repeatable); none: "all" */
	size_t nmetrics;
	const char *format;        /* "md" (default), "csv", "json" */
	const char *out;           /* file to write, or NULL for out */
	const char *junit;         /* also write JUnit XML here, or NULL */
	const char *summary;       /* also write the short Markdown summary here, or NULL */
	const char *names;         /* "A,B": a name per folder; implies neutral */
	bool neutral;              /* vendor wording with the folder labels */
	bool allow_missing;        /* interrupted, failed and missing cases do not fail the gate */
	bool fail_on_inconclusive;
	const char *const *expect; /* --expect-diff KEY: environment facts ("iface.mtu"), plan
				      columns ("mss"), "config.sha256", "nbrun.version" */
	size_t nexpect;
};

/** Parse --threshold: a percentage with its sign ("5%", "0.5%"), 0..100 %; false with err
 *  (out untouched) for a bare number, a negative, NAN or anything above 100 %. */
bool nb_cmp_parse_threshold(const char *s, double *out, struct nb_error *err);

/** Welch's CI of b against a; false (out untouched) unless both have n >= 2. */
bool nb_welch_test(const struct nb_stats *a, const struct nb_stats *b, struct nb_welch *out);
/** The same CI when one side has a single run: the other side's spread stands for both. */
bool nb_cmp_pred_ci(const struct nb_stats *a, const struct nb_stats *b, struct nb_welch *out);
/** Two-sided 95 % Student t critical value for a real df: nb_stats_t_quantile(0.975, df). */
double nb_cmp_t95(double df);

/** P(U <= u) under H0 for samples of m and n without ties (exact); NAN for m or n > 30. */
double nb_mw_cdf(double u, size_t m, size_t n);
/** Largest c with P(U <= c) <= 0.025 (exact, m, n <= 30), or -1 when no 95 % CI exists. */
int nb_mw_critical(size_t m, size_t n);
/** Mann-Whitney test of b against a (both n >= 1); false on out of memory or an empty side. */
bool nb_mw_test(const double *a, size_t m, const double *b, size_t n, struct nb_mw *out);

/** The verdict rule above, for one cell against base in column col (-1: no direction);
 *  rank: the rank test decides when it can give a CI. */
void nb_cmp_judge(struct nb_cmp_cell *cell, const struct nb_cmp_sample *base, int col, bool rank,
		  double threshold);
/** Differences of one case's plan.csv row (columns both files have, repetitions and case_id
 *  aside) as "mss 0 → 536, duration_s 10 → 1" into buf; returns how many. Keys listed in
 *  expect are counted in *expected (may be NULL) as well. */
size_t nb_cmp_param_diff(const struct nb_csv_table *a, const struct nb_csv_table *b,
			 const char *case_id, const char *const *expect, size_t nexpect,
			 size_t *expected, char *buf, size_t len);

/** True when key, or "where.key" ("peer.iface.mtu"), is one of the --expect-diff keys. */
bool nb_cmp_expected(const char *const *expect, size_t n, const char *where, const char *key);
/** "+3.1 %", "-20.0 %", "—", or the absolute change "+1.10 % (base 0)" (never infinity). */
void nb_cmp_fmt_change(const struct nb_cmp_row *row, const struct nb_cmp_cell *cell, char *buf,
		       size_t len);
/** The change with its CI: "-6.8 % (95 % CI -7.6 to -6.0 %)", or the change alone; a CI cut at
 *  -100 % ends ", n too small)". */
void nb_cmp_fmt_change_ci(const struct nb_cmp_row *row, const struct nb_cmp_cell *cell, char *buf,
			  size_t len);
/** Why the verdict: "whole 95 % CI beyond -5 %", "CV 47.4 %: changes smaller than 43.0 %
 *  cannot be detected with n = 5/5", "all 3 runs failed in new: ..." */
void nb_cmp_fmt_reason(const struct nb_compare *c, const struct nb_cmp_row *row,
		       const struct nb_cmp_cell *cell, char *buf, size_t len);

/** Resolve a BASE/NEW argument to its results folder (a file inside it → its folder). */
bool nb_cmp_resolve(const char *arg, char *dir, size_t len, struct nb_error *err);
/** Load every folder, validate runs.csv strictly, match cases and compute verdicts. */
bool nb_compare_build(struct nb_compare *c, const struct nb_compare_opts *o, struct nb_error *err);
/** Free everything; a zeroed struct is fine. */
void nb_compare_free(struct nb_compare *c);
/** The exit code the comparison calls for (enum nb_cmp_exit). */
int nb_compare_exit(const struct nb_compare *c);

/** Write the Markdown report; chart_png is a path relative to it, or NULL. */
bool nb_compare_write_md(const struct nb_compare *c, FILE *f, const char *chart_png);
/** Write JUnit XML: a testsuite per metric, a testcase per case x NEW folder, a failure
 *  wherever the exit code fails (regression, failed, missing, parameters, --fail-on-
 *  inconclusive), skipped for what --allow-missing excuses; a "folders" suite for interrupted
 *  batches. */
bool nb_compare_write_junit(const struct nb_compare *c, FILE *f);
/** Write the short Markdown for $GITHUB_STEP_SUMMARY: the gate line, problems, and the rows
 *  that are not unchanged. */
bool nb_compare_write_summary(const struct nb_compare *c, FILE *f);
/** Write one CSV row per case x NEW folder (unmatched cases too). */
bool nb_compare_write_csv(const struct nb_compare *c, FILE *f);
/** Write the comparison as one JSON document. */
bool nb_compare_write_json(const struct nb_compare *c, FILE *f, struct nb_error *err);
/** Write dir/compare.{dat,gp} (dir created) and render compare.png when gnuplot is on PATH;
 *  *rendered says whether the PNG was drawn. */
bool nb_compare_chart(const struct nb_compare *c, const char *dir, bool *rendered,
		      struct nb_error *err);
/** The charts folder of an --out file: "x/vendor.md" → "x/vendor-charts". */
void nb_compare_chart_dir(const char *out, char *dir, size_t len);

/** Verdict name: "unchanged", "regression", "improvement", "changed", "inconclusive",
 *  "no data", "not compared". */
const char *nb_cmp_verdict_name(enum nb_cmp_verdict v);
/** Test name: "-", "welch", "one-run", "mann-whitney". */
const char *nb_cmp_test_name(enum nb_cmp_test t);
/** Problem name: "interrupted", "failed", "missing", "parameters differ". */
const char *nb_cmp_problem_name(enum nb_cmp_problem_kind k);
/** "3 regressions, 1 improvement, 14 unchanged" (+ inconclusive, changed, without data, not
 *  compared when any). */
void nb_cmp_summary_line(const size_t count[NB_CMP_NVERDICTS], char *buf, size_t len);

/** The whole command: build, write the chosen format to o->out (or out), the chart beside
 *  --out, problems, regressions and notes on diag. Returns an enum nb_cmp_exit value. */
int nb_compare_run(const struct nb_compare_opts *o, FILE *out, FILE *diag);

#endif

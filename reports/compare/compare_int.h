/* nbrun — compare internals shared by compare*.c (not a public interface). */
#ifndef NB_COMPARE_INT_H
#define NB_COMPARE_INT_H

#include <jansson.h>
#include <stdio.h>

#include "compare.h"

/* ---- building (compare_diff.c, compare_gate.c, compare_warn.c) ---- */

/** Fill each NEW side's environment, config and version differences from BASE. */
bool nb_cmp_diff_sides(struct nb_compare *c);
/** Collect what fails the gate into c->problems. */
bool nb_cmp_find_problems(struct nb_compare *c);
/** Fill each sample's warnings: the folder's per-case pitfalls and its runs' flags. */
bool nb_cmp_warnings(struct nb_compare *c);

/** How many rows the first metric has: rows [0, n) are every BASE case once, in order (the
 *  rows gate problems and parameter differences are read from). */
size_t nb_cmp_case_rows(const struct nb_compare *c);
/** The one named --metric column, or NULL (headlines, or several metrics). */
const char *nb_cmp_single_metric(const struct nb_compare *c);

/* ---- charts (compare_chart.c, compare_chart_ab.c) ---- */

/** A chart title's second line, escaped for a gnuplot string: each folder's host pair and day
 *  ("A: vm1 → 10.0.0.2, 2024-06-01 · B: ...") and the nbrun version. */
void nb_cmp_chart_context(FILE *gp, const struct nb_compare *c);
/** The colour of a cell's verdict in the charts (0xRRGGBB). */
unsigned nb_cmp_chart_rgb(const struct nb_cmp_cell *cell);
/** Neutral mode: per metric, values-METRIC.{dat,gp} in dir (and .png, .svg with gnuplot): each
 *  folder's mean and 95 % CI per case in real units, coloured by verdict. */
bool nb_compare_chart_values(const struct nb_compare *c, const char *dir, struct nb_error *err);

/* ---- wording (compare_text.c), shared by every writer ---- */

/** What a base or new cell shows: the statistic its verdict was computed on (flags). */
enum nb_cmp_show { NB_CMP_SHOW_MEAN = 1, NB_CMP_SHOW_MEDIAN = 2 };
/** The median when the rank test decided the cell, else the mean ± stddev (Welch, one-run). */
unsigned nb_cmp_cell_shows(const struct nb_cmp_cell *cell);
/** A row's base column: what its NEW cells were decided on (both when they differ). */
unsigned nb_cmp_base_shows(const struct nb_compare *c, const struct nb_cmp_row *row);
/** After judging a cell: case_id's parameters on side res against BASE's (compare_diff.c): the
 *  difference into cell->param_diff (none: NULL), and one nobody declared (--expect) makes the
 *  cell not compared. False: out of memory. */
bool nb_cmp_cell_params(const struct nb_compare *c, const struct nb_results *res,
			const char *case_id, struct nb_cmp_cell *cell);
/** qsort's order of doubles, ascending. */
int nb_cmp_double(const void *x, const void *y);
/** An empty sample with room for cap values (false: out of memory). */
bool nb_cmp_sample_start(struct nb_cmp_sample *s, size_t cap);
/** Its values sorted and their median, once they are all in (s->st.n of them). */
void nb_cmp_sample_end(struct nb_cmp_sample *s);
/** "9.30 ± 0.30 Gbit/s", "median 46.0 µs", both ("median 15.0 µs · 26.9 ± 20.7 µs"), "—" when
 *  n = 0; show is nb_cmp_cell_shows or nb_cmp_base_shows. */
void nb_cmp_fmt_sample(const struct nb_cmp_row *row, const struct nb_cmp_sample *s, unsigned show,
		       char *buf, size_t len);
/** The verdict as the report says it: gate mode "regression"; neutral "B slower". */
void nb_cmp_fmt_verdict(const struct nb_compare *c, size_t side, const struct nb_cmp_row *row,
			const struct nb_cmp_cell *cell, char *buf, size_t len);
/** Neutral mode: "B is 6.8 % slower than A (95 % CI 6.0–7.6 %)". */
void nb_cmp_sentence(const struct nb_compare *c, size_t side, const struct nb_cmp_row *row,
		     const struct nb_cmp_cell *cell, char *buf, size_t len);
/** One line per NEW side and metric for neutral mode (several cases of one metric). */
void nb_cmp_metric_sentence(const struct nb_compare *c, size_t side, const char *metric,
			    char *buf, size_t len);
/** The verdict counts: nb_cmp_summary_line in gate mode; "2 different beyond ±5 %, 3 the same
 *  within ±5 %" in neutral mode. */
void nb_cmp_fmt_counts(const struct nb_compare *c, const size_t count[NB_CMP_NVERDICTS], char *buf,
		       size_t len);
/** "local iface.mtu: 9001 → 1500". */
void nb_cmp_fmt_diff(const struct nb_cmp_diff *d, char *buf, size_t len);
/** The unit of a row's metric column ("" unknown). */
const char *nb_cmp_row_unit(const struct nb_cmp_row *row);
/** "higher", "lower" or "none": the better direction of a row's metric. */
const char *nb_cmp_better_name(int col);
/** What the exit code means, one short phrase. */
const char *nb_cmp_exit_meaning(int rc);

/* ---- searches (compare_search.c): each BASE search goal against each NEW folder's ---- */

/** "## Searches (MLRsearch goals)": each goal's conditional throughput per side, and its
 *  change; nothing when BASE has no search. */
void nb_cmp_md_searches(const struct nb_compare *c, FILE *f);
/** A CSV row per BASE search goal against NEW side `side` (verdict "not judged"). */
void nb_cmp_csv_searches(const struct nb_compare *c, FILE *f, size_t side);
/** The JSON document's "searches": [{case_id, goal, metric, unit, ..., new: [...]}]. */
json_t *nb_cmp_json_searches(const struct nb_compare *c);

/* ---- one value each side (compare_single.c): the searches' and latency at % of PDR's tables ---- */

#define NB_CMP_SINGLE_SIDES 16  /* the sides those tables show at most */
/** (new - base) / base in %, NAN when either is unknown or base is 0. */
double nb_cmp_single_change_pct(double base, double new_);
/** "## TITLE", then the header "| Case | WHAT | BASE | NEW ... |" and its rule. */
void nb_cmp_single_header(const struct nb_compare *c, FILE *f, const char *title, const char *what);
/** BASE's value, each NEW side's (news[1..]) with its change in %, the row's end. */
void nb_cmp_single_cells(const struct nb_compare *c, FILE *f, double base, const double *news,
			 const char *unit);

/* ---- latency at % of PDR (compare_pdr_latency.c): each BASE search's, against each NEW's ---- */

/** "## Latency at % of PDR": each number per side and its change; nothing without one. */
void nb_cmp_md_pdr_latency(const struct nb_compare *c, FILE *f);
/** A CSV row per BASE number against NEW side `side` (verdict "not judged"). */
void nb_cmp_csv_pdr_latency(const struct nb_compare *c, FILE *f, size_t side);
/** The JSON document's "pdr_latency": [{case_id, metric, goal, pct_of_goal, quantile, us, new}]. */
json_t *nb_cmp_json_pdr_latency(const struct nb_compare *c);

/** With the headlines (--metric all), append to c->rows each BASE working case's rows
 *  (compare_working.c): every probe's inflation_p50_us (the probe's case id, lower is better)
 *  and the case's rpm_tcp (higher is better), judged and gated as a headline. */
bool nb_cmp_working_rows(struct nb_compare *c);
/** The working cases' section of compare.md (compare_working.c): those rows, in their words. */
void nb_cmp_working_md(const struct nb_compare *c, FILE *f);

#endif

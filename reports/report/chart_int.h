/* nbrun — inside the chart modules: the helpers every chart kind uses (chart.c) and the
 * kinds themselves (chart_xy.c, chart_latency.c, chart_sweep.c, chart_timeseries.c), each
 * adding its charts for the whole results folder. Not for use outside the chart modules. */
#ifndef NB_CHART_INT_H
#define NB_CHART_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "chart.h"

/** Add a chart and open its .dat and .gp (the .gp already holds the common preamble). */
struct nb_chart *nb_chart_begin(struct nb_charts *c, const char *dir, enum nb_chart_kind kind,
				const char *stem, const char *title, FILE **dat, FILE **gp,
				struct nb_error *err);
/** Write the closing lines (SVG replot) of the chart nb_chart_begin added last and commit its
 *  .dat and .gp (each written whole or not at all, afile.h). */
bool nb_chart_end(struct nb_charts *c, struct nb_error *err);
/** The i-th series style number (1-based, cycling through the palette). */
int nb_chart_gp_style(size_t i);
/** A plot element (no separator) that puts a hover point at each row of index `index` of
 *  NAME.dat: x and y from `xy` ("1:2", "($1+0.2):3"), its text from column textcol (a quoted
 *  string, nb_chart_dat_label). An SVG shows the text on hover (report.html makes it the
 *  point's <title>); a PNG draws the point only. */
void nb_chart_gp_hover(FILE *gp, const char *name, size_t index, const char *xy, int textcol,
		       int lt);
/** A .dat column of text: s in double quotes (any " or line break in it made harmless). */
void nb_chart_dat_label(FILE *dat, const char *s);
/** The case id without its test's prefix ("tcp/s128K/p1/forward"): the title names the test. */
const char *nb_chart_short_label(const struct nb_plan_case *p);
/** True when case i is the first of its test in s (each test once, in plan order). */
bool nb_chart_first_of_test(const struct nb_summary *s, size_t i);

/** Headline vs message size and vs streams, per test (chart_xy.c). */
bool nb_charts_xy(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		  struct nb_charts *c, struct nb_error *err);
/** Latency by percentile from merged histograms, per test (chart_latency.c). */
bool nb_charts_latency(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		       struct nb_charts *c, struct nb_error *err);
/** Received rate and loss vs offered rate, per swept case (chart_sweep.c). */
bool nb_charts_sweep(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		     struct nb_charts *c, struct nb_error *err);
/** The headline per interval of each repetition, per case (chart_timeseries.c). */
bool nb_charts_timeseries(const char *dir, const struct nb_results *res, const struct nb_summary *s,
			  struct nb_charts *c, struct nb_error *err);
/** Each case's headline over its repetitions, a box per case, per test (chart_box.c). */
bool nb_charts_box(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		   struct nb_charts *c, struct nb_error *err);
/** The box of n values v (sorted here) at x: "x whisker_lo q1 median q3 whisker_hi", quartiles
 *  of R's type 7, whiskers to the furthest value within 1.5 IQR; nothing when n = 0. */
void nb_chart_box_dat(FILE *dat, double *v, size_t n, size_t x);
/** The plot command of a box chart of n boxes: blocks 0 .. n-1 of NAME.dat the points (x value
 *  hover), block n the boxes (nb_chart_box_dat rows). */
void nb_chart_box_plot(FILE *gp, const char *name, size_t n);
/** Each path's headline per interval, stacked, per multi-path case (chart_paths.c). */
bool nb_charts_paths(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		     struct nb_charts *c, struct nb_error *err);

/** A working case's load and probes on one time axis, its phases shaded (chart_working.c). */
bool nb_charts_working(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		       struct nb_charts *c, struct nb_error *err);
/** A working case's numbers over its repetitions, a box each: latency (loaded p50, p99 and
 *  inflation per probe), throughput each way, RPM (chart_working_box.c). */
bool nb_charts_working_box(const char *dir, const struct nb_results *res,
			   const struct nb_summary *s, struct nb_charts *c, struct nb_error *err);
/** Each working probe's latency CDF, idle and loaded on one chart (chart_working_cdf.c). */
bool nb_charts_working_cdf(const char *dir, const struct nb_results *res,
			   const struct nb_summary *s, struct nb_charts *c, struct nb_error *err);

#endif

/* nbrun — charts: for each chart a gnuplot data file (.dat) and script (.gp) in
 * charts/, always written, so a chart can be redrawn or restyled without nbrun.
 * When gnuplot is on PATH each script is run (posix_spawnp, never a shell) in the
 * charts folder and writes NAME.png (pngcairo when built in, else png) and NAME.svg. */
#ifndef NB_CHART_H
#define NB_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "nb_error.h"
#include "gnuplot.h"
#include "results.h"
#include "summary.h"

#define NB_CHART_DIR "charts"    /* the sub-folder of a results folder */

struct nb_chart_files;

enum nb_chart_kind {
	NB_CHART_SIZE,        /* headline vs message size, one line per protocol/streams/direction */
	NB_CHART_STREAMS,     /* headline vs streams, one line per protocol/size/direction */
	NB_CHART_LATENCY_CDF, /* latency by percentile ("nines" axis) from merged histograms */
	NB_CHART_SWEEP,       /* received rate and loss vs offered rate of a sweep */
	NB_CHART_TIMESERIES,  /* headline per interval of each repetition of one case */
	NB_CHART_PATHS,       /* each path's headline per interval of a multi-path case, stacked */
	NB_CHART_BOX,         /* each case's headline over its repetitions, one box per case */
	NB_CHART_LATENCY_DIST,/* latency CDF: share of round trips at or below each latency */
	NB_CHART_WORKING,     /* a working case: the load's throughput and the probes' p50 over time */
	NB_CHART_WORKING_CDF, /* a working case's probe: its latency CDF idle and loaded */
	NB_CHART_WORKING_BOX, /* a working case's numbers over its repetitions, one box each */
};

/** One chart: files charts/NAME.{dat,gp,png,svg}. */
struct nb_chart {
	enum nb_chart_kind kind;
	char name[128];        /* file stem */
	char title[256];
	char sentence[512];    /* one sentence saying what it shows, for the report */
	char test[64];         /* the test it belongs to */
	bool rendered;         /* NAME.png exists and gnuplot succeeded */
};

struct nb_charts {
	struct nb_chart *v;
	size_t n, cap;
	size_t rendered;
	bool gnuplot;          /* gnuplot was found on PATH */
	char problem[256];     /* the first rendering failure, or "" */
	char context[256];     /* every title's second line: host pair, date, nbrun version */
	struct nb_chart_files *open; /* the .dat and .gp being written (chart.c) */
};

/** Write every chart's .dat and .gp into dir/charts (created). */
bool nb_charts_write(const char *dir, const struct nb_results *res, const struct nb_summary *s,
		     struct nb_charts *out, struct nb_error *err);
/** Render every chart with gnuplot when it is on PATH; failures go to charts->problem. */
void nb_charts_render(const char *dir, struct nb_charts *charts);
/** Free the list; a zeroed list is fine. */
void nb_charts_free(struct nb_charts *c);

#endif

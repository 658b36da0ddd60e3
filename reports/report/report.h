/* nbrun — rebuild everything a human or a machine reads from a results folder:
 * summary.csv, report.md, results.json and charts/. Used at the end of a run and
 * by `nbrun report DIR` (also on a folder a crash left half-written). */
#ifndef NB_REPORT_H
#define NB_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "nb_error.h"

/** What nb_report_build found and wrote. */
struct nb_report_info {
	size_t cases;              /* cases in the plan (or seen in runs.csv) */
	size_t runs;               /* rows of runs.csv that were read */
	size_t failed_runs;        /* of those, status "failed" */
	size_t incomplete_rows;    /* rows skipped: truncated or malformed (plan, runs, intervals) */
	size_t charts;             /* charts written (.dat + .gp) */
	size_t charts_rendered;    /* of those, rendered to PNG/SVG */
	bool gnuplot;              /* gnuplot was found on PATH */
	size_t warnings;           /* pitfall findings */
	size_t warning_codes;      /* distinct pitfalls (the report's and stderr's warning lines) */
	char note[256];            /* first problem worth telling the user (incomplete row, gnuplot), or "" */
};

/** Read dir and write dir/summary.csv, dir/report.md, dir/results.json and dir/charts/.
 *  Fails only when the folder cannot be read at all or a file cannot be written. */
bool nb_report_build(const char *dir, struct nb_report_info *info, struct nb_error *err);
/** nb_report_build, also printing each pitfall warning as one line on warnings (NULL: none). */
bool nb_report_build_warn(const char *dir, struct nb_report_info *info, FILE *warnings,
			  struct nb_error *err);

#endif

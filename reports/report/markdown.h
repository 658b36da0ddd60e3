/* nbrun — report.md: the human report, in the shape cloud engineers already use
 * (header, environment of both ends and their differences, pitfall warnings,
 * results per test as avg ± stddev (CV), charts, method). Every table cell is
 * escaped so the file renders on GitHub whatever the case ids or errors hold. */
#ifndef NB_MARKDOWN_H
#define NB_MARKDOWN_H

#include <stdbool.h>
#include <stdio.h>

#include "chart.h"
#include "nb_error.h"
#include "fmt.h"
#include "md_text.h"
#include "pitfalls.h"
#include "results.h"
#include "summary.h"

#define NB_MARKDOWN_FILE "report.md"

/** Write report.md at path (replacing it). */
bool nb_markdown_write(const char *path, const struct nb_results *res, const struct nb_summary *s,
		       const struct nb_pitfalls *pf, const struct nb_charts *charts,
		       struct nb_error *err);

/* Shared by markdown.c and markdown_results.c. */

/** The results section: one table per test and headline, latency, sweeps. */
void nb_md_results(FILE *f, const struct nb_results *res, const struct nb_summary *s);
/** Result columns beside the headline (markdown_cols.c): forward, reverse (bidir), then loss,
 *  lost, receive-buffer drops, send errors and jitter (UDP stream and pps). */
#define NB_MD_NEXTRA 9
/** Whether case c fills extra column k (a table shows k when any of its cases does). */
bool nb_md_extra_has(size_t k, const struct nb_case_stats *c);
/** Header cell of extra column k; unit is the table's headline unit. */
void nb_md_extra_head(FILE *f, size_t k, const char *unit);
/** Cell of extra column k for case c (means over its counted runs; "forward / reverse" for a
 *  bidir case); sc scales the headline's units. */
void nb_md_extra_cell(FILE *f, size_t k, const struct nb_case_stats *c, struct nb_scale sc);
/** The charts section. */
void nb_md_charts(FILE *f, const struct nb_charts *charts);
/** The working cases' section (markdown_working.c): inflation and RPM first; nothing without
 *  working.csv. */
void nb_md_working(FILE *f, const struct nb_results *res);
/** A swept case's section (markdown_sweep.c): the sentence per goal, a row per trial. */
void nb_md_sweep_table(FILE *f, const struct nb_results *res, const struct nb_case_stats *c);

#endif

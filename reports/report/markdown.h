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
/** The opening section (markdown_key.c): each case's headline with its 95 % CI, a latency
 *  case's p50, p99 and p99.9 together. */
void nb_md_key_numbers(FILE *f, const struct nb_results *res, const struct nb_summary *s);
/** What every case shares, said once: timing, engine, parameters, the ends' main facts. */
void nb_md_conditions(FILE *f, const struct nb_results *res, const struct nb_summary *s);
/** Whether every case has the same timing and repetitions (the Method table is then left out). */
bool nb_md_timing_common(const struct nb_summary *s);
/** " · protocol tcp · direction forward": the case parameters every case has alike (the results
 *  tables leave their columns out). */
void nb_md_common_params(FILE *f, const struct nb_summary *s);
/** "Where the packets were lost" (markdown_loss.c): each UDP case's loss budget over its runs
 *  and its bottleneck sentence; nothing when no case has a budget. */
void nb_md_loss_budget(FILE *f, const struct nb_results *res, const struct nb_summary *s);
/** The charts section. */
void nb_md_charts(FILE *f, const struct nb_charts *charts);
/** The working cases' section (markdown_working.c): inflation and RPM first; nothing without
 *  working.csv. */
void nb_md_working(FILE *f, const struct nb_results *res);
/** A swept case's section (markdown_sweep.c): the sentence per goal, a row per trial. */
void nb_md_sweep_table(FILE *f, const struct nb_results *res, const struct nb_case_stats *c);
/** A searched case's goals in MLRsearch's words (markdown_mlr.c); nothing for a plain sweep. */
void nb_md_sweep_goals(FILE *f, const struct nb_results *res, const struct nb_case_stats *c,
		       const char *unit);

/** A searched case's latency at % of its PDR rate (markdown_sweep_latency.c, sweep_latency.csv):
 *  a row per fraction; nothing when the case has none. */
void nb_md_sweep_latency(FILE *f, const struct nb_results *res, const struct nb_case_stats *c,
			 const char *unit);

/** "IP-layer capacity (RFC 9097)": each one-way UDP case's IP-layer rate over the whole run
 *  and the maximum over its sub-intervals (markdown_capacity.c); nothing when there is none. */
void nb_md_ip_capacity(FILE *f, const struct nb_results *res, const struct nb_summary *s);
/** "TCP in RFC 6349's terms": each one-way TCP stream case's baseline and mean RTT, Buffer
 *  Delay %, TCP Efficiency % and BDP (markdown_rfc6349.c); nothing when there is none. */
void nb_md_rfc6349(FILE *f, const struct nb_results *res, const struct nb_summary *s);

#endif

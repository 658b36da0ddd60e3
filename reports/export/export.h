/* nbrun — `nbrun export DIR --format FORMAT`: a results folder in the formats other systems
 * ingest, each row, record and series carrying the batch's labels:
 *   prometheus        the text exposition format (Pushgateway, node_exporter's textfile
 *                     collector): gauge families in base units (export_prom.c);
 *   github-benchmark  github-action-benchmark's custom-tool JSON, one entry per case's
 *                     headline; bigger- and smaller-is-better headlines go to separate files
 *                     (that tool takes one direction per file) (export_gh.c);
 *   jsonl             runs.jsonl's records made from runs.csv, for folders older than it;
 *   csv               one row per case: the headline's statistics and one column per label.
 * A loss-threshold search's goals (NDR, PDR: MLRsearch's conditional throughput, sweeps.json)
 * are headlines of their own in csv, prometheus and github-benchmark. */
#ifndef NB_EXPORT_H
#define NB_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "cols.h"
#include "nb_error.h"
#include "results.h"
#include "summary.h"

/* A search's goals exported per case (NDR, PDR ...: sweeps.json's loss goals, at most 4). */
#define NB_EXPORT_GOALS_MAX 8

enum nb_export_format {
	NB_EXPORT_PROMETHEUS, NB_EXPORT_GITHUB_BENCHMARK, NB_EXPORT_JSONL, NB_EXPORT_CSV,
};

/** The format named s ("prometheus", "github-benchmark", "jsonl", "csv"); false when none. */
bool nb_export_format_parse(const char *s, enum nb_export_format *f);
/** Export dir in format f to path (NULL: stdout), written whole or not at all. better
 *  (github-benchmark only) picks one direction; NB_BETTER_NONE takes the only one the folder
 *  has. Returns 0, 2 (folder unreadable, nothing to export, both directions) or 4 (path
 *  cannot be written), with err set. */
int nb_export(const char *dir, enum nb_export_format f, enum nb_better better, const char *path,
	      struct nb_error *err);

/** Prometheus text exposition of res (export_prom.c). */
bool nb_export_prom(FILE *out, const struct nb_results *res, const struct nb_summary *s);
/** github-action-benchmark entries of the cases whose headline is better in direction better
 *  (export_gh.c); *n counts them. */
bool nb_export_gh(FILE *out, const struct nb_results *res, const struct nb_summary *s,
		  enum nb_better better, size_t *n);
/** The headline's direction of case c (NB_BETTER_NONE when unknown). */
enum nb_better nb_export_case_better(const struct nb_case_stats *c);

#endif

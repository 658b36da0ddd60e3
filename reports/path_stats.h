/* nbrun — the paths of multi-path runs in a results folder: each path's own headline per case
 * (from its runs.csv rows, path = its name), for the report, results.json and the chart. The
 * case's statistics stay on the sum (the runs' rows, path "all"). */
#ifndef NB_PATH_STATS_H
#define NB_PATH_STATS_H

#include <jansson.h>
#include <stddef.h>

#include "results.h"
#include "stats.h"
#include "summary.h"

#define NB_REPORT_PATHS_MAX 16

/** One path of a case: its headline over the repetitions that counted. */
struct nb_path_stats {
	const char *path;        /* "local->HOST" (points into the results) */
	struct nb_stats value;   /* the headline of its rows in counted runs (kind run, status ok) */
	size_t n_failed;         /* its rows that failed, and so failed their run */
	const char *last_error;  /* why the last of them failed */
};

/** The paths of case ci (nb_results index), in the order they first appear; how many. */
size_t nb_path_stats_of_case(const struct nb_results *res, size_t ci, struct nb_path_stats *out,
			size_t max);
/** [{"path", "n", "n_failed", "mean", "stddev", "min", "max", "share_pct"}] of case c, [] when
 *  it ran on one path. */
json_t *nb_path_stats_json(const struct nb_results *res, const struct nb_case_stats *c);
/** The report's "Paths" section: per case a table of its paths, and each agent's clock; nothing
 *  when no run had several paths. */
void nb_path_stats_md(FILE *f, const struct nb_results *res, const struct nb_summary *s);

#endif

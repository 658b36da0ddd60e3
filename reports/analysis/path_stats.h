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

/** What each path's table row shows beside its headline: loss and jitter (UDP), retransmits
 *  (TCP), each over the same counted runs. */
enum nb_path_col { NB_PATH_LOSS_PCT, NB_PATH_LOST, NB_PATH_JITTER_US, NB_PATH_RETRANS, NB_PATH_NCOLS };

/** One path of a case: its headline over the repetitions that counted. */
struct nb_path_stats {
	const char *path;        /* "local->HOST" (points into the results) */
	struct nb_stats value;   /* the headline of its rows in counted runs (kind run, status ok) */
	struct nb_stats col[NB_PATH_NCOLS]; /* its loss, lost, jitter and retransmits, same runs */
	size_t n_failed;         /* its rows that failed, and so failed their run */
	const char *last_error;  /* why the last of them failed */
};

/** The paths of case ci (nb_results index), in the order they first appear; how many. */
size_t nb_path_stats_of_case(const struct nb_results *res, size_t ci, struct nb_path_stats *out,
			size_t max);
/** [{"path", "n", "n_failed", "mean", "stddev", "min", "max", "share_pct"}] of case c, [] when
 *  it ran on one path. */
json_t *nb_path_stats_json(const struct nb_results *res, const struct nb_case_stats *c);
/** A `path-loss` warning for each multi-path case whose paths lost differently (the lossiest
 *  path at least twice the share of the least lossy, and 0.1 percentage point more): the sum's
 *  loss hides which path lost; false when out of memory. */
bool nb_path_stats_pitfalls(const struct nb_results *res, const struct nb_summary *s,
			    struct nb_pitfalls *out);
/** The report's "Paths" section: per case a table of its paths, and each agent's clock; nothing
 *  when no run had several paths. */
void nb_path_stats_md(FILE *f, const struct nb_results *res, const struct nb_summary *s);

#endif

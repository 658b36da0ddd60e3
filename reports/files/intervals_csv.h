/* nbrun — intervals.csv: one row per interval of each flow of a run (and one for all flows
 * summed), appended as the intervals arrive and read back by the report. */
#ifndef NB_INTERVALS_CSV_H
#define NB_INTERVALS_CSV_H

#include <stdbool.h>
#include <stdint.h>

#include "cols.h"
#include "csv.h"
#include "nb_error.h"

#define NB_INTERVALS_CSV_FILE "intervals.csv"

/** One row of intervals.csv: one interval of one flow (stream = -1: all flows summed, written
 *  "sum"). The writer also writes bytes, packets and bits_per_second from the received metrics. */
struct nb_interval {
	uint32_t run_id;
	const char *case_id;    /* the reader's points into the loaded table */
	uint32_t rep;            /* repetition, counted from 1 */
	int32_t stream;
	const char *direction;  /* "forward" (client -> agent) or "reverse" for one flow of a
				   directional engine, the case's direction ("bidir" ...) for the sum
				   row, "" otherwise */
	double t_start, t_end;  /* seconds since the measured window began (negative: warm-up) */
	bool omitted;
	bool cooldown;          /* in the cool-down tail: left out of the statistics, like omitted */
	struct nb_metrics m;
	const char *path;       /* as runs.csv's: NB_PATH_ALL, or one path of a multi-path run */
};

/** Open (append) DIR/intervals.csv, writing its header when the file is new. */
struct nb_csv *nb_intervals_csv_open(const char *dir, struct nb_error *err);
/** intervals.csv's rows as JSON Lines on f (csv.h nb_csv_json): the same columns, values and
 *  number formatting, each object starting with prefix; f is not closed. */
struct nb_csv *nb_intervals_csv_json(FILE *f, const char *name, const char *prefix,
				     struct nb_error *err);
/** Append one interval row. */
void nb_intervals_csv_write(struct nb_csv *c, const struct nb_interval *r);

#endif

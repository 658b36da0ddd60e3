/* nbrun — CSV writing (RFC 4180 quoting) and the typed rows of a results folder. */
#ifndef NB_CSV_H
#define NB_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cols.h"
#include "error.h"

/** A CSV file being written; every row is flushed when it ends. */
struct nb_csv;

/** Open path for appending; writes header when the file is new or empty. */
struct nb_csv *nb_csv_open(const char *path, const char *const *header, size_t ncols,
			   struct nb_error *err);
/** Flush and close; NULL is a no-op. Returns false if a write failed at any time. */
bool nb_csv_close(struct nb_csv *c);
/** A text cell, quoted when it holds a comma, quote, CR or LF; NULL is an empty cell. */
void nb_csv_str(struct nb_csv *c, const char *s);
/** An unsigned integer cell. */
void nb_csv_u64(struct nb_csv *c, uint64_t v);
/** A number cell with up to 9 significant digits; NAN or infinity is an empty cell. */
void nb_csv_num(struct nb_csv *c, double v);
/** End the row and flush it to the kernel. */
void nb_csv_end(struct nb_csv *c);
/** Write s to f as one CSV field (quoted when needed). */
void nb_csv_quote(FILE *f, const char *s);

/** One row of runs.csv: a case x repetition (or a sweep trial). */
struct nb_run_row {
	uint32_t run_id;
	const char *case_id, *test, *engine, *protocol;
	uint32_t rep;
	const char *kind;       /* "run" or "trial" */
	double offered_rate;    /* sweep trials: the offered rate (engine unit); NAN otherwise */
	const char *status;     /* "ok", "failed" or "invalid" */
	const char *metric;     /* name of the headline column (e.g. "rx_bps") */
	double value;           /* the headline value */
	const char *flags;      /* ';'-separated notes ("gro-local", "littles-law") or "" */
	const char *error;      /* why it failed, or "" */
	const char *started;    /* ISO 8601 UTC */
	struct nb_metrics m;
};

/** One row of intervals.csv: one interval of one flow (stream = -1: all flows summed). */
struct nb_interval_row {
	uint32_t run_id;
	const char *case_id;
	uint32_t rep;
	int32_t stream;
	double t_start, t_end;  /* seconds since the measured window began (negative: warm-up) */
	bool omitted;
	struct nb_metrics m;
};

/** Open (append) runs.csv in dir. */
struct nb_csv *nb_runs_csv_open(const char *dir, struct nb_error *err);
/** Append one run row. */
void nb_runs_csv_write(struct nb_csv *c, const struct nb_run_row *r);
/** Open (append) intervals.csv in dir. */
struct nb_csv *nb_intervals_csv_open(const char *dir, struct nb_error *err);
/** Append one interval row. */
void nb_intervals_csv_write(struct nb_csv *c, const struct nb_interval_row *r);

/** Fixed (non-metric) leading columns of runs.csv and intervals.csv, for readers. */
extern const char *const nb_runs_fixed_cols[];
extern const size_t nb_runs_nfixed;
extern const char *const nb_intervals_fixed_cols[];
extern const size_t nb_intervals_nfixed;

#endif

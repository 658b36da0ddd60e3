/* nbrun — a batch's rows writer: runs.csv, runs.jsonl and intervals.csv open for appending,
 * the run ids they number runs by, and the first write that failed. A row that cannot be
 * written stops the run in progress at once (its target's abort) and then the batch: nothing
 * after it could be kept. Shared by the run loop (run.c, run_rows.c) and the sweeps
 * (sweep_run.c). */
#ifndef NB_ROWS_H
#define NB_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "csv.h"
#include "intervals_csv.h"
#include "json_stream.h"
#include "live.h"
#include "meta_json.h"
#include "nb_error.h"
#include "runs_jsonl.h"
#include "target.h"

struct nb_rows {
	struct nb_csv *runs, *intervals;
	struct nb_csv *working;       /* working.csv, from a batch's first working run (or NULL) */
	struct nb_csv *sweep_latency; /* sweep_latency.csv, from a search's first latency phase */
	struct nb_runs_jsonl *jsonl;  /* runs.jsonl, beside runs.csv */
	uint32_t run_id;              /* the last run id used */
	struct nb_run_target *running;    /* the target of the run in progress (NULL: none) */
	bool write_failed;            /* a results file could not be written: werr says which */
	struct nb_error werr;
	struct nb_json_stream *stream; /* --json-stream: each row also as an event (NULL: none) */
	struct nb_live *live;         /* the live view of the rows the statistics use (NULL: off) */
};

/** Open runs.csv, runs.jsonl (with meta's header record) and intervals.csv in dir. */
bool nb_rows_open(struct nb_rows *w, const char *dir, const struct nb_meta *meta,
		  struct nb_error *err);
/** Append an interval row of a run of engine e to intervals.csv and the stream; whole: the
 *  row over all its flows and paths, the one the live view shows. */
void nb_rows_interval(struct nb_rows *w, const struct nb_engine *e, const struct nb_interval *row,
		      bool whole);
/** Append a run's (or trial's) row to runs.csv, runs.jsonl and the stream; one path's part
 *  (row->path set) is not the live view's. runs.jsonl failing stops the batch. */
void nb_rows_run(struct nb_rows *w, const struct nb_engine *e, const struct nb_run *row);
/** Flush them to the disk (after each run, outside its measurement). */
void nb_rows_sync(struct nb_rows *w);
/** Note the first write failure (err) and stop the run in progress. */
void nb_rows_failed(struct nb_rows *w, const struct nb_error *err);
/** Stop at once when a row of runs.csv or intervals.csv could not be written. */
void nb_rows_check(struct nb_rows *w);
/** Sync and close them (the first failure noted); safe when never opened. */
void nb_rows_close(struct nb_rows *w);

#endif

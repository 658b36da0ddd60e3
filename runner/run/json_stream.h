/* nbrun — `--json-stream FILE|-`: a batch's events as NDJSON while it runs (iperf3's
 * --json-stream), for tools that consume results live. One JSON object per line, queued as the
 * event happens and written in order by the stream's own thread (a slow reader never holds up
 * a run), each line handed to the kernel at once: batch_start, case_start (each case x
 * repetition), interval (each row of intervals.csv, as it is written), run (each row of
 * runs.csv: runs, sweep trials, paths' parts), error, batch_end. Each has "schema"
 * (NB_JSON_STREAM_SCHEMA) and "event"; an interval or run event has the CSV row's columns by
 * their header names, its numbers formatted by the same rules (csv.h nb_csv_json). The layout
 * is documented in docs/results-in-your-systems.md. A write that fails (a reader that went
 * away) stops the stream with one line on stderr; the batch and its results folder go on.
 * Every call takes a NULL stream (no --json-stream) and does nothing. */
#ifndef NB_JSON_STREAM_H
#define NB_JSON_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "intervals_csv.h"
#include "meta_json.h"
#include "nb_error.h"
#include "plan.h"
#include "runs_csv.h"

/** The version of the events' layout: a new key keeps it, a key renamed, removed or retyped
 *  bumps it. */
#define NB_JSON_STREAM_SCHEMA 1

struct nb_json_stream;

/** Open path for writing ("-": standard output; a FIFO blocks until its reader opens it);
 *  NULL with err ("cannot write --json-stream PATH: why") when it cannot be. */
struct nb_json_stream *nb_json_stream_open(const char *path, struct nb_error *err);
/** The batch claimed its folder dir (meta: the config, labels, started or resumed); cases and
 *  runs: how many the plan has and how many this invocation will run. */
void nb_json_stream_batch_start(struct nb_json_stream *s, const struct nb_meta *meta,
				const char *dir, size_t cases, size_t runs);
/** Case c (case_no of ncases, from 1) starts its repetition rep of reps (from 1). */
void nb_json_stream_case_start(struct nb_json_stream *s, const struct nb_case *c, size_t case_no,
			       size_t ncases, uint32_t rep, uint32_t reps);
/** One row of intervals.csv, as it was written. */
void nb_json_stream_interval(struct nb_json_stream *s, const struct nb_interval *row);
/** One row of runs.csv, as it was written. */
void nb_json_stream_run(struct nb_json_stream *s, const struct nb_run *row);
/** What stopped the batch (or kept it from starting), as stderr says it. */
void nb_json_stream_error(struct nb_json_stream *s, const char *message);
/** The batch ended with exit code rc (meta: its counts, complete, stopped_by, finished). */
void nb_json_stream_batch_end(struct nb_json_stream *s, const struct nb_meta *meta,
			      const char *dir, int rc);
/** Whether batch_end was written (or the stream stopped). */
bool nb_json_stream_ended(const struct nb_json_stream *s);
/** Flush and close (standard output is flushed, not closed); NULL is fine. */
void nb_json_stream_close(struct nb_json_stream *s);

#endif

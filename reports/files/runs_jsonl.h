/* nbrun — runs.jsonl: the rows of runs.csv as JSON Lines, one object per run with proper types
 * (numbers as numbers, an empty cell as null, flags as a list), the user's labels, the config's
 * name and sha256 and the run's UTC start, appended and flushed as each run ends so a log
 * shipper can tail it during a long batch. `nbrun export --format jsonl` makes the same records
 * from runs.csv for folders written before this file existed. */
#ifndef NB_RUNS_JSONL_H
#define NB_RUNS_JSONL_H

#include <jansson.h>
#include <stdbool.h>

#include "nb_error.h"
#include "meta_json.h"
#include "runs_csv.h"

#define NB_RUNS_JSONL_FILE "runs.jsonl"

/** runs.jsonl open for appending. */
struct nb_runs_jsonl;

/** Open (append) DIR/runs.jsonl; its records take the config and labels from meta, which must
 *  live as long as the writer. */
struct nb_runs_jsonl *nb_runs_jsonl_open(const char *dir, const struct nb_meta *meta,
					 struct nb_error *err);
/** Append one run as one line and hand it to the kernel; false with err when it cannot be. */
bool nb_runs_jsonl_write(struct nb_runs_jsonl *j, const struct nb_run *r, struct nb_error *err);
/** Flush what was written to the disk (fsync); false with err on failure. NULL is fine. */
bool nb_runs_jsonl_sync(struct nb_runs_jsonl *j, struct nb_error *err);
/** Close; NULL is fine. */
void nb_runs_jsonl_close(struct nb_runs_jsonl *j);
/** The record of one run (a new reference; NULL when out of memory or not UTF-8). */
json_t *nb_runs_jsonl_record(const struct nb_run *r, const struct nb_meta *meta);
/** Write one record as one line of f; false when it cannot be encoded or written. */
bool nb_runs_jsonl_put(FILE *f, const json_t *rec);
/** Read path: an array of its records; NULL with err ("runs.jsonl:LINE: what") when a line is
 *  not a JSON object. */
json_t *nb_runs_jsonl_read(const char *path, struct nb_error *err);

#endif

/* nbrun — --json-stream (see json_stream.h). The interval and run events are the CSV files'
 * own rows, written a second time by their owners' writers into JSON Lines writers on the
 * stream, so their columns and numbers cannot drift from the files'; the other events are
 * small objects of their own. */
#include "json_stream.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cols.h"
#include "json_value.h"
#include "metrics.h"
#include "params.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define PREFIX(event) "\"schema\":" STR(NB_JSON_STREAM_SCHEMA) ",\"event\":\"" event "\""

struct nb_json_stream {
	FILE *f;
	bool is_stdout;
	bool stopped;                 /* a write failed: nothing more is written */
	bool ended;                   /* batch_end written */
	struct nb_csv *intervals, *runs; /* the rows' writers on f */
	char name[4200];              /* "--json-stream PATH", for its errors */
};

struct nb_json_stream *nb_json_stream_open(const char *path, struct nb_error *err)
{
	struct nb_json_stream *s = calloc(1, sizeof(*s));
	if (!s) {
		nb_error_set(err, "--json-stream %s: out of memory", path);
		return NULL;
	}
	snprintf(s->name, sizeof(s->name), "--json-stream %s", path);
	s->is_stdout = strcmp(path, "-") == 0;
	s->f = s->is_stdout ? stdout : fopen(path, "w");
	if (!s->f) {
		nb_error_errno(err, errno, "cannot write --json-stream %s", path);
		free(s);
		return NULL;
	}
	s->intervals = nb_intervals_csv_json(s->f, s->name, PREFIX("interval"), err);
	s->runs = s->intervals ? nb_runs_csv_json(s->f, s->name, PREFIX("run"), err) : NULL;
	if (!s->runs) {
		nb_json_stream_close(s);
		return NULL;
	}
	return s;
}

/* The first write that failed: said once, and the stream stops (the batch goes on). */
static void stop(struct nb_json_stream *s, const struct nb_error *why)
{
	if (s->stopped)
		return;
	s->stopped = true;
	fprintf(stderr, "nbrun: %s: the stream stops here, the batch goes on\n", why->msg);
}

static bool live(const struct nb_json_stream *s)
{
	return s && !s->stopped;
}

/* One event of our own: "schema" and "event" first, then o's members. */
static void put(struct nb_json_stream *s, const char *event, json_t *o)
{
	json_t *rec = json_pack("{s:i, s:s}", "schema", NB_JSON_STREAM_SCHEMA, "event", event);
	if (rec && o)
		json_object_update(rec, o);
	json_decref(o);
	char *line = rec ? json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(rec);
	errno = 0;
	bool ok = line && fprintf(s->f, "%s\n", line) > 0 && fflush(s->f) == 0;
	free(line);
	struct nb_error err;
	if (!ok) {
		nb_error_errno(&err, errno ? errno : EIO, "cannot write %s", s->name);
		stop(s, &err);
	}
}

static void check_rows(struct nb_json_stream *s, struct nb_csv *c)
{
	struct nb_error err;
	if (!nb_csv_ok(c, &err))
		stop(s, &err);
}

static json_t *labels(const struct nb_meta *m)
{
	json_t *o = json_object();
	for (size_t i = 0; o && i < m->nlabels; i++)
		json_object_set_new(o, m->label_keys[i], nb_json_string(m->label_values[i]));
	return o;
}

void nb_json_stream_batch_start(struct nb_json_stream *s, const struct nb_meta *meta,
				const char *dir, size_t cases, size_t runs)
{
	if (!live(s))
		return;
	put(s, "batch_start",
	    json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I}",
		      "dir", nb_json_string(dir), "config_name", nb_json_string(meta->config_name),
		      "config_sha256", nb_json_string(meta->config_sha256),
		      "started_utc", nb_json_string(meta->started),
		      "resumed_utc", nb_json_string(meta->resumed), "command", nb_json_string(meta->command),
		      "labels", labels(meta), "cases", (json_int_t)cases, "runs", (json_int_t)runs));
}

void nb_json_stream_case_start(struct nb_json_stream *s, const struct nb_case *c, size_t case_no,
			       size_t ncases, uint32_t rep, uint32_t reps)
{
	if (!live(s))
		return;
	const struct nb_col_def *head = &nb_cols[nb_metrics_headline(c->engine)];
	put(s, "case_start",
	    json_pack("{s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:s, s:s}",
		      "case_id", nb_json_string(c->id), "test", nb_json_string(c->test->name),
		      "engine", nb_json_string(c->params.engine),
		      "protocol", nb_json_string(nb_proto_name(c->params.proto)),
		      "case_no", (json_int_t)case_no, "ncases", (json_int_t)ncases,
		      "rep", (json_int_t)rep, "reps", (json_int_t)reps,
		      "metric", head->name, "unit", c->engine->traits.headline.unit));
}

void nb_json_stream_interval(struct nb_json_stream *s, const struct nb_interval *row)
{
	if (!live(s))
		return;
	nb_intervals_csv_write(s->intervals, row);
	check_rows(s, s->intervals);
}

void nb_json_stream_run(struct nb_json_stream *s, const struct nb_run *row)
{
	if (!live(s))
		return;
	nb_runs_csv_write(s->runs, row);
	check_rows(s, s->runs);
}

void nb_json_stream_error(struct nb_json_stream *s, const char *message)
{
	if (live(s))
		put(s, "error", json_pack("{s:o}", "message", nb_json_string(message)));
}

void nb_json_stream_batch_end(struct nb_json_stream *s, const struct nb_meta *meta,
			      const char *dir, int rc)
{
	if (!live(s))
		return;
	put(s, "batch_end",
	    json_pack("{s:i, s:o, s:b, s:o, s:I, s:I, s:I, s:o}", "exit", rc,
		      "dir", nb_json_string(dir), "complete", meta->complete,
		      "stopped_by", nb_json_string(meta->stopped),
		      "runs_ok", (json_int_t)meta->runs_ok, "runs_failed", (json_int_t)meta->runs_failed,
		      "runs_interrupted", (json_int_t)meta->runs_interrupted,
		      "finished_utc", nb_json_string(meta->finished)));
	s->ended = true;
}

bool nb_json_stream_ended(const struct nb_json_stream *s)
{
	return !s || s->ended || s->stopped;
}

void nb_json_stream_close(struct nb_json_stream *s)
{
	if (!s)
		return;
	nb_csv_finish(s->intervals, NULL);
	nb_csv_finish(s->runs, NULL);
	if (s->is_stdout)
		fflush(s->f);
	else
		fclose(s->f);
	free(s);
}

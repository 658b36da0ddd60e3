/* nbrun — --json-stream (see json_stream.h). The interval and run events are the CSV files'
 * own rows, written a second time by their owners' writers into JSON Lines writers, so their
 * columns and numbers cannot drift from the files'; the other events are small objects of
 * their own. Each event is made into a line in memory by the caller (the interval sink, in the
 * middle of a run) and queued; a thread of the stream's own writes the lines in order and
 * waits for the reader, so a reader slower than the batch never holds up a measurement (it
 * did: the client's ticks came late and the runs were invalid). The queue is drained before
 * the stream closes. */
#include "json_stream.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cols.h"
#include "json_value.h"
#include "metrics.h"
#include "params.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define PREFIX(event) "\"schema\":" STR(NB_JSON_STREAM_SCHEMA) ",\"event\":\"" event "\""

/* A line waiting for the writer. */
struct line {
	struct line *next;
	size_t len;
	char text[];
};

struct nb_json_stream {
	FILE *f;
	bool is_stdout;
	atomic_bool stopped;          /* a write failed: nothing more is written */
	bool ended;                   /* batch_end queued */
	FILE *mem;                    /* where the rows' writers make an event's line */
	char *mem_buf;
	size_t mem_len;
	struct nb_csv *intervals, *runs; /* the rows' writers on mem */
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct line *head, *tail;     /* the lines not yet written, oldest first */
	bool closing;                 /* no more lines: the writer ends once the queue is empty */
	pthread_t writer;
	bool have_writer, have_lock;
	char name[4200];              /* "--json-stream PATH", for its errors */
};

/* The first write that failed: said once, and the stream stops (the batch goes on). */
static void stop(struct nb_json_stream *s, const struct nb_error *why)
{
	if (atomic_exchange(&s->stopped, true))
		return;
	/* on a terminal, over the progress line (redrawn at its next tick) */
	fprintf(stderr, "%snbrun: %s: the stream stops here, the batch goes on\n",
		isatty(STDERR_FILENO) ? "\r\033[K" : "", why->msg);
}

static bool live(const struct nb_json_stream *s)
{
	return s && !atomic_load(&s->stopped);
}

/* The writer's thread: each line in turn, handed to the reader; after a failure the rest are
 * dropped. */
static void *writer(void *arg)
{
	struct nb_json_stream *s = arg;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->head && !s->closing)
			pthread_cond_wait(&s->more, &s->lock);
		struct line *l = s->head;
		if (!l)
			break;
		s->head = l->next;
		s->tail = s->head ? s->tail : NULL;
		pthread_mutex_unlock(&s->lock);
		errno = 0;
		if (live(s) && (fwrite(l->text, 1, l->len, s->f) != l->len || fflush(s->f) != 0)) {
			struct nb_error err;
			nb_error_errno(&err, errno ? errno : EIO, "cannot write %s", s->name);
			stop(s, &err);
		}
		free(l);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Queue text (len bytes, a whole line) for the writer. */
static void enqueue(struct nb_json_stream *s, const char *text, size_t len)
{
	struct line *l = malloc(sizeof(*l) + len);
	if (!l) {
		struct nb_error err;
		nb_error_set(&err, "%s: out of memory", s->name);
		stop(s, &err);
		return;
	}
	memcpy(l->text, text, len);
	l->len = len;
	l->next = NULL;
	pthread_mutex_lock(&s->lock);
	if (s->tail)
		s->tail->next = l;
	else
		s->head = l;
	s->tail = l;
	pthread_cond_signal(&s->more);
	pthread_mutex_unlock(&s->lock);
}

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
	s->mem = open_memstream(&s->mem_buf, &s->mem_len);
	s->intervals = s->mem ? nb_intervals_csv_json(s->mem, s->name, PREFIX("interval"), err) : NULL;
	s->runs = s->intervals ? nb_runs_csv_json(s->mem, s->name, PREFIX("run"), err) : NULL;
	s->have_lock = s->runs && pthread_mutex_init(&s->lock, NULL) == 0;
	if (s->have_lock && pthread_cond_init(&s->more, NULL) == 0)
		s->have_writer = pthread_create(&s->writer, NULL, writer, s) == 0;
	if (!s->have_writer) {
		nb_error_set(err, "--json-stream %s: %s", path,
			     s->runs ? "no thread for its writer" : "out of memory");
		nb_json_stream_close(s);
		return NULL;
	}
	return s;
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
	size_t len = line ? strlen(line) : 0;
	if (line) {
		line[len] = '\n'; /* json_dumps' terminator becomes the line's end */
		enqueue(s, line, len + 1);
	} else {
		struct nb_error err;
		nb_error_set(&err, "%s: out of memory", s->name);
		stop(s, &err);
	}
	free(line);
}

/* The row c just made in mem, queued; mem is rewound for the next one. */
static void put_row(struct nb_json_stream *s, struct nb_csv *c)
{
	struct nb_error err;
	if (!nb_csv_ok(c, &err)) {
		stop(s, &err);
		return;
	}
	fflush(s->mem);
	enqueue(s, s->mem_buf, s->mem_len);
	rewind(s->mem);
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
	put_row(s, s->intervals);
}

void nb_json_stream_run(struct nb_json_stream *s, const struct nb_run *row)
{
	if (!live(s))
		return;
	nb_runs_csv_write(s->runs, row);
	put_row(s, s->runs);
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
	return !s || s->ended || !live(s);
}

void nb_json_stream_close(struct nb_json_stream *s)
{
	if (!s)
		return;
	if (s->have_writer) { /* every line queued is written (or the stream stopped) first */
		pthread_mutex_lock(&s->lock);
		s->closing = true;
		pthread_cond_signal(&s->more);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->writer, NULL);
		pthread_cond_destroy(&s->more);
	}
	if (s->have_lock)
		pthread_mutex_destroy(&s->lock);
	nb_csv_finish(s->intervals, NULL);
	nb_csv_finish(s->runs, NULL);
	if (s->mem)
		fclose(s->mem);
	free(s->mem_buf);
	if (s->is_stdout)
		fflush(s->f);
	else
		fclose(s->f);
	free(s);
}

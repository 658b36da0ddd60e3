/* nbrun — one case x repetition on every path of the batch at once (see batch.h).
 *
 * Each path runs on its own thread (multipath.h) and hands its intervals to its sink there. The
 * sinks share one table under a lock: a path's own rows (its flows, its sum; path = its name)
 * go to intervals.csv as they come, and interval k's sum over the paths (path "all", the row
 * the statistics use) once every path has it. A path that failed leaves holes; after the run
 * the intervals left get their sum over the paths that have them. Then one runs.csv row per
 * path and the run's row over all paths (written by run.c). */
#include "batch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interval_rows.h"
#include "metrics.h"
#include "run_int.h"
#include "timeline.h"

struct path_rows {
	pthread_mutex_t lock;
	struct nb_batch *b;
	const struct nb_case *c;
	const struct nb_msg_setup *su;
	uint32_t run_id, rep;
	size_t n;                 /* paths */
	uint32_t nk;              /* intervals: 1 .. nk */
	struct nb_metrics *m;     /* [k * n + i]: path i's interval k */
	struct nb_hist **h;       /* the same, its RTT histogram (engines that record latency) */
	bool *have;
	uint32_t next;            /* the next interval whose sum is due */
	bool locked;              /* lock was made */
};

struct path_sink {
	struct path_rows *rows;
	size_t i;
};

/* Interval k's sum over the paths that have it; false when none has. */
static bool sum_interval(struct path_rows *r, uint32_t k, struct nb_metrics *out)
{
	struct nb_metrics parts[NB_PATHS_MAX];
	struct nb_hist *merged = NULL;
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++) {
		size_t at = (size_t)k * r->n + i;
		if (!r->have[at])
			continue;
		parts[n++] = r->m[at];
		if (r->h[at] && (merged || (merged = nb_hist_create())))
			nb_hist_merge(merged, r->h[at]);
	}
	if (n)
		nb_metrics_sum_paths(r->c->engine, parts, n, merged, out);
	nb_hist_destroy(merged);
	return n > 0;
}

static bool all_have(const struct path_rows *r, uint32_t k)
{
	for (size_t i = 0; i < r->n; i++)
		if (!r->have[(size_t)k * r->n + i])
			return false;
	return true;
}

/* Under the lock: the sums now due (every path has them), or with `all` every one left. */
static void write_sums(struct path_rows *r, bool all)
{
	struct nb_metrics m;
	for (; r->next <= r->nk && (all || all_have(r, r->next)); r->next++) {
		if (!sum_interval(r, r->next, &m))
			continue;
		nb_rows_write_sum(r->b->intervals, r->c->engine, r->su, r->run_id, r->rep, r->next, &m);
		nb_run_check_rows(r->b);
		nb_progress_tick(r->b->progress);
	}
}

static void path_interval(void *ctx, uint32_t k, const struct nb_span *span, const struct nb_hist *hist)
{
	struct path_sink *ps = ctx;
	struct path_rows *r = ps->rows;
	pthread_mutex_lock(&r->lock);
	size_t at = (size_t)k * r->n + ps->i;
	if (k >= 1 && k <= r->nk && !r->have[at]) {
		nb_rows_write_interval(r->b->intervals, r->c->engine, r->su, r->run_id, r->rep, k, span,
				       hist, r->b->cpaths[ps->i].name, &r->m[at]);
		if (hist && (r->h[at] = nb_hist_create()))
			nb_hist_copy(r->h[at], hist);
		r->have[at] = true;
		nb_run_check_rows(r->b);
		write_sums(r, false);
	}
	pthread_mutex_unlock(&r->lock);
}

static bool rows_init(struct path_rows *r, struct nb_batch *b, const struct nb_case *c,
		      const struct nb_msg_setup *su, uint32_t rep)
{
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, su->warmup_ns, su->omit_ns, su->duration_ns, su->interval_ns);
	*r = (struct path_rows){ .b = b, .c = c, .su = su, .run_id = su->run_id, .rep = rep + 1,
				 .n = b->ncpaths, .nk = tl.nticks, .next = 1 };
	size_t cells = ((size_t)tl.nticks + 1) * b->ncpaths;
	r->m = calloc(cells, sizeof(*r->m));
	r->h = calloc(cells, sizeof(*r->h));
	r->have = calloc(cells, sizeof(*r->have));
	r->locked = r->m && r->h && r->have && pthread_mutex_init(&r->lock, NULL) == 0;
	return r->locked;
}

static void rows_free(struct path_rows *r)
{
	size_t cells = ((size_t)r->nk + 1) * r->n;
	for (size_t i = 0; r->h && i < cells; i++)
		nb_hist_destroy(r->h[i]);
	free(r->m);
	free(r->h);
	free(r->have);
	if (r->locked)
		pthread_mutex_destroy(&r->lock);
}

static int severity(enum nb_outcome o)
{
	return o == NB_OUT_PEER_LOST ? 3 : o == NB_OUT_INTERRUPTED ? 2 : o == NB_OUT_CASE_FAILED ? 1 : 0;
}

/* The run's outcome over its paths: a lost agent stops the batch, an interruption the run, any
 * other failure fails it; the message names the path (err for a lost agent, else sum->error). */
static enum nb_outcome outcome_of(const struct nb_batch *b, struct nb_path_test *pt,
				  struct nb_test_result *sum, struct nb_error *err)
{
	enum nb_outcome o = NB_OUT_OK;
	for (size_t i = 0; i < b->ncpaths; i++) {
		if (severity(pt[i].outcome) <= severity(o))
			continue;
		o = pt[i].outcome;
		if (o == NB_OUT_PEER_LOST) {
			snprintf(pt[i].res.error, sizeof(pt[i].res.error), "%s", pt[i].err.msg);
			nb_error_set(err, "path %.200s: %.300s", b->cpaths[i].name, pt[i].err.msg);
		}
		snprintf(sum->error, sizeof(sum->error), "path %.200s: %.360s", b->cpaths[i].name,
			 pt[i].res.error);
	}
	return o;
}

/* What the paths' readings hold against the run: each finding of the first path that has
 * it, named; the longest stall of any. */
static void sum_verdict(const struct nb_path_test *pt, size_t n, struct nb_test_result *sum)
{
	struct nb_run_verdict *v = &sum->verdict;
	for (size_t i = 0; i < n; i++) {
		const struct nb_run_verdict *w = &pt[i].res.verdict;
		const char *name = pt[i].client ? pt[i].client->peer_name : "?";
		if (w->stall[0] && (w->stalled > v->stalled ||
				    (w->stalled == v->stalled && w->stall_gap_s > v->stall_gap_s))) {
			snprintf(v->stall, sizeof(v->stall), "path to %.60s: %.180s", name, w->stall);
			v->stall_gap_s = w->stall_gap_s;
			v->stalled = w->stalled;
		}
		if (w->suspect[0] && !v->suspect[0])
			snprintf(v->suspect, sizeof(v->suspect), "path to %.60s: %.240s", name, w->suspect);
	}
	/* nothing received: judged on the sum (a path that got nothing shows in its own row) */
	if (!(sum->m.v[NB_COL_RX_PACKETS] > 0) && sum->m.v[NB_COL_TX_PACKETS] > 0)
		for (size_t i = 0; i < n && !v->nothing[0]; i++)
			memcpy(v->nothing, pt[i].res.verdict.nothing, sizeof(v->nothing));
}

/* The run's result over its paths; path 0's final readings stand for the run's flags. */
static void sum_result(const struct nb_case *c, struct nb_path_test *pt, size_t n,
		       struct nb_test_result *sum)
{
	struct nb_metrics parts[NB_PATHS_MAX];
	for (size_t i = 0; i < n; i++) {
		parts[i] = pt[i].res.m;
		if (pt[i].res.hist && (sum->hist || (sum->hist = nb_hist_create())))
			nb_hist_merge(sum->hist, pt[i].res.hist);
	}
	nb_metrics_sum_paths(c->engine, parts, n, sum->hist, &sum->m);
	sum->lfinal = pt[0].res.lfinal;
	sum->pfinal = pt[0].res.pfinal;
	pt[0].res.lfinal = pt[0].res.pfinal = NULL;
}

enum nb_outcome nb_batch_run_paths(struct nb_batch *b, const struct nb_case *c,
				   const struct nb_msg_setup *su, uint32_t rep, const char *started,
				   struct nb_test_result *sum, struct nb_error *err)
{
	memset(sum, 0, sizeof(*sum));
	nb_metrics_clear(&sum->m);
	struct path_rows rows;
	struct nb_path_test pt[NB_PATHS_MAX];
	struct path_sink sinks[NB_PATHS_MAX];
	memset(pt, 0, sizeof(pt));
	if (!rows_init(&rows, b, c, su, rep)) {
		rows_free(&rows);
		snprintf(sum->error, sizeof(sum->error), "out of memory");
		return NB_OUT_CASE_FAILED;
	}
	for (size_t i = 0; i < b->ncpaths; i++) {
		sinks[i] = (struct path_sink){ .rows = &rows, .i = i };
		pt[i].client = b->cpaths[i].dst;
		pt[i].src = b->cpaths[i].src;
		pt[i].sink = (struct nb_test_sink){ .ctx = &sinks[i], .interval = path_interval };
	}
	nb_paths_test(pt, b->ncpaths, su);
	write_sums(&rows, true);
	rows_free(&rows);
	enum nb_outcome o = outcome_of(b, pt, sum, err);
	for (size_t i = 0; i < b->ncpaths; i++)
		nb_run_write_row(b, c, rep, started, pt[i].outcome, &pt[i].res, b->cpaths[i].name);
	sum_result(c, pt, b->ncpaths, sum);
	sum_verdict(pt, b->ncpaths, sum);
	for (size_t i = 0; i < b->ncpaths; i++)
		nb_test_result_free(&pt[i].res);
	return o;
}

static void quiet_interval(void *ctx, uint32_t k, const struct nb_span *span,
			   const struct nb_hist *hist)
{
	(void)ctx, (void)k, (void)span, (void)hist;
}

enum nb_outcome nb_batch_paths_trial(struct nb_batch *b, const struct nb_case *c,
				     const struct nb_msg_setup *su, struct nb_test_result *sum,
				     struct nb_sweep_part *parts, struct nb_error *err)
{
	memset(sum, 0, sizeof(*sum));
	nb_metrics_clear(&sum->m);
	struct nb_path_test pt[NB_PATHS_MAX];
	memset(pt, 0, sizeof(pt));
	for (size_t i = 0; i < b->ncpaths; i++) {
		pt[i].client = b->cpaths[i].dst;
		pt[i].src = b->cpaths[i].src;
		pt[i].sink = (struct nb_test_sink){ .interval = quiet_interval };
	}
	nb_paths_test(pt, b->ncpaths, su);
	enum nb_outcome o = outcome_of(b, pt, sum, err);
	sum_result(c, pt, b->ncpaths, sum);
	sum_verdict(pt, b->ncpaths, sum);
	for (size_t i = 0; i < b->ncpaths; i++) /* each path's own result goes to the caller */
		parts[i] = (struct nb_sweep_part){ .path = b->cpaths[i].name, .o = pt[i].outcome,
						   .res = pt[i].res };
	/* path 0's final readings went to the sum (its flags): its own row needs them too */
	parts[0].res.lfinal = nb_snapshot_dup(sum->lfinal);
	parts[0].res.pfinal = nb_snapshot_dup(sum->pfinal);
	return o;
}

/* nbrun — the composite target (see target.h): several targets that are one. Each child runs
 * on its own thread, all meeting at START and at CLOSED (pathsync.h), and hands its intervals
 * to its own sink there. The sinks share one table under a lock: a child's own interval goes
 * on to the case's sink as it comes (named for its path), and interval k's sum over the
 * children once every one has it. A child that failed leaves holes; after the run the
 * intervals left get their sum over the children that have them. The run's result is the sum
 * of theirs; each child's own comes back as a part. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "target.h"
#include "target_int.h"
#include "timeline.h"

struct path_rows {
	pthread_mutex_t lock;
	const struct nb_target_run *r;
	const struct nb_paths_target *t;
	size_t n;                 /* children */
	uint32_t nk;              /* intervals: 1 .. nk */
	struct nb_metrics *m;     /* [k * n + i]: child i's interval k */
	struct nb_hist **h;       /* the same, its RTT histogram (engines that record latency) */
	bool *have;
	uint32_t next;            /* the next interval whose sum is due */
	bool locked;              /* lock was made */
};

/* One child's run, on its thread. */
struct kid_run {
	struct path_rows *rows;
	size_t i;
	struct nb_case_sink sink;
	struct nb_target_kid k;
};

/* Interval k's sum over the children that have it; false when none has. */
static bool sum_interval(struct path_rows *rows, uint32_t k, struct nb_metrics *out)
{
	struct nb_metrics parts[NB_PATHS_MAX];
	struct nb_hist *merged = NULL;
	size_t n = 0;
	for (size_t i = 0; i < rows->n; i++) {
		size_t at = (size_t)k * rows->n + i;
		if (!rows->have[at])
			continue;
		parts[n++] = rows->m[at];
		if (rows->h[at] && (merged || (merged = nb_hist_create())))
			nb_hist_merge(merged, rows->h[at]);
	}
	if (n)
		nb_metrics_sum_paths(rows->r->c->engine, parts, n, merged, out);
	nb_hist_destroy(merged);
	return n > 0;
}

static bool all_have(const struct path_rows *rows, uint32_t k)
{
	for (size_t i = 0; i < rows->n; i++)
		if (!rows->have[(size_t)k * rows->n + i])
			return false;
	return true;
}

/* Under the lock: the sums now due (every child has them), or with `all` every one left. */
static void write_sums(struct path_rows *rows, bool all)
{
	const struct nb_case_sink *sink = rows->r->sink;
	struct nb_metrics m;
	for (; rows->next <= rows->nk && (all || all_have(rows, rows->next)); rows->next++)
		if (sum_interval(rows, rows->next, &m))
			sink->sum(sink->ctx, rows->next, &m);
}

static void kid_interval(void *ctx, const char *path, uint32_t k, const struct nb_span *span,
			 const struct nb_hist *hist)
{
	struct kid_run *kr = ctx;
	struct path_rows *rows = kr->rows;
	const struct nb_target_run *r = rows->r;
	pthread_mutex_lock(&rows->lock);
	size_t at = (size_t)k * rows->n + kr->i;
	if (k >= 1 && k <= rows->nk && !rows->have[at]) {
		nb_metrics_span(r->c->engine, &r->su->params, span, -1, hist, &rows->m[at]);
		r->sink->interval(r->sink->ctx, path, k, span, hist);
		if (hist && (rows->h[at] = nb_hist_create()))
			nb_hist_copy(rows->h[at], hist);
		rows->have[at] = true;
		write_sums(rows, false);
	}
	pthread_mutex_unlock(&rows->lock);
}

static bool rows_init(struct path_rows *rows, const struct nb_paths_target *t,
		      const struct nb_target_run *r)
{
	const struct nb_msg_setup *su = r->su;
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, su->warmup_ns, su->omit_ns, su->duration_ns, su->interval_ns);
	*rows = (struct path_rows){ .r = r, .t = t, .n = t->base.npaths, .nk = tl.nticks, .next = 1 };
	size_t cells = ((size_t)tl.nticks + 1) * rows->n;
	rows->m = calloc(cells, sizeof(*rows->m));
	rows->h = calloc(cells, sizeof(*rows->h));
	rows->have = calloc(cells, sizeof(*rows->have));
	rows->locked = rows->m && rows->h && rows->have && pthread_mutex_init(&rows->lock, NULL) == 0;
	return rows->locked;
}

static void rows_free(struct path_rows *rows)
{
	size_t cells = ((size_t)rows->nk + 1) * rows->n;
	for (size_t i = 0; rows->h && i < cells; i++)
		nb_hist_destroy(rows->h[i]);
	free(rows->m);
	free(rows->h);
	free(rows->have);
	if (rows->locked)
		pthread_mutex_destroy(&rows->lock);
}

static int severity(enum nb_outcome o)
{
	return o == NB_OUT_PEER_LOST ? 3 : o == NB_OUT_INTERRUPTED ? 2 : o == NB_OUT_CASE_FAILED ? 1 : 0;
}

/* The run's outcome over its children: a lost agent stops the batch, an interruption the run,
 * any other failure fails it; the message names the path (err for a lost agent, else
 * sum->error). */
static enum nb_outcome outcome_of(const struct nb_paths_target *t, struct kid_run *kids,
				  struct nb_test_result *sum, struct nb_error *err)
{
	enum nb_outcome o = NB_OUT_OK;
	for (size_t i = 0; i < t->base.npaths; i++) {
		if (severity(kids[i].k.outcome) <= severity(o))
			continue;
		o = kids[i].k.outcome;
		if (o == NB_OUT_PEER_LOST) {
			snprintf(kids[i].k.res.error, sizeof(kids[i].k.res.error), "%s", kids[i].k.err.msg);
			nb_error_set(err, "path %.200s: %.300s", t->name[i], kids[i].k.err.msg);
		}
		snprintf(sum->error, sizeof(sum->error), "path %.200s: %.360s", t->name[i],
			 kids[i].k.res.error);
	}
	return o;
}

/* What the children's readings hold against the run: each finding of the first child that
 * has it, named; the longest stall of any. */
static void sum_verdict(const struct kid_run *kids, size_t n, struct nb_test_result *sum)
{
	struct nb_run_verdict *v = &sum->verdict;
	for (size_t i = 0; i < n; i++) {
		const struct nb_run_verdict *w = &kids[i].k.res.verdict;
		const char *name = kids[i].k.kid->peer;
		char path[80];
		snprintf(path, sizeof(path), "path to %.60s", name);
		nb_run_verdict_take_stall(v, w, path);
		if (w->suspect[0] && !v->suspect[0])
			snprintf(v->suspect, sizeof(v->suspect), "path to %.60s: %.240s", name, w->suspect);
	}
	/* nothing received: judged on the sum (a path that got nothing shows in its own row) */
	if (!(sum->m.v[NB_COL_RX_PACKETS] > 0) && sum->m.v[NB_COL_TX_PACKETS] > 0)
		for (size_t i = 0; i < n && !v->nothing[0]; i++)
			memcpy(v->nothing, kids[i].k.res.verdict.nothing, sizeof(v->nothing));
}

/* The run's result over its children; the first child's final readings stand for the run's
 * flags (its own part keeps a copy). */
static void sum_result(const struct nb_case *c, struct kid_run *kids, size_t n,
		       struct nb_test_result *sum)
{
	struct nb_metrics parts[NB_PATHS_MAX];
	for (size_t i = 0; i < n; i++) {
		parts[i] = kids[i].k.res.m;
		if (kids[i].k.res.hist && (sum->hist || (sum->hist = nb_hist_create())))
			nb_hist_merge(sum->hist, kids[i].k.res.hist);
	}
	nb_metrics_sum_paths(c->engine, parts, n, sum->hist, &sum->m);
	sum->lfinal = nb_snapshot_dup(kids[0].k.res.lfinal);
	sum->pfinal = nb_snapshot_dup(kids[0].k.res.pfinal);
}

/* Each child's own result to the caller's parts, or freed. */
static void hand_parts(const struct nb_paths_target *t, struct kid_run *kids,
		       struct nb_target_run *r)
{
	r->nparts = r->parts ? t->base.npaths : 0;
	for (size_t i = 0; i < t->base.npaths; i++) {
		if (r->parts)
			r->parts[i] = (struct nb_target_part){ .path = t->name[i], .o = kids[i].k.outcome,
							       .res = kids[i].k.res };
		else
			nb_test_result_free(&kids[i].k.res);
	}
}

static enum nb_outcome paths_run(struct nb_run_target *base, struct nb_target_run *r,
				 struct nb_test_result *sum, struct nb_error *err)
{
	struct nb_paths_target *t = (struct nb_paths_target *)base;
	struct path_rows rows;
	struct kid_run kids[NB_PATHS_MAX];
	memset(sum, 0, sizeof(*sum));
	nb_metrics_clear(&sum->m);
	r->nparts = 0;
	if (!rows_init(&rows, t, r)) {
		rows_free(&rows);
		snprintf(sum->error, sizeof(sum->error), "out of memory");
		return NB_OUT_CASE_FAILED;
	}
	for (size_t i = 0; i < t->base.npaths; i++) {
		kids[i] = (struct kid_run){ .rows = &rows, .i = i, .k.kid = t->kid[i] };
		kids[i].sink = (struct nb_case_sink){ .ctx = &kids[i], .interval = kid_interval };
		kids[i].k.r = (struct nb_target_run){ .c = r->c, .su = r->su, .sink = &kids[i].sink,
						    .path = t->name[i] };
	}
	struct nb_target_kid *each[NB_PATHS_MAX];
	for (size_t i = 0; i < t->base.npaths; i++)
		each[i] = &kids[i].k;
	nb_target_kids_run(each, t->base.npaths);
	write_sums(&rows, true);
	rows_free(&rows);
	enum nb_outcome o = outcome_of(t, kids, sum, err);
	sum_result(r->c, kids, t->base.npaths, sum);
	sum_verdict(kids, t->base.npaths, sum);
	hand_parts(t, kids, r);
	return o;
}

static void paths_abort(struct nb_run_target *base)
{
	struct nb_paths_target *t = (struct nb_paths_target *)base;
	for (size_t i = 0; i < t->base.npaths; i++)
		t->kid[i]->impl->abort(t->kid[i]);
}

/* Its children are not its own: it closes none, and asks nothing (--check asks them). */
static const struct nb_run_target_impl paths_target_impl = {
	.kind = "paths",
	.burst_run_id = true,
	.run = paths_run,
	.abort = paths_abort,
};

void nb_paths_target_init(struct nb_paths_target *t)
{
	t->base = (struct nb_run_target){ .impl = &paths_target_impl, .peer = "?", .npaths = 0 };
}

bool nb_paths_target_add(struct nb_paths_target *t, struct nb_run_target *kid, const char *name)
{
	if (t->base.npaths >= NB_PATHS_MAX)
		return false;
	t->kid[t->base.npaths] = kid;
	snprintf(t->name[t->base.npaths++], sizeof(t->name[0]), "%s", name);
	return true;
}

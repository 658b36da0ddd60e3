/* nbrun — the run loop (see run.h): each case x repetition on the target its batch's ends give
 * it (target.h), with one call whatever the target is; the batch around it is batch.c. */
#include "run.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "run_int.h"
#include "cols.h"
#include "fmt.h"
#include "hist_csv.h"
#include "interval_rows.h"
#include "metrics.h"
#include "outdir.h"
#include "results_dir.h"
#include "sweep_run.h"

#define NB_RUN_STALL_RETRIES 2 /* a repetition whose measuring process stalled runs again */

/* What the interval sink needs to know to write rows. */
struct row_ctx {
	struct nb_batch *b;
	const struct nb_case *c;
	uint32_t run_id, rep;         /* rep as the files number it: 1, 2 ... */
	const struct nb_msg_setup *su;
};

/* A path's interval (path NULL: the run's, the row the statistics use). */
static void write_interval(void *ctx, const char *path, uint32_t k, const struct nb_span *span,
			   const struct nb_hist *hist)
{
	struct row_ctx *r = ctx;
	nb_rows_write_interval(&r->b->rows, r->c->engine, r->su, r->run_id, r->rep, k, span,
			       hist, path, NULL);
	nb_rows_check(&r->b->rows);
	if (!path)
		nb_progress_tick(r->b->progress);
}

/* Interval k of a part that is a case of its own (a working case's probe), under its own id. */
static void write_part(void *ctx, const struct nb_case *pc, const struct nb_msg_setup *psu,
		       const char *path, uint32_t k, const struct nb_span *span,
		       const struct nb_hist *hist)
{
	struct row_ctx *r = ctx;
	nb_rows_write_interval(&r->b->rows, pc->engine, psu, r->run_id, r->rep, k, span,
			       hist, path, NULL);
	nb_rows_check(&r->b->rows);
}

/* Interval k over every path of a composite: the row the statistics use. */
static void write_sum(void *ctx, uint32_t k, const struct nb_metrics *m)
{
	struct row_ctx *r = ctx;
	nb_rows_write_sum(&r->b->rows, r->c->engine, r->su, r->run_id, r->rep, k, m);
	nb_rows_check(&r->b->rows);
	nb_progress_tick(r->b->progress);
}

static void progress_done(const struct nb_batch *b, const struct nb_case *c, uint32_t rep,
			  enum nb_outcome o, const struct nb_test_result *res)
{
	char text[NB_TEXT_MAX + 96], why[sizeof(res->error) + sizeof(res->verdict.suspect) + 32];
	enum nb_col head = nb_metrics_headline(c->engine);
	const char *status = nb_run_status(o, res, why, sizeof(why));
	if (o == NB_OUT_OK && strcmp(status, "ok") == 0)
		nb_fmt_value(res->m.v[head], nb_cols[head].unit, text, sizeof(text));
	else if (o == NB_OUT_OK)
		snprintf(text, sizeof(text), "%s: %.*s", strcmp(status, "failed") ? status : "FAILED",
			 NB_TEXT_MAX, why);
	else
		snprintf(text, sizeof(text), "%s: %s", o == NB_OUT_INTERRUPTED ? "interrupted" : "FAILED",
			 res->error);
	nb_progress_run_done(b->progress, c->id, rep + 1,
			     nb_run_progress_end(nb_run_judged(o, res)), text);
}

/* A search's latency at % of PDR: the working composite of its load at a fraction. */
static struct nb_run_target *latency_target(void *ends, const struct nb_case *lc,
					    struct nb_error *err)
{
	return nb_ends_target(ends, lc, err);
}

/* A swept case: its trials are runs of their own (sweep_run.c) on the case's target. */
static enum nb_outcome run_sweep(struct nb_batch *b, const struct nb_case *c,
				 struct nb_run_target *t, uint32_t rep, struct nb_error *err)
{
	struct nb_sweep_env se = {
		.target = t, .rows = &b->rows, .dir = b->dir, .meta = &b->meta,
		.interrupt = b->o->interrupt, .verbosity = b->o->verbosity, .progress = b->progress,
		.working_target = latency_target, .ends = &b->ends,
	};
	uint32_t before = b->meta.runs_ok + b->meta.runs_failed;
	enum nb_outcome o = nb_sweep_case(&se, c, rep, err);
	b->runs_done += b->meta.runs_ok + b->meta.runs_failed - before; /* its finished trials */
	nb_rows_sync(&b->rows);
	return o;
}

/* One run of case c on target t, its intervals written as they come, and each path's own row
 * of a run on several (the run's own row is the caller's). */
static enum nb_outcome run_on(struct nb_batch *b, const struct nb_case *c, struct nb_run_target *t,
			      const struct nb_msg_setup *su, uint32_t rep, const char *started,
			      struct nb_test_result *res, struct nb_error *err)
{
	struct row_ctx rc = { .b = b, .c = c, .run_id = su->run_id, .rep = rep + 1, .su = su };
	struct nb_case_sink sink = { .ctx = &rc, .interval = write_interval, .sum = write_sum,
				     .part = write_part };
	struct nb_target_part parts[NB_PATHS_MAX];
	struct nb_working_out working;
	struct nb_target_run r = { .c = c, .su = su, .sink = &sink, .parts = parts,
				   .working = &working };
	working.done = false;
	b->rows.running = t;
	enum nb_outcome o = t->impl->run(t, &r, res, err);
	b->rows.running = NULL;
	for (size_t i = 0; i < r.nparts; i++) {
		nb_run_write_row(b, parts[i].c ? parts[i].c : c, rep, started, parts[i].o,
				 &parts[i].res, parts[i].path, 1);
		nb_test_result_free(&parts[i].res);
	}
	if (working.done)
		nb_working_rows_write(b, c, su->run_id, rep + 1, &working);
	nb_working_out_free(&working);
	return o;
}

/* One case x repetition; *stalled: it measured, but its measuring process stalled and nothing
 * else is held against it (runcheck.h). */
static enum nb_outcome run_one(struct nb_batch *b, uint32_t case_index, uint32_t rep,
			       bool *stalled, struct nb_error *err)
{
	*stalled = false;
	const struct nb_case *c = &b->plan->cases[case_index];
	uint32_t reps = c->reps.autorep ? c->reps.max : c->reps.count;
	nb_progress_run_start(b->progress, case_index + 1, b->plan->ncases, c->id, rep + 1, reps);
	nb_json_stream_case_start(b->o->stream, c, case_index + 1, b->plan->ncases, rep + 1, reps);
	struct nb_run_target *t = nb_ends_target(&b->ends, c, err);
	if (!t)
		return NB_OUT_PEER_LOST;
	if (c->sweep.enabled)
		return run_sweep(b, c, t, rep, err);
	struct nb_msg_setup su;
	nb_run_build_setup(c, ++b->rows.run_id, &su);
	char started[32];
	nb_outdir_utc_now(started, sizeof(started));
	struct nb_test_result res;
	enum nb_outcome o = run_on(b, c, t, &su, rep, started, &res, err);
	if (o == NB_OUT_PEER_LOST)
		snprintf(res.error, sizeof(res.error), "%s", err->msg);
	nb_run_write_row(b, c, rep, started, o, &res, NULL, t->npaths);
	*stalled = o == NB_OUT_OK && res.verdict.stalled && !res.verdict.suspect[0] &&
		   !res.verdict.nothing[0];
	if (nb_run_judged(o, &res) == NB_OUT_OK)
		nb_stats_add(&b->stats[case_index], res.m.v[nb_metrics_headline(c->engine)]);
	struct nb_error herr;
	if (res.hist && !nb_hist_csv_write(b->dir, b->rows.run_id, res.hist, &herr))
		nb_rows_failed(&b->rows, &herr);
	nb_test_result_free(&res);
	nb_rows_sync(&b->rows);
	progress_done(b, c, rep, o, &res);
	b->runs_done += o != NB_OUT_INTERRUPTED;
	return nb_run_judged(o, &res); /* a run that is no result fails the batch's exit code */
}

static bool interrupted(const struct nb_batch *b)
{
	return b->o->interrupt && atomic_load(b->o->interrupt);
}

/* One case x repetition, run again while its measuring process stalled, up to
 * NB_RUN_STALL_RETRIES more times (a sweep's trials are retried by the search): a stall is the
 * host's moment, not the case's. Each attempt keeps its row; the stalled ones stay invalid. */
static enum nb_outcome run_rep(struct nb_batch *b, uint32_t case_index, uint32_t rep,
			       struct nb_error *err)
{
	bool stalled;
	enum nb_outcome o = run_one(b, case_index, rep, &stalled, err);
	for (int i = 0; stalled && i < NB_RUN_STALL_RETRIES && !interrupted(b) && !b->rows.write_failed; i++) {
		nb_progress_extend(b->progress, 1);
		o = run_one(b, case_index, rep, &stalled, err);
	}
	return o;
}

static bool is_done(const struct nb_batch *b, uint32_t case_index, uint32_t rep)
{
	for (size_t i = 0; i < b->ndone; i++)
		if (b->done[i].case_index == case_index && b->done[i].rep == rep)
			return true;
	return false;
}

/* Fold one run's outcome into the batch's exit code; false when the batch must stop. */
static bool account(const struct nb_batch *b, enum nb_outcome out, enum nb_run_exit *rc)
{
	if (out == NB_OUT_CASE_FAILED && *rc == NB_EXIT_OK)
		*rc = NB_EXIT_CASES_FAILED;
	if (out == NB_OUT_PEER_LOST)
		*rc = NB_EXIT_PEER;
	return out != NB_OUT_PEER_LOST && out != NB_OUT_INTERRUPTED && !b->rows.write_failed;
}

/* repetitions: auto — repeat each such case until its 95 % CI is narrow enough (netperf's
 * -I/-i rule), after the planned minimum ran in the configured order. A resumed batch counts
 * the values it already has and numbers new repetitions after its last one. */
static bool run_auto_reps(struct nb_batch *b, enum nb_run_exit *rc, struct nb_error *err)
{
	for (uint32_t ci = 0; ci < b->plan->ncases; ci++) {
		const struct nb_case *c = &b->plan->cases[ci];
		if (!c->reps.autorep || c->sweep.enabled) /* a sweep has no headline value to settle */
			continue;
		for (uint32_t rep = nb_case_slots(c); !interrupted(b) && rep < c->reps.max &&
		     !nb_stats_autorep_done(&b->stats[ci], c->reps.min, c->reps.max, c->reps.ci); rep++) {
			if (is_done(b, ci, rep))
				continue;
			nb_progress_extend(b->progress, 1);
			if (!account(b, run_rep(b, ci, rep, err), rc))
				return false;
		}
	}
	return true;
}

static size_t runs_to_do(const struct nb_batch *b)
{
	size_t n = 0;
	for (size_t i = 0; i < b->plan->nslots; i++)
		n += !is_done(b, b->plan->order[i].case_index, b->plan->order[i].rep);
	return n;
}

static enum nb_run_exit run_all(struct nb_batch *b, struct nb_error *err)
{
	enum nb_run_exit rc = NB_EXIT_OK;
	const struct nb_plan *plan = b->plan;
	/* -q: no progress at all (every progress call takes a NULL progress) */
	size_t todo = runs_to_do(b);
	b->progress = b->o->verbosity < 0 ? NULL
					  : nb_progress_begin(stderr, todo, nb_plan_estimate_s(plan));
	b->rows.live = b->o->live ? nb_live_begin(b->progress, stderr) : NULL;
	nb_json_stream_batch_start(b->o->stream, &b->meta, b->dir, plan->ncases, todo);
	bool go = true;
	for (size_t i = 0; i < plan->nslots && go && !interrupted(b); i++)
		if (!is_done(b, plan->order[i].case_index, plan->order[i].rep))
			go = account(b, run_rep(b, plan->order[i].case_index, plan->order[i].rep, err), &rc);
	if (go && !interrupted(b))
		go = run_auto_reps(b, &rc, err);
	nb_live_end(b->rows.live);
	b->rows.live = NULL;
	nb_progress_end(b->progress);
	b->progress = NULL;
	if (b->rows.write_failed)
		return NB_EXIT_WRITE;
	if (interrupted(b))
		return NB_EXIT_SIGNAL;
	b->meta.complete = go;
	return rc;
}

static const char *signal_name(const struct nb_run_opts *o)
{
	int sig = o->signo ? atomic_load(o->signo) : 0;
	return sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : sig == SIGINT ? "SIGINT" : "a signal";
}

/* The last words on stderr: what was kept and where (never after a write failure). The peer
 * lost mid-batch: its error first, then where the finished runs are. */
static void tell(const struct nb_batch *b, enum nb_run_exit rc, struct nb_error *err)
{
	const char *plural = b->runs_done == 1 ? "" : "s";
	if (rc == NB_EXIT_SIGNAL) {
		nb_error_set(err, "interrupted by %s: %zu finished run%s kept in %s (nbrun resume %s "
			     "runs the rest)", signal_name(b->o), b->runs_done, plural, b->dir, b->dir);
	} else if (rc == NB_EXIT_PEER) {
		fprintf(stderr, "nbrun: %s\n", err->msg);
		nb_error_set(err, "%zu run%s kept in %s (nbrun resume %s runs the rest)", b->runs_done,
			     plural, b->dir, b->dir);
	} else if (b->o->verbosity >= 0) {
		fprintf(stderr, "nbrun: results in %s (report.md, report.html, summary.csv, runs.csv, "
			"intervals.csv)\n", b->dir);
	}
}

/* The stream's last events: what stopped the batch, and its end with the exit code nbrun
 * gives (a signal's: 128 + its number). */
static void stream_end(const struct nb_batch *b, enum nb_run_exit rc, const char *error)
{
	struct nb_json_stream *s = b->o->stream;
	if (error && error[0])
		nb_json_stream_error(s, error);
	int code = rc == NB_EXIT_SIGNAL && b->o->signo ? (int)rc + atomic_load(b->o->signo) : (int)rc;
	nb_json_stream_batch_end(s, &b->meta, b->dir, code);
}

/* After the loop: rows closed, meta.json, the report, and the exit code. */
static enum nb_run_exit finish(struct nb_batch *b, enum nb_run_exit rc, struct nb_error *err)
{
	nb_batch_close(b, b->meta.complete, rc == NB_EXIT_SIGNAL ? signal_name(b->o) : NULL);
	struct nb_error rerr = { { 0 } };
	if (!b->rows.write_failed && !nb_batch_report(b, &rerr))
		nb_rows_failed(&b->rows, &rerr);
	if (b->rows.write_failed) {
		*err = b->rows.werr;
		stream_end(b, NB_EXIT_WRITE, err->msg);
		return NB_EXIT_WRITE;
	}
	stream_end(b, rc, rc == NB_EXIT_PEER ? err->msg : NULL);
	tell(b, rc, err);
	return rc;
}

/* What each agent said its flow threads default to (`threads: 0`, its CPUs: flowloop.h). */
static void tell_flow_threads(const struct nb_ends *e)
{
	for (size_t i = 0; i < e->nends; i++) {
		const char *n = nb_facts_value(&e->end[i].agent.client.peer_facts, "nbrun", "flow_threads");
		if (n)
			fprintf(stderr, "nbrun: check: %s%s: flow threads per end: min(flows, %s) "
				"(threads: 0)\n", e->end[i].peer ? "peer " : "embedded agent",
				e->end[i].peer ? e->end[i].peer : "", n);
	}
}

/* The folder exists only after the check passed. */
enum nb_run_exit nb_run_batch(struct nb_batch *b, struct nb_error *err)
{
	size_t problems = nb_batch_check(b, err);
	if (err->msg[0])
		return NB_EXIT_PEER;
	if (problems || b->o->check_only) {
		if (!problems && b->o->verbosity >= 0)
			fprintf(stderr, "nbrun: check: both ends have what the %zu case%s%s\n",
				b->plan->ncases, b->plan->ncases == 1 ? " needs" : "s need",
				b->ends.need_agent ? ", and the data path to the agent works" : "");
		if (!problems && b->o->verbosity >= 0)
			tell_flow_threads(&b->ends);
		return problems ? NB_EXIT_CHECK : NB_EXIT_OK;
	}
	if (!b->claimed && !nb_batch_claim(b, err))
		return NB_EXIT_WRITE;
	if (b->meta.resumed && !nb_meta_json_write(b->dir, &b->meta, err))
		return NB_EXIT_WRITE;
	b->rows.stream = b->o->stream;
	if (!nb_rows_open(&b->rows, b->dir, &b->meta, err)) {
		nb_batch_close(b, false, NULL);
		if (b->made_dir && !b->meta.resumed)
			nb_results_dir_remove(b->dir);
		return NB_EXIT_WRITE;
	}
	return finish(b, run_all(b, err), err);
}

enum nb_run_exit nb_run_plan(const struct nb_config *cfg, const struct nb_plan *plan,
			     const struct nb_run_opts *o, struct nb_error *err)
{
	struct nb_batch b;
	if (!nb_batch_init(&b, cfg, plan, o)) {
		nb_batch_free(&b);
		return nb_error_set(err, "out of memory"), NB_EXIT_USAGE;
	}
	enum nb_run_exit rc = nb_batch_out_free(o, err) ? nb_ends_connect(&b.ends, err) : NB_EXIT_USAGE;
	if (rc == NB_EXIT_OK)
		rc = nb_run_batch(&b, err);
	nb_batch_close(&b, b.meta.complete, NULL);
	nb_batch_free(&b);
	return rc;
}

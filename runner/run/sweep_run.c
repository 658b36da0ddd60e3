/* nbrun — a swept case on its target (see sweep_run.h). The search itself is sweep.c; here a
 * trial becomes one run on the case's target at the offered rate, its rows and a progress
 * line. */
#include "sweep_run.h"
#include "interval_rows.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cols.h"
#include "flags.h"
#include "fmt.h"
#include "metrics.h"
#include "outdir.h"
#include "params.h"
#include "run_int.h"
#include "runs_csv.h"

/* One swept case being run: what the trial callback and the interval sink need. */
struct trial_ctx {
	const struct nb_sweep_env *env;
	const struct nb_case *c;
	uint32_t rep, n;              /* repetition; trials run so far */
	uint32_t run_id;              /* the current trial's run id */
	uint32_t first_run_id;        /* the first trial's */
	struct nb_msg_setup su;
	double max_burst;             /* largest pacer burst of any trial */
	bool lost;                    /* the agent was lost: err says why */
	bool stopped;                 /* a trial was interrupted */
	bool timeline_stall;          /* the current trial's measuring process stalled (runcheck.h) */
	struct nb_error *err;
	struct nb_target_part parts[NB_PATHS_MAX]; /* on several paths: the trial's part of each */
	size_t nparts;
};

static bool write_failed(const struct nb_sweep_env *env, const struct nb_error *err)
{
	nb_rows_failed(env->rows, err);
	return false;
}

static bool rows_ok(const struct trial_ctx *x)
{
	struct nb_error err = { { 0 } };
	return (nb_csv_ok(x->env->rows->intervals, &err) && nb_csv_ok(x->env->rows->runs, &err)) ||
	       write_failed(x->env, &err);
}

/* The trial's own intervals (a path's own, on several paths, have no rows). */
static void write_interval(void *ctx, const char *path, uint32_t k, const struct nb_span *span,
			   const struct nb_hist *hist)
{
	struct trial_ctx *x = ctx;
	if (path)
		return;
	nb_rows_write_interval(x->env->rows, x->c->engine, &x->su, x->run_id, x->rep, k,
			       span, hist, NULL, NULL);
	rows_ok(x);
}

static void no_interval(void *ctx, const char *path, uint32_t k, const struct nb_span *span,
			const struct nb_hist *hist)
{
	(void)ctx, (void)path, (void)k, (void)span, (void)hist;
}

static void no_sum(void *ctx, uint32_t k, const struct nb_metrics *m)
{
	(void)ctx, (void)k, (void)m;
}

/* The case's setup with the trial's rate and length; warm-up, interval and omit from the case
 * (the calibration burst: unpaced, no warm-up, one interval). */
static void build_setup(struct trial_ctx *x, const struct nb_trial *t)
{
	const struct nb_case *c = x->c;
	struct nb_msg_setup *su = &x->su;
	memset(su, 0, sizeof(*su));
	su->run_id = x->run_id;
	snprintf(su->case_id, sizeof(su->case_id), "%s", c->id);
	su->params = c->params;
	su->params.rate = t->offered;
	su->warmup_ns = t->calibration ? 0 : c->timing.warmup_ns;
	su->duration_ns = t->duration_ns;
	su->interval_ns = c->timing.interval_ns < t->duration_ns && !t->calibration
				  ? c->timing.interval_ns : t->duration_ns;
	/* omit only when it leaves the trial one whole interval to measure (a short trial) */
	bool room = c->timing.omit_ns + su->interval_ns <= t->duration_ns && !t->calibration;
	su->omit_ns = room ? c->timing.omit_ns : 0;
	su->drain_ns = nb_engine_drain_ns(c->engine, &su->params);
}

/* Flows the trial's rate was offered to: the case's, on every path. */
static double all_flows(const struct trial_ctx *x)
{
	uint32_t paths = x->env->target->npaths;
	return (double)nb_params_nflows(&x->c->params) * (paths ? paths : 1);
}

/* The busiest sending thread (either end), and the sending hosts' busy and stolen shares. */
static void sender_cpu(const struct nb_params *p, const struct nb_metrics *m,
		       struct nb_trial_host *h)
{
	uint32_t n = nb_params_nflows(p), local = 0;
	for (uint32_t f = 0; f < n; f++)
		local += nb_params_client_sends(p, f);
	h->cpu_pct = fmax(m->v[NB_COL_CPU_LOCAL_TX_THREAD_PCT], m->v[NB_COL_CPU_PEER_TX_THREAD_PCT]);
	h->host_cpu_pct = h->steal_pct = NAN;
	if (local) {
		h->host_cpu_pct = m->v[NB_COL_HOST_CPU_LOCAL_PCT];
		h->steal_pct = m->v[NB_COL_HOST_STEAL_LOCAL_PCT];
	}
	if (local < n) {
		h->host_cpu_pct = fmax(h->host_cpu_pct, m->v[NB_COL_HOST_CPU_PEER_PCT]);
		h->steal_pct = fmax(h->steal_pct, m->v[NB_COL_HOST_STEAL_PEER_PCT]);
	}
}

/* What held the sender back: CPU, refused sends, and the sending time per flow the pacer
 * forgave (its forgiven send times at the offered packet rate). */
static void fill_host(struct trial_ctx *x, const struct nb_metrics *m, struct nb_trial *t)
{
	const struct nb_params *p = &x->c->params;
	bool pps = x->c->engine->traits.rate == NB_RATE_KIND_PACKETS;
	double flows = all_flows(x);
	double per_flow_pps = pps ? (double)t->offered : (double)t->offered / (8.0 * p->size);
	sender_cpu(p, m, &t->host);
	t->host.snd_errs = m->v[NB_COL_SND_ERRS];
	t->host.forgiven_ms = per_flow_pps > 0 ? m->v[NB_COL_PACE_FORGIVEN] / flows / per_flow_pps * 1e3
					       : NAN;
	t->host.lag_ms = m->v[NB_COL_SCHED_LAG_MAX_US] / 1e3;
}

/* Whether the trial lost packets only after its sender fell far behind (nb_sweep_stalled_loss):
 * its oldest datagram's lag, sched_lag_max_us, is both ends' senders' (NAN: none records it). */
static bool stalled_loss(const struct trial_ctx *x, const struct nb_metrics *m,
			 const struct nb_trial *t)
{
	return nb_sweep_stalled_loss(&x->c->sweep, t->loss_ratio, m->v[NB_COL_SCHED_LAG_MAX_US],
				     x->c->params.burst_us);
}

/* What the search needs from the run's metrics: rates per flow (every flow of every path),
 * loss against what was sent. */
static void fill_trial(struct trial_ctx *x, const struct nb_metrics *m, struct nb_trial *t)
{
	double flows = all_flows(x);
	bool pps = x->c->engine->traits.rate == NB_RATE_KIND_PACKETS;
	double sent = isfinite(m->v[NB_COL_ACHIEVED_RATE]) ? m->v[NB_COL_ACHIEVED_RATE]
							   : m->v[pps ? NB_COL_TX_PPS : NB_COL_TX_BPS];
	t->sent_rate = sent / flows;
	t->recv_rate = (pps ? m->v[NB_COL_RX_PPS] : m->v[NB_COL_RX_BPS]) / flows;
	t->loss_ratio = isfinite(m->v[NB_COL_LOSS_PCT]) ? m->v[NB_COL_LOSS_PCT] / 100.0 : 0.0;
	t->jitter_us = m->v[NB_COL_JITTER_US];
	/* Kept its schedule: sent the rate, never stalled long enough for the pacer to forgive
	 * debt (after a stall it catches up at twice the rate, a burst the path may drop), and did
	 * not lose packets after falling far behind (stalled_loss). */
	t->valid = t->sent_rate >= (double)t->offered * (1.0 - NB_SWEEP_SHORTFALL) &&
		   !(m->v[NB_COL_PACE_FORGIVEN] > 0) && !stalled_loss(x, m, t);
	fill_host(x, m, t);
	if (isfinite(m->v[NB_COL_MAX_BURST]) && m->v[NB_COL_MAX_BURST] > x->max_burst)
		x->max_burst = m->v[NB_COL_MAX_BURST];
}

/* Notes on a trial: its verdict per loss goal (a short one: the goals the rate it sent
 * passes, a lower bound), final-phase length, retries, what held the sender back. */
static void trial_flags(const struct trial_ctx *x, const struct nb_trial *t,
			const struct nb_test_result *res, bool part, char *out, size_t n)
{
	const struct nb_metrics *m = &res->m;
	const struct nb_sweep *s = &x->c->sweep;
	out[0] = '\0';
	for (uint32_t g = 0; t->ok && !part && g < s->nloss; g++) {
		char f[48];
		bool pass = t->loss_ratio <= s->loss[g];
		if (t->valid || pass)
			snprintf(f, sizeof(f), "%s<=%g%%", !t->valid ? "lower-bound" : pass ? "pass" : "fail",
				 s->loss[g] * 100.0);
		if (t->valid || pass)
			nb_flags_add(out, n, f);
	}
	if (t->confirm && s->search && !part)
		nb_flags_add(out, n, "final");
	if (t->ok && !t->valid && !part && !res->verdict.stalled)
		nb_flags_add(out, n, t->sent_rate < (double)t->offered * (1.0 - NB_SWEEP_SHORTFALL)
					    ? "short" : "stalled");
	if (t->attempt) {
		char f[32];
		snprintf(f, sizeof(f), "retry=%u/%u", t->attempt, s->retries);
		nb_flags_add(out, n, f);
	}
	if (t->ok && !part && t->host.cpu_pct >= NB_SWEEP_CPU_BOUND_PCT)
		nb_flags_add(out, n, "cpu-bound");
	if (m->v[NB_COL_PACE_FORGIVEN] > 0)
		nb_flags_add(out, n, "pace-forgiven");
	if (t->ok && !part && stalled_loss(x, m, t)) {
		char f[48];
		snprintf(f, sizeof(f), "behind=%.3gms", t->host.lag_ms);
		nb_flags_add(out, n, f);
	}
	if (m->v[NB_COL_RCVBUF_DROPS] > 0)
		nb_flags_add(out, n, "rcvbuf-drops");
	if (m->v[NB_COL_SND_ERRS] > 0)
		nb_flags_add(out, n, "snd-errs");
	nb_flags_data_path(res, &x->su.params, out, n);
	nb_flags_verdict(&res->verdict, out, n);
}

static const char *trial_status(const struct nb_trial *t, enum nb_outcome o,
				const struct nb_test_result *res)
{
	if (o == NB_OUT_OK && res->verdict.suspect[0])
		return "suspect";
	return o == NB_OUT_INTERRUPTED ? "interrupted" : !t->ok ? "failed" : t->valid ? "ok" : "invalid";
}

/* What the readings hold against a trial that ran (runcheck.h): impossible counters or nothing
 * received measured nothing (the trial did not run, as the search counts it, with its reason);
 * a stall of the measuring process tested the process, not the path: invalid, retried. */
static void judge_trial(struct nb_trial *t, enum nb_outcome o, struct nb_test_result *res)
{
	const struct nb_run_verdict *v = &res->verdict;
	if (o != NB_OUT_OK)
		return;
	if (!nb_run_verdict_any(v))
		return;
	nb_run_verdict_text(v, res->error, sizeof(res->error));
	if (v->suspect[0] || v->nothing[0])
		t->ok = false;
	else
		t->valid = false;
}

/* A trial's row: the trial's own (path NULL: the sum on several paths), or one path's part of
 * it — that path's counts and outcome, the offered rate and retry of the trial, and only what
 * held that path's sender back (the verdicts judge the sum). */
static void trial_row(struct trial_ctx *x, const struct nb_trial *t, const char *started,
		      enum nb_outcome o, const struct nb_test_result *res, const char *path)
{
	const struct nb_case *c = x->c;
	char flags[256];
	trial_flags(x, t, res, path != NULL, flags, sizeof(flags));
	enum nb_col head = nb_metrics_headline(c->engine);
	/* a path that measured while another failed the trial: its own row is ok */
	const char *status = path && o == NB_OUT_OK && !t->ok ? "ok" : trial_status(t, o, res);
	bool measured = path ? o == NB_OUT_OK : t->ok;
	struct nb_run row = {
		.run_id = x->run_id, .case_id = c->id, .test = c->test->name, .engine = c->params.engine,
		.protocol = nb_proto_name(c->params.proto), .rep = x->rep, .kind = "trial",
		.offered_rate = (double)t->offered, .status = status,
		.metric = nb_cols[head].name, .value = measured ? res->m.v[head] : NAN, .flags = flags,
		.error = res->error, .started = started, .m = res->m, .path = path,
	};
	nb_rows_run(x->env->rows, c->engine, &row);
}

static void write_trial(struct trial_ctx *x, const struct nb_trial *t, const char *started,
			enum nb_outcome o, const struct nb_test_result *res)
{
	trial_row(x, t, started, o, res, NULL);
	for (size_t i = 0; i < x->nparts; i++)
		trial_row(x, t, started, x->parts[i].o, &x->parts[i].res, x->parts[i].path);
	struct nb_meta *m = x->env->meta;
	m->runs_ok += t->ok;
	m->runs_interrupted += o == NB_OUT_INTERRUPTED;
	m->runs_failed += !t->ok && o != NB_OUT_INTERRUPTED;
}

/* " (fell short: retry 1 of 2; the rate sent passes loss <= 0.1 %)" or "". */
static void short_note(const struct trial_ctx *x, const struct nb_trial *t, char *buf, size_t n)
{
	const struct nb_sweep *s = &x->c->sweep;
	buf[0] = '\0';
	if (!t->ok || t->valid)
		return;
	bool stalled = t->sent_rate >= (double)t->offered * (1.0 - NB_SWEEP_SHORTFALL);
	char behind[96];
	snprintf(behind, sizeof(behind), "the sender fell %.3g ms behind its schedule and caught up",
		 t->host.lag_ms);
	bool far = nb_sweep_far_behind(t->host.lag_ms);
	size_t len = (size_t)snprintf(buf, n, " (%s", x->timeline_stall ? "the measuring process stalled"
					      : stalled && far ? behind
					      : stalled ? "the sender stalled and caught up" : "fell short");
	if (t->attempt < s->retries)
		len += (size_t)snprintf(buf + len, n - len, ": retry %u of %u follows", t->attempt + 1,
					 s->retries);
	else if (s->retries)
		len += (size_t)snprintf(buf + len, n - len, " in every attempt");
	for (uint32_t g = s->nloss; g-- > 0 && len < n;)
		if (t->loss_ratio <= s->loss[g]) {
			len += (size_t)snprintf(buf + len, n - len, "; a lower bound: the rate sent passes "
						"loss <= %g %%", s->loss[g] * 100.0);
			break;
		}
	if (len < n)
		snprintf(buf + len, n - len, ")");
}

/* One line per trial, every rate with its unit ("offered 100 Mbit/s ..., sent 99.8 Mbit/s"). */
static void progress(const struct trial_ctx *x, const struct nb_trial *t, enum nb_outcome o,
		     const char *error)
{
	const char *unit = x->c->engine->traits.rate_unit;
	char line[NB_TEXT_MAX + 512], note[192], off[48], sent[48], recv[48];
	short_note(x, t, note, sizeof(note));
	nb_fmt_value((double)t->offered, unit, off, sizeof(off));
	nb_fmt_value(t->sent_rate, unit, sent, sizeof(sent));
	nb_fmt_value(t->recv_rate, unit, recv, sizeof(recv));
	if (!t->ok)
		snprintf(line, sizeof(line), "  %s trial %u at %s: %s: %s", x->c->id, x->n, off,
			 o == NB_OUT_INTERRUPTED ? "interrupted" : "FAILED", error);
	else
		snprintf(line, sizeof(line), "  %s trial %u: offered %s for %.3g s, sent %s, received "
			 "%s, loss %.4g %%%s", x->c->id, x->n, off, (double)t->duration_ns / 1e9, sent,
			 recv, t->loss_ratio * 100.0, note);
	nb_sweep_say(x->env, line);
}

/* One test of the sweep on the case's target (on several paths, each one's part too). */
static enum nb_outcome test(struct trial_ctx *x, const struct nb_case_sink *sink,
			    struct nb_test_result *res)
{
	struct nb_run_target *t = x->env->target;
	struct nb_target_run r = { .c = x->c, .su = &x->su, .sink = sink, .parts = x->parts };
	x->env->rows->running = t;
	enum nb_outcome o = t->impl->run(t, &r, res, x->err);
	x->env->rows->running = NULL;
	x->nparts = r.nparts;
	return o;
}

static void free_parts(struct trial_ctx *x)
{
	for (size_t i = 0; i < x->nparts; i++)
		nb_test_result_free(&x->parts[i].res);
	x->nparts = 0;
}

/* The unpaced burst before a search: what the sender can offer on this path. No row. */
static bool run_calibration(struct trial_ctx *x, struct nb_trial *t)
{
	/* No row. On several paths a run id of its own: an agent that sends on a grant takes each
	 * run id once (the ids in runs.csv then skip it). */
	x->run_id = x->env->target->impl->burst_run_id ? ++x->env->rows->run_id : 0;
	build_setup(x, t);
	struct nb_case_sink sink = { .ctx = x, .interval = no_interval, .sum = no_sum };
	struct nb_test_result res;
	enum nb_outcome o = test(x, &sink, &res);
	x->lost = o == NB_OUT_PEER_LOST;
	t->ok = o == NB_OUT_OK;
	if (t->ok)
		fill_trial(x, &res.m, t);
	char line[NB_TEXT_MAX + 256], sent[48];
	nb_fmt_value(t->sent_rate, x->c->engine->traits.rate_unit, sent, sizeof(sent));
	if (t->ok)
		snprintf(line, sizeof(line), "  %s calibration: unpaced for %.3g s, the sender offered "
			 "%s", x->c->id, (double)t->duration_ns / 1e9, sent);
	else
		snprintf(line, sizeof(line), "  %s calibration burst FAILED: %s", x->c->id,
			 x->lost ? x->err->msg : res.error);
	nb_sweep_say(x->env, line);
	nb_test_result_free(&res);
	free_parts(x);
	return !x->lost;
}

/* The search's callback: one trial through the agent. */
static bool run_trial(void *ctx, struct nb_trial *t)
{
	struct trial_ctx *x = ctx;
	if (x->env->interrupt && atomic_load(x->env->interrupt))
		return false;
	if (t->calibration)
		return run_calibration(x, t);
	x->run_id = ++x->env->rows->run_id;
	if (!x->first_run_id)
		x->first_run_id = x->run_id;
	x->n++;
	build_setup(x, t);
	char started[32];
	nb_outdir_utc_now(started, sizeof(started));
	struct nb_case_sink sink = { .ctx = x, .interval = write_interval, .sum = no_sum };
	struct nb_test_result res;
	enum nb_outcome o = test(x, &sink, &res);
	if (o == NB_OUT_PEER_LOST) {
		snprintf(res.error, sizeof(res.error), "%s", x->err->msg);
		x->lost = true;
	}
	t->ok = o == NB_OUT_OK;
	if (t->ok)
		fill_trial(x, &res.m, t);
	judge_trial(t, o, &res);
	x->timeline_stall = o == NB_OUT_OK && res.verdict.stalled;
	write_trial(x, t, started, o, &res);
	progress(x, t, o, res.error);
	nb_test_result_free(&res);
	free_parts(x);
	x->stopped |= o == NB_OUT_INTERRUPTED;
	return o != NB_OUT_PEER_LOST && o != NB_OUT_INTERRUPTED && rows_ok(x);
}

enum nb_outcome nb_sweep_case(const struct nb_sweep_env *env, const struct nb_case *c, uint32_t rep,
			      struct nb_error *err)
{
	struct trial_ctx x = { .env = env, .c = c, .rep = rep + 1, .err = err }; /* files count from 1 */
	struct nb_sweep_outcome o;
	struct nb_sweep_opts opts = { .calibrate_ns = c->sweep.search ? NB_SWEEP_CALIBRATE_NS : 0 };
	if (!nb_sweep_execute(&c->sweep, &opts, run_trial, &x, &o)) {
		nb_error_set(err, "%s: out of memory for the sweep", c->id);
		return NB_OUT_CASE_FAILED;
	}
	o.paths = env->target->npaths;
	struct nb_sweep_latency_out lo = { .n = 0 };
	enum nb_outcome lat = x.lost ? NB_OUT_PEER_LOST : nb_sweep_latency(env, c, x.rep, &o, &lo, err);
	x.lost |= lat == NB_OUT_PEER_LOST;
	x.stopped |= lat == NB_OUT_INTERRUPTED;
	o.interrupted |= lat == NB_OUT_INTERRUPTED; /* its entry unfinished: a resume runs it again */
	struct nb_error jerr = { { 0 } };
	if (!env->rows->write_failed &&
	    !nb_sweep_record_append(env->dir, c, x.rep, &o, x.max_burst, x.first_run_id, &lo,
				    &jerr)) {
		env->rows->werr = jerr;
		env->rows->write_failed = true;
	}
	for (uint32_t g = 0; g < (o.search ? o.ngoals : 1); g++) {
		char line[NB_SWEEP_SENTENCE_MAX];
		nb_sweep_sentence(c, &o, o.search ? g : UINT32_MAX, line, sizeof(line));
		nb_sweep_say(env, line);
	}
	bool stopped = x.stopped || (o.interrupted && !x.lost);
	enum nb_outcome rc = x.lost ? NB_OUT_PEER_LOST : stopped ? NB_OUT_INTERRUPTED
			     : o.broken || o.trial_limit || lat == NB_OUT_CASE_FAILED ? NB_OUT_CASE_FAILED
			     : NB_OUT_OK;
	const char *what = o.search ? "search" : "sweep";
	char text[32];
	snprintf(text, sizeof(text), "%s %s", what, stopped ? "interrupted" : "done");
	nb_progress_run_done(env->progress, c->id, rep + 1, nb_run_progress_end(rc), text);
	nb_sweep_outcome_free(&o);
	return rc;
}

/* nbrun — a search's latency at % of its PDR rate (see sweep_run.h; docs/config.md, sweep's
 * latency_at). FD.io CSIT measures latency only after NDR and PDR are found, in the same test:
 * its latency streams alone (no load), then beside the load at 10, 50 and 90 % of the PDR rate
 * (CSIT's methodology, "Packet Latency"). Here each fraction is one run of a working composite
 * (target_working.c): the load is the search's own flow at that fraction of the PDR goal's
 * relevant lower bound (RFC 9971, as CSIT's PDR_LOWER), the probe a UDP latency flow beside it
 * at latency_rate (CSIT's latency streams: 9 kpps), both at one START; 0 % is the probe alone, an idle phase as long as
 * a trial before the first load. Each run is one interval long (its omit none: a paced load
 * below a bottleneck has no ramp), so a phase's percentiles are its one interval's histogram. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cols.h"
#include "fmt.h"
#include "metrics.h"
#include "outdir.h"
#include "params.h"
#include "run_int.h"
#include "sweep_latency_csv.h"
#include "sweep_mlr.h"
#include "stats.h"
#include "sweep_run.h"
#include "interval_rows.h"

/* One search's latency phases being run. */
struct lat_ctx {
	const struct nb_sweep_env *env;
	const struct nb_case *c;      /* the search's case */
	uint32_t rep;                 /* as the files count it */
	struct nb_case lc;            /* the load's case at the fraction, its test lt */
	struct nb_test *lt, *pt;      /* the case's test with the probe as its working part; the probe */
	struct nb_working wk;
	struct nb_msg_setup su;
	char goal[24];
	double pdr;                   /* the goal's relevant lower bound, per flow */
	bool no_target;               /* the case has no working composite (paths ...): err says why */
	struct nb_sweep_latency_out *out; /* every row, for sweeps.json */
};

static void lat_interval(void *ctx, const char *path, uint32_t k, const struct nb_span *span,
			 const struct nb_hist *hist)
{
	struct lat_ctx *x = ctx;
	nb_rows_write_interval(x->env->rows, x->c->engine, &x->su, x->su.run_id, x->rep, k, span,
			       hist, path, NULL);
}


/* The first non-zero loss goal (the PDR) and its relevant lower bound; false when the search
 * found none (nothing to take fractions of). */
static bool pdr_of(struct lat_ctx *x, const struct nb_sweep_outcome *o)
{
	const struct nb_sweep *s = &x->c->sweep;
	for (uint32_t g = 0; g < o->ngoals; g++) {
		if (!(s->loss[g] > 0))
			continue;
		struct nb_mlr_goal goal = nb_mlr_goal_of(s, s->loss[g]);
		struct nb_mlr_result r;
		nb_mlr_goal_name(s, g, x->goal, sizeof(x->goal));
		x->out->goal = g;
		if (!nb_mlr_result(&goal, o->trials, o->ntrials, &r) || !r.lower)
			return false;
		x->pdr = (double)r.lower;
		return true;
	}
	return false;
}

/* The load at fraction f (idle_ns: the probe alone first) and the probe's timing around it. */
static void phase_setup(struct lat_ctx *x, double f, uint64_t idle_ns)
{
	const struct nb_sweep *s = &x->c->sweep;
	x->wk.idle_ns = idle_ns;
	x->pt->timing.duration_ns = idle_ns + s->trial_ns;
	x->pt->timing.interval_ns = s->trial_ns;
	x->pt->timing.omit_ns = x->pt->timing.cooldown_ns = 0;
	x->lc = *x->c;
	x->lc.test = x->lt;
	x->lc.params.rate = (uint64_t)llround(f * x->pdr);
	x->lc.timing.duration_ns = x->lc.timing.interval_ns = s->trial_ns;
	x->lc.timing.omit_ns = x->lc.timing.cooldown_ns = 0;
	nb_run_build_setup(&x->lc, ++x->env->rows->run_id, &x->su);
}

/* The load's row of runs.csv, kind "pdr-latency" (the probe's numbers are sweep_latency.csv's). */
static void run_row(struct lat_ctx *x, double f, const char *started, enum nb_outcome o,
		    const struct nb_test_result *res)
{
	const struct nb_case *c = &x->lc;
	char flags[64], why[sizeof(res->error) + sizeof(res->verdict.suspect) + 32];
	snprintf(flags, sizeof(flags), "latency-at=%g%%", f * 100.0);
	enum nb_col head = nb_metrics_headline(c->engine);
	const char *status = nb_run_status(o, res, why, sizeof(why));
	struct nb_run row = {
		.run_id = x->su.run_id, .case_id = c->id, .test = c->test->name,
		.engine = c->params.engine, .protocol = nb_proto_name(c->params.proto), .rep = x->rep,
		.kind = "pdr-latency", .offered_rate = (double)x->lc.params.rate,
		.status = status, .metric = nb_cols[head].name,
		.value = strcmp(status, "ok") == 0 ? res->m.v[head] : NAN, .flags = flags,
		.error = why, .started = started, .m = res->m,
	};
	nb_rows_run(x->env->rows, c->engine, &row);
}

/* What the load sent per flow, in the search's unit. */
static double achieved(const struct lat_ctx *x, const struct nb_test_result *load)
{
	bool pps = x->c->engine->traits.rate == NB_RATE_KIND_PACKETS;
	double sent = isfinite(load->m.v[NB_COL_ACHIEVED_RATE]) ? load->m.v[NB_COL_ACHIEVED_RATE]
			: load->m.v[pps ? NB_COL_TX_PPS : NB_COL_TX_BPS];
	return sent / (double)nb_params_nflows(&x->c->params);
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

/* Quantile q of h in µs, empty (NAN) below the samples it needs (stats.h). */
static double pct_us(const struct nb_hist_summary *h, double q, uint64_t ns)
{
	return h && nb_stats_quantile_supported(q, (double)h->count) ? us(ns) : NAN;
}

/* Row r for sweeps.json, its strings copied (they outlive the phase's run). */
static void keep_row(struct nb_sweep_latency_out *out, const struct nb_sweep_latency_row *r)
{
	if (out->n >= NB_LATENCY_AT_MAX)
		return;
	snprintf(out->goal_name, sizeof(out->goal_name), "%s", r->goal);
	if (r->probe_case_id[0])
		snprintf(out->probe_id, sizeof(out->probe_id), "%s", r->probe_case_id);
	snprintf(out->status[out->n], sizeof(out->status[0]), "%s", r->status);
	out->row[out->n] = *r;
	out->row[out->n].goal = out->goal_name;
	out->row[out->n].probe_case_id = out->probe_id;
	out->row[out->n].status = out->status[out->n];
	out->n++;
}

/* sweep_latency.csv's row of fraction f: the probe's phase p, the load's numbers when loaded. */
static void csv_row(struct lat_ctx *x, double f, const struct nb_working_out *w, enum nb_phase p,
		    const struct nb_test_result *load, const char *status)
{
	struct nb_rows *rows = x->env->rows;
	struct nb_error err = { { 0 } };
	if (!rows->sweep_latency &&
	    !(rows->sweep_latency = nb_sweep_latency_csv_open(x->env->dir, &err))) {
		nb_rows_failed(rows, &err);
		return;
	}
	const struct nb_hist_summary *h = w && w->done ? &w->probe[0].phase[p] : NULL;
	struct nb_sweep_latency_row r = {
		.run_id = x->su.run_id, .rep = x->rep, .case_id = x->c->id, .goal = x->goal,
		.pdr_rate = x->pdr, .unit = x->c->engine->traits.rate_unit, .pct = f * 100.0,
		.offered_rate = load ? (double)x->lc.params.rate : NAN, .achieved_rate = load ? achieved(x, load) : NAN,
		.loss_pct = load ? load->m.v[NB_COL_LOSS_PCT] : NAN,
		.probe_case_id = w && w->done ? w->probe[0].c->id : "",
		.probe_rate = (double)x->pt->rate.v[0], .samples = h ? h->count : 0,
		.p50_us = pct_us(h, 0.5, h ? h->p50_ns : 0), .p90_us = pct_us(h, 0.9, h ? h->p90_ns : 0),
		.p99_us = pct_us(h, 0.99, h ? h->p99_ns : 0),
		.p999_us = pct_us(h, 0.999, h ? h->p999_ns : 0), .status = status,
	};
	nb_sweep_latency_csv_write(rows->sweep_latency, &r);
	if (!nb_csv_ok(rows->sweep_latency, &err))
		nb_rows_failed(rows, &err);
	keep_row(x->out, &r);
}

/* "  ID latency at 50 % of PDR (49.6 Mbit/s): p50 80 µs, p99 140 µs (load sent 49.6 Mbit/s,
 *  loss 0 %)" */
static void say_phase(struct lat_ctx *x, double f, const struct nb_hist_summary *h,
		      const struct nb_test_result *load, const char *status)
{
	const char *unit = x->c->engine->traits.rate_unit;
	char line[NB_TEXT_MAX + 512], rate[64], sent[48], p50[32], p99[32];
	if (f > 0)
		nb_fmt_value(f * x->pdr, unit, rate, sizeof(rate));
	else
		snprintf(rate, sizeof(rate), "the probe alone");
	if (!h || !h->count) {
		snprintf(line, sizeof(line), "  %s latency at %g %% of %s (%s): no sample (%.*s)",
			 x->c->id, f * 100.0, x->goal, rate, NB_TEXT_MAX, status);
		nb_sweep_say(x->env, line);
		return;
	}
	nb_fmt_value(us(h->p50_ns), "us", p50, sizeof(p50));
	nb_fmt_value(us(h->p99_ns), "us", p99, sizeof(p99));
	size_t n = (size_t)snprintf(line, sizeof(line), "  %s latency at %g %% of %s (%s): p50 %s, "
				    "p99 %s", x->c->id, f * 100.0, x->goal, rate, p50, p99);
	if (load && n < sizeof(line)) {
		nb_fmt_value(achieved(x, load), unit, sent, sizeof(sent));
		snprintf(line + n, sizeof(line) - n, " (the load sent %s, lost %.3g %%)", sent,
			 load->m.v[NB_COL_LOSS_PCT]);
	}
	nb_sweep_say(x->env, line);
}

/* One run at fraction f (first: the 0 % idle phase before it too); false when the batch must
 * stop (the agent lost, interrupted, a write failed). */
static enum nb_outcome phase_run(struct lat_ctx *x, double f, bool idle, struct nb_error *err)
{
	const struct nb_sweep_env *env = x->env;
	phase_setup(x, f, idle ? x->c->sweep.trial_ns : 0);
	struct nb_run_target *t = env->working_target(env->ends, &x->lc, err);
	if (!t) {
		x->no_target = true;
		return NB_OUT_CASE_FAILED;
	}
	char started[32];
	nb_outdir_utc_now(started, sizeof(started));
	struct nb_case_sink sink = { .ctx = x, .interval = lat_interval }; /* the probe's: in the csv */
	struct nb_target_part parts[NB_PATHS_MAX];
	struct nb_working_out w = { .done = false };
	struct nb_target_run r = { .c = &x->lc, .su = &x->su, .sink = &sink, .parts = parts,
				   .working = &w };
	struct nb_test_result res;
	env->rows->running = t;
	enum nb_outcome o = t->impl->run(t, &r, &res, err);
	env->rows->running = NULL;
	if (o == NB_OUT_PEER_LOST)
		snprintf(res.error, sizeof(res.error), "%s", err->msg);
	run_row(x, f, started, o, &res);
	for (size_t i = 0; i < r.nparts; i++)
		nb_test_result_free(&parts[i].res);
	const char *status = o == NB_OUT_OK && w.done ? "ok" : res.error[0] ? res.error : "failed";
	if (idle) {
		csv_row(x, 0, &w, NB_PHASE_IDLE, NULL, status);
		say_phase(x, 0, w.done ? &w.probe[0].phase[NB_PHASE_IDLE] : NULL, NULL, status);
	}
	csv_row(x, f, &w, NB_PHASE_LOADED, &res, status);
	say_phase(x, f, w.done ? &w.probe[0].phase[NB_PHASE_LOADED] : NULL, &res, status);
	nb_working_out_free(&w);
	struct nb_meta *m = env->meta;
	m->runs_ok += o == NB_OUT_OK;
	m->runs_interrupted += o == NB_OUT_INTERRUPTED;
	m->runs_failed += o == NB_OUT_CASE_FAILED || o == NB_OUT_PEER_LOST;
	nb_test_result_free(&res);
	return o;
}

static bool setup_tests(struct lat_ctx *x, struct nb_error *err)
{
	const struct nb_engine *e = nb_engine_udp_probe();
	if (!e)
		return nb_error_set(err, "%s: no engine probes latency over UDP", x->c->id);
	x->lt = malloc(sizeof(*x->lt));
	x->pt = malloc(sizeof(*x->pt));
	if (!x->lt || !x->pt)
		return nb_error_set(err, "%s: out of memory", x->c->id);
	nb_config_latency_probe(x->c->test, e, x->c->sweep.latency_rate, x->pt);
	*x->lt = *x->c->test;
	x->wk = (struct nb_working){ .probes = x->pt, .nprobes = 1 };
	x->lt->working = &x->wk;
	return true;
}

enum nb_outcome nb_sweep_latency(const struct nb_sweep_env *env, const struct nb_case *c,
				 uint32_t rep, const struct nb_sweep_outcome *o,
				 struct nb_sweep_latency_out *out, struct nb_error *err)
{
	const struct nb_sweep *s = &c->sweep;
	struct lat_ctx x = { .env = env, .c = c, .rep = rep, .out = out };
	if (!s->nlatency_at || o->interrupted || !env->working_target)
		return NB_OUT_OK;
	char line[256];
	if (!pdr_of(&x, o)) {
		snprintf(line, sizeof(line), "  %s: no latency at %% of PDR: the search found no PDR "
			 "(no relevant lower bound)", c->id);
		nb_sweep_say(env, line);
		return NB_OUT_OK;
	}
	enum nb_outcome rc = NB_OUT_OK;
	bool idle = s->latency_at[0] == 0;
	if (!setup_tests(&x, err))
		rc = NB_OUT_CASE_FAILED;
	for (uint32_t i = 0; rc == NB_OUT_OK && i < s->nlatency_at; i++) {
		if (!(s->latency_at[i] > 0))
			continue;
		if (env->interrupt && atomic_load(env->interrupt)) {
			rc = NB_OUT_INTERRUPTED;
			break;
		}
		enum nb_outcome po = phase_run(&x, s->latency_at[i], idle, err);
		idle = false;
		if (po == NB_OUT_PEER_LOST || po == NB_OUT_INTERRUPTED || env->rows->write_failed)
			rc = po == NB_OUT_OK ? NB_OUT_INTERRUPTED : po;
		else if (x.no_target)
			rc = NB_OUT_CASE_FAILED;
	}
	if (rc == NB_OUT_CASE_FAILED)
		nb_sweep_say(env, err->msg);
	free(x.lt);
	free(x.pt);
	return rc;
}

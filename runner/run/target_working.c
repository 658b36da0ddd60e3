/* nbrun — a working case's composite (see target.h; docs/design.md, "Latency under working
 * conditions"): the load and each probe on a thread of its own, all meeting at START; the
 * probes' timelines span idle + duration + after, the load STARTs once the probes' warm-up and
 * idle phase are over (with no warm-up of its own: its omit is the ramp) and leaves the group,
 * so CLOSED holds the probes only. The load's intervals are the case's own rows; each probe's go
 * to the sink's part rows under its own case. After the run, each probe's interval histograms
 * split by phase give its idle and loaded percentiles, the load's kept intervals give each
 * flow's throughput, and RPM (TCP) comes from the probes' roles (engine traits). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "params.h"
#include "run_int.h"
#include "target.h"
#include "target_int.h"

#define KIDS (1 + NB_PROBES_MAX)

struct work_rows {
	pthread_mutex_t lock;
	const struct nb_target_run *r;
	struct nb_working_target *t;
	uint32_t nk[KIDS];                /* intervals each kid may have: 1 .. nk */
	struct nb_hist **h[KIDS];         /* [kid][k]: a probe's interval histograms */
	double flow_bps[NB_MAX_FLOWS];    /* the load's kept intervals: each flow's rate, summed */
	uint32_t kept;                    /* how many kept intervals of the load */
};

struct kid {
	struct work_rows *w;
	size_t i;                         /* 0: the load, 1..: probe i */
	struct nb_case_sink sink;
	struct nb_target_kid k;
};

/* The load's interval: the case's own row, and each flow's rate when the interval is kept. */
static void load_interval(struct kid *kd, uint32_t k, const struct nb_span *span,
			  const struct nb_hist *hist)
{
	const struct nb_target_run *r = kd->w->r;
	r->sink->interval(r->sink->ctx, NULL, k, span, hist);
	if ((uint64_t)(k - 1) * kd->k.r.su->interval_ns < kd->k.r.su->omit_ns)
		return; /* the ramp */
	uint32_t n = span->l1->nflows < NB_MAX_FLOWS ? span->l1->nflows : NB_MAX_FLOWS;
	for (uint32_t f = 0; f < n; f++) {
		struct nb_metrics m;
		nb_metrics_span(r->c->engine, &kd->k.r.su->params, span, (int32_t)f, NULL, &m);
		kd->w->flow_bps[f] += isfinite(m.v[NB_COL_RX_BPS]) ? m.v[NB_COL_RX_BPS] : 0;
	}
	kd->w->kept++;
}

static void kid_interval(void *ctx, const char *path, uint32_t k, const struct nb_span *span,
			 const struct nb_hist *hist)
{
	struct kid *kd = ctx;
	struct work_rows *w = kd->w;
	(void)path;
	pthread_mutex_lock(&w->lock);
	if (k >= 1 && k <= w->nk[kd->i]) {
		if (kd->i == 0) {
			load_interval(kd, k, span, hist);
		} else {
			const struct nb_target_run *r = w->r;
			if (r->sink->part)
				r->sink->part(r->sink->ctx, kd->k.r.c, kd->k.r.su, kd->k.r.path, k, span, hist);
			if (hist && !w->h[kd->i][k] && (w->h[kd->i][k] = nb_hist_create()))
				nb_hist_copy(w->h[kd->i][k], hist);
		}
	}
	pthread_mutex_unlock(&w->lock);
}

/* The phases on the probes' axis: the load's START after the warm-up and idle. */
static struct nb_working_timing timing_of(const struct nb_target_run *r)
{
	const struct nb_working *wk = r->c->test->working;
	return (struct nb_working_timing){ .interval_ns = r->su->interval_ns, .idle_ns = wk->idle_ns,
					   .omit_ns = r->su->omit_ns,
					   .duration_ns = r->su->duration_ns,
					   .after_ns = wk->after_ns };
}

/* Probe i's phases from its interval histograms. */
static void probe_out(struct work_rows *w, size_t i, const struct nb_working_timing *tm,
		      struct nb_working_out *out)
{
	struct nb_hist *ph[NB_PHASES] = { NULL };
	bool ok = true;
	for (int p = 0; p < NB_PHASES; p++)
		ok &= (ph[p] = nb_hist_create()) != NULL;
	if (ok) {
		nb_working_split(tm, w->h[i], w->nk[i], ph);
		for (int p = 0; p < NB_PHASES; p++) {
			nb_hist_summarize(ph[p], &out->probe[i - 1].phase[p]);
			out->probe[i - 1].tm_ns[p] = nb_hist_trimmed_mean(ph[p], 0.95);
		}
		nb_working_probe(ph[NB_PHASE_IDLE], ph[NB_PHASE_LOADED], &out->probe[i - 1].pp);
	}
	for (int p = 0; p < NB_PHASES; p++)
		nb_hist_destroy(ph[p]);
}

/* RPM (TCP) over one phase: each term from the first TCP probe whose engine has that role. */
static void rpm_of(const struct nb_working_out *out, enum nb_phase ph, struct nb_rpm *rpm)
{
	struct nb_rpm_in in = { NAN, NAN, NAN };
	for (uint32_t i = 0; i < out->nprobes; i++) {
		const struct nb_case *c = out->probe[i].c;
		double tm = out->probe[i].tm_ns[ph];
		if (c->params.proto != NB_PROTO_TCP || !isfinite(tm))
			continue;
		double *slot = c->engine->traits.rpm == NB_RPM_HANDSHAKE ? &in.tcp_f_ns
			       : c->engine->traits.rpm == NB_RPM_NEW_RR ? &in.crr_ns
			       : c->engine->traits.rpm == NB_RPM_RR ? &in.rr_l_ns : NULL;
		if (slot && isnan(*slot))
			*slot = tm;
	}
	nb_rpm_tcp(&in, rpm);
}

/* The load's flows: each one's mean rate over the kept intervals, each way, and their fairness. */
static void load_out(const struct work_rows *w, const struct kid *load, struct nb_working_out *out)
{
	const struct nb_params *p = &load->k.r.su->params;
	double rate[NB_MAX_FLOWS];
	uint32_t n = nb_params_nflows(p) < NB_MAX_FLOWS ? nb_params_nflows(p) : NB_MAX_FLOWS;
	out->up_bps = out->down_bps = 0;
	for (uint32_t f = 0; f < n; f++) {
		rate[f] = w->kept ? w->flow_bps[f] / w->kept : NAN;
		*(nb_params_client_sends(p, f) ? &out->up_bps : &out->down_bps) += rate[f];
	}
	out->jain = w->kept ? nb_jain(rate, n) : NAN;
	snprintf(out->congestion, sizeof(out->congestion), "%s",
		 p->congestion[0] ? p->congestion : "default");
}

static void fill_out(struct work_rows *w, struct kid *kids, size_t n, struct nb_working_out *out)
{
	struct nb_working_timing tm = timing_of(w->r);
	memset(out, 0, sizeof(*out));
	out->nprobes = (uint32_t)(n - 1);
	for (size_t i = 1; i < n; i++) {
		out->probe[i - 1].c = kids[i].k.r.c;
		probe_out(w, i, &tm, out);
	}
	load_out(w, &kids[0], out);
	rpm_of(out, NB_PHASE_LOADED, &out->rpm);
	rpm_of(out, NB_PHASE_IDLE, &out->idle_rpm);
	out->done = true;
}

static bool rows_init(struct work_rows *w, struct nb_working_target *t, const struct nb_target_run *r)
{
	*w = (struct work_rows){ .r = r, .t = t };
	bool ok = pthread_mutex_init(&w->lock, NULL) == 0;
	for (size_t i = 0; ok && i <= t->nprobes; i++) {
		const struct nb_msg_setup *su = i ? &t->psu[i - 1] : r->su;
		w->nk[i] = (uint32_t)((su->duration_ns + su->interval_ns - 1) / su->interval_ns);
		ok = (w->h[i] = calloc((size_t)w->nk[i] + 1, sizeof(*w->h[i]))) != NULL;
	}
	return ok;
}

static void rows_free(struct work_rows *w, size_t nkids)
{
	for (size_t i = 0; i < nkids; i++) {
		for (uint32_t k = 0; w->h[i] && k <= w->nk[i]; k++)
			nb_hist_destroy(w->h[i][k]);
		free(w->h[i]);
	}
	pthread_mutex_destroy(&w->lock);
}

/* Each probe's case and SETUP for this run (the load's run id: each is its own session). */
static void probe_setups(struct nb_working_target *t, const struct nb_target_run *r)
{
	for (uint32_t i = 0; i < t->nprobes; i++) {
		nb_plan_probe_case(r->c, i, &t->pc[i]);
		nb_run_build_setup(&t->pc[i], r->su->run_id, &t->psu[i]);
	}
}

/* The outcome: the worst of any part (a lost agent stops the batch), its error named. */
static enum nb_outcome outcome_of(struct kid *kids, size_t n, struct nb_test_result *res,
				  struct nb_error *err)
{
	enum nb_outcome o = kids[0].k.outcome;
	for (size_t i = 1; i < n; i++) {
		const struct nb_target_kid *k = &kids[i].k;
		if (k->outcome == NB_OUT_OK || o == NB_OUT_PEER_LOST)
			continue;
		if (o == NB_OUT_OK || k->outcome == NB_OUT_PEER_LOST)
			o = k->outcome;
		if (k->outcome == NB_OUT_PEER_LOST)
			nb_error_set(err, "%s: %.300s", k->r.path, k->err.msg);
		if (!res->error[0])
			snprintf(res->error, sizeof(res->error), "%s: %.400s", k->r.path, k->res.error);
	}
	if (kids[0].k.outcome == NB_OUT_PEER_LOST)
		*err = kids[0].k.err;
	return o;
}

static enum nb_outcome working_run(struct nb_run_target *base, struct nb_target_run *r,
				   struct nb_test_result *res, struct nb_error *err)
{
	struct nb_working_target *t = (struct nb_working_target *)base;
	struct work_rows w;
	struct kid kids[KIDS];
	struct nb_target_kid *each[KIDS];
	size_t n = 1 + t->nprobes;
	memset(res, 0, sizeof(*res));
	nb_metrics_clear(&res->m);
	r->nparts = 0;
	probe_setups(t, r);
	if (!rows_init(&w, t, r)) {
		rows_free(&w, n);
		snprintf(res->error, sizeof(res->error), "out of memory");
		return NB_OUT_CASE_FAILED;
	}
	struct nb_msg_setup load_su = *r->su;
	load_su.warmup_ns = 0; /* the probes' warm-up and idle phase come first: its omit is the ramp */
	for (size_t i = 0; i < n; i++) {
		kids[i] = (struct kid){ .w = &w, .i = i, .k.kid = i ? t->probe[i - 1] : t->load };
		kids[i].sink = (struct nb_case_sink){ .ctx = &kids[i], .interval = kid_interval };
		each[i] = &kids[i].k;
		kids[i].k.r = (struct nb_target_run){
			.c = i ? &t->pc[i - 1] : r->c, .su = i ? &t->psu[i - 1] : &load_su,
			.sink = &kids[i].sink, .path = i ? t->name[i - 1] : "load",
			.start_after_ns = i ? 0 : r->su->warmup_ns + r->c->test->working->idle_ns,
		};
	}
	nb_target_kids_run(each, n);
	enum nb_outcome o = outcome_of(kids, n, &kids[0].k.res, err);
	if (o == NB_OUT_OK && r->working)
		fill_out(&w, kids, n, r->working);
	rows_free(&w, n);
	*res = kids[0].k.res; /* the case's row is its load's */
	r->nparts = r->parts ? t->nprobes : 0;
	for (size_t i = 1; i < n; i++) {
		if (r->parts)
			r->parts[i - 1] = (struct nb_target_part){ .path = t->name[i - 1],
								   .o = kids[i].k.outcome,
								   .res = kids[i].k.res,
								   .c = &t->pc[i - 1] };
		else
			nb_test_result_free(&kids[i].k.res);
	}
	return o;
}

static void working_abort(struct nb_run_target *base)
{
	struct nb_working_target *t = (struct nb_working_target *)base;
	t->load->impl->abort(t->load);
	for (uint32_t i = 0; i < t->nprobes; i++)
		t->probe[i]->impl->abort(t->probe[i]);
}

/* Its children are not its own: it closes none, and asks nothing (--check asks them). */
static const struct nb_run_target_impl working_target_impl = {
	.kind = "working",
	.burst_run_id = true,
	.run = working_run,
	.abort = working_abort,
};

void nb_working_target_init(struct nb_working_target *t, struct nb_run_target *load)
{
	t->base = (struct nb_run_target){ .impl = &working_target_impl, .peer = load->peer,
					  .npaths = 1 };
	t->load = load;
	t->nprobes = 0;
}

bool nb_working_target_add(struct nb_working_target *t, struct nb_run_target *probe)
{
	if (t->nprobes >= NB_PROBES_MAX)
		return false;
	snprintf(t->name[t->nprobes], sizeof(t->name[0]), "probe%u", t->nprobes + 1);
	t->probe[t->nprobes++] = probe;
	return true;
}

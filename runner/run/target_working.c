/* nbrun — a working case's composite (see target.h; docs/design.md, "Latency under working
 * conditions"): the load on each path and each probe on each path on a thread of its own, all
 * meeting at START; the probes' timelines span idle + duration + after, the loads START once the
 * probes' warm-up and idle phase are over (with no warm-up of their own: their omit is the ramp)
 * and leave the group, so CLOSED holds the probes only. One load's intervals are the case's own
 * rows; several are each a path's rows and their sum the case's, as a paths composite writes
 * them; each probe's go to the sink's part rows under its own case. After the run, each probe's interval histograms
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

#define KIDS (NB_PATHS_MAX + NB_WORKING_PROBES)

struct work_rows {
	pthread_mutex_t lock;
	const struct nb_target_run *r;
	struct nb_working_target *t;
	uint32_t nk[KIDS];                /* intervals each kid may have: 1 .. nk */
	struct nb_hist **h[KIDS];         /* [kid][k]: a probe's interval histograms */
	double flow_bps[NB_PATHS_MAX][NB_MAX_FLOWS]; /* each load's kept intervals: each flow's
						       rate, summed */
	uint32_t kept[NB_PATHS_MAX];      /* how many kept intervals of each load */
	struct nb_metrics *m;             /* several loads: [k * nloads + p], path p's interval k */
	bool *have;
	uint32_t next;                    /* the next interval whose sum over the loads is due */
};

struct kid {
	struct work_rows *w;
	size_t i;                         /* < nloads: the load on path i; then the probes */
	struct nb_case_sink sink;
	struct nb_target_kid k;
};

/* Under the lock: the loads' sums now due (every path has them), or with `all` every one left
 * that some path has. */
static void write_sums(struct work_rows *w, bool all)
{
	uint32_t n = w->t->nloads;
	const struct nb_case_sink *sink = w->r->sink;
	for (; n > 1 && w->next <= w->nk[0]; w->next++) {
		struct nb_metrics parts[NB_PATHS_MAX], sum;
		size_t have = 0;
		for (uint32_t p = 0; p < n; p++)
			if (w->have[(size_t)w->next * n + p])
				parts[have++] = w->m[(size_t)w->next * n + p];
		if (have < n && !all)
			return;
		if (have) {
			nb_metrics_sum_paths(w->r->c->engine, parts, have, NULL, &sum);
			sink->sum(sink->ctx, w->next, &sum);
		}
	}
}

/* Load p's interval: the case's own row (one load) or its path's and, once every path has it,
 * their sum; and each flow's rate when the interval is kept. */
static void load_interval(struct kid *kd, uint32_t k, const struct nb_span *span,
			  const struct nb_hist *hist)
{
	struct work_rows *w = kd->w;
	const struct nb_target_run *r = w->r;
	size_t p = kd->i, n = w->t->nloads;
	r->sink->interval(r->sink->ctx, n > 1 ? w->t->lname[p] : NULL, k, span, hist);
	if (hist && !w->h[p][k] && (w->h[p][k] = nb_hist_create())) /* its self probes */
		nb_hist_copy(w->h[p][k], hist);
	if (n > 1 && !w->have[(size_t)k * n + p]) {
		nb_metrics_span(r->c->engine, &kd->k.r.su->params, span, -1, hist, &w->m[(size_t)k * n + p]);
		w->have[(size_t)k * n + p] = true;
		write_sums(w, false);
	}
	if ((uint64_t)(k - 1) * kd->k.r.su->interval_ns < kd->k.r.su->omit_ns)
		return; /* the ramp */
	uint32_t nf = span->l1->nflows < NB_MAX_FLOWS ? span->l1->nflows : NB_MAX_FLOWS;
	for (uint32_t f = 0; f < nf; f++) {
		struct nb_metrics m;
		nb_metrics_span(r->c->engine, &kd->k.r.su->params, span, (int32_t)f, NULL, &m);
		w->flow_bps[p][f] += isfinite(m.v[NB_COL_RX_BPS]) ? m.v[NB_COL_RX_BPS] : 0;
	}
	w->kept[p]++;
}

static void kid_interval(void *ctx, const char *path, uint32_t k, const struct nb_span *span,
			 const struct nb_hist *hist)
{
	struct kid *kd = ctx;
	struct work_rows *w = kd->w;
	(void)path;
	pthread_mutex_lock(&w->lock);
	if (k >= 1 && k <= w->nk[kd->i]) {
		if (kd->i < w->t->nloads) {
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

/* A histogram per phase (false: out of memory; those made are in ph, for the caller to free). */
static bool phases_new(struct nb_hist *ph[NB_PHASES])
{
	bool ok = true;
	for (int p = 0; p < NB_PHASES; p++)
		ok &= (ph[p] = nb_hist_create()) != NULL;
	return ok;
}

/* Each phase's percentiles and 95 % trimmed mean. */
static void phases_summarize(struct nb_hist *const ph[NB_PHASES], struct nb_hist_summary *sum,
			     double *tm_ns)
{
	for (int p = 0; p < NB_PHASES; p++) {
		nb_hist_summarize(ph[p], &sum[p]);
		tm_ns[p] = nb_hist_trimmed_mean(ph[p], 0.95);
	}
}

/* Probe run j's phases from its interval histograms (kid i). */
static void probe_out(struct work_rows *w, size_t i, size_t j, const struct nb_working_timing *tm,
		      struct nb_working_out *out)
{
	struct nb_hist *ph[NB_PHASES] = { NULL };
	bool ok = phases_new(ph);
	if (ok) {
		nb_working_split(tm, w->h[i], w->nk[i], ph);
		phases_summarize(ph, out->probe[j].phase, out->probe[j].tm_ns);
		nb_working_probe(ph[NB_PHASE_IDLE], ph[NB_PHASE_LOADED], &out->probe[j].pp);
	}
	for (int p = 0; p < NB_PHASES; p++) {
		if (ok)
			out->probe[j].hist[p] = ph[p]; /* kept on disk by the rows writer */
		else
			nb_hist_destroy(ph[p]);
	}
}

/* The load's self probes (stream_self.h) by phase, from its interval histograms. */
static void self_out(struct work_rows *w, const struct nb_working_timing *tm,
		     struct nb_working_out *out)
{
	struct nb_hist *ph[NB_PHASES] = { NULL };
	if (phases_new(ph)) {
		nb_working_split_load(tm, w->h[0], w->nk[0], ph);
		phases_summarize(ph, out->self.phase, out->self.tm_ns);
		out->has_self = true;
	}
	for (int p = 0; p < NB_PHASES; p++)
		nb_hist_destroy(ph[p]);
}

/* RPM (TCP) over one phase: each term from the first TCP probe whose engine has that role, the
 * self term from the load's self probes where it ran them (the loaded phase only). */
static void rpm_of(const struct nb_working_out *out, enum nb_phase ph, struct nb_rpm *rpm)
{
	struct nb_rpm_in in = { NAN, NAN, NAN, out->has_self ? out->self.tm_ns[ph] : NAN };
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

/* The load's flows on every path: each one's mean rate over its path's kept intervals, the sum
 * each way, and their fairness over all of them. */
static void load_out(const struct work_rows *w, const struct kid *load, struct nb_working_out *out)
{
	const struct nb_params *p = &load->k.r.su->params;
	double rate[NB_PATHS_MAX * NB_MAX_FLOWS];
	uint32_t per = nb_params_nflows(p) < NB_MAX_FLOWS ? nb_params_nflows(p) : NB_MAX_FLOWS;
	size_t n = 0;
	bool kept = true;
	out->up_bps = out->down_bps = 0;
	for (uint32_t l = 0; l < w->t->nloads; l++) {
		kept &= w->kept[l] > 0;
		for (uint32_t f = 0; f < per; f++, n++) {
			rate[n] = w->kept[l] ? w->flow_bps[l][f] / w->kept[l] : NAN;
			*(nb_params_client_sends(p, f) ? &out->up_bps : &out->down_bps) += rate[n];
		}
	}
	out->jain = kept ? nb_jain(rate, n) : NAN;
	snprintf(out->congestion, sizeof(out->congestion), "%s",
		 p->congestion[0] ? p->congestion : "default");
}

static void fill_out(struct work_rows *w, struct kid *kids, size_t n, struct nb_working_out *out)
{
	struct nb_working_timing tm = timing_of(w->r);
	memset(out, 0, sizeof(*out));
	uint32_t nl = w->t->nloads;
	out->nprobes = (uint32_t)(n - nl);
	for (size_t i = nl; i < n; i++) {
		out->probe[i - nl].c = kids[i].k.r.c;
		out->probe[i - nl].path = nl > 1 ? w->t->lname[(i - nl) / w->t->per] : NULL;
		probe_out(w, i, i - nl, &tm, out);
	}
	load_out(w, &kids[0], out);
	const struct nb_case *lc = kids[0].k.r.c;
	if (nb_case_records_latency(lc->engine, &lc->params))
		self_out(w, &tm, out);
	rpm_of(out, NB_PHASE_LOADED, &out->rpm);
	rpm_of(out, NB_PHASE_IDLE, &out->idle_rpm);
	out->done = true;
}

static bool rows_init(struct work_rows *w, struct nb_working_target *t, const struct nb_target_run *r)
{
	memset(w, 0, sizeof(*w));
	w->r = r;
	w->t = t;
	w->next = 1;
	bool ok = pthread_mutex_init(&w->lock, NULL) == 0;
	for (size_t i = 0; ok && i < t->nloads + t->nprobes; i++) {
		const struct nb_msg_setup *su = i < t->nloads ? r->su : &t->psu[i - t->nloads];
		w->nk[i] = (uint32_t)((su->duration_ns + su->interval_ns - 1) / su->interval_ns);
		ok = (w->h[i] = calloc((size_t)w->nk[i] + 1, sizeof(*w->h[i]))) != NULL;
	}
	size_t cells = ((size_t)w->nk[0] + 1) * t->nloads;
	if (ok && t->nloads > 1)
		ok = (w->m = calloc(cells, sizeof(*w->m))) && (w->have = calloc(cells, sizeof(*w->have)));
	return ok;
}

static void rows_free(struct work_rows *w, size_t nkids)
{
	for (size_t i = 0; i < nkids; i++) {
		for (uint32_t k = 0; w->h[i] && k <= w->nk[i]; k++)
			nb_hist_destroy(w->h[i][k]);
		free(w->h[i]);
	}
	free(w->m);
	free(w->have);
	pthread_mutex_destroy(&w->lock);
}

/* Each probe run's case and SETUP for this run (the load's run id: each is its own session). */
static void probe_setups(struct nb_working_target *t, const struct nb_target_run *r)
{
	for (uint32_t j = 0; j < t->nprobes; j++) {
		nb_plan_probe_case(r->c, j % t->per, &t->pc[j]);
		if (nb_plan_probe_agent_port(&t->pc[j])) /* its id says portagent */
			t->pc[j].params.port = t->agent_port;
		nb_run_build_setup(&t->pc[j], r->su->run_id, &t->psu[j]);
	}
}

static int severity(enum nb_outcome o)
{
	return o == NB_OUT_PEER_LOST ? 3 : o == NB_OUT_INTERRUPTED ? 2 : o == NB_OUT_CASE_FAILED ? 1 : 0;
}

/* The outcome: the worst of any part (a lost agent stops the batch), its error named by the
 * part (a load's own on one path keeps its words). */
static enum nb_outcome outcome_of(struct kid *kids, size_t n, size_t nloads,
				  struct nb_test_result *res, struct nb_error *err)
{
	enum nb_outcome o = NB_OUT_OK;
	for (size_t i = 0; i < n; i++) {
		const struct nb_target_kid *k = &kids[i].k;
		if (severity(k->outcome) <= severity(o))
			continue;
		o = k->outcome;
		if (o == NB_OUT_PEER_LOST)
			nb_error_set(err, "%s: %.300s", k->r.path, k->err.msg);
		if (i || nloads > 1)
			snprintf(res->error, sizeof(res->error), "%s: %.400s", k->r.path, k->res.error);
		else
			memcpy(res->error, k->res.error, sizeof(res->error));
	}
	return o;
}

/* The case's result: its one load's, or the sum over its paths' loads (the first one's final
 * readings and the first finding any path's readings hold against the run stand for it). */
static void load_result(struct nb_working_target *t, const struct nb_case *c, struct kid *kids,
			struct nb_test_result *res)
{
	if (t->nloads == 1) {
		char why[sizeof(res->error)];
		memcpy(why, res->error, sizeof(why));
		*res = kids[0].k.res;
		memcpy(res->error, why, sizeof(why));
		return;
	}
	struct nb_metrics parts[NB_PATHS_MAX];
	for (uint32_t l = 0; l < t->nloads; l++) {
		parts[l] = kids[l].k.res.m;
		if (!nb_run_verdict_any(&res->verdict))
			res->verdict = kids[l].k.res.verdict;
	}
	nb_metrics_sum_paths(c->engine, parts, t->nloads, NULL, &res->m);
	res->lfinal = nb_snapshot_dup(kids[0].k.res.lfinal);
	res->pfinal = nb_snapshot_dup(kids[0].k.res.pfinal);
}

/* A part's stall is the case's: the case's numbers (its inflation, its RPM) are its probes'
 * and its loads' together, so a repetition in which any of them stalled is no result and runs
 * again (run.c), the part named in its error. */
static void fold_stalls(const struct kid *kids, size_t n, struct nb_test_result *res)
{
	for (size_t i = 0; i < n; i++)
		nb_run_verdict_take_stall(&res->verdict, &kids[i].k.res.verdict,
					  kids[i].k.r.path ? kids[i].k.r.path : "part");
}

/* Each part's own result to the caller's parts (several loads' each, then every probe's), or
 * freed. */
static void hand_parts(struct nb_working_target *t, struct kid *kids, size_t n,
		       struct nb_target_run *r)
{
	size_t first = t->nloads > 1 ? 0 : 1; /* one load's result is the case's own */
	r->nparts = 0;
	for (size_t i = first; i < n; i++) {
		bool probe = i >= t->nloads;
		if (r->parts)
			r->parts[r->nparts++] = (struct nb_target_part){
				.path = probe ? t->name[i - t->nloads] : t->lname[i],
				.o = kids[i].k.outcome, .res = kids[i].k.res,
				.c = probe ? &t->pc[i - t->nloads] : NULL };
		else
			nb_test_result_free(&kids[i].k.res);
	}
}

static void kids_init(struct nb_working_target *t, struct nb_target_run *r, struct work_rows *w,
		      const struct nb_msg_setup *load_su, struct kid *kids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool probe = i >= t->nloads;
		size_t j = i - t->nloads;
		kids[i] = (struct kid){ .w = w, .i = i, .k.kid = probe ? t->probe[j] : t->load[i] };
		kids[i].sink = (struct nb_case_sink){ .ctx = &kids[i], .interval = kid_interval };
		kids[i].k.r = (struct nb_target_run){
			.c = probe ? &t->pc[j] : r->c, .su = probe ? &t->psu[j] : load_su,
			.sink = &kids[i].sink, .path = probe ? t->name[j] : t->lname[i],
			.start_after_ns = probe ? 0 : r->su->warmup_ns + r->c->test->working->idle_ns,
		};
	}
}

static enum nb_outcome working_run(struct nb_run_target *base, struct nb_target_run *r,
				   struct nb_test_result *res, struct nb_error *err)
{
	struct nb_working_target *t = (struct nb_working_target *)base;
	struct work_rows *w = malloc(sizeof(*w));
	struct kid kids[KIDS];
	struct nb_target_kid *each[KIDS];
	size_t n = t->nloads + t->nprobes;
	memset(res, 0, sizeof(*res));
	nb_metrics_clear(&res->m);
	r->nparts = 0;
	probe_setups(t, r);
	if (!w || !rows_init(w, t, r)) {
		if (w)
			rows_free(w, n);
		free(w);
		snprintf(res->error, sizeof(res->error), "out of memory");
		return NB_OUT_CASE_FAILED;
	}
	struct nb_msg_setup load_su = *r->su;
	load_su.warmup_ns = 0; /* the probes' warm-up and idle phase come first: its omit is the ramp */
	kids_init(t, r, w, &load_su, kids, n);
	for (size_t i = 0; i < n; i++)
		each[i] = &kids[i].k;
	nb_target_kids_run(each, n);
	write_sums(w, true);
	enum nb_outcome o = outcome_of(kids, n, t->nloads, res, err);
	if (o == NB_OUT_OK && r->working)
		fill_out(w, kids, n, r->working);
	rows_free(w, n);
	free(w);
	load_result(t, r->c, kids, res); /* the case's row is its load's */
	fold_stalls(kids, n, res);
	hand_parts(t, kids, n, r);
	return o;
}

static void working_abort(struct nb_run_target *base)
{
	struct nb_working_target *t = (struct nb_working_target *)base;
	for (uint32_t i = 0; i < t->nloads; i++)
		t->load[i]->impl->abort(t->load[i]);
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

void nb_working_target_init(struct nb_working_target *t, uint32_t per)
{
	t->base = (struct nb_run_target){ .impl = &working_target_impl, .peer = "?", .npaths = 0 };
	t->nloads = t->nprobes = 0;
	t->per = per;
	t->agent_port = 0;
}

bool nb_working_target_add_load(struct nb_working_target *t, struct nb_run_target *load,
				const char *name)
{
	if (t->nloads >= NB_PATHS_MAX)
		return false;
	if (!t->nloads)
		t->base.peer = load->peer;
	snprintf(t->lname[t->nloads], sizeof(t->lname[0]), "%s", name ? name : "load");
	t->load[t->nloads++] = load;
	t->base.npaths = t->nloads;
	return true;
}

bool nb_working_target_add(struct nb_working_target *t, struct nb_run_target *probe)
{
	if (t->nprobes >= NB_WORKING_PROBES)
		return false;
	snprintf(t->name[t->nprobes], sizeof(t->name[0]), "probe%u", t->nprobes + 1);
	t->probe[t->nprobes++] = probe;
	return true;
}

/* nbrun — a test with no agent (see solo.h). */
#include "solo.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ifstats.h"
#include "runcheck.h"
#include "session.h"
#include "sock.h"
#include "timeline.h"

#define SLICE_NS 100000000ull   /* Ctrl-C is seen within this */

struct solo {
	const struct nb_solo_target *to;
	struct nb_pathsync *group;    /* the case's other parts, or NULL */
	const struct nb_msg_setup *su;
	const struct nb_test_sink *sink;
	struct nb_session *s;
	struct nb_timeline tl;
	uint32_t lag;                 /* interval k settles at tick k + lag (timeline.h) */
	struct nb_snapshot **L;       /* by tick index, 0 .. K + lag */
	struct nb_snapshot *none;     /* the peer's half of every span: empty */
	struct nb_hist *scratch;
	struct nb_runcheck rc;        /* the evidence against the run (runcheck.h) */
	bool with_hist;
	bool with_lag;                /* the flows' schedule lag (nb_case_records_lag) */
};

static struct nb_snapshot *take(struct solo *t)
{
	struct nb_snapshot *snap = nb_snapshot_create_with(t->with_hist, t->with_lag);
	if (snap) {
		nb_session_snapshot(t->s, snap);
		nb_ifstats_fill_snapshot(snap, t->to->ifname);
	}
	return snap;
}

/* Tick k + lag is in: hand interval k to the sink (the readings that settled it included). */
static void emit(struct solo *t, uint32_t k)
{
	uint32_t n = t->lag;
	if (k == 0 || k > t->tl.nticks || !t->L[k + n] || !t->L[k - 1])
		return;
	struct nb_span span = { t->L[k - 1], t->L[k], t->none, t->none,
				t->L[k - 1 + n], t->L[k + n], t->none, t->none,
				nb_metrics_catch_up_s(&t->tl, k) };
	const struct nb_hist *h = NULL;
	if (t->with_hist) {
		nb_hist_diff(t->scratch, t->L[k]->hist, t->L[k - 1]->hist);
		h = t->scratch;
	}
	t->sink->interval(t->sink->ctx, k, &span, h);
}

/* A tick: open the next epoch, read, and emit the interval it settles (engine.h). */
static void on_tick(struct solo *t, uint32_t tick)
{
	nb_session_tick(t->s, tick + 1);
	t->L[tick] = take(t);
	if (t->L[tick])
		nb_runcheck_reading(&t->rc, &t->tl, 0, t->tl.t0, tick, t->L[tick]);
	if (tick >= t->lag)
		emit(t, tick - t->lag);
}

static void sleep_until(uint64_t when)
{
	uint64_t now = nb_now_ns();
	if (when <= now)
		return;
	uint64_t ns = when - now < SLICE_NS ? when - now : SLICE_NS;
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ns };
	nanosleep(&ts, NULL);
}

/* Drive the timeline to its end; false when interrupted. */
static bool drive(struct solo *t)
{
	for (;;) {
		if (t->to->interrupt && atomic_load(t->to->interrupt))
			return false;
		uint32_t tick = 0;
		while (nb_timeline_take(&t->tl, nb_now_ns(), &tick) != NB_TL_NONE)
			on_tick(t, tick);
		uint64_t next = nb_timeline_next(&t->tl);
		if (next == UINT64_MAX)
			return true;
		sleep_until(next);
	}
}

/* The run's result over the kept ticks, from the last one's counters. */
static void result(struct solo *t, struct nb_test_result *out)
{
	const struct nb_engine *e = nb_engine_find(t->su->params.engine);
	uint32_t j = nb_timeline_first_kept(&t->tl), K = nb_timeline_last_kept(&t->tl), n = t->lag;
	if (!t->L[j] || !t->L[K] || !t->L[j + n] || !t->L[K + n])
		return;
	struct nb_span span = { t->L[j], t->L[K], t->none, t->none,
				t->L[j + n], t->L[K + n], t->none, t->none, 0 };
	if (t->with_hist && (out->hist = nb_hist_create())) {
		if (nb_engine_due_window(e))
			nb_session_window_hist(t->s, out->hist);
		else
			nb_hist_diff(out->hist, t->L[K]->hist, t->L[j]->hist);
	}
	nb_metrics_span(e, &t->su->params, &span, -1, out->hist, &out->m);
	nb_metrics_window(e, t->L[t->tl.nticks + n], &out->m);
	if (nb_engine_due_window(e)) /* the window's late sends go out after its last tick, and count */
		nb_metrics_sched_lag(t->L[j], t->L[t->tl.nticks + n], &out->m);
	nb_runcheck_verdict(&t->rc, &t->tl, &out->m, &t->su->params, e, &out->verdict);
}

/* Whether the engine finds the run measured anything (its judge op), on the kept window's
 * counters of every flow; false with out->error saying why not. */
static bool judged(const struct solo *t, struct nb_test_result *out)
{
	const struct nb_engine *e = nb_engine_find(t->su->params.engine);
	uint32_t j = nb_timeline_first_kept(&t->tl), K = nb_timeline_last_kept(&t->tl);
	if (!e->judge || !t->L[j] || !t->L[K])
		return true;
	uint64_t sum[NB_C_COUNT] = { 0 };
	for (uint32_t f = 0; f < t->L[K]->nflows && f < t->L[j]->nflows; f++)
		for (int c = 0; c < NB_C_COUNT; c++)
			sum[c] += t->L[K]->flow[f].c[c] - t->L[j]->flow[f].c[c];
	struct sockaddr_storage to = t->to->addr;
	char target[80];
	if (to.ss_family == AF_INET)
		((struct sockaddr_in *)&to)->sin_port = htons(t->su->params.port);
	else
		((struct sockaddr_in6 *)&to)->sin6_port = htons(t->su->params.port);
	nb_sock_addr_str(&to, target, sizeof(target));
	struct nb_error why = { { 0 } };
	if (e->judge(&t->su->params, sum, target, &why))
		return true;
	snprintf(out->error, sizeof(out->error), "%s", why.msg);
	return false;
}

static enum nb_outcome run(struct solo *t, struct nb_test_result *out, struct nb_error *err)
{
	const struct nb_msg_setup *su = t->su;
	uint64_t t0 = 0;
	if (t->group && !nb_pathsync_wait(t->group, NB_SYNC_START, t->to->interrupt, NULL, &t0)) {
		snprintf(out->error, sizeof(out->error), "interrupted before the run started");
		return NB_OUT_INTERRUPTED;
	}
	nb_timeline_init(&t->tl, t0 ? t0 : nb_now_ns(), su->warmup_ns, su->omit_ns, su->duration_ns,
			 su->interval_ns);
	nb_timeline_set_cooldown(&t->tl, su->cooldown_ns);
	t->lag = nb_timeline_settle_lag(&t->tl, su->drain_ns);
	uint64_t base = t->tl.t0 + su->warmup_ns;
	nb_session_set_lag(t->s, t->lag);
	nb_session_set_window(t->s, base + nb_timeline_tick_offset(&t->tl, nb_timeline_first_kept(&t->tl)),
			      base + nb_timeline_tick_offset(&t->tl, nb_timeline_last_kept(&t->tl)));
	if (!nb_session_start(t->s, err)) {
		snprintf(out->error, sizeof(out->error), "%s", err->msg);
		return NB_OUT_CASE_FAILED;
	}
	bool whole = drive(t);
	/* its senders keep going until every part closed its last tick */
	if (whole && t->group)
		whole = nb_pathsync_wait(t->group, NB_SYNC_CLOSED, t->to->interrupt, NULL, NULL);
	nb_session_quiesce(t->s);
	nb_session_drain(t->s, su->drain_ns);
	for (uint32_t k = t->tl.nticks + 1; whole && k <= t->tl.nticks + t->lag; k++)
		on_tick(t, k);
	struct nb_error serr = { { 0 } };
	bool ok = nb_session_stop(t->s, &serr);
	out->lfinal = take(t);
	if (!whole) {
		snprintf(out->error, sizeof(out->error), "interrupted during the run");
		return NB_OUT_CASE_FAILED;
	}
	result(t, out);
	if (!ok) {
		snprintf(out->error, sizeof(out->error), "%s", serr.msg);
		return NB_OUT_CASE_FAILED;
	}
	return judged(t, out) ? NB_OUT_OK : NB_OUT_CASE_FAILED;
}

enum nb_outcome nb_solo_test(const struct nb_solo_target *to, const struct nb_msg_setup *su,
			     const struct nb_test_sink *sink, struct nb_test_result *out,
			     struct nb_error *err)
{
	return nb_solo_test_path(to, su, NULL, sink, out, err);
}

enum nb_outcome nb_solo_test_path(const struct nb_solo_target *to, const struct nb_msg_setup *su,
				  struct nb_pathsync *group, const struct nb_test_sink *sink,
				  struct nb_test_result *out, struct nb_error *err)
{
	memset(out, 0, sizeof(*out));
	nb_metrics_clear(&out->m);
	const struct nb_engine *e = nb_engine_find(su->params.engine);
	if (!e) {
		snprintf(out->error, sizeof(out->error), "no engine '%s' in this build", su->params.engine);
		nb_pathsync_leave(group);
		return NB_OUT_CASE_FAILED;
	}
	uint32_t nslots = (uint32_t)((su->duration_ns + su->interval_ns - 1) / su->interval_ns) + 1 +
			  NB_EPOCH_LAG_MAX;
	struct solo t = { .to = to, .group = group, .su = su, .sink = sink,
			  .with_hist = nb_case_records_latency(e, &su->params),
			  .with_lag = nb_case_records_lag(e, &su->params) };
	t.L = calloc(nslots, sizeof(*t.L));
	t.none = nb_snapshot_create(false);
	t.scratch = t.with_hist ? nb_hist_create() : NULL;
	enum nb_outcome o = NB_OUT_CASE_FAILED;
	if (!t.L || !t.none || (t.with_hist && !t.scratch) || !nb_runcheck_init(&t.rc, "client", "target"))
		snprintf(out->error, sizeof(out->error), "out of memory");
	else if (!(t.s = nb_session_connect(e, &su->params, (const struct sockaddr *)&to->addr,
					    to->addr_len, su->params.port, 0, err)))
		snprintf(out->error, sizeof(out->error), "%s", err->msg);
	else
		o = run(&t, out, err);
	for (uint32_t k = 0; t.L && k < nslots; k++)
		nb_snapshot_destroy(t.L[k]);
	free(t.L);
	nb_snapshot_destroy(t.none);
	nb_hist_destroy(t.scratch);
	nb_runcheck_free(&t.rc);
	nb_session_destroy(t.s);
	nb_pathsync_leave(group); /* however it ended: it holds no other part back */
	return o;
}

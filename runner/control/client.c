/* nbrun — one test's run on the client's end of the control session (see client.h). */
#include "client.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "ifstats.h"
#include "pathsync.h"
#include "session.h"
#include "sock.h"
#include "timeline.h"
#include "text.h"

#define SETUP_MS 20000          /* the agent waits 10 s for data connections, then says why */
/* How long after the end the agent's counters may still be on the way: over a control path that
 * loses a third of its segments (UDP far above a shared bottleneck), TCP's retransmission
 * back-off alone reaches 6 s after five losses in a row. */
#define PEER_SLACK_NS (15ull * 1000000000ull)
#define RESULT_MS 15000

/* ---- one test ---- */

struct test_state {
	struct nb_client *c;
	const struct nb_engine *e;    /* the engine of su->params.engine */
	const struct nb_msg_setup *su;
	const struct nb_test_sink *sink;
	struct nb_session *s;
	struct nb_pathsync *group;    /* the other paths of the case (pathsync.h), or NULL */
	struct nb_timeline tl;
	uint64_t t0;
	bool with_hist;
	uint32_t first_kept;          /* j: the run's result spans ticks j .. K */
	uint32_t lag;                 /* interval k settles at tick k + lag (timeline.h) */
	struct nb_snapshot **L, **P;  /* by tick index, 0 .. K + lag; freed once no longer needed */
	uint32_t next_pair;           /* next interval k to emit */
	struct nb_hist *scratch;
	struct nb_error *err;
};

static struct nb_snapshot *take_local(struct test_state *t)
{
	struct nb_snapshot *snap = nb_snapshot_create(t->with_hist);
	if (snap) {
		nb_session_snapshot(t->s, snap);
		nb_ifstats_fill_snapshot(snap, t->c->ifname);
	}
	return snap;
}

/* The last reading: tick K + lag, taken right after the drain (timeline.h). */
static uint32_t last_reading(const struct test_state *t)
{
	return t->tl.nticks + t->lag;
}

static void release(struct test_state *t, uint32_t k)
{
	uint32_t j = t->first_kept, K = t->tl.nticks, c = nb_timeline_last_kept(&t->tl);
	if (k == j || k == j + t->lag || k == K || k == c || k == c + t->lag || k == last_reading(t))
		return;
	nb_snapshot_destroy(t->L[k]);
	nb_snapshot_destroy(t->P[k]);
	t->L[k] = t->P[k] = NULL;
}

/* Interval k: both ends' readings at ticks k - 1 and k, and at ticks k - 1 + lag and k + lag,
 * where the receivers settled the datagrams of those ticks' intervals. */
static void emit(struct test_state *t, uint32_t k)
{
	uint32_t a = k - 1, b = k, n = t->lag;
	struct nb_span span = { t->L[a], t->L[b], t->P[a], t->P[b],
				t->L[a + n], t->L[b + n], t->P[a + n], t->P[b + n] };
	const struct nb_hist *h = NULL;
	if (t->with_hist) {
		nb_hist_diff(t->scratch, t->L[b]->hist, t->L[a]->hist);
		h = t->scratch;
	}
	t->sink->interval(t->sink->ctx, k, &span, h);
}

/* Emit every interval whose readings, and those that settled it, are in at both ends. */
static void emit_pairs(struct test_state *t)
{
	uint32_t n = t->lag;
	while (t->next_pair <= t->tl.nticks && t->L[t->next_pair + n] && t->P[t->next_pair + n]) {
		uint32_t k = t->next_pair++;
		emit(t, k);
		if (k >= 2)
			release(t, k - 1);
	}
}

/* A tick: open the next epoch, then read (engine.h). */
static void on_local(struct test_state *t, uint32_t tick)
{
	nb_session_tick(t->s, tick + 1);
	t->L[tick] = take_local(t);
	emit_pairs(t);
}

static enum nb_outcome lost(struct test_state *t, const char *why)
{
	double after = (double)(nb_now_ns() - t->t0) / 1e9;
	nb_error_set(t->err, "peer %s stopped answering during %s (after %.0f s): %s", t->c->peer_name,
		     t->su->case_id, after, why);
	return NB_OUT_PEER_LOST;
}

/* out->error: "agent: TEXT", the agent's text sanitised. */
static void agent_text(struct nb_test_result *out, const char *text)
{
	char clean[NB_TEXT_MAX + 1];
	snprintf(out->error, sizeof(out->error), "agent: %s", nb_text_sanitize(clean, sizeof(clean), text));
}

/* Handle one frame from the agent during the run. */
static enum nb_outcome on_peer(struct test_state *t, struct nb_msg *m, struct nb_test_result *out)
{
	if (m->type == NB_MSG_INTERVAL) {
		int32_t k = m->u.interval.index;
		if (k < 0 || (uint32_t)k > last_reading(t) || t->P[k])
			return lost(t, "an interval frame out of sequence");
		t->P[k] = m->u.interval.snap;
		m->u.interval.snap = NULL;
		emit_pairs(t);
		return NB_OUT_OK;
	}
	if (m->type == NB_MSG_ERROR) {
		agent_text(out, m->u.error.text);
		return NB_OUT_CASE_FAILED;
	}
	return lost(t, "an unexpected message");
}

/* A signal (or the caller) stops the run: stop both ends now and record the run as
 * interrupted (its window is cut short, so it has no result); the agent is left ready. */
static enum nb_outcome interrupted(struct test_state *t, struct nb_test_result *out)
{
	snprintf(out->error, sizeof(out->error), "interrupted after %.1f s of the run",
		 (double)(nb_now_ns() - t->t0) / 1e9);
	struct nb_msg stop = { .type = NB_MSG_STOP }, m;
	if (!nb_ctl_send(t->c->fd, &stop, 5000, t->err))
		return lost(t, "cannot send STOP");
	int r;
	while ((r = nb_ctl_recv(t->c->fd, &m, RESULT_MS, t->err)) == 1) {
		enum nb_msg_type type = m.type;
		nb_msg_free(&m);
		if (type == NB_MSG_RESULT || type == NB_MSG_ERROR)
			break;
	}
	if (r != 1)
		return lost(t, "no RESULT after STOP");
	struct nb_error ignored;
	nb_session_stop(t->s, &ignored);
	return NB_OUT_INTERRUPTED;
}

static bool stop_asked(const struct nb_client *c)
{
	return (c->interrupt && atomic_load(c->interrupt)) || atomic_load(&c->abort);
}

static bool both_closed(const struct test_state *t)
{
	return t->L[t->tl.nticks] && t->P[t->tl.nticks];
}

/* Drive the timeline until both ends' last tick is in. */
static enum nb_outcome run_loop(struct test_state *t, struct nb_test_result *out)
{
	uint64_t end = t->t0 + t->su->warmup_ns + t->su->duration_ns;
	while (!both_closed(t)) {
		if (stop_asked(t->c))
			return interrupted(t, out);
		uint64_t now = nb_now_ns();
		uint32_t tick = 0;
		while (nb_timeline_take(&t->tl, now, &tick) != NB_TL_NONE)
			on_local(t, tick);
		if (both_closed(t))
			break;
		uint64_t next = nb_timeline_next(&t->tl);
		uint64_t deadline = (next == UINT64_MAX ? end : next);
		if (now > end + t->su->interval_ns + PEER_SLACK_NS)
			return lost(t, "its interval counters stopped arriving");
		struct nb_msg m;
		int ms = deadline > now ? (int)((deadline - now) / 1000000ull) + 1 : 50;
		int r = nb_ctl_recv(t->c->fd, &m, ms, t->err);
		if (r < 0)
			return lost(t, t->err->msg);
		if (r == 1) {
			enum nb_outcome o = on_peer(t, &m, out);
			nb_msg_free(&m);
			if (o != NB_OUT_OK)
				return o;
		}
	}
	/* Our senders keep sending until every end of every path closed its last tick. */
	if (t->group && !nb_pathsync_wait(t->group, NB_SYNC_CLOSED, t->c->interrupt, &t->c->abort, NULL))
		return interrupted(t, out);
	return NB_OUT_OK;
}

/* The run's result: the kept window's readings (ticks j and K), and the readings that settled
 * those ticks' intervals (j + lag and K + lag). */
static void result(struct test_state *t, struct nb_test_result *out)
{
	uint32_t j = t->first_kept, K = nb_timeline_last_kept(&t->tl), n = t->lag;
	struct nb_span span = { t->L[j], t->L[K], t->P[j], t->P[K],
				t->L[j + n], t->L[K + n], t->P[j + n], t->P[K + n] };
	if (t->with_hist && (out->hist = nb_hist_create())) {
		if (t->e->due_window)
			nb_session_window_hist(t->s, out->hist);
		else
			nb_hist_diff(out->hist, t->L[K]->hist, t->L[j]->hist);
	}
	nb_metrics_span(t->e, &t->su->params, &span, -1, out->hist, &out->m);
	nb_metrics_window(t->e, t->L[last_reading(t)], &out->m);
}

/* The agent's readings after its drain, then its RESULT (in *m). */
static enum nb_outcome await_result(struct test_state *t, struct nb_msg *m,
				    struct nb_test_result *out)
{
	int r;
	while ((r = nb_ctl_recv(t->c->fd, m, RESULT_MS, t->err)) == 1 && m->type != NB_MSG_RESULT) {
		enum nb_outcome o = on_peer(t, m, out);
		nb_msg_free(m);
		if (o != NB_OUT_OK)
			return o;
	}
	if (r != 1 || !t->L[last_reading(t)] || !t->P[last_reading(t)]) {
		if (r == 1)
			nb_msg_free(m);
		return lost(t, "no RESULT after STOP");
	}
	return NB_OUT_OK;
}

/* Both ends closed their last tick: our senders stop, then STOP (the agent's stop: its end of a
 * connection may close right after); both drain, then take `lag` more readings back to back
 * (ticks K + 1 .. K + lag), each settling one more interval; then the agent's RESULT. */
static enum nb_outcome finish(struct test_state *t, struct nb_test_result *out)
{
	struct nb_msg stop = { .type = NB_MSG_STOP }, m;
	nb_session_quiesce(t->s);
	if (!nb_ctl_send(t->c->fd, &stop, 5000, t->err))
		return lost(t, "cannot send STOP");
	nb_session_drain(t->s, t->su->drain_ns);
	for (uint32_t k = t->tl.nticks + 1; k <= last_reading(t); k++)
		on_local(t, k);
	enum nb_outcome o = await_result(t, &m, out);
	if (o != NB_OUT_OK)
		return o;
	struct nb_error serr = { { 0 } };
	bool local_ok = nb_session_stop(t->s, &serr);
	result(t, out);
	if (!m.u.result.ok || !local_ok) {
		if (local_ok)
			agent_text(out, m.u.result.text);
		else
			snprintf(out->error, sizeof(out->error), "%s", serr.msg);
		o = NB_OUT_CASE_FAILED;
	}
	out->lfinal = t->L[last_reading(t)];
	t->L[last_reading(t)] = NULL;
	out->pfinal = m.u.result.s.snap;
	m.u.result.s.snap = NULL;
	nb_msg_free(&m);
	return o;
}

void nb_test_result_free(struct nb_test_result *r)
{
	nb_hist_destroy(r->hist);
	nb_snapshot_destroy(r->lfinal);
	nb_snapshot_destroy(r->pfinal);
	r->hist = NULL;
	r->lfinal = r->pfinal = NULL;
}

/* SETUP -> READY | ERROR. */
static enum nb_outcome setup(struct test_state *t, uint16_t *port, struct nb_test_result *out)
{
	struct nb_msg m = { .type = NB_MSG_SETUP };
	m.u.setup = *t->su;
	if (!nb_ctl_send(t->c->fd, &m, 5000, t->err))
		return lost(t, t->err->msg);
	int r = nb_ctl_recv(t->c->fd, &m, SETUP_MS, t->err);
	if (r <= 0)
		return lost(t, r == 0 ? "no answer to SETUP" : t->err->msg);
	enum nb_outcome o = NB_OUT_OK;
	if (m.type == NB_MSG_READY) {
		*port = m.u.ready.port;
	} else if (m.type == NB_MSG_ERROR) {
		agent_text(out, m.u.error.text);
		o = NB_OUT_CASE_FAILED;
	} else {
		o = lost(t, "an unexpected answer to SETUP");
	}
	nb_msg_free(&m);
	return o;
}

/* After a failed data connection the agent gives up on its side and says so: read that. */
static enum nb_outcome resync(struct test_state *t, struct nb_test_result *out, const char *why)
{
	snprintf(out->error, sizeof(out->error), "%s", why);
	struct nb_msg m;
	int r = nb_ctl_recv(t->c->fd, &m, SETUP_MS, t->err);
	if (r != 1)
		return lost(t, "no answer after a failed data connection");
	nb_msg_free(&m);
	return NB_OUT_CASE_FAILED;
}

/* Stopped while the other paths got ready: the agent, still waiting for START, takes STOP as
 * the end of this test and stays ready for the next. */
static enum nb_outcome stopped_before_start(struct test_state *t, struct nb_test_result *out)
{
	struct nb_msg stop = { .type = NB_MSG_STOP };
	snprintf(out->error, sizeof(out->error), "interrupted before the run started");
	if (!nb_ctl_send(t->c->fd, &stop, 5000, t->err))
		return lost(t, "cannot send STOP");
	return NB_OUT_INTERRUPTED;
}

static enum nb_outcome run_started(struct test_state *t, struct nb_test_result *out)
{
	struct nb_msg start = { .type = NB_MSG_START };
	uint64_t t0 = 0;
	/* Every path's START at once, their timelines from the same instant (pathsync.h). */
	if (t->group && !nb_pathsync_wait(t->group, NB_SYNC_START, t->c->interrupt, &t->c->abort, &t0))
		return stopped_before_start(t, out);
	if (!nb_ctl_send(t->c->fd, &start, 5000, t->err))
		return lost(t, t->err->msg);
	t->t0 = t->group ? t0 : nb_now_ns();
	nb_timeline_init(&t->tl, t->t0, t->su->warmup_ns, t->su->omit_ns, t->su->duration_ns,
			 t->su->interval_ns);
	nb_timeline_set_cooldown(&t->tl, t->su->cooldown_ns);
	t->first_kept = nb_timeline_first_kept(&t->tl);
	t->next_pair = 1;
	uint64_t base = t->t0 + t->su->warmup_ns;
	nb_session_set_lag(t->s, t->lag);
	nb_session_set_window(t->s, base + nb_timeline_tick_offset(&t->tl, t->first_kept),
			      base + nb_timeline_tick_offset(&t->tl, nb_timeline_last_kept(&t->tl)));
	if (!nb_session_start(t->s, t->err)) {
		snprintf(out->error, sizeof(out->error), "%s", t->err->msg);
		return NB_OUT_CASE_FAILED;
	}
	enum nb_outcome o = run_loop(t, out);
	return o == NB_OUT_OK ? finish(t, out) : o;
}

static void free_state(struct test_state *t, uint32_t nslots)
{
	for (uint32_t k = 0; k < nslots; k++) {
		if (t->L)
			nb_snapshot_destroy(t->L[k]);
		if (t->P)
			nb_snapshot_destroy(t->P[k]);
	}
	free(t->L);
	free(t->P);
	nb_hist_destroy(t->scratch);
	nb_session_destroy(t->s);
}

enum nb_outcome nb_client_test(struct nb_client *c, const struct nb_msg_setup *su,
			       const struct nb_test_sink *sink, struct nb_test_result *out,
			       struct nb_error *err)
{
	return nb_client_test_path(c, su, NULL, sink, out, err);
}

static enum nb_outcome test_path(struct nb_client *c, const struct nb_msg_setup *su,
				 struct nb_pathsync *group, const struct nb_test_sink *sink,
				 struct nb_test_result *out, struct nb_error *err)
{
	memset(out, 0, sizeof(*out));
	nb_metrics_clear(&out->m);
	const struct nb_engine *e = nb_engine_find(su->params.engine);
	struct nb_msg_setup run = *su; /* with the run's data key, which never crosses the wire */
	nb_auth_run_key(c->session_key, su->run_id, run.params.key);
	struct test_state t = { .c = c, .e = e, .su = &run, .sink = sink, .err = err,
				.group = group, .t0 = nb_now_ns() };
	if (!e) {
		snprintf(out->error, sizeof(out->error), "no engine '%s' in this build", su->params.engine);
		return NB_OUT_CASE_FAILED;
	}
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, su->warmup_ns, su->omit_ns, su->duration_ns, su->interval_ns);
	t.lag = nb_timeline_settle_lag(&tl, su->drain_ns);
	uint32_t nslots = tl.nticks + t.lag + 1;
	if (nb_timeline_first_kept(&tl) >= tl.nticks) {
		snprintf(out->error, sizeof(out->error), "no measured window: omit %gs leaves no whole "
			 "interval of %gs in duration %gs", (double)su->omit_ns / 1e9,
			 (double)su->interval_ns / 1e9, (double)su->duration_ns / 1e9);
		return NB_OUT_CASE_FAILED;
	}
	t.with_hist = e->records_latency;
	t.L = calloc(nslots, sizeof(*t.L));
	t.P = calloc(nslots, sizeof(*t.P));
	t.scratch = t.with_hist ? nb_hist_create() : NULL;
	if (!t.L || !t.P || (t.with_hist && !t.scratch)) {
		free_state(&t, 0);
		snprintf(out->error, sizeof(out->error), "out of memory");
		return NB_OUT_CASE_FAILED;
	}
	uint16_t port = 0;
	enum nb_outcome o = setup(&t, &port, out);
	if (o == NB_OUT_OK) {
		t.s = nb_session_connect(e, &run.params, (struct sockaddr *)&c->addr, c->addr_len, port,
					 10000, err);
		o = t.s ? run_started(&t, out) : resync(&t, out, err->msg);
	}
	free_state(&t, nslots);
	sodium_memzero(run.params.key, sizeof(run.params.key));
	return o;
}

enum nb_outcome nb_client_test_path(struct nb_client *c, const struct nb_msg_setup *su,
				    struct nb_pathsync *group, const struct nb_test_sink *sink,
				    struct nb_test_result *out, struct nb_error *err)
{
	enum nb_outcome o = test_path(c, su, group, sink, out, err);
	nb_pathsync_leave(group); /* done, however it ended: it holds no other path back */
	return o;
}

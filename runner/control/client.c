/* nbrun — one test's run on the client's end of the control session (see client.h). */
#include "client_int.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl.h"
#include "ifstats.h"
#include "pathsync.h"
#include "session.h"
#include "sock.h"
#include "timeline.h"
#include "text.h"

/* ---- one test ---- */

static struct nb_snapshot *take_local(struct nb_pairs *t)
{
	struct nb_snapshot *snap = nb_snapshot_create_with(t->with_hist, t->with_lag);
	if (snap) {
		nb_session_snapshot(t->s, snap);
		nb_ifstats_fill_snapshot(snap, t->c->ifname);
	}
	return snap;
}

/* A tick: open the next epoch, then read (engine.h). */
static void on_local(struct nb_pairs *t, uint32_t tick)
{
	nb_session_tick(t->s, tick + 1);
	t->L[tick] = take_local(t);
	if (t->L[tick])
		nb_runcheck_reading(&t->rc, &t->tl, 0, t->tl.t0, tick, t->L[tick]);
	nb_pairs_emit(t);
}

static enum nb_outcome lost(struct nb_pairs *t, const char *why)
{
	return nb_pairs_lost(t, t->c, why);
}

/* A signal (or the caller) stops the run: stop both ends now and record the run as
 * interrupted (its window is cut short, so it has no result); the agent is left ready. */
static enum nb_outcome interrupted(struct nb_pairs *t, struct nb_test_result *out)
{
	snprintf(out->error, sizeof(out->error), "interrupted after %.1f s of the run",
		 (double)(nb_now_ns() - t->t0) / 1e9);
	enum nb_outcome o = nb_pairs_stop_end(t, t->c);
	if (o != NB_OUT_INTERRUPTED)
		return o;
	struct nb_error ignored;
	nb_session_stop(t->s, &ignored);
	return NB_OUT_INTERRUPTED;
}

/* Drive the timeline until both ends' last tick is in. */
static enum nb_outcome run_loop(struct nb_pairs *t, struct nb_test_result *out)
{
	uint64_t end = t->t0 + t->su->warmup_ns + t->su->duration_ns;
	while (!nb_pairs_closed(t)) {
		if (nb_pairs_stop_asked(t->c))
			return interrupted(t, out);
		uint64_t now = nb_now_ns();
		uint32_t tick = 0;
		while (nb_timeline_take(&t->tl, now, &tick) != NB_TL_NONE)
			on_local(t, tick);
		if (nb_pairs_closed(t))
			break;
		uint64_t next = nb_timeline_next(&t->tl);
		uint64_t deadline = (next == UINT64_MAX ? end : next);
		if (now > end + t->su->interval_ns + NB_PAIRS_SLACK_NS)
			return lost(t, "its interval counters stopped arriving");
		struct nb_msg m;
		int ms = deadline > now ? (int)((deadline - now) / 1000000ull) + 1 : 50;
		int r = nb_ctl_recv(&t->c->ctl, &m, ms, t->err);
		if (r < 0)
			return lost(t, t->err->msg);
		if (r == 1) {
			enum nb_outcome o = nb_pairs_frame(t, t->c, t->P, &m, out);
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

/* Both ends closed their last tick: our senders stop, then STOP (the agent's stop: its end of a
 * connection may close right after); both drain, then take `lag` more readings back to back
 * (ticks K + 1 .. K + lag), each settling one more interval; then the agent's RESULT. */
static enum nb_outcome finish(struct nb_pairs *t, struct nb_test_result *out)
{
	struct nb_msg stop = { .type = NB_MSG_STOP }, m;
	nb_session_quiesce(t->s);
	if (!nb_ctl_send(&t->c->ctl, &stop, 5000, t->err))
		return lost(t, "cannot send STOP");
	nb_session_drain(t->s, t->su->drain_ns);
	for (uint32_t k = t->tl.nticks + 1; k <= nb_pairs_last(t); k++)
		on_local(t, k);
	enum nb_outcome o = nb_pairs_await_result(t, t->c, t->P, &m, out);
	if (o != NB_OUT_OK)
		return o;
	if (!t->L[nb_pairs_last(t)] || !t->P[nb_pairs_last(t)]) {
		nb_msg_free(&m);
		return lost(t, "no RESULT after STOP");
	}
	struct nb_error serr = { { 0 } };
	bool local_ok = nb_session_stop(t->s, &serr);
	nb_pairs_result(t, out, NULL, m.u.result.s.snap);
	if (!m.u.result.ok || !local_ok) {
		if (local_ok)
			nb_pairs_agent_text(out, m.u.result.text);
		else
			snprintf(out->error, sizeof(out->error), "%s", serr.msg);
		o = NB_OUT_CASE_FAILED;
	}
	nb_pairs_finals(t, &m, out);
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

/* After a failed data connection the agent gives up on its side and says so: read that. */
static enum nb_outcome resync(struct nb_pairs *t, struct nb_test_result *out, const char *why)
{
	snprintf(out->error, sizeof(out->error), "%s", why);
	struct nb_msg m;
	int r = nb_ctl_recv(&t->c->ctl, &m, NB_PAIRS_SETUP_MS, t->err);
	if (r != 1)
		return lost(t, "no answer after a failed data connection");
	nb_msg_free(&m);
	return NB_OUT_CASE_FAILED;
}

/* Stopped while the other paths got ready: the agent, still waiting for START, takes STOP as
 * the end of this test and stays ready for the next. */
static enum nb_outcome stopped_before_start(struct nb_pairs *t, struct nb_test_result *out)
{
	struct nb_msg stop = { .type = NB_MSG_STOP };
	snprintf(out->error, sizeof(out->error), "interrupted before the run started");
	if (!nb_ctl_send(&t->c->ctl, &stop, 5000, t->err))
		return lost(t, "cannot send STOP");
	return NB_OUT_INTERRUPTED;
}

static enum nb_outcome run_started(struct nb_pairs *t, struct nb_test_result *out)
{
	struct nb_msg start = { .type = NB_MSG_START };
	uint64_t t0 = 0;
	/* Every path's START at once, their timelines from the same instant (pathsync.h). */
	if (t->group && !nb_pathsync_wait(t->group, NB_SYNC_START, t->c->interrupt, &t->c->abort, &t0))
		return stopped_before_start(t, out);
	if (t->group && t->start_after_ns) { /* its window lies inside the others': none waits */
		nb_pathsync_leave(t->group);
		t->group = NULL;
		t->left = true;
		t0 += t->start_after_ns;
		for (uint64_t now; (now = nb_now_ns()) < t0;) { /* its idle phase: Ctrl-C within 50 ms */
			if (nb_pairs_stop_asked(t->c))
				return stopped_before_start(t, out);
			uint64_t ns = t0 - now < 50000000ull ? t0 - now : 50000000ull;
			nanosleep(&(struct timespec){ .tv_nsec = (long)ns }, NULL);
		}
	}
	nb_ifstats_loss_read(t->c->ifname, &t->pre); /* before START: no test datagram yet */
	if (!nb_ctl_send(&t->c->ctl, &start, 5000, t->err))
		return lost(t, t->err->msg);
	nb_pairs_timeline(t, t0 ? t0 : nb_now_ns());
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

enum nb_outcome nb_client_test(struct nb_client *c, const struct nb_msg_setup *su,
			       const struct nb_test_sink *sink, struct nb_test_result *out,
			       struct nb_error *err)
{
	return nb_client_test_path(c, su, NULL, sink, out, err);
}

static enum nb_outcome test_path(struct nb_client *c, const struct nb_msg_setup *su,
				 struct nb_pathsync *group, uint64_t start_after_ns,
				 const struct nb_test_sink *sink, struct nb_test_result *out,
				 bool *left, struct nb_error *err)
{
	memset(out, 0, sizeof(*out));
	nb_metrics_clear(&out->m);
	struct nb_msg_setup run = *su; /* with the run's data key, which never crosses the wire */
	nb_auth_run_key(c->session_key, su->run_id, run.params.key);
	run.any_source = c->any_source;
	struct nb_pairs t = { .c = c, .e = nb_engine_find(su->params.engine), .su = &run,
			      .sink = sink, .err = err, .group = group, .t0 = nb_now_ns(),
			      .start_after_ns = start_after_ns };
	if (!t.e) {
		snprintf(out->error, sizeof(out->error), "no engine '%s' in this build", su->params.engine);
		return NB_OUT_CASE_FAILED;
	}
	uint16_t port = 0;
	enum nb_outcome o = NB_OUT_CASE_FAILED;
	if (nb_pairs_init(&t, out))
		o = nb_pairs_setup(&t, c, &run, &port, out);
	if (o == NB_OUT_OK && !port)
		o = resync(&t, out, "agent answered SETUP without a data port");
	if (o == NB_OUT_OK) {
		t.s = nb_session_connect(t.e, &run.params, (struct sockaddr *)&c->addr, c->addr_len,
					 port, 10000, err);
		o = t.s ? run_started(&t, out) : resync(&t, out, err->msg);
	}
	*left = t.left;
	nb_pairs_free(&t);
	sodium_memzero(run.params.key, sizeof(run.params.key));
	return o;
}

enum nb_outcome nb_client_test_path_after(struct nb_client *c, const struct nb_msg_setup *su,
					  struct nb_pathsync *group, uint64_t start_after_ns,
					  const struct nb_test_sink *sink, struct nb_test_result *out,
					  struct nb_error *err)
{
	bool left = false;
	enum nb_outcome o = test_path(c, su, group, start_after_ns, sink, out, &left, err);
	if (!left)
		nb_pathsync_leave(group); /* done, however it ended: it holds no other path back */
	return o;
}

enum nb_outcome nb_client_test_path(struct nb_client *c, const struct nb_msg_setup *su,
				    struct nb_pathsync *group, const struct nb_test_sink *sink,
				    struct nb_test_result *out, struct nb_error *err)
{
	return nb_client_test_path_after(c, su, group, 0, sink, out, err);
}

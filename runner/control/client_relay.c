/* nbrun — one test on a path between two agents (see client.h): the runner holds a control
 * session with each, and neither end of the data path is this host.
 *
 * The receiving agent (dst) gets SETUP with any_source and answers READY with its data port;
 * the sending agent (src) gets SETUP with end CONNECT, dst's data address and that port, and
 * the grant: dst's run key sealed under src's session for this run and dst's address and port
 * (auth.h) — and src sends no payload before dst proved that key on the data connection
 * (dataconn.h): src sends only to the agent this runner authenticated, for this run only. Both get START at the case's common
 * start; each streams its INTERVAL frames, src's taken as this end's readings (L) and dst's as
 * the peer's (P), paired exactly as for a local client (client_int.h). Once both closed their
 * last tick (and every other path of the case did), both get STOP: each stops its senders,
 * drains, takes the settling readings and answers RESULT. */
#include "client_int.h"

#include <poll.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "pathsync.h"
#include "sock.h"
#include "text.h"

struct relay {
	struct nb_pairs t;
	struct nb_client *src;        /* the sending agent; t.c is the receiving one */
};

static bool stop_asked(const struct relay *r)
{
	return nb_pairs_stop_asked(r->t.c) || nb_pairs_stop_asked(r->src);
}

/* Stop both ends' runs early. */
static enum nb_outcome interrupted(struct relay *r, struct nb_test_result *out)
{
	snprintf(out->error, sizeof(out->error), "interrupted after %.1f s of the run",
		 (double)(nb_now_ns() - r->t.t0) / 1e9);
	enum nb_outcome a = nb_pairs_stop_end(&r->t, r->src), b = nb_pairs_stop_end(&r->t, r->t.c);
	return a != NB_OUT_INTERRUPTED ? a : b;
}

/* The next frame of either agent into its side; NB_OUT_OK also when none came by ms. */
static enum nb_outcome next_frame(struct relay *r, int ms, struct nb_test_result *out)
{
	struct nb_client *who[2] = { r->src, r->t.c };
	struct nb_snapshot **side[2] = { r->t.L, r->t.P };
	struct pollfd pfd[2] = { { .fd = r->src->ctl.fd, .events = POLLIN },
				 { .fd = r->t.c->ctl.fd, .events = POLLIN } };
	if (poll(pfd, 2, ms) <= 0)
		return NB_OUT_OK;
	for (int i = 0; i < 2; i++) {
		if (!pfd[i].revents)
			continue;
		struct nb_msg m;
		int got = nb_ctl_recv(&who[i]->ctl, &m, 0, r->t.err);
		if (got < 0)
			return nb_pairs_lost(&r->t, who[i], r->t.err->msg);
		if (got == 0)
			continue;
		enum nb_outcome o = nb_pairs_frame(&r->t, who[i], side[i], &m, out);
		nb_msg_free(&m);
		if (o != NB_OUT_OK)
			return o;
	}
	return NB_OUT_OK;
}

/* Both agents' frames until both closed their last tick, then the case's other paths. */
static enum nb_outcome run_loop(struct relay *r, struct nb_test_result *out)
{
	struct nb_pairs *t = &r->t;
	uint64_t end = t->t0 + t->su->warmup_ns + t->su->duration_ns;
	while (!nb_pairs_closed(t)) {
		if (stop_asked(r))
			return interrupted(r, out);
		uint64_t now = nb_now_ns();
		if (now > end + t->su->interval_ns + NB_PAIRS_SLACK_NS)
			return nb_pairs_lost(t, t->L[t->tl.nticks] ? t->c : r->src,
					     "its interval counters stopped arriving");
		enum nb_outcome o = next_frame(r, 100, out);
		if (o != NB_OUT_OK)
			return o;
	}
	if (t->group && !nb_pathsync_wait(t->group, NB_SYNC_CLOSED, t->c->interrupt, &t->c->abort, NULL))
		return interrupted(r, out);
	return NB_OUT_OK;
}

/* "agent HOST: TEXT" of a RESULT that says the run failed at that end. */
static void failed_end(struct nb_test_result *out, const struct nb_client *who, const char *text)
{
	char clean[NB_TEXT_MAX + 1];
	snprintf(out->error, sizeof(out->error), "agent %.150s: %.300s", who->peer_name,
		 nb_text_sanitize(clean, sizeof(clean), text));
}

/* STOP to both; each drains and settles; their RESULTs; the run's result. */
static enum nb_outcome finish(struct relay *r, struct nb_test_result *out)
{
	struct nb_pairs *t = &r->t;
	struct nb_msg stop = { .type = NB_MSG_STOP }, ms, md;
	if (!nb_ctl_send(&r->src->ctl, &stop, 5000, t->err))
		return nb_pairs_lost(t, r->src, "cannot send STOP");
	if (!nb_ctl_send(&t->c->ctl, &stop, 5000, t->err))
		return nb_pairs_lost(t, t->c, "cannot send STOP");
	enum nb_outcome o = nb_pairs_await_result(t, r->src, t->L, &ms, out);
	if (o != NB_OUT_OK)
		return o;
	o = nb_pairs_await_result(t, t->c, t->P, &md, out);
	bool have_md = o == NB_OUT_OK; /* md holds dst's RESULT */
	if (o == NB_OUT_OK && (!t->L[nb_pairs_last(t)] || !t->P[nb_pairs_last(t)]))
		o = nb_pairs_lost(t, t->L[nb_pairs_last(t)] ? t->c : r->src, "no RESULT after STOP");
	if (o == NB_OUT_OK) {
		nb_pairs_result(t, out, ms.u.result.s.snap, md.u.result.s.snap);
		if (!ms.u.result.ok || !md.u.result.ok) {
			failed_end(out, ms.u.result.ok ? t->c : r->src,
				   ms.u.result.ok ? md.u.result.text : ms.u.result.text);
			o = NB_OUT_CASE_FAILED;
		}
		nb_pairs_finals(t, &md, out);
	} else if (have_md) {
		nb_msg_free(&md);
	}
	nb_msg_free(&ms);
	return o;
}

static enum nb_outcome send_start(struct nb_pairs *t, struct nb_client *who)
{
	struct nb_msg start = { .type = NB_MSG_START };
	return nb_ctl_send(&who->ctl, &start, 5000, t->err) ? NB_OUT_OK
							  : nb_pairs_lost(t, who, t->err->msg);
}

static enum nb_outcome run_started(struct relay *r, struct nb_test_result *out)
{
	struct nb_pairs *t = &r->t;
	uint64_t t0 = 0;
	if (t->group && !nb_pathsync_wait(t->group, NB_SYNC_START, t->c->interrupt, &t->c->abort, &t0)) {
		struct nb_msg stop = { .type = NB_MSG_STOP };
		snprintf(out->error, sizeof(out->error), "interrupted before the run started");
		nb_ctl_send(&r->src->ctl, &stop, 5000, NULL);
		nb_ctl_send(&t->c->ctl, &stop, 5000, NULL);
		return NB_OUT_INTERRUPTED;
	}
	/* The sender first: the receiver's window opens no earlier than the sender's (as for a local
	 * client, whose timeline starts as it sends START), so it does not count bytes sent before
	 * the sender's window. */
	enum nb_outcome o = send_start(t, r->src);
	if (o == NB_OUT_OK)
		o = send_start(t, t->c);
	if (o != NB_OUT_OK)
		return o;
	nb_pairs_timeline(t, t->group ? t0 : nb_now_ns());
	o = run_loop(r, out);
	return o == NB_OUT_OK ? finish(r, out) : o;
}

/* dst listens (from any host proving the key); src connects to it with the grant. */
static enum nb_outcome open_ends(struct relay *r, struct nb_test_result *out)
{
	struct nb_pairs *t = &r->t;
	struct nb_msg_setup rx = *t->su, tx = *t->su;
	uint16_t port = 0, unused = 0;
	rx.end = NB_END_LISTEN;
	rx.any_source = 1;
	enum nb_outcome o = nb_pairs_setup(t, t->c, &rx, &port, out);
	if (o != NB_OUT_OK)
		return o;
	tx.end = NB_END_CONNECT;
	tx.any_source = 0;
	unsigned char key[NB_KEY_LEN];
	nb_auth_run_key(t->c->session_key, t->su->run_id, key);
	bool has_ip = nb_ctl_target_put(&t->c->addr, port, &tx.target);
	nb_auth_grant_seal(r->src->session_key, t->su->run_id, &tx.target, key, tx.grant);
	sodium_memzero(key, sizeof(key));
	if (!has_ip)
		snprintf(out->error, sizeof(out->error), "agent %s has no IP address", t->c->peer_name);
	else
		o = nb_pairs_setup(t, r->src, &tx, &unused, out);
	sodium_memzero(tx.grant, sizeof(tx.grant));
	if (o == NB_OUT_OK && tx.target.family)
		return NB_OUT_OK;
	/* The receiver waits for data connections that will not come, then says so: read that. */
	struct nb_msg m;
	int got = nb_ctl_recv(&t->c->ctl, &m, NB_PAIRS_SETUP_MS, t->err);
	if (got != 1)
		return nb_pairs_lost(t, t->c, "no answer after a failed data connection");
	nb_msg_free(&m);
	return o == NB_OUT_PEER_LOST ? o : NB_OUT_CASE_FAILED;
}

enum nb_outcome nb_client_test_relay(struct nb_client *src, struct nb_client *dst,
				     const struct nb_msg_setup *su, struct nb_pathsync *group,
				     const struct nb_test_sink *sink, struct nb_test_result *out,
				     struct nb_error *err)
{
	memset(out, 0, sizeof(*out));
	nb_metrics_clear(&out->m);
	struct relay r = { .src = src, .t = { .c = dst, .e = nb_engine_find(su->params.engine),
					      .su = su, .sink = sink, .err = err, .group = group,
					      .t0 = nb_now_ns() } };
	enum nb_outcome o = NB_OUT_CASE_FAILED;
	if (!r.t.e)
		snprintf(out->error, sizeof(out->error), "no engine '%s' in this build", su->params.engine);
	else if (!src->proven) /* the agent has no secret: it would refuse to send, asked */
		snprintf(out->error, sizeof(out->error), "agent %s was reached without a secret: it "
			 "sends to no address a runner names (give its host a secret_file:)",
			 src->peer_name);
	else if (nb_pairs_init(&r.t, out)) {
		r.t.rc.who[0] = "sending agent";
		r.t.rc.who[1] = "receiving agent";
		o = open_ends(&r, out);
	}
	if (o == NB_OUT_OK)
		o = run_started(&r, out);
	nb_pairs_free(&r.t);
	nb_pathsync_leave(group);
	return o;
}

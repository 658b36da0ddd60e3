/* nbrun — the agent's side of an authenticated session: its facts, then each test on the
 * engines' session harness, its counters streamed back (see agent.h). */
#include <poll.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "agent_int.h"
#include "check.h"
#include "cidr.h"
#include "clock.h"
#include "ctl.h"
#include "hello_facts.h"
#include "ifstats.h"
#include "lossstats.h"
#include "agent_limits.h"
#include "nb_config.h"
#include "params.h"
#include "probe.h"
#include "proto.h"
#include "session.h"
#include "sock.h"
#include "text.h"
#include "timeline.h"

#define SETUP_TIMEOUT_MS 10000
/* READY to START: a composite's START waits for every path's data stage, each of which may take
 * a SETUP_TIMEOUT_MS to fail (the runner's data connection, the other agent's accept), and a
 * working case's load STARTs after its idle phase (at most NB_WORKING_IDLE_MAX_NS) and the
 * probes' warm-up. A wait of SETUP_TIMEOUT_MS alone lost that race: a healthy path's agent gave
 * up on START just before it came ("unexpected message between tests"). */
#define START_TIMEOUT_MS 150000
#define STOP_GRACE_NS (30ull * 1000000000ull) /* the run's RESULT waits this long for STOP */

struct session_ctx {
	struct nb_agent *a;
	struct nb_agent_conn *conn;
	struct nb_ctl *ctl;             /* the session's control connection (sealed) */
	uint32_t runs;                  /* tests asked for in this session */
	unsigned char session_key[NB_KEY_LEN];
	char ifname[64];                /* the interface toward the client, for its counters */
	uint32_t last_grant;            /* the run id of the last grant used: each is used once */
	uint32_t probes;                /* data path probes taken (probe.h) */
};

/* ---- one test ---- */

static void send_snap(struct nb_ctl *ctl, enum nb_msg_type type, int32_t index, uint64_t t_ns,
		      struct nb_snapshot *snap, const char *text)
{
	struct nb_msg m = { .type = type };
	struct nb_msg_snap *ms = type == NB_MSG_RESULT ? &m.u.result.s : &m.u.interval;
	ms->index = index;
	ms->t_ns = t_ns;
	ms->snap = snap;
	if (type == NB_MSG_RESULT) {
		m.u.result.ok = text[0] == '\0';
		nb_text_sanitize(m.u.result.text, sizeof(m.u.result.text), text);
	}
	nb_ctl_send(ctl, &m, 5000, NULL);
}

/* Whether this agent runs su: an engine it has, parameters the engine takes, within the
 * limits, a congestion control the host allows. Else the ERROR code and why. */
static enum nb_err_code check_setup(struct nb_agent *a, const struct nb_msg_setup *su, char *why,
				    size_t n)
{
	const struct nb_engine *e = nb_engine_find(su->params.engine);
	struct nb_error err = { { 0 } };
	if (!e) {
		snprintf(why, n, "agent has no engine '%s' (nbrun %s)", su->params.engine, NB_VERSION);
		return NB_ERR_SETUP;
	}
	if (e->validate && !e->validate(&su->params, &err)) {
		snprintf(why, n, "%s", err.msg);
		return NB_ERR_SETUP;
	}
	if (!nb_limits_check(&a->o.limits, e, su, why, n))
		return NB_ERR_LIMIT;
	if (su->end == NB_END_CONNECT && !(a->o.secret && a->o.secret->set)) {
		snprintf(why, n, "this agent has no secret (--secret-file): it sends to no address a "
			 "client names, since any client could name any address");
		return NB_ERR_SETUP;
	}
	if (su->any_source && !(a->o.secret && a->o.secret->set)) {
		snprintf(why, n, "this agent has no secret (--secret-file): it takes data from its "
			 "client's host only, since any client could name any other");
		return NB_ERR_SETUP;
	}
	if (su->end == NB_END_CONNECT && nb_case_records_latency(e, &su->params)) {
		snprintf(why, n, "engine %s measures round trips at its client end: a path between two "
			 "agents carries no latency histograms (this version)", e->name);
		return NB_ERR_SETUP;
	}
	if (su->params.proto == NB_PROTO_TCP && su->params.congestion[0] &&
	    !nb_sock_cc_allowed(su->params.congestion, &err)) {
		snprintf(why, n, "%s", err.msg);
		return NB_ERR_SETUP;
	}
	return 0;
}

/* Wait for START; false when the client went away or sent something else. */
static bool await_start(struct nb_ctl *ctl)
{
	struct nb_msg m;
	struct nb_error err;
	int r = nb_ctl_recv(ctl, &m, START_TIMEOUT_MS, &err);
	bool ok = r == 1 && m.type == NB_MSG_START;
	if (r == 1)
		nb_msg_free(&m);
	return ok;
}

/* A tick: open the next epoch, read, and send the reading (engine.h, timeline.h). */
static void on_tick(struct session_ctx *c, struct nb_session *s, uint32_t tick,
		    struct nb_snapshot *snap, uint64_t t0)
{
	nb_session_tick(s, tick + 1);
	nb_session_snapshot(s, snap);
	nb_ifstats_fill_snapshot(snap, c->ifname);
	send_snap(c->ctl, NB_MSG_INTERVAL, (int32_t)tick, snap->t_ns - t0, snap, "");
}

/* Ticks a receiver keeps an interval open; the client uses the same (timeline.h). */
static uint32_t settle_lag(const struct nb_msg_setup *su)
{
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, su->warmup_ns, su->omit_ns, su->duration_ns, su->interval_ns);
	return nb_timeline_settle_lag(&tl, su->drain_ns);
}

/* The client's STOP says both ends closed their last tick: only now do our senders stop; after
 * the drain, ticks K + 1 .. K + lag back to back settle the last intervals (timeline.h). */
static void wind_down(struct session_ctx *c, struct nb_session *s, const struct nb_msg_setup *su,
		      const struct nb_timeline *tl, struct nb_snapshot *snap, uint64_t t0)
{
	nb_session_drain(s, su->drain_ns);
	uint32_t last = tl->nticks + settle_lag(su);
	for (uint32_t k = tl->nticks + 1; k <= last; k++)
		on_tick(c, s, k, snap, t0);
}

/* Run the timeline until the client's STOP, then wind down; false if the client vanished. A STOP
 * that does not come (an abandoned or injected session) leaves our senders sending no longer
 * than NB_AGENT_SENDER_GRACE_S after the run's end; the RESULT still waits for it a while. */
static bool run_timeline(struct session_ctx *c, struct nb_session *s,
			 const struct nb_msg_setup *su, struct nb_snapshot *snap, uint64_t *t0_out)
{
	struct nb_agent *a = c->a;
	struct nb_timeline tl;
	uint64_t t0 = *t0_out = nb_now_ns();
	nb_timeline_init(&tl, t0, su->warmup_ns, su->omit_ns, su->duration_ns, su->interval_ns);
	uint64_t end = t0 + su->warmup_ns + su->duration_ns;
	uint64_t quiet = end + NB_AGENT_SENDER_GRACE_S * 1000000000ull;
	uint64_t give_up = end + su->drain_ns + STOP_GRACE_NS;
	for (;;) {
		uint64_t now = nb_now_ns();
		uint32_t tick = 0;
		while (nb_timeline_take(&tl, now, &tick) != NB_TL_NONE)
			on_tick(c, s, tick, snap, t0);
		if (now >= quiet) {
			nb_session_quiesce(s);
			quiet = UINT64_MAX;
		}
		uint64_t next = nb_timeline_next(&tl);
		next = next < quiet ? next : quiet;
		if (next == UINT64_MAX)
			next = give_up;
		if (now >= give_up || atomic_load(&a->stopping))
			return false;
		int wait_ms = (int)((next > now ? next - now : 0) / 1000000ull) + 1;
		struct nb_msg m;
		struct nb_error err;
		int r = nb_ctl_recv(c->ctl, &m, wait_ms, &err);
		if (r < 0)
			return false;
		if (r == 1) {
			bool stop = m.type == NB_MSG_STOP;
			nb_msg_free(&m);
			if (!stop)
				return false; /* anything else mid-run is a protocol error */
			wind_down(c, s, su, &tl, snap, t0);
			return true;
		}
	}
}

/* Refuse a test: tell the client, and what for the console. */
static void refuse(struct session_ctx *c, enum nb_err_code code, const char *why, char *what,
		   size_t n)
{
	nb_ctl_send_error(c->ctl, code, why);
	snprintf(what, n, "refused: %s", why);
}

/* LISTEN: a data port, READY with it, and the data connections — from the client's host, or
 * with any_source from whichever host proves the run's key (the sender is another agent). */
static struct nb_session *listen_end(struct session_ctx *c, const struct nb_engine *e,
				     struct nb_msg_setup *su, struct nb_error *err)
{
	struct nb_agent *a = c->a;
	uint16_t port = 0;
	struct sockaddr_storage bind_addr = a->addr, any = { .ss_family = AF_UNSPEC };
	const struct sockaddr_storage *from = su->any_source ? &any : &c->conn->peer;
	struct nb_session *s = nb_session_listen(e, &su->params, (struct sockaddr *)&bind_addr,
						 a->addr_len, (const struct sockaddr *)from,
						 su->any_source ? sizeof(any) : c->conn->peer_len,
						 a->o.data_lo, a->o.data_hi, &port, err);
	if (!s)
		return NULL;
	nb_session_set_lag(s, settle_lag(su));
	struct nb_msg ready = { .type = NB_MSG_READY, .u.ready.port = port };
	if (!nb_ctl_send(c->ctl, &ready, 5000, err) || !nb_session_accept(s, SETUP_TIMEOUT_MS, err)) {
		nb_session_destroy(s);
		return NULL;
	}
	/* Data from any host: our counters read the interface toward the host it came from (the
	 * sending agent, or the runner behind a bastion), not toward the control peer. */
	struct sockaddr_storage src;
	socklen_t len;
	if (su->any_source && nb_session_data_peer(s, &src, &len) &&
	    !nb_ifstats_route_ifname((struct sockaddr *)&src, len, c->ifname, sizeof(c->ifname), NULL))
		c->ifname[0] = '\0';
	return s;
}

/* The data path to the target did not open: why goes to our own log only. The runner is told
 * the same words after the same wait, whatever the target did (refused, stayed silent, or
 * proved no key), so that no grant makes this agent a port scanner. */
static struct nb_session *no_path(struct session_ctx *c, const struct nb_msg_setup *su,
				  uint64_t since_ns, struct nb_error *err)
{
	nb_agent_log(c->a, 0, &c->conn->peer, "run %u: no data path to its target: %s", su->run_id,
		     err->msg);
	uint64_t until = since_ns + SETUP_TIMEOUT_MS * 1000000ull, now;
	while ((now = nb_now_ns()) < until && !atomic_load(&c->a->stopping))
		poll(NULL, 0, (int)((until - now) / 1000000ull) % 100 + 1);
	nb_error_set(err, "no data path to the receiving agent (the sending agent's log says why)");
	return NULL;
}

/* CONNECT: open the grant (once per run id: a grant is never used twice; it opens only for
 * this session, run and target), connect to the receiving agent its client named, which must
 * prove the run's key before any payload goes out (dataconn.h), READY. Loopback and link-local
 * targets only for a runner on our own loopback. Our counters then read the interface toward
 * the target. */
static struct nb_session *connect_end(struct session_ctx *c, const struct nb_engine *e,
				      struct nb_msg_setup *su, struct nb_error *err)
{
	struct sockaddr_storage to;
	socklen_t len = 0;
	uint64_t since = nb_now_ns();
	bool local_ok = nb_cidr_kind_of(&c->conn->peer) == NB_ADDR_LOOPBACK;
	if (su->run_id <= c->last_grant)
		return nb_error_set(err, "grant for run %u refused: run ids of grants only go up "
				    "(last %u)", su->run_id, c->last_grant), NULL;
	if (!nb_ctl_target_get(&su->target, local_ok, &to, &len, err))
		return NULL;
	c->last_grant = su->run_id;
	if (!nb_auth_grant_open(c->session_key, su->run_id, &su->target, su->grant, su->params.key))
		return nb_error_set(err, "grant for run %u refused: it was not sealed in this session "
				    "for this run and target", su->run_id), NULL;
	struct nb_session *s = nb_session_connect(e, &su->params, (struct sockaddr *)&to, len,
						  su->target.port, SETUP_TIMEOUT_MS, err);
	if (!s)
		return no_path(c, su, since, err);
	nb_session_set_lag(s, settle_lag(su));
	if (!nb_ifstats_route_ifname((struct sockaddr *)&to, len, c->ifname, sizeof(c->ifname), NULL))
		c->ifname[0] = '\0';
	struct nb_msg ready = { .type = NB_MSG_READY, .u.ready.port = 0 };
	if (nb_ctl_send(c->ctl, &ready, 5000, err))
		return s;
	nb_session_destroy(s);
	return NULL;
}

/* The run's data end, then START, the run, RESULT; what says how it ended, for the console. */
static void run_started(struct session_ctx *c, const struct nb_engine *e, struct nb_msg_setup *su,
			char *what, size_t n)
{
	struct nb_agent *a = c->a;
	struct nb_error err = { { 0 } };
	char ifname[sizeof(c->ifname)];
	memcpy(ifname, c->ifname, sizeof(ifname));
	struct nb_session *s = su->end == NB_END_CONNECT ? connect_end(c, e, su, &err)
							  : listen_end(c, e, su, &err);
	/* its own senders' schedule lag travels with each snapshot (a reverse run's pacer) */
	bool lag = s && nb_session_records_lag(s);
	struct nb_snapshot *snap = s ? nb_snapshot_create_with(false, lag) : NULL;
	uint64_t t0 = 0;
	/* before START no test datagram exists: the run's loss budget counts from here */
	struct nb_lossstats pre;
	nb_ifstats_loss_read(s ? c->ifname : NULL, &pre);
	snprintf(what, n, "the client went away during the run");
	if (!s || !snap) {
		refuse(c, NB_ERR_SETUP, err.msg[0] ? err.msg : "out of memory", what, n);
	} else if (!await_start(c->ctl)) {
		snprintf(what, n, "the client went away before START");
	} else if (!nb_session_start(s, &err)) {
		refuse(c, NB_ERR_RUN, err.msg, what, n);
	} else if (run_timeline(c, s, su, snap, &t0)) {
		/* RESULT: the flows' counts after the drain, and the host's drop counters before
		 * START (the last tick's reading is after the drain: metrics_loss.c) */
		nb_session_snapshot(s, snap);
		nb_ifstats_fill_snapshot(snap, c->ifname);
		nb_ifstats_loss_put(snap, &pre);
		bool ok = nb_session_stop(s, &err);
		send_snap(c->ctl, NB_MSG_RESULT, -1, snap->t_ns - t0, snap, ok ? "" : err.msg);
		snprintf(what, n, "%s%s", ok ? "ok" : "failed: ", ok ? "" : err.msg);
	}
	if (c->ctl->altered) /* the session ends: nothing more is read from it */
		snprintf(what, n, "%s", NB_CTL_ALTERED);
	atomic_fetch_add(&a->tests, 1);
	nb_session_destroy(s);
	nb_snapshot_destroy(snap);
	memcpy(c->ifname, ifname, sizeof(ifname));
}

/* The test's share of the limits beside the tests running now (a holder's companions run at
 * once): taken (true), or NB_ERR_LIMIT's why. A test alone always gets it: check_setup held it
 * to the limits already. */
static bool take_share(struct nb_agent *a, const struct nb_msg_setup *su, int sign, char *why,
		       size_t n)
{
	const struct nb_limits *l = &a->o.limits;
	uint32_t flows = nb_params_nflows(&su->params);
	double bps = nb_limits_offered_bps(nb_engine_find(su->params.engine), &su->params);
	pthread_mutex_lock(&a->lock);
	bool ok = sign < 0 || ((!l->max_flows || a->running_flows + flows <= l->max_flows) &&
			       (!l->max_rate || a->running_bps + bps <= (double)l->max_rate));
	if (!ok)
		snprintf(why, n, "limit: %u flows and %.0f bit/s beside the %u flows and %.0f bit/s "
			 "running at once (its session's companions), above this agent's "
			 "--max-streams %u or --max-rate %llu", flows, bps, a->running_flows,
			 a->running_bps, l->max_flows, (unsigned long long)l->max_rate);
	if (ok) {
		a->running_flows = sign > 0 ? a->running_flows + flows : a->running_flows - flows;
		a->running_bps += sign * bps;
	}
	pthread_mutex_unlock(&a->lock);
	return ok;
}

/* One test, and a console line: its run, its case (sanitised) and how it ended. */
static void run_test(struct session_ctx *c, struct nb_msg_setup *su)
{
	char why[NB_TEXT_MAX] = "", what[NB_TEXT_MAX + 32], id[sizeof(su->case_id)];
	enum nb_err_code code = check_setup(c->a, su, why, sizeof(why));
	if (!code && !take_share(c->a, su, 1, why, sizeof(why)))
		code = NB_ERR_LIMIT;
	c->runs++;
	if (code) {
		refuse(c, code, why, what, sizeof(what));
	} else {
		nb_auth_run_key(c->session_key, su->run_id, su->params.key);
		run_started(c, nb_engine_find(su->params.engine), su, what, sizeof(what));
		sodium_memzero(su->params.key, sizeof(su->params.key));
		take_share(c->a, su, -1, why, sizeof(why));
	}
	nb_agent_log(c->a, 0, &c->conn->peer, "run %u %s: %s", su->run_id,
		     nb_text_sanitize(id, sizeof(id), su->case_id), what);
}

/* CHECK: this host against what the client's plan needs, one line per problem, and our limits
 * (the client holds each of its cases to them, naming the case). */
static void answer_check(struct session_ctx *c, const struct nb_msg_check *need)
{
	struct nb_agent *a = c->a;
	struct nb_check_limits lim = { .bind = &a->addr, .bind_len = a->addr_len,
				       .data_lo = a->o.data_lo, .data_hi = a->o.data_hi,
				       .peer = &c->conn->peer, .peer_len = c->conn->peer_len };
	struct nb_msg m = { .type = NB_MSG_CHECK_RESULT };
	size_t n = nb_check_host(need, &lim, m.u.check_result.text, sizeof(m.u.check_result.text));
	m.u.check_result.limits = a->o.limits;
	nb_ctl_send(c->ctl, &m, 5000, NULL);
	nb_agent_log(a, 0, &c->conn->peer, "check: %zu problem%s", n, n == 1 ? "" : "s");
}

/* PROBE: the data path, at most NB_PROBES_MAX times a session (probe.h). */
static void answer_probe(struct session_ctx *c, const struct nb_msg_probe *q)
{
	if (c->probes >= NB_PROBES_MAX) {
		char why[80];
		snprintf(why, sizeof(why), "limit: a session probes its data path at most %d times",
			 NB_PROBES_MAX);
		nb_ctl_send_error(c->ctl, NB_ERR_LIMIT, why);
		return;
	}
	nb_agent_probe(c->a, c->conn, c->ctl, c->session_key, ++c->probes, q);
}

/* TIME: our clock when the request came and when we answer (clock.h). */
static void answer_time(struct session_ctx *c, const struct nb_msg_time *q)
{
	struct nb_msg m = { .type = NB_MSG_TIME };
	m.u.time.t1 = q->t1;
	m.u.time.t2 = nb_clock_now();
	m.u.time.t3 = nb_clock_now();
	nb_ctl_send(c->ctl, &m, 5000, NULL);
}

/* COMPANION: a ticket for a session beside this one (proto.h), or ERROR limit saying why not. */
static void answer_companion(struct session_ctx *c)
{
	struct nb_msg m = { .type = NB_MSG_COMPANION };
	const char *why;
	if (!nb_agent_companion_ticket(c->a, c->conn, m.u.companion.ticket, &why)) {
		nb_ctl_send_error(c->ctl, NB_ERR_LIMIT, why);
		return;
	}
	nb_ctl_send(c->ctl, &m, 5000, NULL);
	sodium_memzero(&m, sizeof(m));
}

/* One message between tests; false when the session ends. */
static bool between_tests(struct session_ctx *c, struct nb_msg *m)
{
	switch (m->type) {
	case NB_MSG_SETUP:
		run_test(c, &m->u.setup);
		return true;
	case NB_MSG_CHECK:
		answer_check(c, &m->u.check);
		return true;
	case NB_MSG_TIME:
		answer_time(c, &m->u.time);
		return true;
	case NB_MSG_PROBE:
		answer_probe(c, &m->u.probe);
		return true;
	case NB_MSG_COMPANION:
		answer_companion(c);
		return true;
	case NB_MSG_BYE:
		return false;
	case NB_MSG_STOP:
		return true;
	default:
		nb_ctl_send_error(c->ctl, NB_ERR_PROTOCOL, "unexpected message between tests");
		return false;
	}
}

/* ---- one session ---- */

/* Receive a frame; a malformed one is answered with an ERROR frame saying why, then the
 * session ends (the client is never trusted to resynchronise). */
static int recv_checked(struct session_ctx *c, struct nb_msg *m, int timeout_ms)
{
	struct nb_error err = { { 0 } };
	int r = nb_ctl_recv(c->ctl, m, timeout_ms, &err);
	if (r < 0 && strstr(err.msg, "bad frame"))
		nb_ctl_send_error(c->ctl, NB_ERR_PROTOCOL, err.msg);
	if (r < 0 && c->ctl->altered)
		nb_agent_log(c->a, 0, &c->conn->peer, "%s: session ended", NB_CTL_ALTERED);
	return r;
}

/* The session is the client's: tell it this host's facts. */
static bool send_facts(struct session_ctx *c)
{
	struct nb_msg facts = { .type = NB_MSG_FACTS };
	struct nb_error err;
	nb_hello_facts_fill(&facts.u.facts, c->a->o.collect_facts, &c->conn->peer, c->conn->peer_len);
	bool ok = nb_ctl_send(c->ctl, &facts, 5000, &err);
	nb_hello_facts_free(&facts.u.facts);
	if (!nb_ifstats_route_ifname((struct sockaddr *)&c->conn->peer, c->conn->peer_len, c->ifname,
				     sizeof(c->ifname), NULL))
		c->ifname[0] = '\0';
	return ok;
}

/* The session's idle timeout runs from its last test: clock exchanges and checks alone, which a
 * client may send forever, do not hold the one session slot past it. */
uint32_t nb_agent_session_serve(struct nb_agent *a, struct nb_agent_conn *conn, struct nb_ctl *ctl,
				const struct nb_auth *auth)
{
	struct session_ctx c = { .a = a, .conn = conn, .ctl = ctl };
	memcpy(c.session_key, auth->session_key, NB_KEY_LEN);
	uint64_t idle_ms = a->o.idle_timeout_s ? a->o.idle_timeout_s * 1000ull : 300000ull;
	uint64_t idle_at = nb_ctl_now_ms() + idle_ms;
	bool go = send_facts(&c);
	while (go) {
		struct nb_msg m;
		uint64_t now = nb_ctl_now_ms();
		int r = now < idle_at ? recv_checked(&c, &m, (int)(idle_at - now)) : 0;
		if (r == 0)
			nb_ctl_send_error(c.ctl, NB_ERR_LIMIT, "idle control connection closed by the agent");
		if (r != 1)
			break;
		bool test = m.type == NB_MSG_SETUP;
		go = between_tests(&c, &m) && !atomic_load(&a->stopping);
		if (test)
			idle_at = nb_ctl_now_ms() + idle_ms;
		nb_msg_free(&m);
	}
	sodium_memzero(c.session_key, sizeof(c.session_key));
	return c.runs;
}

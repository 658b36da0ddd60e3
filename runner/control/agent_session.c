/* nbrun — the agent's side of an authenticated session: its facts, then each test on the
 * engines' session harness, its counters streamed back (see agent.h). */
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "agent_int.h"
#include "ctl.h"
#include "hello_facts.h"
#include "ifstats.h"
#include "limits.h"
#include "nb_config.h"
#include "proto.h"
#include "session.h"
#include "sock.h"
#include "text.h"
#include "timeline.h"

#define SETUP_TIMEOUT_MS 10000
#define STOP_GRACE_NS (30ull * 1000000000ull)

struct session_ctx {
	struct nb_agent *a;
	struct nb_agent_conn *conn;
	int fd;
	unsigned char session_key[NB_KEY_LEN];
	char ifname[64];                /* the interface toward the client, for its counters */
};

/* ---- one test ---- */

static void send_snap(int fd, enum nb_msg_type type, int32_t index, uint64_t t_ns,
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
	nb_ctl_send(fd, &m, 5000, NULL);
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
	if (su->params.proto == NB_PROTO_TCP && su->params.congestion[0] &&
	    !nb_sock_cc_allowed(su->params.congestion, &err)) {
		snprintf(why, n, "%s", err.msg);
		return NB_ERR_SETUP;
	}
	return 0;
}

/* Wait for START; false when the client went away or sent something else. */
static bool await_start(int fd)
{
	struct nb_msg m;
	struct nb_error err;
	int r = nb_ctl_recv(fd, &m, SETUP_TIMEOUT_MS, &err);
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
	send_snap(c->fd, NB_MSG_INTERVAL, (int32_t)tick, snap->t_ns - t0, snap, "");
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

/* Run the timeline until the client's STOP, then wind down; false if the client vanished. */
static bool run_timeline(struct session_ctx *c, struct nb_session *s,
			 const struct nb_msg_setup *su, struct nb_snapshot *snap, uint64_t *t0_out)
{
	struct nb_agent *a = c->a;
	struct nb_timeline tl;
	uint64_t t0 = *t0_out = nb_now_ns();
	nb_timeline_init(&tl, t0, su->warmup_ns, su->omit_ns, su->duration_ns, su->interval_ns);
	uint64_t give_up = t0 + su->warmup_ns + su->duration_ns + su->drain_ns + STOP_GRACE_NS;
	for (;;) {
		uint64_t now = nb_now_ns();
		uint32_t tick = 0;
		while (nb_timeline_take(&tl, now, &tick) != NB_TL_NONE)
			on_tick(c, s, tick, snap, t0);
		uint64_t next = nb_timeline_next(&tl);
		if (next == UINT64_MAX)
			next = give_up;
		if (now >= give_up || atomic_load(&a->stopping))
			return false;
		int wait_ms = (int)((next > now ? next - now : 0) / 1000000ull) + 1;
		struct nb_msg m;
		struct nb_error err;
		int r = nb_ctl_recv(c->fd, &m, wait_ms, &err);
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

/* The data port, the client's data connections, START, the run, RESULT. */
static void run_started(struct session_ctx *c, const struct nb_engine *e, struct nb_msg_setup *su)
{
	struct nb_agent *a = c->a;
	struct nb_error err = { { 0 } };
	uint16_t port = 0;
	struct sockaddr_storage bind_addr = a->addr;
	struct nb_session *s = nb_session_listen(e, &su->params, (struct sockaddr *)&bind_addr,
						 a->addr_len, (struct sockaddr *)&c->conn->peer,
						 c->conn->peer_len, a->o.data_lo, a->o.data_hi, &port, &err);
	if (!s)
		return nb_ctl_send_error(c->fd, NB_ERR_SETUP, err.msg);
	nb_session_set_lag(s, settle_lag(su));
	struct nb_msg ready = { .type = NB_MSG_READY, .u.ready.port = port };
	struct nb_snapshot *snap = nb_snapshot_create(false);
	uint64_t t0 = 0;
	if (!snap || !nb_ctl_send(c->fd, &ready, 5000, &err) ||
	    !nb_session_accept(s, SETUP_TIMEOUT_MS, &err)) {
		nb_ctl_send_error(c->fd, NB_ERR_SETUP, err.msg[0] ? err.msg : "out of memory");
	} else if (!await_start(c->fd)) {
		nb_agent_log(a, 1, &c->conn->peer, "client went away before START");
	} else if (!nb_session_start(s, &err)) {
		nb_ctl_send_error(c->fd, NB_ERR_RUN, err.msg);
	} else if (run_timeline(c, s, su, snap, &t0)) {
		nb_session_snapshot(s, snap);
		nb_ifstats_fill_snapshot(snap, c->ifname);
		bool ok = nb_session_stop(s, &err);
		send_snap(c->fd, NB_MSG_RESULT, -1, snap->t_ns - t0, snap, ok ? "" : err.msg);
	}
	atomic_fetch_add(&a->tests, 1);
	nb_session_destroy(s);
	nb_snapshot_destroy(snap);
}

static void run_test(struct session_ctx *c, struct nb_msg_setup *su)
{
	char why[NB_TEXT_MAX] = "", id[sizeof(su->case_id)];
	enum nb_err_code code = check_setup(c->a, su, why, sizeof(why));
	nb_agent_log(c->a, 1, &c->conn->peer, "test %s%s%s",
		     nb_text_sanitize(id, sizeof(id), su->case_id), code ? " refused: " : "", why);
	if (code)
		return nb_ctl_send_error(c->fd, code, why);
	nb_auth_run_key(c->session_key, su->run_id, su->params.key);
	run_started(c, nb_engine_find(su->params.engine), su);
	sodium_memzero(su->params.key, sizeof(su->params.key));
}

/* ---- one session ---- */

/* Receive a frame; a malformed one is answered with an ERROR frame saying why, then the
 * session ends (the client is never trusted to resynchronise). */
static int recv_checked(struct session_ctx *c, struct nb_msg *m, int timeout_ms)
{
	struct nb_error err = { { 0 } };
	int r = nb_ctl_recv(c->fd, m, timeout_ms, &err);
	if (r < 0 && strstr(err.msg, "bad frame"))
		nb_ctl_send_error(c->fd, NB_ERR_PROTOCOL, err.msg);
	return r;
}

/* The session is the client's: tell it this host's facts. */
static bool send_facts(struct session_ctx *c)
{
	struct nb_msg facts = { .type = NB_MSG_FACTS };
	struct nb_error err;
	nb_hello_facts_fill(&facts.u.facts, c->a->o.collect_facts, &c->conn->peer, c->conn->peer_len);
	bool ok = nb_ctl_send(c->fd, &facts, 5000, &err);
	nb_hello_facts_free(&facts.u.facts);
	if (!nb_ifstats_route_ifname((struct sockaddr *)&c->conn->peer, c->conn->peer_len, c->ifname,
				     sizeof(c->ifname), NULL))
		c->ifname[0] = '\0';
	return ok;
}

void nb_agent_session_serve(struct nb_agent *a, struct nb_agent_conn *conn, const struct nb_auth *auth)
{
	struct session_ctx c = { .a = a, .conn = conn, .fd = conn->fd };
	memcpy(c.session_key, auth->session_key, NB_KEY_LEN);
	int idle_ms = a->o.idle_timeout_s ? (int)a->o.idle_timeout_s * 1000 : 300000;
	bool go = send_facts(&c);
	while (go) {
		struct nb_msg m;
		int r = recv_checked(&c, &m, idle_ms);
		if (r == 0)
			nb_ctl_send_error(c.fd, NB_ERR_LIMIT, "idle control connection closed by the agent");
		if (r != 1)
			break;
		enum nb_msg_type t = m.type;
		if (t == NB_MSG_SETUP)
			run_test(&c, &m.u.setup);
		nb_msg_free(&m);
		go = t != NB_MSG_BYE && !atomic_load(&a->stopping);
		if (go && t != NB_MSG_SETUP && t != NB_MSG_STOP) {
			nb_ctl_send_error(c.fd, NB_ERR_PROTOCOL, "unexpected message between tests");
			go = false;
		}
	}
	sodium_memzero(c.session_key, sizeof(c.session_key));
}

/* nbrun — the agent: control sessions, one at a time, each running tests on
 * the engines' session harness and streaming its counters back. */
#include "agent.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ctl.h"
#include "nb_config.h"
#include "proto.h"
#include "session.h"
#include "sock.h"
#include "timeline.h"
#include "hello_facts.h"
#include "ifstats.h"

#define SETUP_TIMEOUT_MS 10000
#define STOP_GRACE_NS (30ull * 1000000000ull)

struct nb_agent {
	struct nb_agent_opts o;
	int listen_fd;
	int wake[2];                    /* self-pipe: stop requests */
	struct sockaddr_storage addr;
	socklen_t addr_len;
	atomic_bool stopping;
	atomic_bool busy;
	atomic_int session_fd;          /* the current session's control fd, or -1 */
	atomic_uint_fast64_t tests;
	pthread_t session_thread;
	bool have_session_thread;
	pthread_t thread;               /* local mode */
	bool have_thread;
	char running_case[160];         /* for the busy message */
	pthread_mutex_t lock;
};

struct session_ctx {
	struct nb_agent *a;
	int fd;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	char ifname[64];                /* the interface toward the client, for its counters */
	char who[80];                   /* the client's ADDR:PORT, for the console */
	uint32_t runs;                  /* tests run in this session */
	bool greeted;                   /* the handshake succeeded */
};

/* One line on the agent's console at verbosity level and above (0: the default). */
static void say(const struct nb_agent *a, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(const struct nb_agent *a, int level, const char *fmt, ...)
{
	if (a->o.verbosity < level)
		return;
	char line[NB_TEXT_MAX + 256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "nbrun serve: %s\n", line);
}

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
		snprintf(m.u.result.text, sizeof(m.u.result.text), "%s", text);
	}
	nb_ctl_send(fd, &m, 5000, NULL);
}

static bool check_setup(struct nb_agent *a, const struct nb_msg_setup *su, char *why, size_t n)
{
	const struct nb_engine *e = nb_engine_find(su->params.engine);
	struct nb_error err = { { 0 } };
	if (!e) {
		snprintf(why, n, "agent has no engine '%s' (nbrun %s)", su->params.engine, NB_VERSION);
		return false;
	}
	if (e->validate && !e->validate(&su->params, &err)) {
		snprintf(why, n, "%s", err.msg);
		return false;
	}
	uint64_t total = su->warmup_ns + su->duration_ns;
	if (total > (uint64_t)a->o.max_duration_s * 1000000000ull) {
		snprintf(why, n, "test lasts %.0f s, above this agent's --max-duration %u s",
			 (double)total / 1e9, a->o.max_duration_s);
		return false;
	}
	return true;
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

/* Refuse a test: tell the client, and what for the console. */
static void refuse(struct session_ctx *c, enum nb_err_code code, const char *why, char *what,
		   size_t n)
{
	nb_ctl_send_error(c->fd, code, why);
	snprintf(what, n, "refused: %s", why);
}

/* One test; what says how it ended, for the console. */
static void run_test(struct session_ctx *c, struct nb_msg_setup *su, char *what, size_t n)
{
	struct nb_agent *a = c->a;
	char why[NB_TEXT_MAX] = "";
	if (!check_setup(a, su, why, sizeof(why)))
		return refuse(c, NB_ERR_SETUP, why, what, n);
	pthread_mutex_lock(&a->lock);
	snprintf(a->running_case, sizeof(a->running_case), "%s", su->case_id);
	pthread_mutex_unlock(&a->lock);
	const struct nb_engine *e = nb_engine_find(su->params.engine);
	struct nb_error err = { { 0 } };
	uint16_t port = 0;
	struct sockaddr_storage bind_addr = a->addr;
	struct nb_session *s = nb_session_listen(e, &su->params, (struct sockaddr *)&bind_addr,
						 a->addr_len, a->o.data_lo, a->o.data_hi, &port, &err);
	if (!s)
		return refuse(c, NB_ERR_SETUP, err.msg, what, n);
	nb_session_set_lag(s, settle_lag(su));
	struct nb_msg ready = { .type = NB_MSG_READY, .u.ready.port = port };
	struct nb_snapshot *snap = nb_snapshot_create(false);
	uint64_t t0 = 0;
	snprintf(what, n, "the client went away during the run");
	if (!snap || !nb_ctl_send(c->fd, &ready, 5000, &err) ||
	    !nb_session_accept(s, SETUP_TIMEOUT_MS, &err)) {
		refuse(c, NB_ERR_SETUP, err.msg[0] ? err.msg : "out of memory", what, n);
	} else if (!await_start(c->fd)) {
		snprintf(what, n, "the client went away before START");
	} else if (!nb_session_start(s, &err)) {
		refuse(c, NB_ERR_RUN, err.msg, what, n);
	} else if (run_timeline(c, s, su, snap, &t0)) {
		nb_session_snapshot(s, snap);
		nb_ifstats_fill_snapshot(snap, c->ifname);
		bool ok = nb_session_stop(s, &err);
		send_snap(c->fd, NB_MSG_RESULT, -1, snap->t_ns - t0, snap, ok ? "" : err.msg);
		snprintf(what, n, "%s%s", ok ? "ok" : "failed: ", ok ? "" : err.msg);
	}
	atomic_fetch_add(&a->tests, 1);
	nb_session_destroy(s);
	nb_snapshot_destroy(snap);
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

static bool handshake(struct session_ctx *c)
{
	struct nb_msg m;
	struct nb_error err = { { 0 } };
	if (recv_checked(c, &m, SETUP_TIMEOUT_MS) != 1)
		return false;
	if (m.type != NB_MSG_HELLO) {
		nb_msg_free(&m);
		nb_ctl_send_error(c->fd, NB_ERR_PROTOCOL, "expected HELLO");
		return false;
	}
	uint16_t v = m.u.hello.proto_version;
	char their[40];
	snprintf(their, sizeof(their), "%s", m.u.hello.version);
	nb_msg_free(&m);
	if (v != NB_PROTO_VERSION) {
		char text[200];
		snprintf(text, sizeof(text),
			 "protocol version mismatch: agent nbrun %s speaks v%d, client nbrun %s speaks v%u",
			 NB_VERSION, NB_PROTO_VERSION, their, v);
		say(c->a, -1, "%s: %s", c->who, text);
		nb_ctl_send_error(c->fd, NB_ERR_VERSION, text);
		return false;
	}
	say(c->a, 0, "session from %s (nbrun %s)", c->who, their);
	c->greeted = true;
	struct nb_msg hello = { .type = NB_MSG_HELLO };
	hello.u.hello.proto_version = NB_PROTO_VERSION;
	hello.u.hello.role = NB_ROLE_AGENT;
	snprintf(hello.u.hello.version, sizeof(hello.u.hello.version), "%s", NB_VERSION);
	nb_hello_facts_fill(&hello.u.hello, c->a->o.collect_facts, &c->peer, c->peer_len);
	bool ok = nb_ctl_send(c->fd, &hello, 5000, &err);
	nb_hello_facts_free(&hello.u.hello);
	if (!nb_ifstats_route_ifname((struct sockaddr *)&c->peer, c->peer_len, c->ifname,
				     sizeof(c->ifname), NULL))
		c->ifname[0] = '\0';
	return ok;
}

/* CHECK: this host against what the client's plan needs, one line per problem. */
static void answer_check(struct session_ctx *c, const struct nb_msg_check *need)
{
	struct nb_agent *a = c->a;
	struct nb_check_limits lim = { .bind = &a->addr, .bind_len = a->addr_len,
				       .data_lo = a->o.data_lo, .data_hi = a->o.data_hi,
				       .max_duration_s = a->o.max_duration_s };
	struct nb_msg m = { .type = NB_MSG_CHECK_RESULT };
	size_t n = nb_check_host(need, &lim, m.u.check_result.text, sizeof(m.u.check_result.text));
	nb_ctl_send(c->fd, &m, 5000, NULL);
	say(a, 0, "%s: check: %zu problem%s", c->who, n, n == 1 ? "" : "s");
}

/* One message between tests; false when the session ends. */
static bool between_tests(struct session_ctx *c, struct nb_msg *m)
{
	char what[NB_TEXT_MAX + 32];
	switch (m->type) {
	case NB_MSG_SETUP:
		c->runs++;
		run_test(c, &m->u.setup, what, sizeof(what));
		say(c->a, 0, "%s: run %u %s: %s", c->who, m->u.setup.run_id, m->u.setup.case_id, what);
		return true;
	case NB_MSG_CHECK:
		answer_check(c, &m->u.check);
		return true;
	case NB_MSG_BYE:
		return false;
	case NB_MSG_STOP:
		return true;
	default:
		nb_ctl_send_error(c->fd, NB_ERR_PROTOCOL, "unexpected message between tests");
		return false;
	}
}

static void serve_session(struct session_ctx *c)
{
	nb_ctl_addr_str(&c->peer, c->who, sizeof(c->who));
	if (!handshake(c))
		return;
	int idle_ms = (int)c->a->o.idle_timeout_s * 1000;
	for (;;) {
		struct nb_msg m;
		int r = recv_checked(c, &m, idle_ms);
		if (r == 0) {
			nb_ctl_send_error(c->fd, NB_ERR_LIMIT, "idle control connection closed by the agent");
			return;
		}
		if (r < 0)
			return;
		bool go = between_tests(c, &m);
		nb_msg_free(&m);
		if (!go || atomic_load(&c->a->stopping))
			return;
	}
}

static void *session_main(void *arg)
{
	struct session_ctx *c = arg;
	serve_session(c);
	if (c->greeted)
		say(c->a, 0, "%s: session ended after %u run%s", c->who, c->runs, c->runs == 1 ? "" : "s");
	atomic_store(&c->a->session_fd, -1);
	close(c->fd);
	atomic_store(&c->a->busy, false);
	free(c);
	return NULL;
}

/* ---- acceptor ---- */

static void reject_busy(struct nb_agent *a, int fd)
{
	char text[300];
	pthread_mutex_lock(&a->lock);
	snprintf(text, sizeof(text), "agent is busy with another client (running %s); try again later",
		 a->running_case[0] ? a->running_case : "a session");
	pthread_mutex_unlock(&a->lock);
	nb_ctl_send_error(fd, NB_ERR_BUSY, text);
	struct sockaddr_storage peer;
	socklen_t len = sizeof(peer);
	char who[80] = "a client";
	if (getpeername(fd, (struct sockaddr *)&peer, &len) == 0)
		nb_ctl_addr_str(&peer, who, sizeof(who));
	say(a, 0, "%s: refused: %s", who, text);
	close(fd);
}

static void join_session(struct nb_agent *a)
{
	if (a->have_session_thread) {
		pthread_join(a->session_thread, NULL);
		a->have_session_thread = false;
	}
}

static bool start_session(struct nb_agent *a, int fd, const struct sockaddr_storage *peer,
			  socklen_t len, struct nb_error *err)
{
	join_session(a);
	struct session_ctx *c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return nb_error_set(err, "out of memory");
	}
	*c = (struct session_ctx){ .a = a, .fd = fd, .peer = *peer, .peer_len = len };
	atomic_store(&a->busy, true);
	atomic_store(&a->session_fd, fd);
	a->running_case[0] = '\0';
	int rc = pthread_create(&a->session_thread, NULL, session_main, c);
	if (rc != 0) {
		atomic_store(&a->busy, false);
		close(fd);
		free(c);
		return nb_error_errno(err, rc, "pthread_create");
	}
	a->have_session_thread = true;
	return true;
}

bool nb_agent_run(struct nb_agent *a, struct nb_error *err)
{
	bool served = false;
	while (!atomic_load(&a->stopping)) {
		if (a->o.once && served && !atomic_load(&a->busy))
			break;
		struct pollfd p[2] = { { .fd = a->listen_fd, .events = POLLIN },
				       { .fd = a->wake[0], .events = POLLIN } };
		if (poll(p, 2, 200) <= 0 || !(p[0].revents & POLLIN))
			continue;
		struct sockaddr_storage peer;
		socklen_t len = sizeof(peer);
		int fd = accept4(a->listen_fd, (struct sockaddr *)&peer, &len, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (atomic_load(&a->busy) || (a->o.once && served)) {
			reject_busy(a, fd);
			continue;
		}
		if (!start_session(a, fd, &peer, len, err))
			return false;
		served = true;
	}
	int sfd = atomic_load(&a->session_fd);
	if (sfd >= 0)
		shutdown(sfd, SHUT_RDWR);
	join_session(a);
	return true;
}

/* ---- lifetime ---- */

static bool bind_addr(const struct nb_agent_opts *o, struct sockaddr_storage *ss, socklen_t *len,
		      struct nb_error *err)
{
	memset(ss, 0, sizeof(*ss));
	if (!o->bind) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
		a6->sin6_family = AF_INET6;
		a6->sin6_addr = in6addr_any;
		a6->sin6_port = htons(o->port);
		*len = sizeof(*a6);
		return true;
	}
	if (!nb_ctl_resolve(o->bind, o->port, ss, len, err))
		return false;
	return true;
}

struct nb_agent *nb_agent_create(const struct nb_agent_opts *o, struct nb_error *err)
{
	struct nb_agent *a = calloc(1, sizeof(*a));
	if (!a) {
		nb_error_set(err, "out of memory");
		return NULL;
	}
	a->o = *o;
	a->listen_fd = a->wake[0] = a->wake[1] = -1;
	atomic_store(&a->session_fd, -1);
	pthread_mutex_init(&a->lock, NULL);
	if (!bind_addr(o, &a->addr, &a->addr_len, err) || pipe2(a->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		if (!err->msg[0])
			nb_error_errno(err, errno, "pipe");
		nb_agent_destroy(a);
		return NULL;
	}
	struct sockaddr_storage ctl = a->addr;
	a->listen_fd = nb_ctl_listen(&ctl, a->addr_len, err);
	if (a->listen_fd < 0 && !o->bind) {
		/* No IPv6 on this host (the default listens dual-stack): all IPv4 addresses. */
		struct sockaddr_in *a4 = (struct sockaddr_in *)&a->addr;
		memset(&a->addr, 0, sizeof(a->addr));
		a4->sin_family = AF_INET;
		a4->sin_addr.s_addr = htonl(INADDR_ANY);
		a4->sin_port = htons(o->port);
		a->addr_len = sizeof(*a4);
		ctl = a->addr;
		a->listen_fd = nb_ctl_listen(&ctl, a->addr_len, err);
	}
	if (a->listen_fd < 0) {
		nb_agent_destroy(a);
		return NULL;
	}
	a->addr = ctl; /* keeps the bound control port; data sockets reuse the address only */
	return a;
}

uint16_t nb_agent_port(const struct nb_agent *a)
{
	return ntohs(a->addr.ss_family == AF_INET ? ((const struct sockaddr_in *)&a->addr)->sin_port
						  : ((const struct sockaddr_in6 *)&a->addr)->sin6_port);
}

static void *agent_thread(void *arg)
{
	struct nb_error err;
	nb_agent_run(arg, &err);
	return NULL;
}

bool nb_agent_start_thread(struct nb_agent *a, struct nb_error *err)
{
	int rc = pthread_create(&a->thread, NULL, agent_thread, a);
	if (rc != 0)
		return nb_error_errno(err, rc, "pthread_create");
	a->have_thread = true;
	return true;
}

void nb_agent_request_stop(struct nb_agent *a)
{
	atomic_store(&a->stopping, true);
	if (a->wake[1] >= 0) {
		ssize_t r = write(a->wake[1], "x", 1);
		(void)r;
	}
}

void nb_agent_destroy(struct nb_agent *a)
{
	if (!a)
		return;
	nb_agent_request_stop(a);
	if (a->have_thread)
		pthread_join(a->thread, NULL);
	join_session(a);
	if (a->listen_fd >= 0)
		close(a->listen_fd);
	if (a->wake[0] >= 0)
		close(a->wake[0]);
	if (a->wake[1] >= 0)
		close(a->wake[1]);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

uint64_t nb_agent_tests_run(const struct nb_agent *a)
{
	return atomic_load(&a->tests);
}

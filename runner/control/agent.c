/* nbrun — the agent: who may connect, handshakes (see agent.h). The one session slot and the
 * line for it are agent_queue.c; a session's tests agent_session.c. */
#include "agent.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_int.h"
#include "ctl.h"
#include "sock.h"

/* One connection's thread: the handshake by its deadline, then the session, at once or after
 * waiting in line (agent_queue.c). The acceptor joins it and closes its socket. Each session's
 * first and last lines are said while it holds the agent, numbered: their order in the log
 * shows that no two sessions ran at once. */
static void *conn_main(void *arg)
{
	struct nb_agent_conn *c = arg;
	struct nb_agent *a = c->a;
	struct nb_auth auth;
	struct nb_error err = { { 0 } };
	uint64_t session;
	uint64_t deadline = nb_ctl_now_ms() +
			    (a->o.stdio ? NB_AGENT_STDIO_HANDSHAKE_MS : NB_AGENT_HANDSHAKE_MS);
	enum nb_auth_verdict v = nb_auth_agent(c->fd, a->o.secret, deadline, &auth, &err);
	if (v == NB_AUTH_REFUSED) {
		nb_agent_log(a, 0, &c->peer, "refused: %s", err.msg);
	} else if (v == NB_AUTH_GONE) {
		nb_agent_log(a, 1, &c->peer, "no handshake: %s", err.msg);
	} else if ((session = nb_agent_admit(a, c, deadline)) != 0) {
		char who[80];
		nb_ctl_addr_str(&c->peer, who, sizeof(who));
		nb_agent_log(a, 0, NULL, "session from %s (nbrun %s), #%llu", who, auth.peer_version,
			     (unsigned long long)session);
		uint32_t runs = nb_agent_session_serve(a, c, &auth);
		nb_agent_log(a, 0, &c->peer, "session #%llu ended after %u run%s",
			     (unsigned long long)session, runs, runs == 1 ? "" : "s");
		nb_agent_release(a, c);
	}
	sodium_memzero(&auth, sizeof(auth));
	pthread_mutex_lock(&a->lock);
	c->done = true;
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* ---- acceptor ---- */

/* Join finished connection threads and close their sockets (all of them when `all`, after
 * shutting the live ones down). */
static void reap(struct nb_agent *a, bool all)
{
	for (int i = 0; i < NB_AGENT_CONNS; i++) {
		struct nb_agent_conn *c = &a->conns[i];
		pthread_mutex_lock(&a->lock);
		bool used = c->used, done = c->done;
		if (used && !done && all)
			shutdown(c->fd, SHUT_RDWR);
		pthread_mutex_unlock(&a->lock);
		if (!used || (!done && !all))
			continue;
		pthread_join(c->thread, NULL);
		close(c->fd);
		pthread_mutex_lock(&a->lock);
		c->used = c->done = false;
		pthread_mutex_unlock(&a->lock);
	}
}

/* A free connection slot for peer, or NULL when the agent or the peer's address has as many
 * as it may (under a->lock). */
static struct nb_agent_conn *free_slot(struct nb_agent *a, const struct sockaddr_storage *peer)
{
	struct nb_agent_conn *free_one = NULL;
	int same = 0;
	for (int i = 0; i < NB_AGENT_CONNS; i++) {
		struct nb_agent_conn *c = &a->conns[i];
		if (!c->used)
			free_one = free_one ? free_one : c;
		else if (!c->done && !c->session && nb_sock_same_host(&c->peer, peer))
			same++;
	}
	return same < NB_AGENT_PER_ADDR ? free_one : NULL;
}

/* Give fd a slot and its thread: 0, else why not (pthread_create's error, or -1: no slot);
 * fd is closed then. */
static int start_conn(struct nb_agent *a, int fd, const struct sockaddr_storage *peer, socklen_t len)
{
	pthread_mutex_lock(&a->lock);
	struct nb_agent_conn *c = free_slot(a, peer);
	int rc = -1;
	if (c) {
		*c = (struct nb_agent_conn){ .a = a, .used = true, .fd = fd, .peer = *peer, .peer_len = len };
		if ((rc = pthread_create(&c->thread, NULL, conn_main, c)) != 0)
			c->used = false;
	}
	pthread_mutex_unlock(&a->lock);
	if (rc != 0)
		close(fd);
	return rc;
}

/* Once a window of refusals is over, how many were only counted (at the end: any). */
static void not_allowed_summary(struct nb_agent *a, uint64_t now_ms)
{
	uint32_t held;
	uint64_t window_ms;
	if (nb_ratelog_due(&a->not_allowed, now_ms, &held, &window_ms))
		nb_agent_log(a, 0, NULL, "refused %u more client%s not in --allow in the last %llu s",
			     held, held == 1 ? "" : "s", (unsigned long long)(window_ms / 1000));
}

/* A client outside --allow: one ERROR frame saying so, sent without waiting, and the close;
 * nothing of it is read, and nothing else is said (not the ranges). */
static void refuse_not_allowed(struct nb_agent *a, int fd, const struct sockaddr_storage *peer)
{
	struct nb_msg m = { .type = NB_MSG_ERROR, .u.error.code = NB_ERR_AUTH };
	struct nb_buf b = { 0 };
	snprintf(m.u.error.text, sizeof(m.u.error.text), "refused: this client's address is not in "
		 "the agent's --allow list");
	if (nb_msg_encode(&m, &b, NULL))
		(void)send(fd, b.p, b.len, MSG_DONTWAIT | MSG_NOSIGNAL);
	nb_buf_free(&b);
	close(fd);
	uint64_t now = nb_ctl_now_ms();
	not_allowed_summary(a, now);
	if (nb_ratelog_event(&a->not_allowed, now))
		nb_agent_log(a, 0, peer, "refused: not in --allow");
}

static void on_accept(struct nb_agent *a, int fd, const struct sockaddr_storage *peer, socklen_t len)
{
	if (a->o.nallow && !nb_cidr_match(a->o.allow, a->o.nallow, peer)) {
		refuse_not_allowed(a, fd, peer);
		return;
	}
	int rc = start_conn(a, fd, peer, len);
	if (rc != 0)
		nb_agent_log(a, 1, peer, "%s: closed", rc > 0 ? strerror(rc) : "too many connections");
}

bool nb_agent_adopt(struct nb_agent *a, int fd, const struct sockaddr_storage *peer,
		    socklen_t len, struct nb_error *err)
{
	int rc = start_conn(a, fd, peer, len);
	if (rc > 0)
		return nb_error_errno(err, rc, "pthread_create");
	return rc == 0 || nb_error_set(err, "no free connection slot");
}

/* Done: --once after its session; stdio once its one connection is over (reaped). */
static bool finished(struct nb_agent *a)
{
	pthread_mutex_lock(&a->lock);
	bool busy = false;
	for (int i = 0; a->o.stdio && i < NB_AGENT_CONNS; i++)
		busy = busy || a->conns[i].used;
	bool done = (a->o.once && a->sessions_ended > 0) || (a->o.stdio && !busy);
	pthread_mutex_unlock(&a->lock);
	return done;
}

/* The lifeline is readable: its end (or an error) stops the agent; anything else is ignored. */
static void on_lifeline(struct nb_agent *a)
{
	char buf[256];
	ssize_t n = read(a->lifeline_fd, buf, sizeof(buf));
	if (n > 0 || (n < 0 && (errno == EINTR || errno == EAGAIN)))
		return;
	nb_agent_log(a, 0, NULL, "standard input closed: stopping");
	a->lifeline_fd = -1;
	atomic_store(&a->stopping, true);
}

bool nb_agent_run(struct nb_agent *a, struct nb_error *err)
{
	(void)err;
	while (!atomic_load(&a->stopping) && !finished(a)) {
		reap(a, false);
		struct pollfd p[3] = { { .fd = a->listen_fd, .events = POLLIN },
				       { .fd = a->wake[0], .events = POLLIN },
				       { .fd = a->lifeline_fd, .events = POLLIN } };
		int ready = poll(p, 3, 200);
		not_allowed_summary(a, nb_ctl_now_ms());
		if (ready <= 0)
			continue;
		if (p[2].revents)
			on_lifeline(a);
		if (!(p[0].revents & POLLIN))
			continue;
		/* Take every connection waiting, so a burst never fills the listen backlog. */
		for (int n = 0; n < NB_AGENT_CONNS; n++) {
			struct sockaddr_storage peer;
			socklen_t len = sizeof(peer);
			int fd = accept4(a->listen_fd, (struct sockaddr *)&peer, &len, SOCK_CLOEXEC);
			if (fd < 0)
				break;
			on_accept(a, fd, &peer, len);
		}
	}
	reap(a, true);
	not_allowed_summary(a, UINT64_MAX);
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
	return nb_ctl_resolve(o->bind, o->port, ss, len, err);
}

/* Listen on the bound address; without --bind and without IPv6 on this host, on all IPv4
 * addresses. */
static bool listen_control(struct nb_agent *a, struct nb_error *err)
{
	struct sockaddr_storage ctl = a->addr;
	a->listen_fd = nb_ctl_listen(&ctl, a->addr_len, err);
	if (a->listen_fd < 0 && !a->o.bind) {
		struct sockaddr_in *a4 = (struct sockaddr_in *)&a->addr;
		memset(&a->addr, 0, sizeof(a->addr));
		a4->sin_family = AF_INET;
		a4->sin_addr.s_addr = htonl(INADDR_ANY);
		a4->sin_port = htons(a->o.port);
		a->addr_len = sizeof(*a4);
		ctl = a->addr;
		a->listen_fd = nb_ctl_listen(&ctl, a->addr_len, err);
	}
	a->addr = ctl; /* keeps the bound control port; data sockets reuse the address only */
	if (a->listen_fd >= 0)
		fcntl(a->listen_fd, F_SETFL, fcntl(a->listen_fd, F_GETFL) | O_NONBLOCK);
	return a->listen_fd >= 0;
}

struct nb_agent *nb_agent_create(const struct nb_agent_opts *o, struct nb_error *err)
{
	struct nb_agent *a = calloc(1, sizeof(*a));
	if (!a) {
		nb_error_set(err, "out of memory");
		return NULL;
	}
	a->o = *o;
	a->listen_fd = a->wake[0] = a->wake[1] = a->lifeline_fd = -1;
	pthread_mutex_init(&a->lock, NULL);
	nb_queue_init(&a->queue, o->max_queue, o->secret && o->secret->set ? 0 : NB_AGENT_QUEUE_PER_HOST);
	nb_ratelog_init(&a->not_allowed, NB_AGENT_REFUSED_BURST, NB_AGENT_REFUSED_WINDOW_MS);
	if (sodium_init() < 0) {
		nb_error_set(err, "libsodium failed to initialise");
	} else if (o->stdio && !o->bind) {
		nb_error_set(err, "serving on standard input needs the data address (bind)");
	} else if (bind_addr(o, &a->addr, &a->addr_len, err)) {
		if (pipe2(a->wake, O_CLOEXEC | O_NONBLOCK) < 0)
			nb_error_errno(err, errno, "pipe");
		else if (o->stdio || listen_control(a, err))
			return a;
	}
	nb_agent_destroy(a);
	return NULL;
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
	reap(a, true);
	if (a->listen_fd >= 0)
		close(a->listen_fd);
	if (a->wake[0] >= 0)
		close(a->wake[0]);
	if (a->wake[1] >= 0)
		close(a->wake[1]);
	pthread_mutex_destroy(&a->lock);
	nb_ratelog_finish(&a->not_allowed);
	free(a);
}

void nb_agent_stop_on_eof(struct nb_agent *a, int fd)
{
	a->lifeline_fd = fd;
}

uint64_t nb_agent_tests_run(const struct nb_agent *a)
{
	return atomic_load(&a->tests);
}

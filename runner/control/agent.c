/* nbrun — the agent: a connection's handshake, the one session slot, the agent's life (see
 * agent.h). Who gets a connection thread is agent_accept.c; a session's tests agent_session.c. */
#include "agent.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_int.h"
#include "ctl.h"
#include "sock.h"

void nb_agent_log(const struct nb_agent *a, int level, const struct sockaddr_storage *peer,
		  const char *fmt, ...)
{
	if (a->o.verbosity < level)
		return;
	char who[80] = "", line[512];
	if (peer)
		nb_ctl_addr_str(peer, who, sizeof(who));
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "nbrun serve: %s%s%s\n", who, peer ? ": " : "", line);
}

/* ---- the session slot ---- */

static bool take_slot(struct nb_agent *a, struct nb_agent_conn *c)
{
	pthread_mutex_lock(&a->lock);
	bool ok = !a->busy && !(a->o.once && a->sessions_begun > 0) && !atomic_load(&a->stopping);
	if (ok) {
		a->busy = c->session = true;
		a->sessions_begun++;
	}
	pthread_mutex_unlock(&a->lock);
	return ok;
}

static void release_slot(struct nb_agent *a, struct nb_agent_conn *c)
{
	pthread_mutex_lock(&a->lock);
	a->busy = c->session = false;
	a->sessions_ended++;
	pthread_mutex_unlock(&a->lock);
}

/* A refusal worth a line: a few per interval, then counted (a flood of wrong secrets); an
 * interval that is over says its count first (ratelog.h). */
static void refused(struct nb_agent *a, const struct sockaddr_storage *peer, const char *why)
{
	uint64_t now = nb_ctl_now_ms();
	nb_agent_log_summaries(a, now);
	if (nb_ratelog_event(&a->refused_log, now))
		nb_agent_log(a, 0, peer, "refused: %s", why);
}

/* The handshake is over: the connection may become the session, unless it was made to give way
 * to a newcomer meanwhile (agent_accept.c). */
static bool proven(struct nb_agent *a, struct nb_agent_conn *c)
{
	pthread_mutex_lock(&a->lock);
	bool ok = !c->evicted;
	c->proven = ok;
	pthread_mutex_unlock(&a->lock);
	return ok;
}

void *nb_agent_conn_main(void *arg)
{
	struct nb_agent_conn *c = arg;
	struct nb_agent *a = c->a;
	struct nb_auth auth;
	struct nb_error err = { { 0 } };
	struct nb_ctl ctl;
	nb_ctl_init(&ctl, c->fd);
	uint64_t deadline = c->since_ms +
			    (a->o.stdio ? NB_AGENT_STDIO_HANDSHAKE_MS : NB_AGENT_HANDSHAKE_MS);
	enum nb_auth_verdict v = nb_auth_agent(&ctl, a->o.secret, deadline, &auth, &err);
	if (v == NB_AUTH_REFUSED) {
		refused(a, &c->peer, err.msg);
	} else if (v == NB_AUTH_GONE || !proven(a, c)) {
		nb_agent_log(a, 1, &c->peer, "no handshake: %s", v == NB_AUTH_GONE ? err.msg : "gave way");
	} else if (!take_slot(a, c)) {
		nb_ctl_send_error(&ctl, NB_ERR_BUSY, "agent is busy with another client; try again later");
		refused(a, &c->peer, "busy with another client");
	} else {
		char who[80];
		nb_ctl_addr_str(&c->peer, who, sizeof(who));
		nb_agent_log(a, 0, NULL, "session from %s (nbrun %s)", who, auth.peer_version);
		uint32_t runs = nb_agent_session_serve(a, c, &ctl, &auth);
		release_slot(a, c);
		nb_agent_log(a, 0, &c->peer, "session ended after %u run%s", runs, runs == 1 ? "" : "s");
	}
	sodium_memzero(&auth, sizeof(auth));
	nb_ctl_forget(&ctl);
	pthread_mutex_lock(&a->lock);
	c->done = true;
	pthread_mutex_unlock(&a->lock);
	return NULL;
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
	nb_ratelog_init(&a->full_log, 1, NB_AGENT_LOG_INTERVAL_MS);
	nb_ratelog_init(&a->refused_log, NB_AGENT_LOG_BURST, NB_AGENT_LOG_INTERVAL_MS);
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
	nb_agent_reap(a, true);
	if (a->listen_fd >= 0)
		close(a->listen_fd);
	if (a->wake[0] >= 0)
		close(a->wake[0]);
	if (a->wake[1] >= 0)
		close(a->wake[1]);
	pthread_mutex_destroy(&a->lock);
	nb_ratelog_finish(&a->full_log);
	nb_ratelog_finish(&a->refused_log);
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

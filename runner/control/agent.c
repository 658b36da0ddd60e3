/* nbrun — the agent's life (see agent.h): its listener, its thread, its end. Who gets a
 * connection thread is agent_accept.c; that thread's handshake agent_conn.c; the one session slot and
 * the line for it agent_queue.c; a session's tests agent_session.c. */
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

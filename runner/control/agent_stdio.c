/* nbrun — `nbrun serve --stdio`: one control session over standard input and output (see
 * agent_stdio.h). */
#include "agent_stdio.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_int.h"
#include "text.h"

/* A numeric address and port into out (NULL: only checked). */
static bool numeric(const char *ip, const char *port, struct sockaddr_storage *out,
		    socklen_t *len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	size_t n = strlen(port);
	if (n == 0 || n > 5 || strspn(port, "0123456789") != n || atoi(port) < 1 ||
	    atoi(port) > 65535 || getaddrinfo(ip, port, &hints, &res) != 0)
		return false;
	if (out) {
		memcpy(out, res->ai_addr, res->ai_addrlen);
		*len = res->ai_addrlen;
	}
	freeaddrinfo(res);
	return true;
}

bool nb_agent_stdio_ends(const char *text, struct nb_agent_stdio_ends *e, struct nb_error *err)
{
	char ip[2][64], port[2][8], tail, shown[120];
	struct nb_agent_stdio_ends out = { .client_len = 0 };
	if (!text)
		return nb_error_set(err, "serve --stdio: SSH_CONNECTION is not set (sshd sets it; "
				    "nbrun starts this agent over ssh)");
	if (strlen(text) > 200 ||
	    sscanf(text, "%63s %7s %63s %7s %c", ip[0], port[0], ip[1], port[1], &tail) != 4 ||
	    !numeric(ip[0], port[0], &out.client, &out.client_len) || !numeric(ip[1], port[1], NULL, NULL))
		return nb_error_set(err, "serve --stdio: SSH_CONNECTION '%s' is garbled (expected "
				    "CLIENT_IP CLIENT_PORT SERVER_IP SERVER_PORT)",
				    nb_text_sanitize(shown, sizeof(shown), text));
	snprintf(out.server, sizeof(out.server), "%s", ip[1]);
	*e = out;
	return true;
}

/* One direction: bytes from `from` to `to` until from ends (or stop is readable). */
struct relay {
	struct nb_agent *a;
	int from, to;
	int stop;                 /* read end of the stop pipe; -1: none (runs to from's end) */
	bool from_stdin;          /* from is standard input: its end ends the session */
	pthread_t thread;
};

/* Write all n bytes, waiting when fd is non-blocking and full; false once fd is gone. */
static bool write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EAGAIN)
			poll(&(struct pollfd){ .fd = fd, .events = POLLOUT }, 1, -1);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static void *relay_main(void *arg)
{
	struct relay *r = arg;
	char buf[16384];
	for (;;) {
		struct pollfd p[2] = { { .fd = r->from, .events = POLLIN },
				       { .fd = r->stop, .events = POLLIN } };
		if (poll(p, 2, -1) < 0 && errno == EINTR)
			continue; /* a signal landed on this thread */
		if (p[1].revents)
			return NULL;
		ssize_t n = read(r->from, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0 || !write_all(r->to, buf, (size_t)n))
			break;
	}
	if (r->from_stdin) { /* as the lifeline of a TCP agent: no agent outlives its ssh */
		shutdown(r->to, SHUT_WR);
		nb_agent_log(r->a, 0, NULL, "standard input closed: stopping");
		nb_agent_request_stop(r->a);
	}
	return NULL;
}

/* Start a relay's thread: 0, or pthread_create's error. */
static int start(struct relay *r)
{
	return pthread_create(&r->thread, NULL, relay_main, r);
}

bool nb_agent_stdio_serve(struct nb_agent *a, int in, int out,
			  const struct nb_agent_stdio_ends *e, struct nb_error *err)
{
	int sv[2], stop[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return nb_error_errno(err, errno, "socketpair");
	if (pipe2(stop, O_CLOEXEC) < 0) {
		int saved = errno;
		close(sv[0]);
		close(sv[1]);
		return nb_error_errno(err, saved, "pipe");
	}
	struct relay up = { .a = a, .from = in, .to = sv[1], .stop = stop[0], .from_stdin = true };
	struct relay down = { .a = a, .from = sv[1], .to = out, .stop = -1 };
	bool ok = nb_agent_adopt(a, sv[0], &e->client, e->client_len, err); /* sv[0] is a's now */
	int rc_up = ok ? start(&up) : -1, rc_down = rc_up == 0 ? start(&down) : -1;
	if (ok && (rc_up || rc_down))
		ok = nb_error_errno(err, rc_up ? rc_up : rc_down, "pthread_create");
	if (ok) {
		fprintf(stderr, "%s\n", NB_AGENT_STDIO_READY);
		ok = nb_agent_run(a, err); /* closes sv[0] at its end: down then drains and ends */
	}
	if (rc_down == 0)
		pthread_join(down.thread, NULL);
	if (rc_up == 0) {
		ssize_t w = write(stop[1], "x", 1);
		(void)w;
		pthread_join(up.thread, NULL);
	}
	close(sv[1]);
	close(stop[0]);
	close(stop[1]);
	return ok;
}

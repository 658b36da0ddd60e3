/* nbrun — the data-plane harness (see session.h). */
#include "session.h"
#include "session_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "params.h"
#include "sock.h"

#define HELLO_MAGIC 0x4e424831u /* "NBH1" */
#define HELLO_LEN 16
#define UDP_HELLO_RETRY_MS 100

/* ---- hello: {magic u32, flow u32, cookie u64}, big-endian ---- */

static void hello_put(unsigned char *b, uint32_t flow, uint64_t cookie)
{
	uint32_t m = HELLO_MAGIC;
	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(m >> (24 - 8 * i));
	for (int i = 0; i < 4; i++)
		b[4 + i] = (unsigned char)(flow >> (24 - 8 * i));
	for (int i = 0; i < 8; i++)
		b[8 + i] = (unsigned char)(cookie >> (56 - 8 * i));
}

static bool hello_get(const unsigned char *b, size_t len, uint64_t cookie, uint32_t nflows,
		      uint32_t *flow)
{
	if (len != HELLO_LEN)
		return false;
	uint32_t m = 0, f = 0;
	uint64_t c = 0;
	for (int i = 0; i < 4; i++)
		m = m << 8 | b[i];
	for (int i = 0; i < 4; i++)
		f = f << 8 | b[4 + i];
	for (int i = 0; i < 8; i++)
		c = c << 8 | b[8 + i];
	if (m != HELLO_MAGIC || c != cookie || f >= nflows)
		return false;
	*flow = f;
	return true;
}

/* ---- lifetime ---- */

static struct nb_session *session_new(const struct nb_engine *e, const struct nb_params *p,
				      enum nb_side side, struct nb_error *err)
{
	struct nb_session *s = calloc(1, sizeof(*s));
	if (!s) {
		nb_error_set(err, "out of memory");
		return NULL;
	}
	s->e = e;
	s->p = *p;
	s->side = side;
	s->nflows = nb_params_nflows(p);
	s->listen_fd = -1;
	s->flows = calloc(s->nflows, sizeof(*s->flows));
	s->threads = calloc(s->nflows, sizeof(*s->threads));
	s->clocks = calloc(s->nflows, sizeof(*s->clocks));
	s->done = calloc(s->nflows, sizeof(*s->done));
	if (!s->flows || !s->threads || !s->clocks || !s->done) {
		nb_session_destroy(s);
		nb_error_set(err, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < s->nflows; i++) {
		struct nb_flow *f = &s->flows[i];
		f->p = &s->p;
		f->index = i;
		f->side = side;
		bool cs = nb_params_client_sends(p, i);
		f->sends = side == NB_SIDE_CLIENT ? cs : !cs;
		f->fd = -1;
		f->listen_fd = -1;
		f->stop = &s->stop;
		f->quiesce = &s->quiesce;
		f->epoch = &s->epoch;
		f->lag = 1;
		if (e->records_latency && side == NB_SIDE_CLIENT) {
			f->hist = nb_hist_create();
			f->win_hist = e->due_window ? nb_hist_create() : NULL;
			if (!f->hist || (e->due_window && !f->win_hist)) {
				nb_session_destroy(s);
				nb_error_set(err, "out of memory");
				return NULL;
			}
		}
	}
	return s;
}

void nb_session_destroy(struct nb_session *s)
{
	if (!s)
		return;
	if (s->nthreads) {
		struct nb_error ignored;
		nb_session_stop(s, &ignored);
	}
	for (uint32_t i = 0; s->flows && i < s->nflows; i++) {
		if (s->flows[i].fd >= 0)
			close(s->flows[i].fd);
		nb_hist_destroy(s->flows[i].hist);
		nb_hist_destroy(s->flows[i].win_hist);
	}
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	free(s->flows);
	free(s->threads);
	free(s->clocks);
	free(s->done);
	free(s);
}

uint32_t nb_session_nflows(const struct nb_session *s)
{
	return s->nflows;
}

/* ---- server side ---- */

static int bind_in_range(int type, struct sockaddr_storage *addr, socklen_t len, uint16_t lo,
			 uint16_t hi, uint16_t *port, struct nb_error *err)
{
	int last = 0;
	for (uint32_t pt = lo; pt <= hi; pt++) {
		int fd = socket(addr->ss_family, type | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return nb_error_errno(err, errno, "socket"), -1;
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (type == SOCK_DGRAM)
			setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
		if (addr->ss_family == AF_INET)
			((struct sockaddr_in *)addr)->sin_port = htons((uint16_t)pt);
		else
			((struct sockaddr_in6 *)addr)->sin6_port = htons((uint16_t)pt);
		if (bind(fd, (struct sockaddr *)addr, len) == 0) {
			socklen_t l = len;
			getsockname(fd, (struct sockaddr *)addr, &l);
			*port = ntohs(addr->ss_family == AF_INET ? ((struct sockaddr_in *)addr)->sin_port
								: ((struct sockaddr_in6 *)addr)->sin6_port);
			return fd;
		}
		last = errno;
		close(fd);
		if (lo == 0)
			break;
	}
	nb_error_errno(err, last, "no free data port in %u-%u", lo, hi);
	return -1;
}

struct nb_session *nb_session_listen(const struct nb_engine *e, const struct nb_params *p,
				     const struct sockaddr *bind_addr, socklen_t bind_len,
				     uint16_t port_lo, uint16_t port_hi, uint16_t *port,
				     struct nb_error *err)
{
	struct nb_session *s = session_new(e, p, NB_SIDE_SERVER, err);
	if (!s)
		return NULL;
	memcpy(&s->local, bind_addr, bind_len);
	s->local_len = bind_len;
	int type = p->proto == NB_PROTO_UDP ? SOCK_DGRAM : SOCK_STREAM;
	s->listen_fd = bind_in_range(type, &s->local, bind_len, port_lo, port_hi, port, err);
	if (s->listen_fd < 0 || (type == SOCK_STREAM && listen(s->listen_fd, 1024) < 0)) {
		if (s->listen_fd >= 0)
			nb_error_errno(err, errno, "listen");
		nb_session_destroy(s);
		return NULL;
	}
	if (e->per_connection) {
		for (uint32_t i = 0; i < s->nflows; i++)
			s->flows[i].listen_fd = s->listen_fd;
	}
	return s;
}

static int remaining_ms(uint64_t deadline)
{
	uint64_t now = nb_now_ns();
	return now >= deadline ? 0 : (int)((deadline - now) / 1000000ull) + 1;
}

static bool wait_readable(int fd, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ms;
	while ((ms = remaining_ms(deadline)) > 0) {
		int n = poll(&pfd, 1, ms);
		if (n > 0)
			return true;
		if (n < 0 && errno != EINTR)
			return false;
	}
	return false;
}

/* Accept one TCP connection and read its hello; -1 if none came, -2 to ignore this one. */
static int accept_tcp_flow(struct nb_session *s, uint64_t deadline, uint32_t *flow)
{
	if (!wait_readable(s->listen_fd, deadline))
		return -1;
	int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return -2;
	unsigned char b[HELLO_LEN];
	size_t got = 0;
	uint64_t hello_deadline = nb_now_ns() + 2000000000ull;
	while (got < HELLO_LEN && wait_readable(fd, hello_deadline)) {
		ssize_t n = recv(fd, b + got, HELLO_LEN - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (!hello_get(b, got, s->p.cookie, s->nflows, flow) || s->flows[*flow].fd >= 0) {
		close(fd);
		return -2;
	}
	return fd;
}

/* Receive one UDP hello on the base socket and give the flow its own connected socket. */
static int accept_udp_flow(struct nb_session *s, uint64_t deadline, uint32_t *flow)
{
	if (!wait_readable(s->listen_fd, deadline))
		return -1;
	unsigned char b[64];
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	ssize_t n = recvfrom(s->listen_fd, b, sizeof(b), 0, (struct sockaddr *)&from, &fl);
	if (n < 0 || !hello_get(b, (size_t)n, s->p.cookie, s->nflows, flow))
		return -2;
	if (s->flows[*flow].fd >= 0) { /* a retransmitted hello: answer again */
		(void)send(s->flows[*flow].fd, b, HELLO_LEN, 0);
		return -2;
	}
	int fd = socket(s->local.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&s->local, s->local_len) < 0 ||
	    connect(fd, (struct sockaddr *)&from, fl) < 0 || send(fd, b, HELLO_LEN, 0) < 0) {
		if (fd >= 0)
			close(fd);
		return -2;
	}
	return fd;
}

bool nb_session_accept(struct nb_session *s, int timeout_ms, struct nb_error *err)
{
	if (s->e->per_connection)
		return true;
	uint64_t deadline = nb_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	uint32_t have = 0;
	while (have < s->nflows) {
		uint32_t flow = 0;
		int fd = s->p.proto == NB_PROTO_UDP ? accept_udp_flow(s, deadline, &flow)
						    : accept_tcp_flow(s, deadline, &flow);
		if (fd == -1)
			return nb_error_set(err, "only %u of %u data connections arrived within %d ms",
					    have, s->nflows, timeout_ms);
		if (fd < 0)
			continue;
		if (!nb_sock_apply(fd, &s->p, s->local.ss_family, err) ||
		    (s->e->prepare_socket &&
		     !s->e->prepare_socket(fd, &s->p, s->flows[flow].sends, err))) {
			close(fd);
			return false;
		}
		s->flows[flow].fd = fd;
		have++;
	}
	return true;
}

/* ---- client side ---- */

static int connect_timeout(const struct sockaddr_storage *to, socklen_t len, int type,
			   uint64_t deadline, const struct nb_params *p, struct nb_error *err)
{
	int fd = socket(to->ss_family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return nb_error_errno(err, errno, "socket"), -1;
	if (!nb_sock_apply(fd, p, to->ss_family, err)) {
		close(fd);
		return -1;
	}
	if (connect(fd, (const struct sockaddr *)to, len) < 0 && errno != EINPROGRESS) {
		nb_error_errno(err, errno, "connect data port");
		close(fd);
		return -1;
	}
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int e = 0;
	socklen_t el = sizeof(e);
	if (poll(&pfd, 1, remaining_ms(deadline)) <= 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0 || e != 0) {
		nb_error_errno(err, e ? e : ETIMEDOUT, "connect data port");
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

static bool hello_tcp(int fd, const unsigned char *b, struct nb_error *err)
{
	if (send(fd, b, HELLO_LEN, MSG_NOSIGNAL) != HELLO_LEN)
		return nb_error_errno(err, errno, "send hello");
	return true;
}

static bool hello_udp(int fd, const unsigned char *b, uint64_t deadline, struct nb_error *err)
{
	unsigned char ack[64];
	while (remaining_ms(deadline) > 0) {
		if (send(fd, b, HELLO_LEN, 0) < 0 && errno != ECONNREFUSED)
			return nb_error_errno(err, errno, "send hello");
		uint64_t retry = nb_now_ns() + UDP_HELLO_RETRY_MS * 1000000ull;
		while (wait_readable(fd, retry < deadline ? retry : deadline)) {
			ssize_t n = recv(fd, ack, sizeof(ack), 0);
			if (n == HELLO_LEN && memcmp(ack, b, HELLO_LEN) == 0)
				return true;
		}
	}
	return nb_error_set(err, "no answer to the UDP data hello (firewall or wrong data port?)");
}

struct nb_session *nb_session_connect(const struct nb_engine *e, const struct nb_params *p,
				      const struct sockaddr *peer, socklen_t peer_len, uint16_t port,
				      int timeout_ms, struct nb_error *err)
{
	struct nb_session *s = session_new(e, p, NB_SIDE_CLIENT, err);
	if (!s)
		return NULL;
	struct sockaddr_storage to;
	memcpy(&to, peer, peer_len);
	if (to.ss_family == AF_INET)
		((struct sockaddr_in *)&to)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&to)->sin6_port = htons(port);
	uint64_t deadline = nb_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	for (uint32_t i = 0; i < s->nflows; i++) {
		struct nb_flow *f = &s->flows[i];
		memcpy(&f->peer, &to, peer_len);
		f->peer_len = peer_len;
		if (e->per_connection)
			continue;
		int type = p->proto == NB_PROTO_UDP ? SOCK_DGRAM : SOCK_STREAM;
		f->fd = connect_timeout(&to, peer_len, type, deadline, p, err);
		unsigned char b[HELLO_LEN];
		hello_put(b, i, p->cookie);
		if (f->fd < 0 || (e->prepare_socket && !e->prepare_socket(f->fd, p, f->sends, err)) ||
		    !(type == SOCK_DGRAM ? hello_udp(f->fd, b, deadline, err)
					 : hello_tcp(f->fd, b, err))) {
			nb_session_destroy(s);
			return NULL;
		}
	}
	return s;
}

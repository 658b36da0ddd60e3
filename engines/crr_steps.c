/* nbrun — TCP_CRR as non-blocking steps (flows over threads, flowloop.h): the same transactions
 * as rr.c's blocking crr bodies — connect, the data hello with the request, the response,
 * close with a RST — one in flight per flow, each flow's transactions, connects, connect time
 * and round trips its own.
 *
 * A flow has no socket for its life: a client opens one per transaction, and every server
 * flow accepts from the one listener the session shares (one descriptor cannot sit twice in
 * its thread's epoll set). So each flow has an epoll set of its own (the loop's `fd`) holding
 * what it waits on now: the client its connection of the moment (EPOLLOUT while connecting or
 * sending, EPOLLIN for the response); the server the listener while idle, its accepted
 * connection while serving. A socket's close takes it out of the set.
 *
 * The client's connect is non-blocking: EINPROGRESS, then EPOLLOUT and SO_ERROR say it is
 * established; NB_C_CONNECT_NS sums connect() to that step, so it includes the wait of the
 * thread's other flows' steps (as a round trip does, rr_steps.c), measured, not hidden. TCP
 * never loses an answer: no timeout, as the blocking crr; a connect the peer refuses, or a
 * connection it breaks, fails the flow, and the stop or the slice ends a wait. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dhello.h"
#include "io.h"
#include "rr_int.h"

#define MOVES_PER_STEP 6 /* at most: connected, request out, response in, the next connect */

enum crr_phase { CRR_IDLE, CRR_CONNECTING, CRR_SENDING, CRR_RECEIVING };

struct crrstep {
	int ep;                 /* the flow's own epoll set (the loop watches it) */
	int fd;                 /* the connection of the moment; -1 between connections */
	enum crr_phase phase;
	unsigned char *wire;    /* the data hello, then the request (+ 1 byte: see rr.c) */
	unsigned char *resp;
	size_t off;             /* bytes of the message in progress moved so far */
	uint64_t t0, tc;        /* client: the transaction's start, its connect()'s */
};

static const uint32_t ready = EPOLLIN; /* what the loop watches of the flow's own set */

static size_t wire_len(const struct nb_flow *f)
{
	return NB_DHELLO_LEN + (size_t)f->p->request;
}

static bool crr_open(struct nb_flow *f, struct nb_flow_wants *w)
{
	struct crrstep *st = calloc(1, sizeof(*st));
	unsigned char *wire = calloc(1, wire_len(f) + 1), *resp = calloc(1, f->p->response);
	int ep = st && wire && resp ? epoll_create1(EPOLL_CLOEXEC) : -1;
	if (ep < 0) {
		free(st), free(wire), free(resp);
		return nb_error_errno(&f->err, errno ? errno : ENOMEM, "flow %u: TCP_CRR steps", f->index);
	}
	*st = (struct crrstep){ .ep = ep, .fd = -1, .wire = wire, .resp = resp };
	f->run = st;
	bool client = f->side == NB_SIDE_CLIENT;
	if (client)
		nb_dhello_put(wire, &(struct nb_dhello){ .kind = NB_DH_CRR, .flow = f->index },
			      f->p->key);
	int fl = client ? 0 : fcntl(f->reach->listen_fd, F_GETFL);
	struct epoll_event ev = { .events = EPOLLIN };
	/* The server: the shared listener non-blocking (every flow's set wakes for a connection;
	 * one accept takes it) and in this flow's set while it is idle. */
	if (!client && (fl < 0 || fcntl(f->reach->listen_fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
			epoll_ctl(ep, EPOLL_CTL_ADD, f->reach->listen_fd, &ev) < 0)) {
		nb_error_errno(&f->err, errno, "flow %u: TCP_CRR listener", f->index);
		close(ep), free(wire), free(resp), free(st);
		f->run = NULL;
		return false;
	}
	/* The client's first connect is its first step's: at once. */
	*w = (struct nb_flow_wants){ .events = ready, .at_ns = client ? nb_now_ns() : 0 };
	return true;
}

static int crr_fd(struct nb_flow *f)
{
	return ((struct crrstep *)f->run)->ep;
}

static void conn_close(struct crrstep *st)
{
	if (st->fd >= 0)
		close(st->fd); /* client: SO_LINGER {1, 0}, a RST, no TIME_WAIT; out of st->ep */
	st->fd = -1;
	st->off = 0;
	st->phase = CRR_IDLE;
}

static void crr_close(struct nb_flow *f)
{
	struct crrstep *st = f->run;
	if (!st)
		return;
	conn_close(st);
	close(st->ep);
	free(st->wire), free(st->resp), free(st);
	f->run = NULL;
}

/* The connection's events in the flow's set: what its phase waits for. */
static bool conn_watch(struct crrstep *st, uint32_t events, int op)
{
	struct epoll_event ev = { .events = events };
	return epoll_ctl(st->ep, op, st->fd, &ev) == 0;
}

/* Client: a fresh non-blocking socket, connecting to the peer: 1 established at once, 0 in
 * progress, -1 failed (f->err set, or errno for nb_io_fail). */
static int client_connect(struct nb_flow *f, struct crrstep *st)
{
	int family = nb_sock_family(&f->reach->peer);
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };
	st->t0 = nb_now_ns();
	st->fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (st->fd < 0)
		return -1;
	if (setsockopt(st->fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst)) < 0 ||
	    !nb_sock_apply(st->fd, f->p, family, &f->err) || !conn_watch(st, EPOLLOUT, EPOLL_CTL_ADD))
		return -1;
	st->tc = nb_now_ns();
	if (connect(st->fd, (const struct sockaddr *)&f->reach->peer, f->reach->peer_len) == 0)
		return 1;
	return errno == EINPROGRESS || errno == EINTR || errno == EAGAIN ? 0 : -1;
}

static void count_connect(struct nb_flow *f, struct crrstep *st)
{
	nb_count(f, NB_C_CONNECTS, 1);
	nb_count(f, NB_C_CONNECT_NS, nb_now_ns() - st->tc);
	st->phase = CRR_SENDING;
}

/* Client: the phase's move; 1 moved on, 0 waits, -1 failed. */
static int client_move(struct nb_flow *f, struct crrstep *st, uint32_t events)
{
	int r, e = 0;
	socklen_t el = sizeof(e);
	switch (st->phase) {
	case CRR_IDLE:
		r = client_connect(f, st);
		if (r == 0)
			st->phase = CRR_CONNECTING;
		else if (r > 0)
			count_connect(f, st);
		return r < 0 ? -1 : r;
	case CRR_CONNECTING:
		if (!events)
			return 0; /* a time or the slice: still connecting */
		if (getsockopt(st->fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0 || e != 0) {
			errno = e ? e : errno;
			return -1;
		}
		count_connect(f, st);
		return 1;
	case CRR_SENDING:
		r = nb_io_move(st->fd, st->wire, wire_len(f), &st->off, true);
		if (r <= 0)
			return r;
		nb_rr_count_io(f, true, f->p->request);
		st->phase = CRR_RECEIVING;
		return conn_watch(st, EPOLLIN, EPOLL_CTL_MOD) ? 1 : -1;
	case CRR_RECEIVING:
		r = nb_io_move(st->fd, st->resp, f->p->response, &st->off, false);
		if (r <= 0)
			return r;
		nb_rr_count_io(f, false, f->p->response);
		nb_rr_transaction_done(f, st->t0);
		conn_close(st);
		return 1;
	}
	return -1;
}

static int crr_client(struct nb_flow *f, struct crrstep *st, uint32_t events,
		      struct nb_flow_wants *w)
{
	*w = (struct nb_flow_wants){ .events = ready };
	for (int k = 0; k < MOVES_PER_STEP; k++) {
		if (st->phase == CRR_IDLE && nb_flow_quiet(f))
			return 0;
		int r = client_move(f, st, events);
		if (r < 0) {
			enum nb_io io = errno == ECONNREFUSED || errno == ECONNRESET || errno == EPIPE
						? NB_IO_CLOSED : NB_IO_ERROR;
			return f->err.msg[0] ? -1 : nb_io_fail(f, io, "TCP_CRR connect/transaction");
		}
		if (r == 0)
			return 1;
	}
	if (st->phase == CRR_IDLE) /* a batch's worth done: the next connect, once others stepped */
		w->at_ns = nb_now_ns();
	return 1;
}

/* Server: take one connection off the listener into the flow's set; 1 taken, 0 none now (or
 * one from a host the run takes no data from: closed at once), -1 an error. */
static int server_accept(struct nb_flow *f, struct crrstep *st)
{
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	struct epoll_event off = { .events = 0 };
	int fd = accept4(f->reach->listen_fd, (struct sockaddr *)&from, &fl,
			 SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return nb_io_again(errno) || errno == ECONNABORTED || errno == EMFILE ||
		       errno == ENFILE ? 0 : -1;
	if (!nb_sock_from_allowed(&f->reach->peer, &from)) {
		close(fd);
		return 0;
	}
	st->fd = fd;
	st->phase = CRR_RECEIVING;
	if (!conn_watch(st, EPOLLIN, EPOLL_CTL_ADD) ||
	    epoll_ctl(st->ep, EPOLL_CTL_MOD, f->reach->listen_fd, &off) < 0)
		return -1;
	return 1;
}

/* Server: the connection's end (answered or broken: one client's broken connection is not the
 * run's); the listener back in the flow's set. */
static int server_done(struct nb_flow *f, struct crrstep *st)
{
	struct epoll_event ev = { .events = EPOLLIN };
	conn_close(st);
	return epoll_ctl(st->ep, EPOLL_CTL_MOD, f->reach->listen_fd, &ev) == 0 ? 1 : -1;
}

/* Server: the phase's move; 1 moved on, 0 waits, -1 failed. */
static int server_move(struct nb_flow *f, struct crrstep *st)
{
	struct nb_dhello h;
	int r;
	switch (st->phase) {
	case CRR_IDLE:
	case CRR_CONNECTING:
		return server_accept(f, st);
	case CRR_RECEIVING:
		r = nb_io_move(st->fd, st->wire, wire_len(f), &st->off, false);
		if (r == 0)
			return 0;
		if (r < 0 || !nb_dhello_get(st->wire, NB_DHELLO_LEN, NB_DH_CRR, f->p->key, &h))
			return server_done(f, st); /* not of the run: closed unanswered */
		nb_rr_count_io(f, false, f->p->request);
		st->phase = CRR_SENDING;
		return 1;
	case CRR_SENDING:
		r = nb_io_move(st->fd, st->resp, f->p->response, &st->off, true);
		if (r == 0)
			return conn_watch(st, EPOLLOUT, EPOLL_CTL_MOD) ? 0 : -1;
		if (r > 0) {
			nb_rr_count_io(f, true, f->p->response);
			nb_count(f, NB_C_TRANSACTIONS, 1);
		}
		return server_done(f, st) > 0 ? 0 : -1; /* the next: when a connection comes */
	}
	return -1;
}

static int crr_server(struct nb_flow *f, struct crrstep *st, struct nb_flow_wants *w)
{
	*w = (struct nb_flow_wants){ .events = ready };
	for (int k = 0; k < MOVES_PER_STEP; k++) {
		int r = server_move(f, st);
		if (r < 0)
			return nb_io_fail(f, NB_IO_ERROR, "TCP_CRR accept");
		if (r == 0)
			break;
	}
	return 1;
}

static int crr_step(struct nb_flow *f, uint32_t events, uint64_t now_ns, struct nb_flow_wants *w)
{
	(void)now_ns;
	if (nb_flow_stopping(f))
		return 0;
	struct crrstep *st = f->run;
	return f->side == NB_SIDE_CLIENT ? crr_client(f, st, events, w) : crr_server(f, st, w);
}

/* wait: block, and unpaced: a crr at a `rate` (a working case's probe) schedules each
 * transaction from its due time (rr.c, nb_sched_wait) and keeps a thread per flow. */
static bool crr_steps_cover(const struct nb_params *p)
{
	return nb_rr_steps_cover(p) && p->rate == 0;
}

const struct nb_flow_steps nb_crr_steps = {
	.covers = crr_steps_cover, .open = crr_open, .step = crr_step, .close = crr_close,
	.fd = crr_fd,
};

/* nbrun — TCP_RR and UDP_RR as non-blocking steps (flows over threads, flowloop.h): the same
 * transactions as rr.c's blocking bodies, one request in flight per flow, each flow's counts
 * and round trips its own. A step moves what the socket takes or has now and says what the
 * flow waits for next: the client sends its request (EPOLLOUT while the socket is full), then
 * waits for the response (EPOLLIN; UDP: until its timeout too, then a timeout counts and the
 * next request goes out); the server waits for a request and answers it. A client's round trip
 * runs from the step that began its request, so it includes the wait of its thread's other
 * flows' steps: what a thread driving several flows costs, measured, not hidden. */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "io.h"
#include "rr_int.h"

#define RECVS_PER_STEP 8 /* UDP: datagrams one step reads at most (stale answers, requests) */

struct rrstep {
	unsigned char *req, *resp;
	size_t off;             /* TCP: bytes of the message in progress moved so far */
	bool sending;           /* client: the request is going out; server: the response is */
	uint64_t t0;            /* client: when this transaction began */
	uint64_t deadline;      /* UDP client: when the answer times out */
	uint32_t seq;           /* UDP client: this request's number */
	bool begun;             /* UDP client: request seq began (t0), not yet answered or timed out */
};

bool nb_rr_steps_cover(const struct nb_params *p)
{
	return p->wait == NB_WAIT_BLOCK;
}

/* n: what the call returned (0: the peer closed); errno e when it failed (nb_io_move sets
 * ECONNRESET for a close it saw). */
static enum nb_io io_of(ssize_t n, int e)
{
	if (n == 0 || e == ECONNRESET || e == EPIPE || e == ECONNREFUSED)
		return NB_IO_CLOSED;
	return NB_IO_ERROR;
}

static bool rr_open(struct nb_flow *f, struct nb_flow_wants *w)
{
	struct rrstep *st = calloc(1, sizeof(*st));
	/* + 1: a UDP request one byte too long shows as the wrong size (as rr.c's server) */
	unsigned char *req = calloc(1, (size_t)f->p->request + 1), *resp = calloc(1, f->p->response);
	if (!st || !req || !resp) {
		free(st), free(req), free(resp);
		return nb_error_set(&f->err, "out of memory");
	}
	*st = (struct rrstep){ .req = req, .resp = resp, .sending = f->side == NB_SIDE_CLIENT,
			       .t0 = nb_now_ns() };
	f->run = st;
	*w = (struct nb_flow_wants){ .events = st->sending ? EPOLLOUT : EPOLLIN };
	return true;
}

static void rr_close(struct nb_flow *f)
{
	struct rrstep *st = f->run;
	if (st)
		free(st->req), free(st->resp), free(st);
	f->run = NULL;
}

static int tcp_move(struct nb_flow *f, struct rrstep *st, unsigned char *buf, size_t len, bool tx)
{
	return nb_io_move(f->fd, buf, len, &st->off, tx);
}

static int tcp_client(struct nb_flow *f, struct rrstep *st, struct nb_flow_wants *w)
{
	for (int k = 0; k < 2; k++) { /* at most: the end of a response, the next request */
		if (st->sending && st->off == 0 && nb_flow_quiet(f))
			return 0;
		unsigned char *buf = st->sending ? st->req : st->resp;
		int r = tcp_move(f, st, buf, st->sending ? f->p->request : f->p->response, st->sending);
		if (r < 0)
			return nb_io_fail(f, io_of(-1, errno), "TCP_RR transaction");
		if (r == 0)
			break;
		nb_rr_count_io(f, st->sending, st->sending ? f->p->request : f->p->response);
		if (!st->sending) {
			nb_rr_transaction_done(f, st->t0);
			st->t0 = nb_now_ns();
		}
		st->sending = !st->sending;
	}
	w->events = st->sending ? EPOLLOUT : EPOLLIN;
	return 1;
}

static int tcp_server(struct nb_flow *f, struct rrstep *st, struct nb_flow_wants *w)
{
	for (int k = 0; k < 2; k++) { /* at most: the end of a request, its response */
		unsigned char *buf = st->sending ? st->resp : st->req;
		int r = tcp_move(f, st, buf, st->sending ? f->p->response : f->p->request, st->sending);
		if (r < 0 && !st->sending && st->off == 0 && errno == ECONNRESET)
			return 0; /* the client ended the run (it reports its own failures) */
		if (r < 0)
			return nb_io_fail(f, io_of(-1, errno), "TCP_RR server");
		if (r == 0)
			break;
		nb_rr_count_io(f, st->sending, st->sending ? f->p->response : f->p->request);
		if (st->sending)
			nb_count(f, NB_C_TRANSACTIONS, 1);
		st->sending = !st->sending;
	}
	w->events = st->sending ? EPOLLOUT : EPOLLIN;
	return 1;
}

/* UDP client: send request st->seq; 1 sent, 0 no room (EPOLLOUT), -1 failed. */
static int udp_request(struct nb_flow *f, struct rrstep *st, uint64_t now, struct nb_flow_wants *w)
{
	nb_rr_seq_put(st->req, st->seq);
	ssize_t n = send(f->fd, st->req, f->p->request, MSG_DONTWAIT);
	if (n < 0 && nb_io_again(errno)) {
		*w = (struct nb_flow_wants){ .events = EPOLLOUT };
		return 0;
	}
	if (n < 0)
		return nb_io_fail(f, io_of(n, errno), "UDP_RR transaction") == 0 ? -2 : -1;
	nb_rr_count_io(f, true, f->p->request);
	st->sending = false;
	st->deadline = now + (uint64_t)nb_rr_timeout_ms(f->p) * 1000000ull;
	*w = (struct nb_flow_wants){ .events = EPOLLIN, .at_ns = st->deadline };
	return 1;
}

static int udp_client(struct nb_flow *f, struct rrstep *st, uint64_t now, struct nb_flow_wants *w)
{
	for (int k = 0; !st->sending && k < RECVS_PER_STEP; k++) {
		ssize_t n = recv(f->fd, st->resp, f->p->response, MSG_DONTWAIT);
		if (n < 0 && nb_io_again(errno))
			break;
		if (n < 0)
			return nb_io_fail(f, io_of(n, errno), "UDP_RR transaction");
		nb_rr_count_io(f, false, (size_t)n);
		if ((size_t)n >= NB_RR_SEQ_BYTES && nb_rr_seq_get(st->resp) == st->seq) {
			nb_rr_transaction_done(f, st->t0);
			st->sending = true, st->begun = false;
		} /* else a stale answer: dropped */
	}
	if (!st->sending && now >= st->deadline) {
		nb_count(f, NB_C_TIMEOUTS, 1);
		st->sending = true, st->begun = false;
	}
	if (!st->sending)
		return 1; /* still waiting: EPOLLIN, until the deadline */
	if (nb_flow_quiet(f))
		return 0;
	if (!st->begun) /* the next request, begun now (a retry for room keeps its number) */
		st->seq++, st->t0 = nb_now_ns(), st->begun = true;
	int r = udp_request(f, st, now, w);
	return r == -2 ? 0 : r < 0 ? -1 : 1;
}

static int udp_server(struct nb_flow *f, struct rrstep *st)
{
	for (int k = 0; k < RECVS_PER_STEP; k++) {
		ssize_t n = recv(f->fd, st->req, f->p->request + 1u, MSG_DONTWAIT);
		if (n < 0 && nb_io_again(errno))
			return 1;
		if (n < 0 && errno == ECONNREFUSED)
			return 0; /* ICMP unreachable from an earlier answer: the client is gone */
		if (n < 0)
			return nb_io_fail(f, io_of(n, errno), "UDP_RR server");
		nb_rr_count_io(f, false, (size_t)n);
		if ((size_t)n != f->p->request)
			continue;
		nb_rr_seq_put(st->resp, nb_rr_seq_get(st->req));
		ssize_t m = send(f->fd, st->resp, f->p->response, MSG_DONTWAIT);
		if (m < 0 && errno == ECONNREFUSED)
			return 0;
		if (m < 0 && nb_io_again(errno))
			continue; /* no room: the client times this one out, as a lost answer */
		if (m < 0)
			return nb_io_fail(f, io_of(m, errno), "UDP_RR server");
		nb_rr_count_io(f, true, f->p->response);
		nb_count(f, NB_C_TRANSACTIONS, 1);
	}
	return 1;
}

static int rr_step(struct nb_flow *f, uint32_t events, uint64_t now_ns, struct nb_flow_wants *w)
{
	struct rrstep *st = f->run;
	bool client = f->side == NB_SIDE_CLIENT;
	if (nb_flow_stopping(f))
		return 0;
	if (f->p->proto == NB_PROTO_TCP)
		return events == 0 && !(client && nb_flow_quiet(f)) ? 1
		       : client ? tcp_client(f, st, w) : tcp_server(f, st, w);
	return client ? udp_client(f, st, now_ns, w) : udp_server(f, st);
}

const struct nb_flow_steps nb_rr_steps = {
	.covers = nb_rr_steps_cover, .open = rr_open, .step = rr_step, .close = rr_close,
};

/* nbrun — the latency engine's flows as non-blocking steps (flows over threads, flowloop.h),
 * `wait: block` only: the same messages, counts and round trips as latency.c's blocking bodies,
 * each flow's its own.
 *
 * Under load a step is one pass of the client (latency_load.c: send what is due, read what
 * came, expire what is late), and the flow asks to be stepped at its next due time or UDP
 * expiry, early by its timer's measured lateness as the blocking body sleeps (schedule.h), then
 * without sleeping until due. A message still leaves as late as its thread's other flows'
 * steps make it: stamped with its due time, that lateness is in its round trip and in the lag
 * histogram, measured, not hidden.
 *
 * Ping-pong: the client sends its message, then waits for its echo (UDP: until timeout_ms,
 * then a timeout counts and the next message goes out). The server echoes what it reads. */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "latency_int.h"
#include "sock.h"

#define RECVS_PER_STEP 8 /* UDP ping-pong: datagrams one step reads at most (stale echoes) */
#define ECHOES_PER_STEP 8 /* server: reads (and their echoes) one step makes at most */

struct latstep {
	unsigned char *out, *in;
	struct nb_lat_ul ul;    /* under load */
	uint64_t seq, t0;       /* ping-pong: the message in flight, when it was sent */
	size_t off;             /* TCP ping-pong: bytes of the message in progress moved */
	bool waiting;           /* ping-pong: the message is out, its echo not back */
	size_t len, sent;       /* server: bytes read to echo, of them echoed */
	uint64_t pending;       /* server, TCP: bytes of a message echoed so far */
	uint64_t asked_at, asked_from; /* under load: the timed wait asked for, when (0: none) */
};

static bool covers(const struct nb_params *p)
{
	return p->wait == NB_WAIT_BLOCK;
}

static bool lat_open(struct nb_flow *f, struct nb_flow_wants *w)
{
	const struct nb_params *p = f->p;
	bool client = f->side == NB_SIDE_CLIENT;
	size_t in_len = client ? (p->size > NB_LAT_TCP_IN_BUF ? p->size : NB_LAT_TCP_IN_BUF)
			       : p->proto == NB_PROTO_UDP ? NB_UDP_MAX_PAYLOAD : NB_LAT_TCP_IN_BUF;
	struct latstep *st = calloc(1, sizeof(*st));
	unsigned char *out = calloc(1, p->size), *in = calloc(1, in_len);
	if (!st || !out || !in) {
		free(st), free(out), free(in);
		return nb_error_set(&f->err, "out of memory");
	}
	st->out = out, st->in = in;
	f->run = st;
	if (client && p->rate && !nb_lat_ul_init(&st->ul, f, out, in)) {
		free(st->ul.bits), free(out), free(in), free(st);
		f->run = NULL;
		return false;
	}
	*w = (struct nb_flow_wants){ .events = client ? EPOLLOUT : EPOLLIN };
	return true;
}

static void lat_close(struct nb_flow *f)
{
	struct latstep *st = f->run;
	if (st)
		free(st->ul.bits), free(st->out), free(st->in), free(st);
	f->run = NULL;
}

static enum nb_io io_of(int e)
{
	return e == ECONNREFUSED || e == ECONNRESET || e == EPIPE ? NB_IO_CLOSED : NB_IO_ERROR;
}

/* Under load, as the blocking body: the wait before a send ends early by the timer's measured
 * lateness (schedule.h) and the flow is then stepped without sleeping until it is due; a timed
 * wait that ended on its time teaches the timer how late it was. */
static int ul_step(struct nb_flow *f, struct latstep *st, uint32_t events, uint64_t now,
		   struct nb_flow_wants *w)
{
	if (!events && st->asked_at && now >= st->asked_at)
		nb_sched_learn(&st->ul.timer, st->asked_at - st->asked_from, now - st->asked_from);
	st->asked_at = 0;
	enum nb_io r = nb_lat_ul_pass(&st->ul);
	if (r == NB_IO_STOP)
		return 0; /* nothing more to send or to wait for */
	if (r != NB_IO_OK)
		return nb_io_fail(f, r, "latency under load");
	bool write;
	uint64_t next = nb_lat_ul_next_ns(&st->ul, &write), t = nb_now_ns();
	*w = (struct nb_flow_wants){ .events = EPOLLIN | (write ? EPOLLOUT : 0) };
	if (next) {
		w->at_ns = nb_sched_wake_at(&st->ul.timer, t, next);
		if (w->at_ns > t)
			st->asked_at = w->at_ns, st->asked_from = t;
	}
	return 1;
}

/* Ping-pong: send message st->seq (TCP: what the socket takes of it now); 1 out, 0 no room,
 * -1 failed (errno). */
static int pp_send(struct nb_flow *f, struct latstep *st)
{
	if (st->off == 0) {
		st->t0 = nb_now_ns();
		nb_lat_hdr_put(st->out, f->index, st->seq, st->t0);
	}
	if (f->p->proto == NB_PROTO_TCP) {
		int r = nb_io_move(f->fd, st->out, f->p->size, &st->off, true);
		if (r <= 0)
			return r;
	} else {
		ssize_t n = send(f->fd, st->out, f->p->size, MSG_DONTWAIT);
		if (n < 0)
			/* no room: off 1 keeps the message (its number, its time) for the retry */
			return nb_io_again(errno) || errno == ENOBUFS ? (st->off = 1, 0) : -1;
		st->off = 0;
	}
	nb_lat_count_io(f, true, f->p->size, 1);
	nb_lat_window_sent(f, st->t0);
	st->waiting = true;
	return 1;
}

/* Ping-pong: read the echo of st->seq; 1 back (answered), 0 not yet, -1 failed (errno). */
static int pp_recv(struct nb_flow *f, struct latstep *st)
{
	uint32_t size = f->p->size;
	uint64_t s, t;
	if (f->p->proto == NB_PROTO_TCP) {
		int r = nb_io_move(f->fd, st->in, size, &st->off, false);
		if (r <= 0)
			return r;
		nb_lat_count_io(f, false, size, 1);
		if (!nb_lat_hdr_get(st->in, size, f->index, &s, &t) || s != st->seq)
			return errno = EPROTO, -1;
		return 1;
	}
	for (int k = 0; k < RECVS_PER_STEP; k++) {
		ssize_t n = recv(f->fd, st->in, size, MSG_DONTWAIT);
		if (n < 0)
			return nb_io_again(errno) ? 0 : -1;
		nb_lat_count_io(f, false, (size_t)n, 1);
		if (nb_lat_hdr_get(st->in, (size_t)n, f->index, &s, &t) && s == st->seq)
			return 1;
	} /* else a stale echo: dropped */
	return 0;
}

static int pp_step(struct nb_flow *f, struct latstep *st, uint64_t now, struct nb_flow_wants *w)
{
	for (int k = 0; k < 2; k++) { /* at most: the echo back, the next message out */
		if (!st->waiting) {
			if (st->off == 0 && nb_flow_quiet(f))
				return 0;
			int r = pp_send(f, st);
			if (r < 0)
				return nb_io_fail(f, io_of(errno), "latency send");
			if (r == 0)
				break;
		}
		int r = pp_recv(f, st);
		if (r < 0)
			return nb_io_fail(f, io_of(errno), "latency reply");
		if (r > 0)
			nb_lat_answered(f, st->t0, nb_now_ns() - st->t0);
		else if (f->p->proto == NB_PROTO_UDP && now >= st->t0 + nb_lat_timeout_ns(f->p))
			nb_count(f, NB_C_TIMEOUTS, 1);
		else
			break;
		st->waiting = false, st->seq++;
	}
	*w = (struct nb_flow_wants){ .events = st->waiting ? EPOLLIN : EPOLLOUT };
	if (st->waiting && f->p->proto == NB_PROTO_UDP)
		w->at_ns = st->t0 + nb_lat_timeout_ns(f->p);
	return 1;
}

/* The server echoes every byte back; a TCP message counts once all of it is back out. 1 go on
 * (*w set), 0 the client is gone, -1 failed. */
static int echo_step(struct nb_flow *f, struct latstep *st, struct nb_flow_wants *w)
{
	const struct nb_params *p = f->p;
	bool udp = p->proto == NB_PROTO_UDP;
	size_t cap = udp ? NB_UDP_MAX_PAYLOAD : NB_LAT_TCP_IN_BUF;
	*w = (struct nb_flow_wants){ .events = EPOLLIN };
	for (int k = 0; k < ECHOES_PER_STEP; k++) {
		if (st->len == 0) {
			ssize_t n = recv(f->fd, st->in, cap, MSG_DONTWAIT);
			if (n < 0 && nb_io_again(errno))
				return 1;
			if ((n == 0 && !udp) || (n < 0 && io_of(errno) == NB_IO_CLOSED))
				return 0; /* the client ended the run; it reports its own failures */
			if (n < 0)
				return nb_io_fail(f, NB_IO_ERROR, "latency echo");
			if (n == 0)
				continue; /* an empty datagram: nothing to echo */
			st->len = (size_t)n, st->sent = 0;
		}
		ssize_t m = send(f->fd, st->in + st->sent, st->len - st->sent,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (m < 0 && (nb_io_again(errno) || errno == ENOBUFS)) {
			w->events = EPOLLOUT;
			return 1;
		}
		if (m < 0)
			return io_of(errno) == NB_IO_CLOSED ? 0 : nb_io_fail(f, NB_IO_ERROR, "latency echo");
		st->sent += (size_t)m;
		if (st->sent < st->len)
			continue;
		uint64_t msgs = udp ? 1 : (st->pending + st->len) / p->size;
		st->pending = udp ? 0 : (st->pending + st->len) % p->size;
		nb_lat_count_io(f, false, st->len, msgs);
		nb_lat_count_io(f, true, st->len, msgs);
		nb_count(f, NB_C_TRANSACTIONS, msgs);
		st->len = 0;
	}
	return 1;
}

static int lat_step(struct nb_flow *f, uint32_t events, uint64_t now_ns, struct nb_flow_wants *w)
{
	struct latstep *st = f->run;
	if (nb_flow_stopping(f))
		return 0;
	if (f->side != NB_SIDE_CLIENT)
		return echo_step(f, st, w);
	return f->p->rate ? ul_step(f, st, events, now_ns, w) : pp_step(f, st, now_ns, w);
}

const struct nb_flow_steps nb_latency_steps = {
	.covers = covers, .open = lat_open, .step = lat_step, .close = lat_close,
};

/* nbrun — the latency engine's client under load (see latency.c's comment): its schedule, the
 * messages it sends and the echoes it reads, one pass at a time (nb_lat_ul_pass), the blocking
 * body's wait (nb_lat_ul_client) and what a step waits for (nb_lat_ul_next_ns). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>

#include "latency_int.h"
#include "sock.h"

#define SEND_BURST 32u                  /* messages sent before the replies are read */
#define MAX_LATE_NS 100000ull           /* wake at most 2 x 100 us before a send time */

/* UDP under load: bits for every message that may still be answered (a power of two). */
static uint64_t window_of(const struct nb_params *p)
{
	uint64_t need = p->rate * (nb_lat_timeout_ns(p) / 1000000ull) / 1000 + p->rate / 10 + 1024;
	uint64_t w = 1024;
	while (w < need && w < NB_LAT_WIN_MAX)
		w <<= 1;
	return w;
}

/* Due time of message k: t0 + k / rate seconds, exact for any rate. */
static uint64_t sched_of(const struct nb_lat_ul *u, uint64_t k)
{
	return nb_sched_due(u->t0, k, u->rate);
}

static bool bit_get(const struct nb_lat_ul *u, uint64_t seq)
{
	uint64_t i = seq & (u->win - 1);
	return u->bits[i / 64] >> (i % 64) & 1;
}

static void bit_set(struct nb_lat_ul *u, uint64_t seq, bool v)
{
	uint64_t i = seq & (u->win - 1);
	if (v)
		u->bits[i / 64] |= 1ull << (i % 64);
	else
		u->bits[i / 64] &= ~(1ull << (i % 64));
}

/* UDP: resolve the oldest message: answered, or a timeout (force: even if not yet due). */
static bool ul_expire_one(struct nb_lat_ul *u, uint64_t now, bool force)
{
	if (bit_get(u, u->oldest)) {
		bit_set(u, u->oldest, false);
	} else {
		if (!force && sched_of(u, u->oldest) + u->tmo_ns > now)
			return false;
		nb_count(u->f, NB_C_TIMEOUTS, 1);
	}
	u->oldest++;
	return true;
}

static void ul_expire(struct nb_lat_ul *u, uint64_t now)
{
	while (u->oldest < u->next && ul_expire_one(u, now, false))
		;
}

static void ul_reply(struct nb_lat_ul *u, const unsigned char *b, size_t len, uint64_t now)
{
	uint64_t seq, sched;
	if (!nb_lat_hdr_get(b, len, u->f->index, &seq, &sched))
		return;
	if (u->udp) {
		if (seq < u->oldest || seq >= u->next || bit_get(u, seq))
			return; /* late (already a timeout), never sent, or a duplicate */
		bit_set(u, seq, true);
	} else {
		u->got++;
	}
	nb_lat_answered(u->f, sched, now >= sched ? now - sched : 0);
}

/* Start the next message if it is due; false when it is not yet. */
static bool ul_take_due(struct nb_lat_ul *u, uint64_t now)
{
	uint64_t due = sched_of(u, u->next);
	if (due > now)
		return false;
	if (u->udp && u->next - u->oldest >= u->win)
		ul_expire_one(u, now, true);
	nb_lat_hdr_put(u->out, u->f->index, u->next, due);
	u->out_off = 0;
	u->out_busy = true;
	return true;
}

/* Send the messages due by now (late ones too, stamped with their due time), at most
 * SEND_BURST before the caller reads the replies: a sender catching up after a stall
 * must not let the echoes overflow its own receive buffer. */
static enum nb_io ul_send_due(struct nb_lat_ul *u, uint64_t now)
{
	u->want_write = false;
	for (unsigned sent = 0; sent < SEND_BURST && (u->out_busy || ul_take_due(u, now));) {
		ssize_t n = send(u->f->fd, u->out + u->out_off, u->size - u->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)) {
			u->want_write = true;
			return NB_IO_OK;
		}
		if (n < 0)
			return errno == ECONNREFUSED || errno == EPIPE || errno == ECONNRESET
				       ? NB_IO_CLOSED : NB_IO_ERROR;
		u->out_off += (size_t)n;
		if (u->out_off == u->size) {
			u->out_busy = false;
			nb_flow_lag(u->f, sched_of(u, u->next), now);
			nb_lat_window_sent(u->f, sched_of(u, u->next));
			u->next++;
			sent++;
			nb_lat_count_io(u->f, true, u->size, 1);
		}
	}
	return NB_IO_OK;
}

/* TCP: take every complete echoed message out of the reassembly buffer. */
static void ul_consume_stream(struct nb_lat_ul *u, uint64_t now)
{
	size_t off = 0;
	while (u->in_len - off >= u->size) {
		ul_reply(u, u->in + off, u->size, now);
		off += u->size;
	}
	nb_lat_count_io(u->f, false, 0, off / u->size);
	memmove(u->in, u->in + off, u->in_len - off);
	u->in_len -= off;
}

/* Read everything that has come back, without waiting. */
static enum nb_io ul_recv_ready(struct nb_lat_ul *u)
{
	for (;;) {
		size_t room = u->udp ? u->size : u->in_cap - u->in_len;
		ssize_t n = recv(u->f->fd, u->in + (u->udp ? 0 : u->in_len), room, MSG_DONTWAIT);
		if (n > 0) {
			uint64_t now = nb_now_ns();
			nb_count(u->f, NB_C_RX_BYTES, (uint64_t)n);
			if (u->udp) {
				nb_count(u->f, NB_C_RX_PACKETS, 1);
				ul_reply(u, u->in, (size_t)n, now);
			} else {
				u->in_len += (size_t)n;
				ul_consume_stream(u, now);
			}
			continue;
		}
		if (n == 0)
			return nb_flow_stopping(u->f) ? NB_IO_STOP : NB_IO_CLOSED;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return NB_IO_OK;
		if (errno == ECONNREFUSED && u->udp)
			continue; /* an ICMP error queued on the socket; the replies count for themselves */
		return errno == ECONNRESET ? NB_IO_CLOSED : NB_IO_ERROR;
	}
}

static bool ul_outstanding(const struct nb_lat_ul *u)
{
	return u->udp ? u->oldest < u->next : u->got < u->next;
}

/* Whether messages still go out: until the senders are told to stop, and after that the ones
 * due inside the window, however late (a stalled sender must not drop them from the window). */
static bool ul_sending(const struct nb_lat_ul *u)
{
	return !nb_flow_quiet(u->f) || sched_of(u, u->next) < nb_latency_of(u->f)->win_end_ns;
}

/* Sleep (ppoll) for wait_ns or until a reply comes; *timed: the timer ended it. */
static enum nb_io ul_sleep(struct nb_lat_ul *u, uint64_t wait_ns, bool *timed)
{
	struct pollfd pfd = { .fd = u->f->fd, .events = POLLIN | (u->want_write ? POLLOUT : 0) };
	struct timespec ts = { .tv_sec = (time_t)(wait_ns / 1000000000ull),
			       .tv_nsec = (long)(wait_ns % 1000000000ull) };
	int n = ppoll(&pfd, 1, &ts, NULL);
	if (n < 0 && errno != EINTR)
		return NB_IO_ERROR;
	*timed = n == 0;
	return NB_IO_OK;
}

/* Sleep until the next due time, the oldest UDP expiry, a reply, or one slice.
 *
 * A timer wake-up in a VM comes tens of microseconds late, and a late send
 * counts in the RTT (it is measured from the due time). So the sleep before a
 * send ends early by twice the measured oversleep (a moving average, at most
 * 200 us) and the loop polls the socket without sleeping for the rest, as
 * sockperf's sender does for the whole interval. Waiting for a reply still
 * sleeps: that wake-up is what block and busy-poll modes measure. */
static enum nb_io ul_wait(struct nb_lat_ul *u, uint64_t now)
{
	if (u->f->p->wait == NB_WAIT_SPIN) {
		nb_io_spin_pause();
		return NB_IO_OK;
	}
	uint64_t until = now + NB_IO_SLICE_MS * 1000000ull;
	if (ul_sending(u) && !u->want_write && sched_of(u, u->next) < until)
		until = nb_sched_wake_at(&u->timer, now, sched_of(u, u->next));
	if (u->udp && u->oldest < u->next && sched_of(u, u->oldest) + u->tmo_ns < until)
		until = sched_of(u, u->oldest) + u->tmo_ns;
	if (until <= now)
		return NB_IO_OK; /* due (or nearly): go round without sleeping */
	bool timed;
	if (ul_sleep(u, until - now, &timed) != NB_IO_OK)
		return NB_IO_ERROR;
	if (timed)
		nb_sched_learn(&u->timer, until - now, nb_now_ns() - now);
	return NB_IO_OK;
}

enum nb_io nb_lat_ul_pass(struct nb_lat_ul *u)
{
	enum nb_io r = NB_IO_OK;
	if (ul_sending(u))
		r = ul_send_due(u, nb_now_ns());
	if (r == NB_IO_OK)
		r = ul_recv_ready(u);
	if (r != NB_IO_OK)
		return r;
	if (u->udp)
		ul_expire(u, nb_now_ns());
	return !ul_sending(u) && !ul_outstanding(u) ? NB_IO_STOP : NB_IO_OK;
}

uint64_t nb_lat_ul_next_ns(const struct nb_lat_ul *u, bool *write)
{
	uint64_t t = 0;
	*write = u->want_write;
	if (ul_sending(u) && !u->want_write)
		t = sched_of(u, u->next);
	if (u->udp && u->oldest < u->next) {
		uint64_t expiry = sched_of(u, u->oldest) + u->tmo_ns;
		t = t && t < expiry ? t : expiry;
	}
	return t;
}

/* One pass, then wait. */
static enum nb_io ul_step(struct nb_lat_ul *u)
{
	enum nb_io r = nb_lat_ul_pass(u);
	return r == NB_IO_OK ? ul_wait(u, nb_now_ns()) : r;
}

bool nb_lat_ul_init(struct nb_lat_ul *u, struct nb_flow *f, unsigned char *out, unsigned char *in)
{
	const struct nb_params *p = f->p;
	*u = (struct nb_lat_ul){ .f = f, .size = p->size, .udp = p->proto == NB_PROTO_UDP, .rate = p->rate,
			  .tmo_ns = nb_lat_timeout_ns(p), .out = out, .in = in, .in_cap = NB_LAT_TCP_IN_BUF,
			  .timer = { .max_late_ns = MAX_LATE_NS } };
	if (u->udp) {
		u->win = window_of(p);
		u->bits = calloc(u->win / 64, sizeof(uint64_t));
		if (!u->bits)
			return nb_error_set(&f->err, "out of memory");
	}
	int fl = fcntl(f->fd, F_GETFL);
	if (fl < 0 || fcntl(f->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return nb_error_errno(&f->err, errno, "O_NONBLOCK");
	/* Timer slack would make every wake-up up to 50 us late, and lateness counts here. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	u->t0 = nb_now_ns();
	return true;
}

int nb_lat_ul_client(struct nb_flow *f, unsigned char *out, unsigned char *in)
{
	struct nb_lat_ul u;
	if (!nb_lat_ul_init(&u, f, out, in)) {
		free(u.bits);
		return -1;
	}
	enum nb_io r;
	while ((r = ul_step(&u)) == NB_IO_OK && !nb_flow_stopping(f))
		;
	free(u.bits);
	return r == NB_IO_OK ? 0 : nb_io_fail(f, r, "latency under load");
}


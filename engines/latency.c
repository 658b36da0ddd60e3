/* nbrun — the latency engine: ping-pong RTT (sockperf ping-pong) and RTT under load
 * at a fixed message rate (sockperf under-load), TCP or UDP, full round trip in ns.
 *
 * Every message starts with a 24-byte header written and read by the client
 * only (the server echoes bytes back unchanged): magic, flow index, sequence
 * number, and the time the message was *scheduled* to leave (CLOCK_MONOTONIC
 * of the client; RTT needs no clock sync). The RTT recorded is the full round
 * trip, never halved.
 *
 * Ping-pong (rate 0): one message in flight per flow; the next leaves when the
 * previous one is back.
 *
 * Under load (rate > 0 messages/s per flow) and why it is built this way:
 * sockperf and neper stamp the *actual* send time, so when the sender or the
 * server stalls, the messages that should have left during the stall are sent
 * late and each looks fast: the stall vanishes from the tail (coordinated
 * omission). Here message k is due at t0 + k / rate, exactly (no credit is
 * dropped after a stall, unlike the pacer in pace.c, which must not burst); a
 * message sent late is still stamped with its due time, and its RTT counts
 * from there. One thread per flow sends and receives on one non-blocking
 * socket: it sends what is due, reads what has come back, and sleeps (block,
 * busy-poll) or spins until the next due time or the next reply. UDP replies
 * are tracked in a bitmap window: a message not answered within timeout_ms of
 * its due time counts as NB_C_TIMEOUTS, and a reply arriving after that is
 * discarded.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>

#include "engine.h"
#include "engines.h"
#include "io.h"
#include "latency_int.h"
#include "schedule.h"
#include "sock.h"
#include "report_shapes.h"

#define HDR 24u
#define MAGIC 0x4e424c54u              /* "NBLT" */
#define DEFAULT_TIMEOUT_MS 1000u
#define TCP_MAX_MSG (1u << 20)
#define MAX_RATE 10000000ull           /* messages/s per flow */
#define WIN_MAX (1ull << 26)            /* UDP: most messages in flight tracked (8 MiB bitmap) */
#define TCP_IN_BUF (64u * 1024)
#define SEND_BURST 32u                  /* messages sent before the replies are read */
#define MAX_LATE_NS 100000ull           /* wake at most 2 x 100 us before a send time */

/* ---- header ---- */

static void hdr_put(unsigned char *b, uint32_t flow, uint64_t seq, uint64_t sched_ns)
{
	uint32_t m = MAGIC;
	memcpy(b, &m, 4);
	memcpy(b + 4, &flow, 4);
	memcpy(b + 8, &seq, 8);
	memcpy(b + 16, &sched_ns, 8);
}

static bool hdr_get(const unsigned char *b, size_t len, uint32_t flow, uint64_t *seq,
		    uint64_t *sched_ns)
{
	uint32_t m, fl;
	if (len < HDR)
		return false;
	memcpy(&m, b, 4);
	memcpy(&fl, b + 4, 4);
	memcpy(seq, b + 8, 8);
	memcpy(sched_ns, b + 16, 8);
	return m == MAGIC && fl == flow;
}

static uint64_t timeout_ns(const struct nb_params *p)
{
	return (uint64_t)(p->timeout_ms ? p->timeout_ms : DEFAULT_TIMEOUT_MS) * 1000000ull;
}

/* UDP under load: bits for every message that may still be answered (a power of two). */
static uint64_t window_of(const struct nb_params *p)
{
	uint64_t need = p->rate * (timeout_ns(p) / 1000000ull) / 1000 + p->rate / 10 + 1024;
	uint64_t w = 1024;
	while (w < need && w < WIN_MAX)
		w <<= 1;
	return w;
}

static bool latency_validate(const struct nb_params *p, struct nb_error *err)
{
	uint32_t hi = p->proto == NB_PROTO_UDP ? NB_UDP_MAX_PAYLOAD : TCP_MAX_MSG;
	if (p->size < HDR || p->size > hi)
		return nb_error_set(err, "size must be %u..%u bytes (the header takes %u)", HDR, hi, HDR);
	if (p->streams == 0 || p->streams > NB_MAX_FLOWS)
		return nb_error_set(err, "streams must be 1..%d", NB_MAX_FLOWS);
	if (p->rate > MAX_RATE)
		return nb_error_set(err, "rate must be at most %llu messages/s per flow",
				    (unsigned long long)MAX_RATE);
	uint64_t need = p->rate * (timeout_ns(p) / 1000000ull) / 1000;
	if (p->proto == NB_PROTO_UDP && need >= WIN_MAX)
		return nb_error_set(err, "rate x timeout_ms is too many messages in flight (max %llu)",
				    (unsigned long long)WIN_MAX);
	return true;
}

static void count_io(struct nb_flow *f, bool tx, size_t bytes, uint64_t msgs)
{
	nb_count(f, tx ? NB_C_TX_BYTES : NB_C_RX_BYTES, bytes);
	nb_count(f, tx ? NB_C_TX_PACKETS : NB_C_RX_PACKETS, msgs);
}

/* A message of the window went out: the window counts it until it is answered. */
static void window_sent(struct nb_flow *f, uint64_t due_ns)
{
	if (nb_latency_in_window(f, due_ns))
		nb_count(f, NB_C_WIN_SENT, 1);
}

static void answered(struct nb_flow *f, uint64_t due_ns, uint64_t rtt_ns)
{
	if (f->hist)
		nb_hist_record(f->hist, rtt_ns);
	nb_count(f, NB_C_TRANSACTIONS, 1);
	if (!nb_latency_in_window(f, due_ns))
		return;
	if (nb_latency_of(f)->win_hist)
		nb_hist_record(nb_latency_of(f)->win_hist, rtt_ns);
	nb_count(f, NB_C_WIN_ANSWERED, 1);
}

/* ---- ping-pong ---- */

/* Wait for the echo of message `seq`: TCP gets it next in the stream; UDP skips stale ones. */
static enum nb_io pp_reply(struct nb_flow *f, unsigned char *in, uint64_t seq, uint64_t deadline)
{
	uint32_t size = f->p->size;
	uint64_t s, t;
	if (f->p->proto == NB_PROTO_TCP) {
		enum nb_io r = nb_io_recv_all(f, f->fd, in, size);
		if (r != NB_IO_OK)
			return r;
		count_io(f, false, size, 1);
		if (!hdr_get(in, size, f->index, &s, &t) || s != seq)
			return errno = EPROTO, NB_IO_ERROR;
		return NB_IO_OK;
	}
	for (;;) {
		size_t got;
		enum nb_io r = nb_io_recv(f, f->fd, in, size, deadline, &got);
		if (r != NB_IO_OK)
			return r;
		count_io(f, false, got, 1);
		if (hdr_get(in, got, f->index, &s, &t) && s == seq)
			return NB_IO_OK;
	}
}

static int pp_client(struct nb_flow *f, unsigned char *out, unsigned char *in)
{
	for (uint64_t seq = 0; !nb_flow_quiet(f); seq++) {
		uint64_t t0 = nb_now_ns();
		hdr_put(out, f->index, seq, t0);
		enum nb_io r = nb_io_send_all(f, f->fd, out, f->p->size);
		if (r != NB_IO_OK)
			return nb_io_fail(f, r, "latency send");
		count_io(f, true, f->p->size, 1);
		window_sent(f, t0);
		r = pp_reply(f, in, seq, t0 + timeout_ns(f->p));
		if (r == NB_IO_TIMEOUT) {
			nb_count(f, NB_C_TIMEOUTS, 1);
			continue;
		}
		if (r != NB_IO_OK)
			return nb_io_fail(f, r, "latency reply");
		answered(f, t0, nb_now_ns() - t0);
	}
	return 0;
}

/* ---- under load ---- */

/* One flow's sender/receiver state under load. */
struct ul {
	struct nb_flow *f;
	uint32_t size;
	bool udp;
	uint64_t rate, t0, tmo_ns;
	uint64_t next;            /* next sequence number to send */
	uint64_t got;             /* TCP: replies received */
	unsigned char *out;       /* the message being sent */
	size_t out_off;           /* bytes of it already sent */
	bool out_busy;            /* a message is partly sent */
	bool want_write;          /* the socket pushed back: wait for POLLOUT */
	unsigned char *in;        /* TCP: reassembly of echoed messages */
	size_t in_len, in_cap;
	struct nb_sched_timer timer; /* how late its timed sleeps end (schedule.h) */
	uint64_t *bits;           /* UDP: answered flags of seq oldest .. next-1 (bit seq % win) */
	uint64_t win, oldest;     /* UDP: window size (power of two); lowest unresolved seq */
};

/* Due time of message k: t0 + k / rate seconds, exact for any rate. */
static uint64_t sched_of(const struct ul *u, uint64_t k)
{
	return nb_sched_due(u->t0, k, u->rate);
}

static bool bit_get(const struct ul *u, uint64_t seq)
{
	uint64_t i = seq & (u->win - 1);
	return u->bits[i / 64] >> (i % 64) & 1;
}

static void bit_set(struct ul *u, uint64_t seq, bool v)
{
	uint64_t i = seq & (u->win - 1);
	if (v)
		u->bits[i / 64] |= 1ull << (i % 64);
	else
		u->bits[i / 64] &= ~(1ull << (i % 64));
}

/* UDP: resolve the oldest message: answered, or a timeout (force: even if not yet due). */
static bool ul_expire_one(struct ul *u, uint64_t now, bool force)
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

static void ul_expire(struct ul *u, uint64_t now)
{
	while (u->oldest < u->next && ul_expire_one(u, now, false))
		;
}

static void ul_reply(struct ul *u, const unsigned char *b, size_t len, uint64_t now)
{
	uint64_t seq, sched;
	if (!hdr_get(b, len, u->f->index, &seq, &sched))
		return;
	if (u->udp) {
		if (seq < u->oldest || seq >= u->next || bit_get(u, seq))
			return; /* late (already a timeout), never sent, or a duplicate */
		bit_set(u, seq, true);
	} else {
		u->got++;
	}
	answered(u->f, sched, now >= sched ? now - sched : 0);
}

/* Start the next message if it is due; false when it is not yet. */
static bool ul_take_due(struct ul *u, uint64_t now)
{
	uint64_t due = sched_of(u, u->next);
	if (due > now)
		return false;
	if (u->udp && u->next - u->oldest >= u->win)
		ul_expire_one(u, now, true);
	hdr_put(u->out, u->f->index, u->next, due);
	u->out_off = 0;
	u->out_busy = true;
	return true;
}

/* Send the messages due by now (late ones too, stamped with their due time), at most
 * SEND_BURST before the caller reads the replies: a sender catching up after a stall
 * must not let the echoes overflow its own receive buffer. */
static enum nb_io ul_send_due(struct ul *u, uint64_t now)
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
			window_sent(u->f, sched_of(u, u->next));
			u->next++;
			sent++;
			count_io(u->f, true, u->size, 1);
		}
	}
	return NB_IO_OK;
}

/* TCP: take every complete echoed message out of the reassembly buffer. */
static void ul_consume_stream(struct ul *u, uint64_t now)
{
	size_t off = 0;
	while (u->in_len - off >= u->size) {
		ul_reply(u, u->in + off, u->size, now);
		off += u->size;
	}
	count_io(u->f, false, 0, off / u->size);
	memmove(u->in, u->in + off, u->in_len - off);
	u->in_len -= off;
}

/* Read everything that has come back, without waiting. */
static enum nb_io ul_recv_ready(struct ul *u)
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

static bool ul_outstanding(const struct ul *u)
{
	return u->udp ? u->oldest < u->next : u->got < u->next;
}

/* Whether messages still go out: until the senders are told to stop, and after that the ones
 * due inside the window, however late (a stalled sender must not drop them from the window). */
static bool ul_sending(const struct ul *u)
{
	return !nb_flow_quiet(u->f) || sched_of(u, u->next) < nb_latency_of(u->f)->win_end_ns;
}

/* Sleep (ppoll) for wait_ns or until a reply comes; *timed: the timer ended it. */
static enum nb_io ul_sleep(struct ul *u, uint64_t wait_ns, bool *timed)
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
static enum nb_io ul_wait(struct ul *u, uint64_t now)
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

/* One pass: send what is due, read what came, expire what is late, then wait. */
static enum nb_io ul_step(struct ul *u)
{
	enum nb_io r = NB_IO_OK;
	if (ul_sending(u))
		r = ul_send_due(u, nb_now_ns());
	if (r == NB_IO_OK)
		r = ul_recv_ready(u);
	if (r != NB_IO_OK)
		return r;
	uint64_t now = nb_now_ns();
	if (u->udp)
		ul_expire(u, now);
	if (!ul_sending(u) && !ul_outstanding(u))
		return NB_IO_STOP;
	return ul_wait(u, now);
}

static bool ul_init(struct ul *u, struct nb_flow *f, unsigned char *out, unsigned char *in)
{
	const struct nb_params *p = f->p;
	*u = (struct ul){ .f = f, .size = p->size, .udp = p->proto == NB_PROTO_UDP, .rate = p->rate,
			  .tmo_ns = timeout_ns(p), .out = out, .in = in, .in_cap = TCP_IN_BUF,
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

static int ul_client(struct nb_flow *f, unsigned char *out, unsigned char *in)
{
	struct ul u;
	if (!ul_init(&u, f, out, in)) {
		free(u.bits);
		return -1;
	}
	enum nb_io r;
	while ((r = ul_step(&u)) == NB_IO_OK && !nb_flow_stopping(f))
		;
	free(u.bits);
	return r == NB_IO_OK ? 0 : nb_io_fail(f, r, "latency under load");
}

/* ---- flow bodies ---- */

static int latency_client_flow(struct nb_flow *f)
{
	const struct nb_params *p = f->p;
	uint32_t slice = p->proto == NB_PROTO_UDP ? (uint32_t)(timeout_ns(p) / 1000000ull) : 0;
	if (!nb_io_setup(f->fd, p->wait, slice, &f->err))
		return -1;
	unsigned char *out = calloc(1, p->size);
	unsigned char *in = calloc(1, p->size > TCP_IN_BUF ? p->size : TCP_IN_BUF);
	int rc = -1;
	if (!out || !in)
		nb_error_set(&f->err, "out of memory");
	else
		rc = p->rate ? ul_client(f, out, in) : pp_client(f, out, in);
	free(out);
	free(in);
	return rc;
}

/* The server echoes every byte back; a TCP message counts once all of it is back out. */
static int latency_server_flow(struct nb_flow *f)
{
	const struct nb_params *p = f->p;
	if (!nb_io_setup(f->fd, p->wait, 0, &f->err))
		return -1;
	size_t cap = p->proto == NB_PROTO_UDP ? NB_UDP_MAX_PAYLOAD : TCP_IN_BUF;
	unsigned char *buf = malloc(cap);
	if (!buf)
		return nb_error_set(&f->err, "out of memory"), -1;
	uint64_t pending = 0; /* TCP: bytes of a message echoed so far */
	int rc = 0;
	for (;;) {
		size_t got;
		enum nb_io r = nb_io_recv(f, f->fd, buf, cap, 0, &got);
		/* UDP: an ICMP unreachable from an earlier echo means the client is gone: stop
		 * echoing (whatever still arrives is not its message), as on a closed TCP connection. */
		if (r == NB_IO_OK)
			r = nb_io_send_all(f, f->fd, buf, got);
		if (r != NB_IO_OK) {
			/* A closed connection is the client ending the run; it reports its own failures. */
			rc = r == NB_IO_CLOSED ? 0 : nb_io_fail(f, r, "latency echo");
			break;
		}
		uint64_t msgs = p->proto == NB_PROTO_UDP ? 1 : (pending + got) / p->size;
		pending = p->proto == NB_PROTO_UDP ? 0 : (pending + got) % p->size;
		count_io(f, false, got, msgs);
		count_io(f, true, got, msgs);
		nb_count(f, NB_C_TRANSACTIONS, msgs);
	}
	free(buf);
	return rc;
}

/* Under load both ends receive bursts (a late sender catching up, a server after a
 * stall): give UDP sockets on both sides the large receive buffer, so such a burst
 * is measured as latency rather than lost as timeouts. */
static bool latency_prepare(int fd, const struct nb_params *p, bool sends, struct nb_error *err)
{
	if (p->proto == NB_PROTO_UDP && p->rate > 0)
		nb_sock_udp_rcvbuf(fd, p);
	return true;
}

/* The run's window counts every message due in it, answered or not: the answers to the last
 * ones (a server that stalled across the end) have timeout_ms to come back. */
static uint64_t latency_drain_ns(const struct nb_params *p)
{
	return timeout_ns(p);
}

/* The config keys that mean something to latency beyond the common ones. */
static const char *const latency_keys[] = { "size", "rate", "wait", "timeout", NULL };

const struct nb_engine nb_engine_latency = {
	.name = "latency",                    /* sockperf ping-pong / under-load */
	.summary = "round-trip time percentiles: ping-pong, or under load at a fixed message rate",
	.traits = {
		.directional = false,                   /* the client sends, the agent echoes */
		.loop = NB_LOOP_CLOSED_UNPACED,         /* rate 0: ping-pong; rate > 0: a schedule */
		.rate = NB_RATE_KIND_PACKETS,           /* messages/s per flow */
		.rate_unit = "msg/s",
		.protocols = 1u << NB_PROTO_TCP | 1u << NB_PROTO_UDP,
		.default_proto = NB_PROTO_TCP,
		.default_size = { [NB_PROTO_TCP] = 32, [NB_PROTO_UDP] = 32 },
		.min_size = { [NB_PROTO_TCP] = HDR, [NB_PROTO_UDP] = HDR }, /* the message header */
		.default_request = 0,                   /* one message size, echoed */
		.default_response = 0,
		.protocols_note = NULL,                 /* runs over both */
		.keys = latency_keys,
		.headline = { "lat_p50_us", "us", false }, /* median round trip */
		.records_latency = true,                 /* client: full RTT from the scheduled send time */
		.rpm = NB_RPM_RR,
	},
	.datapath = NB_DATAPATH_CONNECTED, /* one connection (or connected UDP socket) per flow */
	.validate = latency_validate,         /* size >= 24 (header), rate, flows */
	.client_flow = latency_client_flow,   /* rate 0: ping-pong; rate > 0: fixed schedule */
	.server_flow = latency_server_flow,   /* echoes every byte */
	.prepare_socket = latency_prepare,    /* under load over UDP: large receive buffers */
	.kernel_counters = NULL,              /* counts what it sends and what comes back */
	.drain_ns = latency_drain_ns,         /* timeout_ms: the window's last answers */
	.report = nb_report_round_trips,      /* the client's messages, bytes, UDP timeouts */
	.report_run = nb_latency_report_run,  /* the run: the window's messages by due time */
	.flow_init = nb_latency_flow_init,    /* the window by due time, behind f->priv */
	.flow_fini = nb_latency_flow_fini,
	.set_window = nb_latency_set_window,  /* the run's window: its messages by due time */
	.window_hist = nb_latency_window_hist, /* the window's round trips */
};

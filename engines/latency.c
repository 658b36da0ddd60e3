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
 * busy-poll) or spins until the next due time or the next reply
 * (latency_load.c); with wait: block, flows run as steps over `threads`
 * threads per end instead (latency_steps.c, flowloop.h). UDP replies
 * are tracked in a bitmap window: a message not answered within timeout_ms of
 * its due time counts as NB_C_TIMEOUTS, and a reply arriving after that is
 * discarded.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "engine.h"
#include "engines.h"
#include "io.h"
#include "latency_int.h"
#include "sock.h"
#include "report_shapes.h"

#define TCP_MAX_MSG (1u << 20)
#define MAX_RATE 10000000ull           /* messages/s per flow */

static bool latency_validate(const struct nb_params *p, struct nb_error *err)
{
	uint32_t hi = p->proto == NB_PROTO_UDP ? NB_UDP_MAX_PAYLOAD : TCP_MAX_MSG;
	if (p->size < NB_LAT_HDR || p->size > hi)
		return nb_error_set(err, "size must be %u..%u bytes (the header takes %u)", NB_LAT_HDR,
				    hi, NB_LAT_HDR);
	if (p->streams == 0 || p->streams > NB_MAX_FLOWS)
		return nb_error_set(err, "streams must be 1..%d", NB_MAX_FLOWS);
	if (p->rate > MAX_RATE)
		return nb_error_set(err, "rate must be at most %llu messages/s per flow",
				    (unsigned long long)MAX_RATE);
	uint64_t need = p->rate * (nb_lat_timeout_ns(p) / 1000000ull) / 1000;
	if (p->proto == NB_PROTO_UDP && need >= NB_LAT_WIN_MAX)
		return nb_error_set(err, "rate x timeout_ms is too many messages in flight (max %llu)",
				    (unsigned long long)NB_LAT_WIN_MAX);
	return true;
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
		nb_lat_count_io(f, false, size, 1);
		if (!nb_lat_hdr_get(in, size, f->index, &s, &t) || s != seq)
			return errno = EPROTO, NB_IO_ERROR;
		return NB_IO_OK;
	}
	for (;;) {
		size_t got;
		enum nb_io r = nb_io_recv(f, f->fd, in, size, deadline, &got);
		if (r != NB_IO_OK)
			return r;
		nb_lat_count_io(f, false, got, 1);
		if (nb_lat_hdr_get(in, got, f->index, &s, &t) && s == seq)
			return NB_IO_OK;
	}
}

static int pp_client(struct nb_flow *f, unsigned char *out, unsigned char *in)
{
	for (uint64_t seq = 0; !nb_flow_quiet(f); seq++) {
		uint64_t t0 = nb_now_ns();
		nb_lat_hdr_put(out, f->index, seq, t0);
		enum nb_io r = nb_io_send_all(f, f->fd, out, f->p->size);
		if (r != NB_IO_OK)
			return nb_io_fail(f, r, "latency send");
		nb_lat_count_io(f, true, f->p->size, 1);
		nb_lat_window_sent(f, t0);
		r = pp_reply(f, in, seq, t0 + nb_lat_timeout_ns(f->p));
		if (r == NB_IO_TIMEOUT) {
			nb_count(f, NB_C_TIMEOUTS, 1);
			continue;
		}
		if (r != NB_IO_OK)
			return nb_io_fail(f, r, "latency reply");
		nb_lat_answered(f, t0, nb_now_ns() - t0);
	}
	return 0;
}

/* ---- flow bodies ---- */

static int latency_client_flow(struct nb_flow *f)
{
	const struct nb_params *p = f->p;
	uint32_t slice = p->proto == NB_PROTO_UDP ? (uint32_t)(nb_lat_timeout_ns(p) / 1000000ull) : 0;
	if (!nb_io_setup(f->fd, p->wait, slice, &f->err))
		return -1;
	unsigned char *out = calloc(1, p->size);
	unsigned char *in = calloc(1, p->size > NB_LAT_TCP_IN_BUF ? p->size : NB_LAT_TCP_IN_BUF);
	int rc = -1;
	if (!out || !in)
		nb_error_set(&f->err, "out of memory");
	else
		rc = p->rate ? nb_lat_ul_client(f, out, in) : pp_client(f, out, in);
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
	size_t cap = p->proto == NB_PROTO_UDP ? NB_UDP_MAX_PAYLOAD : NB_LAT_TCP_IN_BUF;
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
		nb_lat_count_io(f, false, got, msgs);
		nb_lat_count_io(f, true, got, msgs);
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
	return nb_lat_timeout_ns(p);
}

/* The config keys that mean something to latency beyond the common ones. */
static const char *const latency_keys[] = { "size", "rate", "wait", "timeout", "threads", NULL };

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
		.min_size = { [NB_PROTO_TCP] = NB_LAT_HDR, [NB_PROTO_UDP] = NB_LAT_HDR }, /* the message header */
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
	.steps = &nb_latency_steps,           /* flows over threads (threads:), wait: block */
};

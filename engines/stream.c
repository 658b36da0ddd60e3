/* nbrun — the stream engine: TCP and UDP bulk throughput (iperf3 -c / -u / -P / -R / --bidir).
 *
 * Each flow runs on its own thread on each side; f->sends says whether this
 * side sends on it. TCP: the threads only move data; every count is the kernel's
 * (TCP_INFO, read by the harness at each tick: bytes sent and received, segments,
 * retransmits, cwnd, srtt), and with a rate the sender leaves pacing to the kernel
 * (SO_MAX_PACING_RATE, kpace.h). UDP: the batched path
 * of udpflow.c (shared with pps), UDP_BATCH datagrams per call: every datagram
 * carries the udpseq header, one header per message in front of a payload all
 * messages share; the sender is paced by the token bucket in pace.c when a rate
 * is set (bit/s: rate / (8 · size) datagrams/s, kept as that fraction, never rounded to
 * whole datagrams per second), or by the kernel when the interface's qdisc is fq (kpace.h);
 * the pacer lets at most `burst` of its schedule leave back to back; the receiver counts loss,
 * reordering,
 * duplicates and jitter, and its own socket-buffer drops apart from network loss. It asks
 * for UDP_GRO when GSO is on and the run is unpaced: a paced run is where jitter is read, and
 * under GRO only the first datagram of a coalesced buffer has a receive stamp of its own.
 */
#include <errno.h>
#include <netinet/in.h>
#include <linux/tcp.h> /* the kernel's tcp_info: glibc's lacks segs_in/out */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <sys/epoll.h>

#include "engine.h"
#include "flowloop.h"
#include "kpace.h"
#include "tcprx.h"
#include "sock.h"
#include "udpflow.h"
#include "udpgso.h"
#include "udpstep.h"
#include "report_shapes.h"
#include "stream_self.h"

#define UDP_BATCH 16
#define TCP_RECV_BUF (128 * 1024)

static bool stream_validate(const struct nb_params *p, struct nb_error *err)
{
	if (p->size == 0)
		return nb_error_set(err, "size must be at least 1 byte");
	if (p->proto == NB_PROTO_UDP && (p->size < NB_DGRAM_HDR || p->size > NB_UDP_MAX_PAYLOAD))
		return nb_error_set(err, "UDP size must be %u..%u bytes (the header takes %u)",
				    NB_DGRAM_HDR, NB_UDP_MAX_PAYLOAD, NB_DGRAM_HDR);
	if (p->streams == 0 || p->streams > NB_MAX_FLOWS / 2)
		return nb_error_set(err, "streams must be 1..%d", NB_MAX_FLOWS / 2);
	return nb_stream_self_validate(p, err);
}

/* The kernel's TCP states after a FIN arrived (linux/tcp.h does not name them; netinet/tcp.h's
 * tcp_info clashes with it): TIME_WAIT 6, CLOSE_WAIT 8, LAST_ACK 9, CLOSING 11. */
static bool fin_received(uint8_t state)
{
	return state == 6 || state == 8 || state == 9 || state == 11;
}

/* TCP: the kernel's counts of the flow's socket, read by the harness at each tick, so every
 * number is exact at its tick (the flow's thread reads nothing and counts nothing). The sender's
 * bytes are what its TCP sent, retransmissions included (tcpi_bytes_sent), not what the
 * application handed to the socket: with many streams that runs megabytes ahead of the wire.
 * The receiver's bytes are what arrived: what its TCP received in order (tcpi_bytes_received),
 * not what the application read (data waiting in the receive queue at a tick arrived before
 * it), plus what waits out of order behind a loss at the tick (tcprx.h). */
static void stream_kernel_counters(struct nb_flow *f)
{
	if (f->p->proto == NB_PROTO_UDP) {
		nb_udpflow_kernel_counters(f);
		return;
	}
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(f->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return;
	if (f->sends) {
		atomic_store_explicit(&f->c[NB_C_TX_BYTES], ti.tcpi_bytes_sent, memory_order_relaxed);
		nb_count_wrapped32(f, NB_C_TX_PACKETS, ti.tcpi_segs_out);
		nb_count_wrapped32(f, NB_C_RETRANS, ti.tcpi_total_retrans);
		nb_gauge_set(f, NB_G_CWND, ti.tcpi_snd_cwnd);
		nb_gauge_set(f, NB_G_SRTT_US, ti.tcpi_rtt);
		/* RFC 6349's numbers: bytes sent again, and the lowest RTT (the baseline) */
		atomic_store_explicit(&f->c[NB_C_BYTES_RETRANS], ti.tcpi_bytes_retrans,
				      memory_order_relaxed);
		nb_gauge_set(f, NB_G_MIN_RTT_US, ti.tcpi_min_rtt);
	} else {
		/* the peer's FIN takes a sequence number, which tcpi_bytes_received counts as a
		 * byte: a sender that closed before this reading is not one byte longer */
		uint64_t fin = fin_received(ti.tcpi_state);
		if (ti.tcpi_bytes_received < fin)
			fin = 0;
		struct nb_tcprx_reading r = { ti.tcpi_bytes_received - fin, ti.tcpi_data_segs_in,
					      ti.tcpi_rcv_mss, ti.tcpi_rcv_ooopack,
					      nb_sock_rmem_alloc(f->fd) };
		/* after the drain the window is closed: the whole flow counts exactly */
		struct nb_tcprx *rx = f->priv;
		uint64_t arrived = nb_flow_quiet(f) ? nb_tcprx_settled(rx, r.bytes_received)
						    : nb_tcprx_arrived(rx, &r);
		atomic_store_explicit(&f->c[NB_C_RX_BYTES], arrived, memory_order_relaxed);
		nb_count_wrapped32(f, NB_C_RX_PACKETS, ti.tcpi_segs_in);
	}
}

/* A TCP flow's own state: what its receiver's readings start from (tcprx.h). */
static bool stream_flow_init(struct nb_flow *f, struct nb_error *err)
{
	if (f->p->proto == NB_PROTO_TCP && !(f->priv = calloc(1, sizeof(struct nb_tcprx))))
		return nb_error_set(err, "out of memory");
	return true;
}

static void stream_flow_fini(struct nb_flow *f)
{
	free(f->priv);
	f->priv = NULL;
}

static int tcp_send(struct nb_flow *f)
{
	const struct nb_params *p = f->p;
	/* TCP is paced by the kernel (fq or TCP's internal pacing), per socket. */
	nb_gauge_set(f, NB_G_PACING, nb_kpace_apply(f->fd, true, p->rate));
	char *buf = calloc(1, p->size);
	if (!buf)
		return nb_error_set(&f->err, "out of memory"), -1;
	int rc = 0;
	while (!nb_flow_quiet(f)) {
		if (!nb_sock_send_all(f, buf, p->size)) {
			rc = f->err.msg[0] ? -1 : 0;
			break;
		}
	}
	free(buf);
	return rc;
}

static int tcp_recv(struct nb_flow *f)
{
	char *buf = malloc(TCP_RECV_BUF);
	if (!buf)
		return nb_error_set(&f->err, "out of memory"), -1;
	int rc = 0;
	while (!nb_flow_stopping(f)) {
		ssize_t n = recv(f->fd, buf, TCP_RECV_BUF, 0);
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
			if (!nb_flow_stopping(f) && n < 0) {
				nb_error_errno(&f->err, errno, "flow %u: recv", f->index);
				rc = -1;
			}
			break;
		}
	}
	free(buf);
	return rc;
}

/* Datagrams per send call: a GSO send's worth (up to 64), else a sendmmsg batch. */
static uint32_t udp_per_call(const struct nb_params *p)
{
	uint32_t segs = nb_udpgso_segs(p->size);
	return p->gso && segs >= 2 ? segs : UDP_BATCH;
}

/* A TCP send or receive step moves at most this many calls' worth, so that one busy flow does
 * not hold its thread's other flows back. */
#define TCP_CALLS_PER_STEP 4

/* ---- flows over threads: a flow as non-blocking steps (flowloop.h) ---- */

static bool tcp_open(struct nb_flow *f, struct nb_flow_wants *w)
{
	const struct nb_params *p = f->p;
	size_t len = f->sends ? p->size : TCP_RECV_BUF;
	if (f->sends)
		nb_gauge_set(f, NB_G_PACING, nb_kpace_apply(f->fd, true, p->rate));
	if (!(f->run = calloc(1, len)))
		return nb_error_set(&f->err, "out of memory");
	*w = (struct nb_flow_wants){ .events = f->sends ? EPOLLOUT : EPOLLIN };
	return true;
}

/* The bytes are the kernel's (TCP_INFO at each tick): a step only moves them. */
static int tcp_step(struct nb_flow *f, uint32_t events)
{
	bool tx = f->sends;
	if (tx ? nb_flow_quiet(f) : nb_flow_stopping(f))
		return 0;
	if (events == 0)
		return 1; /* a slice: only the checks above */
	size_t len = tx ? f->p->size : TCP_RECV_BUF;
	for (int k = 0; k < TCP_CALLS_PER_STEP; k++) {
		ssize_t n = tx ? send(f->fd, f->run, len, MSG_DONTWAIT | MSG_NOSIGNAL)
			       : recv(f->fd, f->run, len, MSG_DONTWAIT);
		if (n > 0 && (size_t)n == len)
			continue;
		if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)))
			return 1; /* the socket is full (or empty): the next event */
		if (n == 0 && !tx)
			return 0; /* the sender closed */
		if (tx ? nb_flow_quiet(f) : nb_flow_stopping(f))
			return 0;
		return nb_error_errno(&f->err, n < 0 ? errno : EPIPE, "flow %u: %s", f->index,
				      tx ? "send" : "recv"), -1;
	}
	return 1;
}

static int udp_send(struct nb_flow *f)
{
	const struct nb_params *p = f->p;
	uint32_t per_call = udp_per_call(p);
	struct nb_udpgso_tx t;
	if (!nb_udpgso_tx_init(&t, f, per_call, p->gso))
		return -1;
	/* Under fq the kernel keeps the rate; else the rate is in bit/s: rate / (8 · size)
	 * datagrams per second, paced in user space as that fraction. */
	enum nb_pacing how = nb_kpace_apply(f->fd, false, p->rate);
	nb_gauge_set(f, NB_G_PACING, how);
	uint64_t user_rate = how == NB_PACING_USER ? p->rate : 0;
	/* The burst is a time (`burst`, pace.h): the datagrams due within it leave together. */
	int rc = nb_udptx_start(&t.tx, user_rate, 8ull * p->size, p->burst_us * 1000ull) ? 1 : -1;
	while (rc > 0 && !nb_flow_quiet(f))
		rc = nb_udptx_step(&t.tx);
	nb_udpgso_tx_free(&t);
	return rc < 0 ? -1 : 0;
}

/* GRO only unpaced: a paced run keeps every datagram's own receive stamp for its jitter. */
static bool udp_gro(const struct nb_params *p)
{
	return p->proto == NB_PROTO_UDP && p->gso && p->rate == 0;
}

/* UDP receivers: the 4 MiB buffer, and GRO before the first datagram arrives. */
static bool stream_prepare_socket(int fd, const struct nb_params *p, bool sends, struct nb_error *err)
{
	if (!sends && udp_gro(p))
		nb_udpgso_gro_on(fd);
	return nb_sock_prepare_udp(fd, p, sends, err);
}

static int udp_recv(struct nb_flow *f)
{
	struct nb_udprx r;
	/* +1: a longer datagram shows as one byte too long (not ours), not as a fitting one. */
	if (!nb_udpgso_rx_init(&r, f, udp_gro(f->p), UDP_BATCH, f->p->size + 1))
		return -1;
	nb_seqrx_set_rate(&r.seq, (double)f->p->rate / (8.0 * f->p->size)); /* bit/s: datagrams/s */
	int rc = nb_udprx_run(&r);
	nb_udprx_free(&r);
	return rc;
}

/* The blocking bodies' choices for a UDP flow, for its steps (udpstep.h). */
static bool udp_open(struct nb_flow *f, struct nb_flow_wants *w)
{
	const struct nb_params *p = f->p;
	struct nb_udpstep_setup u = { .per_call = udp_per_call(p), .gso = p->gso,
				      .burst_ns = p->burst_us * 1000ull, .gro = udp_gro(p),
				      .nmsg = UDP_BATCH, .buflen = p->size + 1,
				      .rate = (double)p->rate / (8.0 * p->size) };
	if (f->sends) {
		u.pacing = nb_kpace_apply(f->fd, false, p->rate);
		u.num = u.pacing == NB_PACING_USER ? p->rate : 0;
		u.den = 8ull * p->size;
	}
	return nb_udpstep_open(f, &u, w);
}

static bool stream_open(struct nb_flow *f, struct nb_flow_wants *w)
{
	return f->p->proto == NB_PROTO_TCP ? tcp_open(f, w) : udp_open(f, w);
}

static int stream_step(struct nb_flow *f, uint32_t events, uint64_t now_ns, struct nb_flow_wants *w)
{
	if (f->p->proto == NB_PROTO_TCP)
		return tcp_step(f, events);
	return nb_udpstep_step(f, events, now_ns, w);
}

static void stream_close(struct nb_flow *f)
{
	if (f->p->proto == NB_PROTO_UDP) {
		nb_udpstep_close(f);
		return;
	}
	free(f->run);
	f->run = NULL;
}

/* Self probes run on a thread per flow (stream_self.h): the steps carry the plain stream only. */
static bool stream_covers(const struct nb_params *p)
{
	return !nb_stream_self_on(p);
}

static const struct nb_flow_steps stream_steps = {
	.covers = stream_covers,
	.open = stream_open, .step = stream_step, .close = stream_close,
};

static int stream_flow(struct nb_flow *f)
{
	if (nb_stream_self_on(f->p))
		return nb_stream_self_flow(f);
	if (f->p->proto == NB_PROTO_TCP)
		return f->sends ? tcp_send(f) : tcp_recv(f);
	return f->sends ? udp_send(f) : udp_recv(f);
}

/* UDP: the last epoch's datagrams still in flight when the senders stop. TCP counts the
 * receiver's own window and needs none for its rows; 20 ms let the senders' queues empty
 * before the final readings, so the whole flow's sent and received agree (the sender read
 * right after the stop missed what its queue sent after). */
#define TCP_DRAIN_NS 20000000ull

static uint64_t stream_drain_ns(const struct nb_params *p)
{
	return p->proto == NB_PROTO_UDP ? NB_UDP_DRAIN_NS : TCP_DRAIN_NS;
}

/* The shared directional columns, and the self probes' counts. */
static void stream_report(const struct nb_engine *e, const struct nb_params *p,
			  const struct nb_span *s, uint32_t lo, uint32_t hi, struct nb_metrics *m)
{
	nb_report_directional(e, p, s, lo, hi, m);
	nb_stream_self_report(p, s, lo, hi, m);
}

/* The config keys that mean something to stream beyond the common ones. */
static const char *const stream_keys[] = { "size", "rate", "direction", "gso", "burst", "sweep",
					   "threads", "bottleneck", NULL };

const struct nb_engine nb_engine_stream = {
	.name = "stream",
	.summary = "TCP/UDP bulk throughput: N streams, forward/reverse/bidir, paced UDP with loss and jitter",
	.traits = {
		.directional = true,                    /* forward / reverse / bidir */
		.loop = NB_LOOP_OPEN,                   /* as fast as it can, or paced to `rate` */
		.rate = NB_RATE_KIND_BITS,              /* per stream; a pps rate converts with size */
		.rate_unit = "bit/s",
		.protocols = 1u << NB_PROTO_TCP | 1u << NB_PROTO_UDP,
		.default_proto = NB_PROTO_TCP,
		.default_size = { [NB_PROTO_TCP] = 128u << 10, [NB_PROTO_UDP] = 1400 },
		.min_size = { [NB_PROTO_TCP] = 1, [NB_PROTO_UDP] = NB_DGRAM_HDR }, /* UDP: the header */
		.default_request = 0,                   /* one message size, no request/response */
		.default_response = 0,
		.protocols_note = NULL,                 /* runs over both */
		.keys = stream_keys,
		.gso_default = true,                    /* UDP: GSO where the kernel offers it */
		.headline = { "rx_bps", "bit/s", true }, /* the receiver's goodput */
	},
	.datapath = NB_DATAPATH_CONNECTED, /* one connected socket per flow */
	.validate = stream_validate,
	.client_flow = stream_flow,
	.server_flow = stream_flow,
	.prepare_socket = stream_prepare_socket, /* UDP receivers: 4 MiB buffer and GRO, early */
	.kernel_counters = stream_kernel_counters, /* TCP_INFO; UDP: the receiver's drop counter */
	.drain_ns = stream_drain_ns,           /* UDP: 500 ms for datagrams in flight */
	.report = stream_report,               /* directional, and the self probes' counts */
	.records_latency = nb_stream_self_on,  /* self probes: the client's round trips */
	.params = nb_stream_params,            /* self */
	.counters = nb_stream_counters,        /* self requests and answers (the client's) */
	.columns = nb_stream_columns,          /* self_sent, self_answered, self_waiting */
	.flow_init = stream_flow_init,         /* TCP: the receiver's arrived-bytes state */
	.flow_fini = stream_flow_fini,
	.steps = &stream_steps,                /* flows over threads (threads:) */
};

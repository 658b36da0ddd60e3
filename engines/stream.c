/* nbrun — the stream engine: TCP and UDP bulk throughput (iperf3 -c / -u / -P / -R / --bidir).
 *
 * Each flow runs on its own thread on each side; f->sends says whether this
 * side sends on it. TCP: the receiver's byte count is the goodput; the sender
 * reads TCP_INFO (retransmits, cwnd, srtt, segments) every 100 ms. UDP: every
 * datagram carries the udpseq header; the sender is paced by the token bucket
 * in pace.c when a rate is set, batching with sendmmsg; the receiver uses
 * recvmmsg and reads the socket's drop counter so its own socket-buffer drops
 * are counted apart from network loss.
 */
#include <errno.h>
#include <netinet/in.h>
#include <linux/tcp.h> /* the kernel's tcp_info: glibc's lacks segs_in/out */
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "engine.h"
#include "pace.h"
#include "sock.h"
#include "udpseq.h"

#define UDP_BATCH 16
#define TCP_RECV_BUF (128 * 1024)
#define INFO_EVERY_NS 100000000ull
/* Back-to-back packets the pacer may release at once: 50 us worth at the target rate, at least
 * 2 (a late wake-up's debt beyond that is paid at twice the rate, see pace.h). */
#define PACER_BURST_NS 50000ull
#define PACER_BURST_MIN 2

static bool stream_validate(const struct nb_params *p, struct nb_error *err)
{
	if (p->size == 0)
		return nb_error_set(err, "size must be at least 1 byte");
	if (p->proto == NB_PROTO_UDP && (p->size < NB_DGRAM_HDR || p->size > NB_UDP_MAX_PAYLOAD))
		return nb_error_set(err, "UDP size must be %u..%u bytes (the header takes %u)",
				    NB_DGRAM_HDR, NB_UDP_MAX_PAYLOAD, NB_DGRAM_HDR);
	if (p->streams == 0 || p->streams > NB_MAX_FLOWS / 2)
		return nb_error_set(err, "streams must be 1..%d", NB_MAX_FLOWS / 2);
	return true;
}

static void store_counter(struct nb_flow *f, enum nb_counter c, uint64_t v)
{
	atomic_store_explicit(&f->c[c], v, memory_order_relaxed);
}

static void read_tcp_info(struct nb_flow *f)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(f->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return;
	if (f->sends) {
		store_counter(f, NB_C_RETRANS, ti.tcpi_total_retrans);
		store_counter(f, NB_C_TX_PACKETS, ti.tcpi_segs_out);
		nb_gauge_set(f, NB_G_CWND, ti.tcpi_snd_cwnd);
		nb_gauge_set(f, NB_G_SRTT_US, ti.tcpi_rtt);
	} else {
		store_counter(f, NB_C_RX_PACKETS, ti.tcpi_segs_in);
	}
}

static int tcp_send(struct nb_flow *f)
{
	const struct nb_params *p = f->p;
	if (p->rate) {
		/* TCP is paced by the kernel (fq or TCP's internal pacing), per socket. */
		uint64_t bytes_per_s = p->rate / 8;
		setsockopt(f->fd, SOL_SOCKET, SO_MAX_PACING_RATE, &bytes_per_s, sizeof(bytes_per_s));
	}
	char *buf = calloc(1, p->size);
	if (!buf)
		return nb_error_set(&f->err, "out of memory"), -1;
	uint64_t next_info = 0;
	int rc = 0;
	while (!nb_flow_quiet(f)) {
		if (!nb_sock_send_all(f, buf, p->size)) {
			rc = f->err.msg[0] ? -1 : 0;
			break;
		}
		nb_count(f, NB_C_TX_BYTES, p->size);
		uint64_t now = nb_now_ns();
		if (now >= next_info) {
			read_tcp_info(f);
			next_info = now + INFO_EVERY_NS;
		}
	}
	read_tcp_info(f);
	free(buf);
	return rc;
}

static int tcp_recv(struct nb_flow *f)
{
	char *buf = malloc(TCP_RECV_BUF);
	if (!buf)
		return nb_error_set(&f->err, "out of memory"), -1;
	uint64_t next_info = 0;
	int rc = 0;
	while (!nb_flow_stopping(f)) {
		ssize_t n = recv(f->fd, buf, TCP_RECV_BUF, 0);
		if (n > 0) {
			nb_count(f, NB_C_RX_BYTES, (uint64_t)n);
		} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			if (!nb_flow_stopping(f) && n < 0) {
				nb_error_errno(&f->err, errno, "flow %u: recv", f->index);
				rc = -1;
			}
			break;
		}
		uint64_t now = nb_now_ns();
		if (now >= next_info) {
			read_tcp_info(f);
			next_info = now + INFO_EVERY_NS;
		}
	}
	read_tcp_info(f);
	free(buf);
	return rc;
}

/* Batch state of a UDP sender: one header per message, the payload shared. */
struct udp_batch {
	struct mmsghdr msg[UDP_BATCH];
	struct iovec iov[UDP_BATCH][2];
	unsigned char hdr[UDP_BATCH][NB_DGRAM_HDR];
};

static void batch_init(struct udp_batch *b, char *payload, size_t payload_len)
{
	memset(b, 0, sizeof(*b));
	for (int i = 0; i < UDP_BATCH; i++) {
		b->iov[i][0] = (struct iovec){ .iov_base = b->hdr[i], .iov_len = NB_DGRAM_HDR };
		b->iov[i][1] = (struct iovec){ .iov_base = payload, .iov_len = payload_len };
		b->msg[i].msg_hdr.msg_iov = b->iov[i];
		b->msg[i].msg_hdr.msg_iovlen = 2;
	}
}

/* Send n datagrams starting at *seq; returns how many the kernel took, or -1 on a hard error. */
static int udp_send_batch(struct nb_flow *f, struct udp_batch *b, uint32_t n, uint64_t *seq)
{
	enum nb_phase ph = (enum nb_phase)atomic_load_explicit(f->phase, memory_order_relaxed);
	uint64_t now = nb_now_ns();
	for (uint32_t i = 0; i < n; i++)
		nb_dgram_put(b->hdr[i], *seq + i, now, ph);
	int sent = sendmmsg(f->fd, b->msg, n, MSG_DONTWAIT);
	if (sent < 0) {
		int e = errno;
		if (e == ENOBUFS || e == EAGAIN || e == EINTR) {
			if (e != EINTR)
				nb_count(f, NB_C_SND_ERRS, 1); /* local back-pressure: not sent, not lost */
			return 0;
		}
		nb_sock_drain_errqueue(f->fd);
		errno = e;
		return -1;
	}
	/* sendmmsg stops at the first datagram the kernel refuses and, having sent some,
	 * returns their number and forgets the error: count that refusal here. */
	if ((uint32_t)sent < n)
		nb_count(f, NB_C_SND_ERRS, 1);
	*seq += (uint64_t)sent;
	nb_count(f, NB_C_TX_PACKETS, (uint64_t)sent);
	nb_count(f, NB_C_TX_BYTES, (uint64_t)sent * f->p->size);
	if (ph == NB_PHASE_MEASURE)
		nb_count(f, NB_C_MEAS_TX_PACKETS, (uint64_t)sent);
	return sent;
}

static uint32_t pacer_burst(const struct nb_params *p)
{
	uint64_t pps = p->rate / 8 / p->size;
	uint64_t burst = pps * PACER_BURST_NS / 1000000000ull;
	return burst < PACER_BURST_MIN ? PACER_BURST_MIN : burst > UDP_BATCH ? UDP_BATCH : (uint32_t)burst;
}

static int udp_send(struct nb_flow *f)
{
	const struct nb_params *p = f->p;
	char *payload = calloc(1, p->size - NB_DGRAM_HDR + 1);
	struct udp_batch *b = malloc(sizeof(*b));
	if (!payload || !b) {
		free(payload);
		free(b);
		return nb_error_set(&f->err, "out of memory"), -1;
	}
	batch_init(b, payload, p->size - NB_DGRAM_HDR);
	prctl(PR_SET_TIMERSLACK, 1UL); /* wake-ups on time: late wake-ups become bursts */
	if (!nb_sock_udp_send_errors(f->fd, &f->err)) {
		free(payload);
		free(b);
		return -1;
	}
	struct nb_pacer pacer;
	uint64_t pps = p->rate ? (p->rate + 8ull * p->size - 1) / (8ull * p->size) : 0;
	nb_pacer_init(&pacer, pps, pacer_burst(p), nb_now_ns());
	uint64_t seq = 0;
	int rc = 0;
	while (!nb_flow_quiet(f)) {
		uint32_t n = nb_pacer_wait(&pacer, UDP_BATCH, f->quiesce);
		if (n == 0)
			break;
		int sent = udp_send_batch(f, b, n, &seq);
		if (sent < 0) {
			/* ECONNREFUSED: the receiver's port is gone; expected only while winding down. */
			if (!nb_flow_quiet(f)) {
				nb_error_errno(&f->err, errno, "flow %u: sendmmsg", f->index);
				rc = -1;
			}
			break;
		}
		nb_pacer_sent(&pacer, (uint32_t)sent);
		nb_gauge_set(f, NB_G_MAX_BURST, pacer.max_run);
		if (sent == 0 && nb_sock_wait(f->fd, true, f) <= 0)
			break;
	}
	free(payload);
	free(b);
	return rc;
}

struct udp_rx {
	struct mmsghdr msg[UDP_BATCH];
	struct iovec iov[UDP_BATCH];
	unsigned char *buf;
};

static void rx_prepare(struct udp_rx *r, size_t len)
{
	for (int i = 0; i < UDP_BATCH; i++) {
		r->iov[i] = (struct iovec){ .iov_base = r->buf + (size_t)i * len, .iov_len = len };
		r->msg[i].msg_hdr = (struct msghdr){ .msg_iov = &r->iov[i], .msg_iovlen = 1 };
	}
}

/* Datagrams our own full socket buffer dropped: the socket's cumulative count (SO_MEMINFO),
 * read every few batches and at the end rather than as a control message per datagram. */
static void rx_drops(struct nb_flow *f)
{
	uint32_t drops;
	if (nb_sock_rcv_drops(f->fd, &drops))
		store_counter(f, NB_C_RCVBUF_DROPS, drops);
}

static int udp_recv(struct nb_flow *f)
{
	size_t len = f->p->size + 1; /* +1: a longer datagram shows as truncated, not as ours */
	struct udp_rx *r = calloc(1, sizeof(*r));
	struct nb_seqrx *seq = malloc(sizeof(*seq));
	if (r)
		r->buf = malloc(len * UDP_BATCH);
	if (!r || !r->buf || !seq) {
		if (r)
			free(r->buf);
		free(r);
		free(seq);
		return nb_error_set(&f->err, "out of memory"), -1;
	}
	nb_sock_set_rcvtimeo(f->fd, 100);
	nb_seqrx_init(seq);
	for (uint32_t calls = 1; !nb_flow_stopping(f); calls++) {
		rx_prepare(r, len);
		int n = recvmmsg(f->fd, r->msg, UDP_BATCH, MSG_WAITFORONE, NULL);
		if (n <= 0 || calls % 64 == 0)
			rx_drops(f);
		if (n <= 0)
			continue; /* timeout (re-check stop), EINTR, or ECONNREFUSED from an ICMP */
		uint64_t now = nb_now_ns();
		for (int i = 0; i < n; i++)
			nb_seqrx_account(seq, f, r->iov[i].iov_base, r->msg[i].msg_len, now);
	}
	rx_drops(f);
	free(r->buf);
	free(r);
	free(seq);
	return 0;
}

static int stream_flow(struct nb_flow *f)
{
	if (f->p->proto == NB_PROTO_TCP)
		return f->sends ? tcp_send(f) : tcp_recv(f);
	return f->sends ? udp_send(f) : udp_recv(f);
}

const struct nb_engine nb_engine_stream = {
	.name = "stream",
	.summary = "TCP/UDP bulk throughput: N streams, forward/reverse/bidir, paced UDP with loss and jitter",
	.validate = stream_validate,
	.per_connection = false,
	.records_latency = false,
	.client_flow = stream_flow,
	.server_flow = stream_flow,
	.prepare_socket = nb_sock_prepare_udp, /* UDP receivers: a 4 MiB buffer before data flows */
};

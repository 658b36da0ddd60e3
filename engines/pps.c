/* nbrun — the pps engine: small-packet UDP packets per second
 * (what `netperf -t UDP_STREAM -- -m 64` and `iperf3 -u -l 64 -b 0` are used for).
 *
 * Each flow is one connected UDP socket on each side (distinct source ports, so
 * RSS spreads the flows over queues) and one thread; f->sends says whether this
 * side sends on it (forward, reverse, bidir as in stream). Every datagram
 * carries the udpseq header, so the receiver counts loss, duplicates and
 * reordering exactly as the stream engine does; the minimum size is the header.
 *
 * Sender: sendmmsg of up to `batch` datagrams per call, paced in batches by the
 * token bucket when params.rate (packets/s per flow) is set. ENOBUFS and EAGAIN
 * are counted as NB_C_SND_ERRS and the datagrams the kernel refused keep their
 * sequence numbers for the next call, so back-pressure never shows as loss.
 * Receiver: recvmmsg, sequence accounting, and the socket's drop counter (SO_MEMINFO) for datagrams our
 * own full socket buffer dropped (NB_C_RCVBUF_DROPS, a receiver-CPU limit).
 *
 * GSO (params.gso): the sender hands the kernel up to 64 datagrams in one
 * buffer with UDP_SEGMENT and the receiver asks for UDP_GRO, splitting what it
 * gets at the gso_size the kernel reports. On a real NIC this is the fast path
 * of a modern stack. On loopback and veth the coalesced buffer is never
 * segmented at all, so the packet rate is an artefact (tens of Mpps): such rows
 * are not representative, and the runner flags them "gro-local" (see
 * docs/engines.md, section pps).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>

#include "engine.h"
#include "engines.h"
#include "pace.h"
#include "sock.h"
#include "udpseq.h"

#define PPS_BATCH_DEFAULT 64u   /* datagrams per sendmmsg/recvmmsg: measured, see docs/engines.md */
#define PPS_BATCH_MAX 1024u     /* UIO_MAXIOV: the kernel's limit for one sendmmsg */
#define PPS_DROPS_EVERY 64u     /* read the socket's drop counter every this many recvmmsg calls */
#define PPS_GSO_SEGS_MAX 64u    /* UDP_MAX_SEGMENTS of older kernels */
#define PPS_GRO_BATCH 8u        /* GRO buffers per recvmmsg: each holds up to 64 KiB */
#define PPS_GRO_BUF 65536u
#define PPS_SLICE_MS 100u       /* a blocked receive re-checks the stop flag this often */
/* Paced: after a late wake-up the pacer may send at most 100 us worth of datagrams in one
 * batch (at least 4, at most a batch), so a VM's timer slop loses no credit and no queue on
 * the path sees a burst; the largest burst sent is reported (NB_G_MAX_BURST). */
#define PPS_BURST_NS 100000ull
#define PPS_BURST_MIN 4u

/* Datagrams per send call: batch messages, or with GSO segments of one message. */
static uint32_t pps_per_call(const struct nb_params *p)
{
	if (p->gso) {
		if (p->batch)
			return p->batch;
		uint32_t fit = NB_UDP_MAX_PAYLOAD / (p->size ? p->size : 1);
		return PPS_GSO_SEGS_MAX < fit ? PPS_GSO_SEGS_MAX : fit;
	}
	return p->batch ? p->batch : PPS_BATCH_DEFAULT;
}

static bool pps_validate(const struct nb_params *p, struct nb_error *err)
{
	if (p->proto != NB_PROTO_UDP)
		return nb_error_set(err, "pps runs over UDP only");
	if (p->size < NB_DGRAM_HDR || p->size > NB_UDP_MAX_PAYLOAD)
		return nb_error_set(err, "pps size must be %u..%u bytes (the header takes %u)",
				    NB_DGRAM_HDR, NB_UDP_MAX_PAYLOAD, NB_DGRAM_HDR);
	if (p->streams == 0 || p->streams > NB_MAX_FLOWS / 2)
		return nb_error_set(err, "streams must be 1..%d", NB_MAX_FLOWS / 2);
	if (!p->gso && p->batch > PPS_BATCH_MAX)
		return nb_error_set(err, "batch must be 1..%u datagrams", PPS_BATCH_MAX);
	if (p->gso && p->batch > PPS_GSO_SEGS_MAX)
		return nb_error_set(err, "with gso, batch (segments per send) must be 1..%u",
				    PPS_GSO_SEGS_MAX);
	if (p->gso && (uint64_t)p->size * pps_per_call(p) > NB_UDP_MAX_PAYLOAD)
		return nb_error_set(err, "gso: size x segments = %u x %u exceeds %u bytes", p->size,
				    pps_per_call(p), NB_UDP_MAX_PAYLOAD);
	return true;
}

/* ---- sender ---- */

struct pps_tx {
	struct nb_flow *f;
	uint32_t per_call;      /* datagrams per call */
	uint32_t size;
	uint64_t seq;           /* sequence number of the next datagram */
	unsigned char *buf;     /* per_call datagrams back to back */
	struct mmsghdr *msg;    /* without GSO: one message per datagram */
	struct iovec *iov;
	struct nb_pacer pacer;
};

static uint32_t pacer_burst(const struct nb_params *p, uint32_t per_call)
{
	uint64_t burst = p->rate * PPS_BURST_NS / 1000000000ull;
	if (burst < PPS_BURST_MIN)
		burst = PPS_BURST_MIN;
	return burst < per_call ? (uint32_t)burst : per_call;
}

static void tx_free(struct pps_tx *t)
{
	free(t->buf);
	free(t->msg);
	free(t->iov);
}

static bool tx_init(struct pps_tx *t, struct nb_flow *f)
{
	*t = (struct pps_tx){ .f = f, .per_call = pps_per_call(f->p), .size = f->p->size };
	t->buf = calloc(t->per_call, t->size);
	t->msg = calloc(t->per_call, sizeof(*t->msg));
	t->iov = calloc(t->per_call, sizeof(*t->iov));
	if (!t->buf || !t->msg || !t->iov) {
		tx_free(t);
		return nb_error_set(&f->err, "flow %u: out of memory", f->index);
	}
	for (uint32_t i = 0; i < t->per_call; i++) {
		t->iov[i] = (struct iovec){ t->buf + (size_t)i * t->size, t->size };
		t->msg[i].msg_hdr.msg_iov = &t->iov[i];
		t->msg[i].msg_hdr.msg_iovlen = 1;
	}
	if (!nb_sock_udp_send_errors(f->fd, &f->err)) {
		tx_free(t);
		return false;
	}
	nb_pacer_init(&t->pacer, f->p->rate, pacer_burst(f->p, t->per_call), nb_now_ns());
	return true;
}

/* Stamp n datagrams with consecutive sequence numbers, one send time and the phase. */
static enum nb_phase tx_stamp(struct pps_tx *t, uint32_t n)
{
	enum nb_phase ph = (enum nb_phase)atomic_load_explicit(t->f->phase, memory_order_relaxed);
	uint64_t now = nb_now_ns();
	for (uint32_t i = 0; i < n; i++)
		nb_dgram_put(t->buf + (size_t)i * t->size, t->seq + i, now, ph);
	return ph;
}

/* One GSO send of n segments: the kernel cuts the buffer into n datagrams of size bytes. */
static int tx_send_gso(struct pps_tx *t, uint32_t n)
{
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} ctl;
	memset(&ctl, 0, sizeof(ctl));
	struct iovec iov = { t->buf, (size_t)n * t->size };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_UDP;
	c->cmsg_type = UDP_SEGMENT;
	c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
	uint16_t seg = (uint16_t)t->size;
	memcpy(CMSG_DATA(c), &seg, sizeof(seg));
	ssize_t r = sendmsg(t->f->fd, &m, MSG_DONTWAIT);
	return r < 0 ? -1 : (int)n;
}

/* Send up to n datagrams; returns how many the kernel took, or -1 on a hard error (errno). */
static int tx_send(struct pps_tx *t, uint32_t n)
{
	struct nb_flow *f = t->f;
	enum nb_phase ph = tx_stamp(t, n);
	int sent = f->p->gso ? tx_send_gso(t, n) : sendmmsg(f->fd, t->msg, n, MSG_DONTWAIT);
	if (sent < 0) {
		int e = errno;
		if (e == ENOBUFS || e == EAGAIN || e == EINTR) {
			if (e != EINTR)
				nb_count(f, NB_C_SND_ERRS, 1); /* refused locally: not sent, not lost */
			return 0;
		}
		nb_sock_drain_errqueue(f->fd);
		errno = e;
		return -1;
	}
	/* sendmmsg stops at the first datagram the kernel refuses and, having sent
	 * some, returns their number and forgets the error: that one is counted here. */
	if ((uint32_t)sent < n)
		nb_count(f, NB_C_SND_ERRS, 1);
	t->seq += (uint64_t)sent;
	nb_count(f, NB_C_TX_PACKETS, (uint64_t)sent);
	nb_count(f, NB_C_TX_BYTES, (uint64_t)sent * t->size);
	if (ph == NB_PHASE_MEASURE)
		nb_count(f, NB_C_MEAS_TX_PACKETS, (uint64_t)sent);
	return sent;
}

/* An ECONNREFUSED means the peer's port was closed when an earlier datagram arrived:
 * expected while the run winds down, an error before. */
static int tx_failed(struct pps_tx *t)
{
	struct nb_flow *f = t->f;
	if (nb_flow_quiet(f))
		return 0;
	return nb_error_errno(&f->err, errno, "flow %u: send", f->index), -1;
}

/* Paced sending in batches. The pacer alone hands out a packet as soon as one is due and
 * spins for the last 50 us before a send time, so at 20 kpps (50 us apart) a flow would spin
 * a whole CPU. Instead the sender sleeps until a few packets are due, (burst - 1) / 2 of
 * them, and sends them in one sendmmsg: a burst the pacer allows anyway, with room left in
 * the bucket for a wake-up up to half a bucket late before the pacer must catch up. */
static void tx_sleep_for_batch(struct pps_tx *t)
{
	uint64_t half = (t->pacer.burst - 1) / 2;
	if (t->pacer.interval_ns == 0 || half == 0)
		return;
	uint64_t target = t->pacer.next_ns + half * t->pacer.interval_ns;
	for (uint64_t now = nb_now_ns(); now < target && !nb_flow_quiet(t->f); now = nb_now_ns()) {
		uint64_t slice = target - now < 100000000ull ? target - now : 100000000ull;
		struct timespec ts = { (time_t)((now + slice) / 1000000000ull),
				       (long)((now + slice) % 1000000000ull) };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/* One batch: wait for it, send it. 1 = go on, 0 = the flow is done, -1 = failed. */
static int tx_step(struct pps_tx *t)
{
	struct nb_flow *f = t->f;
	tx_sleep_for_batch(t);
	uint32_t n = nb_pacer_wait(&t->pacer, t->per_call, f->quiesce);
	if (n == 0)
		return 0;
	int sent = tx_send(t, n);
	if (sent < 0)
		return tx_failed(t);
	nb_pacer_sent(&t->pacer, (uint32_t)sent);
	nb_gauge_set(f, NB_G_MAX_BURST, t->pacer.max_run);
	if (sent == 0 && nb_sock_wait(f->fd, true, f) < 0) /* refused: wait for room */
		return tx_failed(t);
	return 1;
}

static int pps_send(struct nb_flow *f)
{
	struct pps_tx t;
	if (!tx_init(&t, f))
		return -1;
	prctl(PR_SET_TIMERSLACK, 1UL); /* wake-ups on time: late ones cost credit */
	int rc = 1;
	while (rc > 0 && !nb_flow_quiet(f))
		rc = tx_step(&t);
	tx_free(&t);
	return rc < 0 ? -1 : 0;
}

/* ---- receiver ---- */

struct pps_rx {
	struct nb_flow *f;
	uint32_t nmsg;          /* messages per recvmmsg */
	size_t buflen;          /* bytes per message buffer */
	unsigned char *buf;
	struct mmsghdr *msg;
	struct iovec *iov;
	char (*ctl)[CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(int))];
	uint32_t drops;         /* last drop count read from the socket */
	uint32_t calls;         /* recvmmsg calls so far */
	struct nb_seqrx seq;
};

static void rx_free(struct pps_rx *r)
{
	free(r->buf);
	free(r->msg);
	free(r->iov);
	free(r->ctl);
}


static bool rx_sockopts(struct pps_rx *r)
{
	struct nb_flow *f = r->f;
	int one = 1;
	if (f->p->gso && setsockopt(f->fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) < 0)
		return nb_error_errno(&f->err, errno, "flow %u: UDP_GRO", f->index);
	nb_sock_udp_rcvbuf(f->fd, f->p);
	if (!nb_sock_set_rcvtimeo(f->fd, PPS_SLICE_MS))
		return nb_error_errno(&f->err, errno, "flow %u: SO_RCVTIMEO", f->index);
	return true;
}

static bool rx_init(struct pps_rx *r, struct nb_flow *f)
{
	const struct nb_params *p = f->p;
	*r = (struct pps_rx){ .f = f };
	r->nmsg = p->gso ? PPS_GRO_BATCH : (p->batch ? p->batch : PPS_BATCH_DEFAULT);
	r->buflen = p->gso ? PPS_GRO_BUF : p->size;
	r->buf = malloc(r->nmsg * r->buflen);
	r->msg = calloc(r->nmsg, sizeof(*r->msg));
	r->iov = calloc(r->nmsg, sizeof(*r->iov));
	r->ctl = calloc(r->nmsg, sizeof(*r->ctl));
	if (!r->buf || !r->msg || !r->iov || !r->ctl) {
		rx_free(r);
		return nb_error_set(&f->err, "flow %u: out of memory", f->index);
	}
	for (uint32_t i = 0; i < r->nmsg; i++) {
		r->iov[i] = (struct iovec){ r->buf + i * r->buflen, r->buflen };
		r->msg[i].msg_hdr.msg_iov = &r->iov[i];
		r->msg[i].msg_hdr.msg_iovlen = 1;
		r->msg[i].msg_hdr.msg_control = r->ctl[i];
	}
	nb_seqrx_init(&r->seq);
	if (!rx_sockopts(r)) {
		rx_free(r);
		return false;
	}
	return true;
}

/* The socket's drop count is cumulative (32 bits, wrapping): count the difference. */
static void rx_set_drops(struct pps_rx *r, uint32_t now)
{
	nb_count(r->f, NB_C_RCVBUF_DROPS, (uint32_t)(now - r->drops));
	r->drops = now;
}

/* One message's GRO segment size from its control data (0 = not coalesced). */
static int rx_cmsgs(struct msghdr *h)
{
	int gso_size = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c))
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO)
			memcpy(&gso_size, CMSG_DATA(c), sizeof(gso_size));
	return gso_size;
}

/* Account one received buffer: a datagram, or with GRO several of gso_size bytes. */
static void rx_account(struct pps_rx *r, uint32_t i, uint64_t now)
{
	struct msghdr *h = &r->msg[i].msg_hdr;
	size_t len = r->msg[i].msg_len;
	size_t seg = (size_t)rx_cmsgs(h);
	const unsigned char *b = r->iov[i].iov_base;
	if (seg == 0 || seg >= len) {
		nb_seqrx_account(&r->seq, r->f, b, len, now);
		return;
	}
	for (size_t off = 0; off < len; off += seg)
		nb_seqrx_account(&r->seq, r->f, b + off, len - off < seg ? len - off : seg, now);
}

/* The socket's drop counter, read every PPS_DROPS_EVERY calls and at the end. */
static void rx_drops(struct pps_rx *r)
{
	uint32_t now;
	if (nb_sock_rcv_drops(r->f->fd, &now))
		rx_set_drops(r, now);
}

/* Blocking recvmmsg with MSG_WAITFORONE: sleeps until one datagram is there, then takes
 * whatever else is queued, up to nmsg, in the same call. SO_RCVTIMEO bounds the sleep
 * so the stop flag is seen within PPS_SLICE_MS. */
static int pps_recv(struct nb_flow *f)
{
	struct pps_rx r;
	if (!rx_init(&r, f))
		return -1;
	int rc = 0;
	while (!nb_flow_stopping(f)) {
		for (uint32_t i = 0; i < r.nmsg; i++)
			r.msg[i].msg_hdr.msg_controllen = sizeof(r.ctl[i]);
		int n = recvmmsg(f->fd, r.msg, r.nmsg, MSG_WAITFORONE, NULL);
		if (n < 0 && errno != EAGAIN && errno != EINTR && errno != ECONNREFUSED) {
			if (!nb_flow_stopping(f)) {
				nb_error_errno(&f->err, errno, "flow %u: recvmmsg", f->index);
				rc = -1;
			}
			break;
		}
		uint64_t now = nb_now_ns();
		for (int i = 0; i < n; i++)
			rx_account(&r, (uint32_t)i, now);
		if (++r.calls % PPS_DROPS_EVERY == 0 || n <= 0)
			rx_drops(&r);
	}
	rx_drops(&r);
	rx_free(&r);
	return rc;
}

static int pps_flow(struct nb_flow *f)
{
	return f->sends ? pps_send(f) : pps_recv(f);
}

const struct nb_engine nb_engine_pps = {
	.name = "pps",                  /* engine: pps */
	.summary = "small-packet UDP packets/s: sendmmsg/recvmmsg batches, N flows, "
		   "rx and tx counted apart, optional GSO",
	.validate = pps_validate,       /* UDP only; size and GSO limits */
	.per_connection = false,        /* one connected UDP socket per flow */
	.records_latency = false,       /* counts packets, no RTTs */
	.client_flow = pps_flow,        /* sends or receives as f->sends says */
	.server_flow = pps_flow,        /* the same: direction decides, not the side */
	.prepare_socket = nb_sock_prepare_udp, /* receivers: a 4 MiB buffer before data flows */
};

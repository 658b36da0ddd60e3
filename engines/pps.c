/* nbrun — the pps engine: small-packet UDP packets per second
 * (what `netperf -t UDP_STREAM -- -m 64` and `iperf3 -u -l 64 -b 0` are used for).
 *
 * Each flow is one connected UDP socket on each side (distinct source ports, so
 * RSS spreads the flows over queues) and one thread; f->sends says whether this
 * side sends on it (forward, reverse, bidir as in stream). Every datagram
 * carries the udpseq header, so the receiver counts loss, duplicates and
 * reordering exactly as the stream engine does; the minimum size is the header.
 *
 * Sender and receiver are the batched UDP path of udpflow.c: sendmmsg of up to
 * `batch` datagrams per call, paced in batches by the token bucket when
 * params.rate (packets/s per flow) is set, refusals counted as NB_C_SND_ERRS
 * and never as loss; recvmmsg, sequence accounting, and the socket's drop
 * counter for datagrams our own full receive buffer dropped (NB_C_RCVBUF_DROPS).
 * What is pps's own: the batch size and GSO/GRO (the pacer wakes once per batch
 * of due datagrams, see pace.h).
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
#include <sys/socket.h>

#include "engine.h"
#include "engines.h"
#include "kpace.h"
#include "pace.h"
#include "sock.h"
#include "udpflow.h"

#define PPS_BATCH_DEFAULT 64u   /* datagrams per sendmmsg/recvmmsg: measured, see docs/engines.md */
#define PPS_BATCH_MAX 1024u     /* UIO_MAXIOV: the kernel's limit for one sendmmsg */
#define PPS_GSO_SEGS_MAX 64u    /* UDP_MAX_SEGMENTS of older kernels */
#define PPS_GRO_BATCH 8u        /* GRO buffers per recvmmsg: each holds up to 64 KiB */
#define PPS_GRO_BUF 65536u
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

/* The datagrams lie back to back in one buffer (tx.hdr, stride size): sendmmsg sends one
 * message per datagram, GSO hands the kernel the whole buffer at once. */
struct pps_tx {
	struct nb_udptx tx;
	struct mmsghdr *msg;
	struct iovec *iov;
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
	free(t->tx.hdr);
	free(t->msg);
	free(t->iov);
}

/* One GSO send of n segments: the kernel cuts the buffer into n datagrams of size bytes. */
static int tx_send_gso(struct nb_udptx *t, uint32_t n)
{
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} ctl;
	memset(&ctl, 0, sizeof(ctl));
	struct iovec iov = { t->hdr, (size_t)n * t->stride };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_UDP;
	c->cmsg_type = UDP_SEGMENT;
	c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
	uint16_t seg = (uint16_t)t->stride;
	memcpy(CMSG_DATA(c), &seg, sizeof(seg));
	ssize_t r = sendmsg(t->f->fd, &m, MSG_DONTWAIT);
	return r < 0 ? -1 : (int)n;
}

static bool tx_init(struct pps_tx *t, struct nb_flow *f)
{
	const struct nb_params *p = f->p;
	uint32_t per_call = pps_per_call(p);
	*t = (struct pps_tx){ .tx = { .f = f, .stride = p->size, .per_call = per_call,
				      .send = p->gso ? tx_send_gso : NULL } };
	t->tx.hdr = calloc(per_call, p->size);
	t->msg = calloc(per_call, sizeof(*t->msg));
	t->iov = calloc(per_call, sizeof(*t->iov));
	if (!t->tx.hdr || !t->msg || !t->iov) {
		tx_free(t);
		return nb_error_set(&f->err, "flow %u: out of memory", f->index);
	}
	for (uint32_t i = 0; i < per_call; i++) {
		t->iov[i] = (struct iovec){ t->tx.hdr + (size_t)i * p->size, p->size };
		t->msg[i].msg_hdr.msg_iov = &t->iov[i];
		t->msg[i].msg_hdr.msg_iovlen = 1;
	}
	t->tx.msg = t->msg;
	nb_gauge_set(f, NB_G_PACING, p->rate ? NB_PACING_USER : NB_PACING_NONE);
	if (!nb_udptx_start(&t->tx, p->rate, 1, pacer_burst(p, per_call))) {
		tx_free(t);
		return false;
	}
	return true;
}

static int pps_send(struct nb_flow *f)
{
	struct pps_tx t;
	if (!tx_init(&t, f))
		return -1;
	int rc = 1;
	while (rc > 0 && !nb_flow_quiet(f)) {
		rc = nb_udptx_step(&t.tx);
	}
	tx_free(&t);
	return rc < 0 ? -1 : 0;
}

/* ---- receiver ---- */

/* One message's GRO segment size from its control data (0 = not coalesced). */
static int rx_cmsgs(struct msghdr *h)
{
	int gso_size = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c))
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO)
			memcpy(&gso_size, CMSG_DATA(c), sizeof(gso_size));
	return gso_size;
}

/* With GRO, one received buffer holds several datagrams of gso_size bytes (the last may be
 * shorter): account each. */
static void rx_account_gro(struct nb_udprx *r, uint32_t i, uint64_t now)
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

/* GRO for the GSO case, and the receive buffer (again: the harness set it in prepare_socket). */
static bool rx_sockopts(struct nb_flow *f)
{
	int one = 1;
	if (f->p->gso && setsockopt(f->fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) < 0)
		return nb_error_errno(&f->err, errno, "flow %u: UDP_GRO", f->index);
	nb_sock_udp_rcvbuf(f->fd, f->p);
	return true;
}

static int pps_recv(struct nb_flow *f)
{
	const struct nb_params *p = f->p;
	struct nb_udprx r;
	if (!rx_sockopts(f))
		return -1;
	uint32_t nmsg = p->gso ? PPS_GRO_BATCH : (p->batch ? p->batch : PPS_BATCH_DEFAULT);
	size_t ctllen = p->gso ? CMSG_SPACE(sizeof(int)) : 0;
	if (!nb_udprx_init(&r, f, nmsg, p->gso ? PPS_GRO_BUF : p->size, ctllen))
		return -1;
	if (p->gso)
		r.account = rx_account_gro;
	int rc = nb_udprx_run(&r);
	nb_udprx_free(&r);
	return rc;
}

static int pps_flow(struct nb_flow *f)
{
	return f->sends ? pps_send(f) : pps_recv(f);
}

/* The last epoch's datagrams still in flight when the senders stop. */
static uint64_t pps_drain_ns(const struct nb_params *p)
{
	(void)p;
	return NB_UDP_DRAIN_NS;
}

/* The config keys that mean something to pps beyond the common ones. */
static const char *const pps_keys[] = { "size", "rate", "direction", "gso", "batch", "sweep", NULL };

const struct nb_engine nb_engine_pps = {
	.name = "pps",                  /* engine: pps */
	.summary = "small-packet UDP packets/s: sendmmsg/recvmmsg batches, N flows, "
		   "rx and tx counted apart, optional GSO",
	.traits = {
		.directional = true,                    /* forward / reverse / bidir */
		.loop = NB_LOOP_OPEN,                   /* as fast as it can, or paced to `rate` */
		.rate = NB_RATE_KIND_PACKETS,           /* datagrams/s per flow */
		.rate_unit = "pkt/s",
		.protocols = 1u << NB_PROTO_UDP,
		.default_proto = NB_PROTO_UDP,
		.default_size = { [NB_PROTO_UDP] = 64 }, /* never runs over TCP: 0 there */
		.min_size = { [NB_PROTO_UDP] = NB_DGRAM_HDR }, /* the sequence header */
		.default_request = 0,                   /* one datagram size, no request/response */
		.default_response = 0,
		.protocols_note = "sends UDP only",
		.keys = pps_keys,
		.headline = { "rx_pps", "pkt/s", true }, /* datagrams received per second */
	},
	.validate = pps_validate,       /* UDP only; size and GSO limits */
	.per_connection = false,        /* one connected UDP socket per flow */
	.records_latency = false,       /* counts packets, no RTTs */
	.client_flow = pps_flow,        /* sends or receives as f->sends says */
	.server_flow = pps_flow,        /* the same: direction decides, not the side */
	.prepare_socket = nb_sock_prepare_udp, /* receivers: a 4 MiB buffer before data flows */
	.kernel_counters = nb_udpflow_kernel_counters, /* receivers: the socket's drop counter */
	.drain_ns = pps_drain_ns,       /* 500 ms for datagrams in flight */
	.due_window = false,            /* counts by epoch, not by due time */
};

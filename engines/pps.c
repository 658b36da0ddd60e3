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
 * `batch` datagrams per call, paced by the token bucket when params.rate
 * (packets/s per flow) is set (a wake-up's release, at most `burst`, takes as
 * many calls as it needs, see pace.h), refusals counted as NB_C_SND_ERRS
 * and never as loss; recvmmsg, sequence accounting, and the socket's drop
 * counter for datagrams our own full receive buffer dropped (NB_C_RCVBUF_DROPS).
 * What is pps's own: the messages per call (`batch`), and GRO whenever GSO is
 * asked for.
 *
 * GSO (params.gso, udpgso.h): the sender hands the kernel up to 64 datagrams in
 * one buffer with UDP_SEGMENT (sendmmsg where the kernel refuses it) and the
 * receiver asks for UDP_GRO, splitting what it gets at the gso_size the kernel
 * reports. On a real NIC this is the fast path
 * of a modern stack. On loopback and veth the coalesced buffer is never
 * segmented at all, so the packet rate is an artefact (tens of Mpps): such rows
 * are not representative, and the runner flags them "gro-local" (see
 * docs/engines.md, section pps).
 *
 * `datapath: xdp` (pps_xdp.h): the same flows, counted the same way, with their frames on AF_XDP
 * sockets of the interface toward the peer instead of the kernel's UDP sockets; the harness
 * still makes and proves each flow's UDP socket, which gives the flow its 5-tuple.
 */
#include <math.h>
#include <sys/socket.h>

#include "cols.h"
#include "engine.h"
#include "engines.h"
#include "kpace.h"
#include "pace.h"
#include "params.h"
#include "sock.h"
#include "udpflow.h"
#include "udpgso.h"
#include "udpstep.h"
#include "report_shapes.h"
#include "pps_xdp.h"

#define PPS_BATCH_DEFAULT 64u   /* datagrams per sendmmsg/recvmmsg: measured, see docs/engines.md */
#define PPS_BATCH_MAX 1024u     /* UIO_MAXIOV: the kernel's limit for one sendmmsg */

/* Datagrams per send call: batch messages, or with GSO segments of one message. */
static uint32_t pps_per_call(const struct nb_params *p)
{
	if (p->gso) {
		if (p->batch)
			return p->batch;
		return nb_udpgso_segs(p->size);
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
	if (p->gso && p->batch > NB_GSO_SEGS_MAX)
		return nb_error_set(err, "with gso, batch (segments per send) must be 1..%u",
				    NB_GSO_SEGS_MAX);
	if (p->gso && (uint64_t)p->size * pps_per_call(p) > NB_UDP_MAX_PAYLOAD)
		return nb_error_set(err, "gso: size x segments = %u x %u exceeds %u bytes", p->size,
				    pps_per_call(p), NB_UDP_MAX_PAYLOAD);
	if (p->wait != NB_WAIT_BLOCK && p->datapath != NB_PKT_XDP)
		return nb_error_set(err, "wait: %s is how the xdp datapath's receiver waits for its "
				    "frames: the socket path blocks in recvmmsg (datapath: xdp, or no "
				    "wait)", nb_wait_name(p->wait));
	return p->datapath != NB_PKT_XDP || nb_pps_xdp_validate(p, err);
}

/* ---- sender ---- */

/* The datagrams lie back to back in one buffer (udpgso.h): sendmmsg sends one message per
 * datagram, GSO hands the kernel the whole buffer at once. */
static int pps_send(struct nb_flow *f)
{
	const struct nb_params *p = f->p;
	uint32_t per_call = pps_per_call(p);
	struct nb_udpgso_tx t;
	if (!nb_udpgso_tx_init(&t, f, per_call, p->gso))
		return -1;
	nb_gauge_set(f, NB_G_PACING, p->rate ? NB_PACING_USER : NB_PACING_NONE);
	/* Paced: at most `burst` of the schedule back to back (pace.h), the largest burst sent
	 * reported (NB_G_MAX_BURST); a wake-up's batch goes in as many calls as it takes. */
	int rc = nb_udptx_start(&t.tx, p->rate, 1, p->burst_us * 1000ull) ? 1 : -1;
	while (rc > 0 && !nb_flow_quiet(f))
		rc = nb_udptx_step(&t.tx);
	nb_udpgso_tx_free(&t);
	return rc < 0 ? -1 : 0;
}

/* ---- receiver ---- */

/* GRO for the GSO case (GRO buffers hold several datagrams: each is accounted), and the receive
 * buffer (again: the harness set it in prepare_socket). */
static int pps_recv(struct nb_flow *f)
{
	const struct nb_params *p = f->p;
	struct nb_udprx r;
	nb_sock_udp_rcvbuf(f->fd, p);
	if (!nb_udpgso_rx_init(&r, f, p->gso, p->batch ? p->batch : PPS_BATCH_DEFAULT, p->size))
		return -1;
	nb_seqrx_set_rate(&r.seq, (double)p->rate);
	int rc = nb_udprx_run(&r);
	nb_udprx_free(&r);
	return rc;
}

/* Flows over threads (flowloop.h): the blocking bodies' choices, as steps. */
static bool pps_open(struct nb_flow *f, struct nb_flow_wants *w)
{
	const struct nb_params *p = f->p;
	if (!f->sends)
		nb_sock_udp_rcvbuf(f->fd, p);
	struct nb_udpstep_setup u = { .per_call = pps_per_call(p), .gso = p->gso,
		.pacing = p->rate ? NB_PACING_USER : NB_PACING_NONE, .num = p->rate, .den = 1,
		.burst_ns = p->burst_us * 1000ull, .gro = p->gso,
		.nmsg = p->batch ? p->batch : PPS_BATCH_DEFAULT, .buflen = p->size,
		.rate = (double)p->rate };
	return nb_udpstep_open(f, &u, w);
}

/* The socket path only: the xdp datapath keeps a thread per flow (its receiver reads every
 * queue in one thread of its own). */
static bool pps_covers(const struct nb_params *p)
{
	return p->datapath != NB_PKT_XDP;
}

static const struct nb_flow_steps pps_steps = {
	.covers = pps_covers, .open = pps_open, .step = nb_udpstep_step, .close = nb_udpstep_close,
};

static int pps_flow(struct nb_flow *f)
{
	if (f->p->datapath == NB_PKT_XDP)
		return nb_pps_xdp_flow(f);
	return f->sends ? pps_send(f) : pps_recv(f);
}

/* The xdp datapath's state of a flow (pps_xdp.h); nothing on the socket path. */
static bool pps_flow_init(struct nb_flow *f, struct nb_error *err)
{
	return f->p->datapath != NB_PKT_XDP || nb_pps_xdp_flow_init(f, err);
}

static void pps_flow_fini(struct nb_flow *f)
{
	if (f->p->datapath == NB_PKT_XDP)
		nb_pps_xdp_flow_fini(f);
}

static bool pps_prepare_flows(struct nb_flow *flows, uint32_t n, struct nb_error *err)
{
	return n == 0 || flows[0].p->datapath != NB_PKT_XDP || nb_pps_xdp_prepare(flows, n, err);
}

static void pps_kernel_counters(struct nb_flow *f)
{
	if (f->p->datapath == NB_PKT_XDP)
		nb_pps_xdp_kernel_counters(f);
	else
		nb_udpflow_kernel_counters(f);
}

/* Receivers: the 4 MiB buffer, and with GSO, GRO before the first datagram arrives. */
static bool pps_prepare_socket(int fd, const struct nb_params *p, bool sends, struct nb_error *err)
{
	if (!sends && p->gso)
		nb_udpgso_gro_on(fd);
	return nb_sock_prepare_udp(fd, p, sends, err);
}

/* The last epoch's datagrams still in flight when the senders stop. */
static uint64_t pps_drain_ns(const struct nb_params *p)
{
	(void)p;
	return NB_UDP_DRAIN_NS;
}

/* The socket path's columns; on the xdp datapath no frame has a receive time of its own
 * (xdp_path.h), so there is no jitter to report: empty, never 0. */
static void pps_report(const struct nb_engine *e, const struct nb_params *p,
		       const struct nb_span *s, uint32_t lo, uint32_t hi, struct nb_metrics *m)
{
	nb_report_directional(e, p, s, lo, hi, m);
	if (p->datapath == NB_PKT_XDP)
		m->v[NB_COL_JITTER_US] = NAN;
}

/* The config keys that mean something to pps beyond the common ones. */
static const char *const pps_keys[] = { "size", "rate", "direction", "gso", "batch", "burst",
					"sweep", "datapath", "wait", "threads", NULL };

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
		.gso_default = false,                   /* GSO on a local path is an artefact: asked for */
		.headline = { "rx_pps", "pkt/s", true }, /* datagrams received per second */
	},
	.datapath = NB_DATAPATH_CONNECTED, /* one connected UDP socket per flow */
	.validate = pps_validate,       /* UDP only; size and GSO limits */
	.client_flow = pps_flow,        /* sends or receives as f->sends says */
	.server_flow = pps_flow,        /* the same: direction decides, not the side */
	.prepare_socket = pps_prepare_socket, /* receivers: 4 MiB buffer and GRO, early */
	.kernel_counters = pps_kernel_counters, /* receivers: the socket's (or AF_XDP rings') drops */
	.drain_ns = pps_drain_ns,       /* 500 ms for datagrams in flight */
	.report = pps_report,           /* the directional shape; no jitter on the xdp datapath */
	.flow_init = pps_flow_init,     /* datapath xdp: each flow's AF_XDP state behind f->priv */
	.flow_fini = pps_flow_fini,
	.prepare_flows = pps_prepare_flows, /* datapath xdp: the end's interface, program, sockets */
	.steps = &pps_steps,            /* flows over threads (threads:): the socket path */
};

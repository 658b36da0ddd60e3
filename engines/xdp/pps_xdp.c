/* nbrun — the pps engine's xdp datapath (see pps_xdp.h). */
#include "pps_xdp.h"

#include <errno.h>
#include <pthread.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "epoch.h"
#include "kpace.h"
#include "sock.h"
#include "udpflow.h"
#include "xdp_path.h"

#define RX_SLICE_MS 100        /* one queue: a receive waits this long, then sees the stop */
#define TX_DRAIN_MS 1000       /* after the last send: the kernel completes what is on the ring */
#define USED_BITS 32u          /* queues the gauge can name */
#define SPIN_US 200u           /* wait: spin: a reader looks at an empty ring this long again */
#define BUSY_POLL_US 50u       /* wait: busy-poll: SO_BUSY_POLL, as the socket engines' */

/* What an end's flows share: flow 0's state owns it. */
struct ppsx_end {
	struct nb_xdp_path *path;
	struct nb_flow *flows;
	uint32_t nflows;
	uint64_t gauge;                 /* NB_G_XDP of this end, without the used queues */
	uint32_t nsend;                 /* the sending flows */
	/* receiving */
	uint32_t rx_owner;              /* the first receiving flow (the drops' counter); nflows: none */
	uint16_t port_lo;
	uint16_t *ports;                /* the receiving flows' ports (nrx) */
	uint32_t nrx;
	uint16_t *slot;                 /* port - port_lo -> rxflows index + 1 (nslots) */
	uint32_t nslots;
	struct nb_xdp_rxflow *rxflows;  /* the receiving flows, shared by the queues */
	pthread_mutex_t *locks;         /* one per receiving flow, when several threads read */
	struct nb_xdp_rx *rx;           /* one per queue; queue q read by receiving flow q % nrx */
	uint32_t nrxq;                  /* rx's entries */
	_Atomic uint32_t drained;       /* receiving flows whose kernel socket was read (below) */
	_Atomic uint64_t used;          /* the queues that carried frames, NB_G_XDP's bits */
};

/* One flow's: the udpflow sender over its queue's socket (first: the send op finds the rest). */
struct ppsx_flow {
	struct nb_udptx tx;
	struct ppsx_end *end;           /* set by nb_pps_xdp_prepare */
	bool owns_end;
	uint32_t rx_index;              /* a receiving flow: its index in the end's rxflows */
	uint32_t queue;                 /* a sending flow: its queue, its rank among the end's
					   senders (bidir: the agent's send as flows N..2N-1) */
	struct nb_xsk *x;
	struct nb_frame_tmpl tmpl;
	unsigned char *payload;         /* per_call datagrams of p->size bytes, back to back */
};

bool nb_pps_xdp_built(void)
{
	return true;
}

const char *nb_pps_xdp_missing(void)
{
	return "";
}

bool nb_pps_xdp_validate(const struct nb_params *p, struct nb_error *err)
{
	if (p->gso)
		return nb_error_set(err, "datapath xdp builds every frame itself: gso does not apply");
	if (p->size > NB_XSK_FRAME_SIZE - NB_FRAME_HDR_MAX)
		return nb_error_set(err, "datapath xdp: size must be at most %u bytes (one UMEM frame)",
				    NB_XSK_FRAME_SIZE - NB_FRAME_HDR_MAX);
	return true;
}

bool nb_pps_xdp_flow_init(struct nb_flow *f, struct nb_error *err)
{
	struct ppsx_flow *x = calloc(1, sizeof(*x));
	if (!x)
		return nb_error_set(err, "out of memory");
	f->priv = x;
	return true;
}

static void end_close(struct ppsx_end *e)
{
	if (!e)
		return;
	for (uint32_t q = 0; e->rx && q < e->nrxq; q++)
		free(e->rx[q].held);
	nb_xdp_path_close(e->path); /* the program leaves the interface here */
	for (uint32_t i = 0; e->locks && i < e->nrx; i++)
		pthread_mutex_destroy(&e->locks[i]);
	free(e->locks);
	free(e->rxflows);
	free(e->ports);
	free(e->slot);
	free(e->rx);
	free(e);
}

void nb_pps_xdp_flow_fini(struct nb_flow *f)
{
	struct ppsx_flow *x = f->priv;
	if (!x)
		return;
	if (x->owns_end)
		end_close(x->end);
	free(x->payload);
	free(x);
	f->priv = NULL;
}

/* ---- opening an end ---- */

static uint16_t port_of(const struct sockaddr_storage *a)
{
	return ntohs(a->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)a)->sin6_port
					      : ((const struct sockaddr_in *)a)->sin_port);
}

/* A flow's socket's two ends. */
static bool flow_addrs(const struct nb_flow *f, struct sockaddr_storage *local,
		       struct sockaddr_storage *peer, socklen_t *peer_len, struct nb_error *err)
{
	socklen_t ll = sizeof(*local);
	*peer_len = sizeof(*peer);
	if (getsockname(f->fd, (struct sockaddr *)local, &ll) != 0 ||
	    getpeername(f->fd, (struct sockaddr *)peer, peer_len) != 0)
		return nb_error_errno(err, errno, "xdp: flow %u: its socket's addresses", f->index);
	return true;
}

/* The receiving flows' local ports: the program takes exactly those (a client's ephemeral ports
 * may lie far apart, and the ports between them are anyone's), the demultiplexer finds each
 * flow by its port's slot. */
static bool rx_ports(struct ppsx_end *e, struct nb_error *err)
{
	uint32_t lo = 65536, hi = 0, k = 0;
	e->ports = calloc(e->nflows, sizeof(*e->ports));
	e->rxflows = calloc(e->nflows, sizeof(*e->rxflows));
	if (!e->ports || !e->rxflows)
		return nb_error_set(err, "out of memory");
	for (uint32_t i = 0; i < e->nflows; i++) {
		struct nb_flow *f = &e->flows[i];
		struct sockaddr_storage l, p;
		socklen_t pl;
		if (f->sends)
			continue;
		if (!flow_addrs(f, &l, &p, &pl, err))
			return false;
		uint16_t port = port_of(&l);
		lo = port < lo ? port : lo;
		hi = port > hi ? port : hi;
		e->ports[k] = port;
		((struct ppsx_flow *)f->priv)->rx_index = k;
		e->rxflows[k].f = f;
		nb_seqrx_init(&e->rxflows[k].seq, f);
		nb_seqrx_set_rate(&e->rxflows[k].seq, (double)f->p->rate);
		k++;
	}
	e->nrx = k;
	e->port_lo = (uint16_t)lo;
	e->nslots = hi - lo + 1;
	e->slot = calloc(e->nslots, sizeof(*e->slot));
	if (!e->slot)
		return nb_error_set(err, "out of memory");
	for (uint32_t i = 0; i < k; i++)
		e->slot[e->ports[i] - lo] = (uint16_t)(i + 1);
	return true;
}

/* One reader per queue: queue q is read by receiving flow q % nrx's thread (a thread reads
 * several queues when there are more queues than receiving flows). A flow's frames may land on
 * any queue (RSS), so with several readers each flow has a lock (xdp_path.h). */
static bool open_rx(struct ppsx_end *e, struct nb_error *err)
{
	uint32_t nq = nb_xdp_path_queues(e->path);
	bool shared = nq > 1 && e->nrx > 1;
	e->rx = calloc(nq, sizeof(*e->rx));
	e->locks = shared ? calloc(e->nrx, sizeof(*e->locks)) : NULL;
	if (!e->rx || (shared && !e->locks))
		return nb_error_set(err, "out of memory");
	e->nrxq = nq;
	for (uint32_t i = 0; shared && i < e->nrx; i++) {
		pthread_mutex_init(&e->locks[i], NULL);
		e->rxflows[i].lock = &e->locks[i];
	}
	for (uint32_t q = 0; q < nq; q++) {
		e->rx[q] = (struct nb_xdp_rx){ .x = nb_xdp_path_sock(e->path, q), .port_lo = e->port_lo,
					       .nflows = e->nrx, .flows = e->rxflows,
					       .slot = e->slot, .nslots = e->nslots,
					       .check_udp = true,
					       .spin_us = e->flows[0].p->wait == NB_WAIT_SPIN ? SPIN_US : 0,
					       .nap = e->flows[0].p->wait != NB_WAIT_BUSY_POLL };
		if (shared && !(e->rx[q].held = calloc(e->nrx, sizeof(bool))))
			return nb_error_set(err, "out of memory");
	}
	return true;
}

/* The refusal of a sending end with more flows than queues (open_tx says the same). */
static bool too_many_senders(uint32_t senders, const char *ifname, uint32_t nq,
			     struct nb_error *err)
{
	return nb_error_set(err, "xdp: %u sending flows, but %s has %u queue%s: one AF_XDP socket "
			    "per queue sends one flow (fewer streams, or more queues: ethtool -L on "
			    "a NIC)", senders, ifname, nq, nq == 1 ? "" : "s");
}

static int xsk_send(struct nb_udptx *t, uint32_t n);

/* A sending flow: its frames' template from its socket's 5-tuple, on its queue (x->queue). */
static bool open_tx(struct ppsx_end *e, struct nb_flow *f, struct nb_error *err)
{
	struct ppsx_flow *x = f->priv;
	struct sockaddr_storage l, p;
	socklen_t pl;
	uint32_t nq = nb_xdp_path_queues(e->path);
	if (x->queue >= nq)
		return too_many_senders(e->nsend, nb_xdp_path_hop(e->path)->ifname, nq, err);
	struct nb_xdp_tx t;
	if (!flow_addrs(f, &l, &p, &pl, err) ||
	    !nb_xdp_tx_init(&t, e->path, x->queue, f, port_of(&l), port_of(&p), f->p->size, err))
		return false;
	x->x = t.x;
	x->tmpl = t.tmpl;
	uint32_t per_call = f->p->batch ? f->p->batch : 64;
	per_call = per_call > NB_XSK_BATCH_MAX ? NB_XSK_BATCH_MAX : per_call;
	x->payload = calloc(per_call, f->p->size);
	if (!x->payload)
		return nb_error_set(err, "out of memory");
	x->tx = (struct nb_udptx){ .f = f, .hdr = x->payload, .stride = f->p->size,
				   .per_call = per_call, .send = xsk_send };
	return true;
}

static uint64_t end_gauge(struct nb_xdp_path *p)
{
	const struct nb_xdp_prog *prog = nb_xdp_path_prog(p);
	uint64_t g = NB_XDP_G_ON | (uint64_t)(nb_xdp_path_queues(p) & 0xffu) << 8;
	if (!nb_xdp_path_zerocopy(p))
		g |= NB_XDP_G_COPY;
	if (prog)
		g |= nb_xdp_prog_mode(prog) == NB_XDP_MODE_DRIVER ? NB_XDP_G_DRIVER : NB_XDP_G_GENERIC;
	return g;
}

bool nb_pps_xdp_prepare(struct nb_flow *flows, uint32_t n, struct nb_error *err)
{
	if (n == 0 || !flows[0].priv)
		return true; /* the socket datapath */
	struct ppsx_end *e = calloc(1, sizeof(*e));
	if (!e)
		return nb_error_set(err, "out of memory");
	*e = (struct ppsx_end){ .flows = flows, .nflows = n, .rx_owner = n };
	struct ppsx_flow *x0 = flows[0].priv;
	x0->end = e;
	x0->owns_end = true;
	bool rx = false, tx = false;
	for (uint32_t i = 0; i < n; i++) {
		((struct ppsx_flow *)flows[i].priv)->end = e;
		tx |= flows[i].sends;
		rx |= !flows[i].sends;
		if (!flows[i].sends && e->rx_owner == n)
			e->rx_owner = i;
	}
	struct sockaddr_storage l, peer;
	socklen_t pl;
	if (!flow_addrs(&flows[0], &l, &peer, &pl, err) || (rx && !rx_ports(e, err)))
		return false;
	uint32_t nsend = 0;
	for (uint32_t i = 0; i < n; i++)
		if (flows[i].sends)
			((struct ppsx_flow *)flows[i].priv)->queue = nsend++;
	e->nsend = nsend;
	struct nb_xdp_path_config cfg = {
		.peer = (struct sockaddr *)&peer, .peer_len = pl, .rx = rx, .tx = tx,
		.port_lo = e->port_lo, .port_hi = (uint16_t)(e->port_lo + e->nslots - 1),
		.ports = e->ports, .nports = e->nrx,
		.queues = rx ? 0 : nsend, /* a receiver reads every queue: RSS picks where frames land */
		.busy_poll_us = flows[0].p->wait == NB_WAIT_BUSY_POLL ? BUSY_POLL_US : 0,
	};
	if (!nb_xdp_path_open(&cfg, &e->path, err))
		return false;
	e->gauge = end_gauge(e->path);
	if (rx && !open_rx(e, err))
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (flows[i].sends && !open_tx(e, &flows[i], err))
			return false;
	return true;
}

/* ---- sending ---- */

/* udpflow.c's send op: the n stamped datagrams into frames of the queue's UMEM, onto its TX
 * ring. Returns how many went (fewer: the ring is full, counted by udpflow as a refusal). */
static int xsk_send(struct nb_udptx *t, uint32_t n)
{
	struct ppsx_flow *x = (struct ppsx_flow *)t;
	uint8_t *frames[NB_XSK_BATCH_MAX];
	uint32_t lens[NB_XSK_BATCH_MAX];
	uint32_t got = nb_xsk_tx_get(x->x, frames, n);
	for (uint32_t i = 0; i < got; i++) {
		memcpy(frames[i] + x->tmpl.hdr_len, t->hdr + (size_t)i * t->stride, t->stride);
		lens[i] = (uint32_t)nb_frame_finish(&x->tmpl, frames[i]);
	}
	if (got && !nb_xsk_tx_send(x->x, lens, got, &t->f->err)) {
		errno = ENETDOWN;
		return -1;
	}
	if (!got && !nb_xsk_tx_flush(x->x, &t->f->err)) { /* reclaim, and kick if it asks */
		errno = ENETDOWN;
		return -1;
	}
	return (int)got;
}

static int send_loop(struct nb_flow *f, struct ppsx_flow *x)
{
	const struct nb_params *p = f->p;
	nb_gauge_set(f, NB_G_PACING, p->rate ? NB_PACING_USER : NB_PACING_NONE);
	nb_gauge_set(f, NB_G_XDP, x->end->gauge | (uint64_t)1 << (16 + x->queue % USED_BITS));
	int rc = nb_udptx_start(&x->tx, p->rate, 1, p->burst_us * 1000ull) ? 1 : -1;
	while (rc > 0 && !nb_flow_quiet(f))
		rc = nb_udptx_step(&x->tx);
	/* What is on the ring still leaves: those frames were counted sent. */
	if (!nb_xdp_tx_drain(&(struct nb_xdp_tx){ .f = f, .x = x->x }, TX_DRAIN_MS) && rc >= 0 &&
	    !f->err.msg[0])
		nb_error_set(&f->err, "flow %u: xdp: %u frames still on the ring after %d ms",
			     f->index, nb_xsk_tx_pending(x->x), TX_DRAIN_MS);
	return rc < 0 || f->err.msg[0] ? -1 : 0;
}

/* ---- receiving ---- */

/* What the kernel's socket of a receiving flow took before the program was on the interface:
 * the peer may start sending on START while this end is still attaching (the agent gets START
 * after its prepare, the client sends at once), and those datagrams wait in the flow's
 * socket. Each receiving flow's thread counts its own first, as the socket path would, and no
 * reader reads a queue before every flow's are counted (they are the oldest): nothing is lost
 * to the attach, and nothing reads as reordered. */
static void drain_kernel_socket(struct ppsx_end *e, struct nb_xdp_rxflow *r)
{
	unsigned char buf[NB_XSK_FRAME_SIZE];
	ssize_t len;
	if (r->lock)
		pthread_mutex_lock(r->lock);
	r->seq.cur = nb_flow_enter(r->f);
	while ((len = recv(r->f->fd, buf, sizeof(buf), MSG_DONTWAIT)) >= 0)
		nb_seqrx_account(&r->seq, r->f, buf, (size_t)len, 0);
	nb_flow_leave(r->f);
	if (r->lock)
		pthread_mutex_unlock(r->lock);
	atomic_fetch_add(&e->drained, 1);
	while (atomic_load(&e->drained) < e->nrx && !nb_flow_stopping(r->f))
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
}

/* This flow's thread reads queues k, k + nrx, ... until the stop: each datagram into its flow
 * by port, whichever flow it is. Its own gauge says the queues that carried frames, at this
 * end (an OR over the flows makes the row's xdp_used), and that it read. */
static int recv_loop(struct nb_flow *f, struct ppsx_end *e, uint32_t k)
{
	uint32_t nq = e->nrxq, mine = 0;
	uint64_t mark = 0, reader = k < nq ? NB_XDP_G_READER : 0;
	for (uint32_t q = k; q < nq; q += e->nrx)
		mine++;
	nb_gauge_set(f, NB_G_XDP, e->gauge | reader);
	drain_kernel_socket(e, &e->rxflows[k]);
	while (!nb_flow_stopping(f)) {
		if (!mine) { /* more receiving flows than queues: the others count this one */
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
			continue;
		}
		int got = 0;
		for (uint32_t q = k; q < nq; q += e->nrx) {
			uint64_t before = e->rx[q].frames;
			int n = nb_xdp_rx_step(&e->rx[q], mine > 1 ? 0 : RX_SLICE_MS, &f->err);
			if (n < 0)
				return -1;
			got += n;
			if (!before && e->rx[q].frames && q < USED_BITS)
				atomic_fetch_or(&e->used, (uint64_t)1 << (16 + q));
		}
		if (!got && mine > 1)
			nanosleep(&(struct timespec){ 0, 20000 }, NULL);
		uint64_t used = atomic_load_explicit(&e->used, memory_order_relaxed);
		if (used != mark) { /* which queues carried the test */
			nb_gauge_set(f, NB_G_XDP, e->gauge | reader | used);
			mark = used;
		}
	}
	nb_gauge_set(f, NB_G_XDP, e->gauge | reader | atomic_load(&e->used));
	return 0;
}

int nb_pps_xdp_flow(struct nb_flow *f)
{
	struct ppsx_flow *x = f->priv;
	if (f->sends)
		return send_loop(f, x);
	return recv_loop(f, x->end, x->rx_index);
}

void nb_pps_xdp_kernel_counters(struct nb_flow *f)
{
	struct ppsx_flow *x = f->priv;
	struct ppsx_end *e = x ? x->end : NULL;
	if (!e || f->sends || f->index != e->rx_owner || !e->path)
		return;
	uint64_t drops = 0;
	for (uint32_t q = 0; q < nb_xdp_path_queues(e->path); q++) {
		struct nb_xsk_stats s;
		struct nb_error ignored;
		if (nb_xsk_stats(nb_xdp_path_sock(e->path, q), &s, &ignored))
			drops += s.rx_dropped + s.rx_ring_full; /* disjoint; fill_empty overlaps */
	}
	/* and what the flows' kernel sockets dropped before the program was attached (the peer's
	 * first datagrams, when its sender starts on START while this end attaches): a drop of
	 * our own receiver too, so the whole run adds up (tx_total = rx_total + drops + loss) */
	for (uint32_t i = 0; i < e->nrx; i++) {
		uint32_t k;
		if (nb_sock_rcv_drops(e->rxflows[i].f->fd, &k))
			drops += k;
	}
	atomic_store_explicit(&f->c[NB_C_RCVBUF_DROPS], drops, memory_order_relaxed);
}

bool nb_pps_xdp_check(const struct sockaddr *peer, socklen_t peer_len, bool rx, bool tx,
		      uint32_t senders, char *what, size_t n, struct nb_error *err)
{
	struct nb_xdp_path_config cfg = { .peer = peer, .peer_len = peer_len, .rx = rx, .tx = tx };
	struct nb_xdp_hop h;
	if (!nb_xdp_path_check(&cfg, what, n, err))
		return false;
	if (tx && nb_xdp_hop_find(peer, peer_len, &h, err) &&
	    senders > nb_xdp_queue_count(h.ifname))
		return too_many_senders(senders, h.ifname, nb_xdp_queue_count(h.ifname), err);
	return true;
}

void nb_pps_xdp_facts(uint64_t g, uint32_t readers, char *buf, size_t n)
{
	buf[0] = '\0';
	if (!(g & NB_XDP_G_ON))
		return;
	const char *attach = (g & NB_XDP_G_GENERIC) ? "generic"
			     : (g & NB_XDP_G_DRIVER) ? "driver" : "";
	size_t used = (size_t)snprintf(buf, n, "xdp=%s%s%s xdp_queues=%u xdp_used=",
				       (g & NB_XDP_G_COPY) ? "copy" : "zerocopy",
				       attach[0] ? " xdp_attach=" : "", attach, NB_XDP_G_QUEUES(g));
	uint32_t mask = NB_XDP_G_USED(g);
	bool any = false;
	for (uint32_t q = 0; q < USED_BITS && used < n; q++)
		if (mask >> q & 1u) {
			used += (size_t)snprintf(buf + used, n - used, "%s%u", any ? "," : "", q);
			any = true;
		}
	if (!any && used < n)
		used += (size_t)snprintf(buf + used, n - used, "none");
	if (readers && used < n)
		snprintf(buf + used, n - used, " xdp_rx_threads=%u", readers);
}

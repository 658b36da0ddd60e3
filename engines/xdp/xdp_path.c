/* nbrun — the AF_XDP data path of one end, and its flows' frames (see xdp_path.h). */
#include "xdp_path.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "epoch.h"
#include "sock.h"

struct nb_xdp_path {
	struct nb_xdp_hop hop;
	struct nb_xdp_prog *prog;
	bool tx;
	uint32_t nq;
	struct nb_xsk **xsk;
};

uint32_t nb_xdp_path_queues(const struct nb_xdp_path *p)
{
	return p->nq;
}

struct nb_xsk *nb_xdp_path_sock(struct nb_xdp_path *p, uint32_t q)
{
	return p->xsk[q];
}

const struct nb_xdp_hop *nb_xdp_path_hop(const struct nb_xdp_path *p)
{
	return &p->hop;
}

const struct nb_xdp_prog *nb_xdp_path_prog(const struct nb_xdp_path *p)
{
	return p->prog;
}

bool nb_xdp_path_zerocopy(const struct nb_xdp_path *p)
{
	for (uint32_t q = 0; q < p->nq; q++)
		if (!nb_xsk_zerocopy(p->xsk[q]))
			return false;
	return p->nq > 0;
}

void nb_xdp_path_describe(const struct nb_xdp_path *p, char *buf, size_t n)
{
	snprintf(buf, n, "xdp=%s %s %s queues=%u", nb_xdp_path_zerocopy(p) ? "zerocopy" : "copy",
		 p->prog ? nb_xdp_mode_name(nb_xdp_prog_mode(p->prog)) : "tx-only", p->hop.ifname,
		 p->nq);
}

void nb_xdp_path_close(struct nb_xdp_path *p)
{
	if (!p)
		return;
	for (uint32_t q = 0; q < p->nq; q++)
		nb_xsk_close(p->xsk[q]);
	free(p->xsk);
	nb_xdp_prog_detach(p->prog);
	free(p);
}

static bool open_sockets(struct nb_xdp_path *p, const struct nb_xdp_path_config *cfg,
			 uint32_t nq, struct nb_error *err)
{
	p->xsk = calloc(nq, sizeof(*p->xsk));
	if (!p->xsk)
		return nb_error_set(err, "xdp: out of memory");
	for (; p->nq < nq; p->nq++) {
		struct nb_xsk_config xc = { .ifname = p->hop.ifname, .queue = p->nq,
					    .copy = cfg->copy, .busy_poll_us = cfg->busy_poll_us };
		if (!nb_xsk_open(&xc, &p->xsk[p->nq], err))
			return false;
		if (p->prog && !nb_xdp_prog_add_socket(p->prog, p->nq, nb_xsk_fd(p->xsk[p->nq]), err)) {
			nb_xsk_close(p->xsk[p->nq]);
			return false;
		}
	}
	return true;
}

bool nb_xdp_path_open(const struct nb_xdp_path_config *cfg, struct nb_xdp_path **out,
		      struct nb_error *err)
{
	struct nb_xdp_path *p = calloc(1, sizeof(*p));
	if (!p)
		return nb_error_set(err, "xdp: out of memory");
	p->tx = cfg->tx;
	bool ok = nb_xdp_hop_find(cfg->peer, cfg->peer_len, &p->hop, err) &&
		  nb_xdp_iface_up(p->hop.ifname, err);
	uint32_t have = ok ? nb_xdp_queue_count(p->hop.ifname) : 0;
	uint32_t nq = cfg->queues && cfg->queues < have ? cfg->queues : have;
	if (ok && cfg->tx)
		ok = nb_xdp_neigh_resolve(&p->hop, cfg->resolve_ms ? cfg->resolve_ms : 3000, err);
	if (ok && cfg->rx) {
		struct nb_xdp_prog_config pc = {
			.ifname = p->hop.ifname, .port_lo = cfg->port_lo, .port_hi = cfg->port_hi,
			.ports = cfg->ports, .nports = cfg->nports, .queues = have, .mode = cfg->mode, .attach = cfg->attach,
		};
		ok = nb_xdp_prog_attach(&pc, &p->prog, err);
	}
	ok = ok && open_sockets(p, cfg, nq, err);
	if (!ok) {
		nb_xdp_path_close(p);
		return false;
	}
	*out = p;
	return true;
}

/* A socket(AF_XDP) needs CAP_NET_RAW: make one and close it. */
static bool xsk_allowed(struct nb_error *err)
{
	int fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0 && (errno == EPERM || errno == EACCES))
		return nb_error_set(err, "xdp: an AF_XDP socket was refused: it needs CAP_NET_RAW "
				    "and CAP_NET_ADMIN");
	if (fd < 0)
		return nb_error_errno(err, errno, "xdp: socket(AF_XDP): this kernel has no AF_XDP?");
	close(fd);
	return true;
}

bool nb_xdp_path_check(const struct nb_xdp_path_config *cfg, char *what, size_t n,
		       struct nb_error *err)
{
	struct nb_xdp_hop h;
	if (!nb_xdp_hop_find(cfg->peer, cfg->peer_len, &h, err) || !nb_xdp_iface_up(h.ifname, err))
		return false;
	if (cfg->tx && !nb_xdp_neigh_resolve(&h, cfg->resolve_ms ? cfg->resolve_ms : 3000, err))
		return false;
	if ((cfg->rx && !nb_xdp_prog_probe(err)) || !xsk_allowed(err))
		return false;
	snprintf(what, n, "%s queues=%u", h.ifname, nb_xdp_queue_count(h.ifname));
	return true;
}

/* ---- sending ---- */

bool nb_xdp_tx_init(struct nb_xdp_tx *t, struct nb_xdp_path *p, uint32_t q, struct nb_flow *f,
		    uint16_t src_port, uint16_t dst_port, uint32_t size, struct nb_error *err)
{
	const struct nb_xdp_hop *h = &p->hop;
	if (q >= p->nq)
		return nb_error_set(err, "xdp: queue %u: the path has %u", q, p->nq);
	if (!p->tx)
		return nb_error_set(err, "xdp: the path was opened to receive only");
	if (size < NB_DGRAM_HDR || size > NB_XSK_FRAME_SIZE - NB_FRAME_HDR_MAX)
		return nb_error_set(err, "xdp: size %u: %u..%u bytes (a frame of the UMEM)", size,
				    NB_DGRAM_HDR, NB_XSK_FRAME_SIZE - NB_FRAME_HDR_MAX);
	struct nb_frame_end src = { .port = src_port }, dst = { .port = dst_port };
	memcpy(src.mac, h->local_mac, 6);
	memcpy(dst.mac, h->next_mac, 6);
	memcpy(src.ip, h->local_ip, 16);
	memcpy(dst.ip, h->peer_ip, 16);
	memset(t, 0, sizeof(*t));
	t->f = f;
	t->cookie = nb_dgram_cookie(f->p->key, f->index);
	t->x = p->xsk[q];
	int32_t tos = f && f->p ? f->p->tos : -1;
	return nb_frame_tmpl_init(&t->tmpl, &src, &dst, h->v6, (uint16_t)size,
				  tos > 0 ? (uint8_t)tos : 0, err);
}

int nb_xdp_tx_step(struct nb_xdp_tx *t, uint32_t n)
{
	struct nb_flow *f = t->f;
	uint8_t *frames[NB_XSK_BATCH_MAX];
	uint32_t lens[NB_XSK_BATCH_MAX];
	uint32_t epoch = nb_flow_enter(f);
	uint32_t got = nb_xsk_tx_get(t->x, frames, n);
	for (uint32_t i = 0; i < got; i++) {
		nb_dgram_put(frames[i] + t->tmpl.hdr_len, t->seq + i, nb_now_ns(), t->cookie, epoch);
		lens[i] = (uint32_t)nb_frame_finish(&t->tmpl, frames[i]);
	}
	bool ok = got == 0 || nb_xsk_tx_send(t->x, lens, got, &f->err);
	if (got) {
		t->seq += got;
		nb_count(f, NB_C_TX_PACKETS, got);
		nb_count(f, NB_C_TX_BYTES, (uint64_t)got * t->tmpl.payload_len);
		nb_epoch_sent(f, epoch, got);
	} else {
		nb_count(f, NB_C_SND_ERRS, 1); /* the ring is full: back-pressure, not loss */
	}
	nb_flow_leave(f);
	if (!ok)
		return -1;
	if (!got && !nb_xsk_tx_flush(t->x, &f->err))
		return -1;
	if (!got)
		sched_yield();
	return (int)got;
}

bool nb_xdp_tx_drain(struct nb_xdp_tx *t, int timeout_ms)
{
	uint64_t until = nb_now_ns() + (uint64_t)timeout_ms * 1000000u;
	while (nb_xsk_tx_pending(t->x) > 0 && nb_now_ns() < until) {
		if (!nb_xsk_tx_flush(t->x, &t->f->err))
			return false;
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	return nb_xsk_tx_pending(t->x) == 0;
}

/* ---- receiving ---- */

/* The end of a batch (or a wait for another flow's lock): every flow this reader entered is
 * counted, and its lock released. */
static void leave_all(struct nb_xdp_rx *r)
{
	for (uint32_t i = 0; i < r->nflows; i++) {
		bool *in = r->held ? &r->held[i] : &r->flows[i].entered;
		if (!*in)
			continue;
		nb_flow_leave(r->flows[i].f);
		if (r->flows[i].lock)
			pthread_mutex_unlock(r->flows[i].lock);
		*in = false;
	}
}

static void account(struct nb_xdp_rx *r, const uint8_t *frame, uint32_t len)
{
	struct nb_frame_view v;
	enum nb_frame_verdict verdict = nb_frame_parse(frame, len, r->check_udp, &v);
	if (verdict != NB_FRAME_OK) {
		r->rejected[verdict]++;
		return;
	}
	uint32_t i = (uint32_t)(v.dst_port - r->port_lo);
	if (r->slot && v.dst_port >= r->port_lo)
		i = i < r->nslots && r->slot[i] ? r->slot[i] - 1u : r->nflows;
	struct nb_xdp_rxflow *fl = v.dst_port >= r->port_lo && i < r->nflows ? &r->flows[i] : NULL;
	if (!fl || !fl->f) {
		r->rejected[NB_FRAME_OK]++;
		return;
	}
	bool *in = r->held ? &r->held[i] : &fl->entered;
	if (!*in) {
		/* Never wait for a flow's lock while holding another's: two readers each holding
		 * one would wait for ever. Waiting, this reader holds none. */
		if (fl->lock && pthread_mutex_trylock(fl->lock) != 0) {
			leave_all(r);
			pthread_mutex_lock(fl->lock);
		}
		fl->seq.cur = nb_flow_enter(fl->f);
		*in = true;
	}
	/* No receive time of its own (see xdp_path.h): no jitter. */
	if (!nb_seqrx_account(&fl->seq, fl->f, v.payload, v.payload_len, 0))
		r->rejected[NB_FRAME_OK]++;
}

#define NAP_FLOWING_NS 10000000u /* frames this recently: they flow, and the reader naps */
#define NAP_MIN_NS 20000u
#define NAP_MAX_NS 200000u

/* How long a reader naps on an empty ring: the time a quarter of the ring takes to fill at the
 * rate since its last nap, within NAP_MIN_NS..NAP_MAX_NS (so a burst at ten times the rate
 * still finds room). */
static uint64_t nap_ns(struct nb_xdp_rx *r, uint64_t now)
{
	uint64_t got = r->frames - r->nap_frames, dt = now - r->nap_at, ns = NAP_MAX_NS;
	if (r->nap_at && got)
		ns = (uint64_t)((double)dt * (NB_XSK_RING / 4) / (double)got);
	r->nap_at = now;
	r->nap_frames = r->frames;
	return ns < NAP_MIN_NS ? NAP_MIN_NS : ns > NAP_MAX_NS ? NAP_MAX_NS : ns;
}

int nb_xdp_rx_step(struct nb_xdp_rx *r, int timeout_ms, struct nb_error *err)
{
	const uint8_t *data[NB_XSK_BATCH_MAX];
	uint32_t lens[NB_XSK_BATCH_MAX];
	uint32_t n = nb_xsk_rx_peek(r->x, data, lens, NB_XSK_BATCH_MAX);
	if (n == 0) {
		/* Spinning or napping, the reader is not on the socket's wait queue while frames
		 * flow: the sender's kernel path wakes no one (on a VM a wake-up of a thread on
		 * another CPU is an IPI, a VM exit: it cost the sender a third of its time). */
		uint64_t now = nb_now_ns();
		if (r->flowing) {
			r->last_ns = now;
			r->flowing = false;
		}
		if (r->spin_us && timeout_ms && now - r->last_ns < (uint64_t)r->spin_us * 1000u)
			return 0;
		if (r->nap && timeout_ms && r->last_ns && now - r->last_ns < NAP_FLOWING_NS)
			return nb_xsk_rx_nap(r->x, nap_ns(r, now), err) ? 0 : -1;
		return nb_xsk_rx_wait(r->x, timeout_ms, err) ? 0 : -1;
	}
	r->flowing = true;
	for (uint32_t i = 0; i < n; i++)
		account(r, data[i], lens[i]);
	leave_all(r);
	nb_xsk_rx_release(r->x, n);
	r->frames += n;
	return (int)n;
}

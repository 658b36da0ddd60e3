/* nbrun — one AF_XDP socket and its UMEM (see xdp_sock.h). */
#include "xdp_sock.h"

#include <errno.h>
#include <linux/if_xdp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include <xdp/xsk.h>

#include "engine.h" /* nb_error_set */

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif

struct nb_xsk {
	struct xsk_umem *umem;
	struct xsk_socket *sock;
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp, rx;
	uint8_t *area;
	size_t area_len;
	uint32_t frames, ring, queue;
	bool zc, busy_poll;
	uint64_t *pool;                 /* free send frames (addresses), a stack */
	uint32_t pool_n;
	uint32_t tx_idx, tx_n;          /* the reservation of the last nb_xsk_tx_get */
	uint64_t tx_addr[NB_XSK_BATCH_MAX];
	uint32_t pending;               /* sent, not completed */
	uint64_t rx_addr[NB_XSK_BATCH_MAX];
	uint64_t *stash;                /* received frames the fill ring had no room for yet */
	uint32_t stash_n;
};

int nb_xsk_fd(const struct nb_xsk *x)
{
	return xsk_socket__fd(x->sock);
}

bool nb_xsk_zerocopy(const struct nb_xsk *x)
{
	return x->zc;
}

uint32_t nb_xsk_queue(const struct nb_xsk *x)
{
	return x->queue;
}

void nb_xsk_close(struct nb_xsk *x)
{
	if (!x)
		return;
	if (x->sock)
		xsk_socket__delete(x->sock);
	if (x->umem)
		xsk_umem__delete(x->umem);
	if (x->area)
		munmap(x->area, x->area_len);
	free(x->pool);
	free(x->stash);
	free(x);
}

static bool umem_create(struct nb_xsk *x, struct nb_error *err)
{
	struct xsk_umem_config uc = {
		/* The kernel publishes what it took from the fill ring lazily: twice the receive
		 * frames leaves room for every frame we give back. */
		.fill_size = 2 * x->ring, .comp_size = x->ring, .frame_size = NB_XSK_FRAME_SIZE,
		.frame_headroom = 0, .flags = 0,
	};
	int rc = xsk_umem__create(&x->umem, x->area, x->area_len, &x->fill, &x->comp, &uc);
	if (rc == -ENOMEM || rc == -EPERM || rc == -ENOBUFS) {
		struct rlimit rl = { 0, 0 };
		getrlimit(RLIMIT_MEMLOCK, &rl);
		return nb_error_set(err, "xdp: registering a UMEM of %zu KiB was refused (%s): "
				    "RLIMIT_MEMLOCK is %llu KiB (ulimit -l; or CAP_IPC_LOCK), and "
				    "AF_XDP needs CAP_NET_RAW", x->area_len / 1024, strerror(-rc),
				    (unsigned long long)rl.rlim_cur / 1024);
	}
	if (rc < 0) {
		x->umem = NULL;
		return nb_error_errno(err, -rc, "xdp: create the UMEM");
	}
	return true;
}

/* Bind in one copy mode: 0 or a negative errno. */
static int bind_sock(struct nb_xsk *x, const struct nb_xsk_config *cfg, uint16_t mode)
{
	struct xsk_socket_config sc = {
		.rx_size = x->ring, .tx_size = x->ring,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD, /* the program is ours */
		.xdp_flags = 0, .bind_flags = (uint16_t)(mode | XDP_USE_NEED_WAKEUP),
	};
	/* A socket closed just before on this queue frees its pool after a grace period, and until
	 * then the queue is busy: a fast restart (the next repetition) waits up to a second. */
	int rc = -EBUSY;
	for (int tries = 0; rc == -EBUSY && tries < 20; tries++) {
		if (tries)
			nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
		rc = xsk_socket__create(&x->sock, cfg->ifname, cfg->queue, x->umem, &x->rx, &x->tx,
					&sc);
	}
	if (rc < 0)
		x->sock = NULL;
	return rc;
}

static bool bind_error(const struct nb_xsk_config *cfg, int rc, struct nb_error *err)
{
	const char *q = cfg->ifname;
	if (rc == -EPERM || rc == -EACCES)
		return nb_error_set(err, "xdp: an AF_XDP socket on %s was refused: it needs "
				    "CAP_NET_RAW and CAP_NET_ADMIN", q);
	if (rc == -ENETDOWN)
		return nb_error_set(err, "xdp: %s is down (ip link set %s up)", q, q);
	if (rc == -EBUSY)
		return nb_error_set(err, "xdp: %s queue %u already has an AF_XDP socket", q, cfg->queue);
	if (rc == -EOPNOTSUPP && cfg->copy == NB_XSK_ZEROCOPY)
		return nb_error_set(err, "xdp: %s queue %u: the driver has no zero-copy AF_XDP", q,
				    cfg->queue);
	if (rc == -EINVAL)
		return nb_error_set(err, "xdp: %s has no queue %u (or refuses AF_XDP on it)", q,
				    cfg->queue);
	return nb_error_errno(err, -rc, "xdp: bind an AF_XDP socket to %s queue %u", q, cfg->queue);
}

/* Zero-copy first, then copy: a failed bind leaves the UMEM half set up, so it is made anew. */
static bool bind_any(struct nb_xsk *x, const struct nb_xsk_config *cfg, struct nb_error *err)
{
	int rc = -EOPNOTSUPP;
	if (cfg->copy != NB_XSK_COPY) {
		rc = bind_sock(x, cfg, XDP_ZEROCOPY);
		x->zc = rc == 0;
		if (rc == 0 || cfg->copy == NB_XSK_ZEROCOPY || rc == -EPERM || rc == -ENETDOWN ||
		    rc == -EBUSY)
			return rc == 0 ? true : bind_error(cfg, rc, err);
		xsk_umem__delete(x->umem);
		x->umem = NULL;
		if (!umem_create(x, err))
			return false;
	}
	rc = bind_sock(x, cfg, XDP_COPY);
	return rc == 0 ? true : bind_error(cfg, rc, err);
}

static bool fill_all(struct nb_xsk *x, struct nb_error *err)
{
	uint32_t n = x->frames / 2, idx;
	if (n > x->ring)
		n = x->ring;
	if (xsk_ring_prod__reserve(&x->fill, n, &idx) != n)
		return nb_error_set(err, "xdp: the fill ring took fewer than %u frames", n);
	for (uint32_t i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&x->fill, idx + i) = (uint64_t)i * NB_XSK_FRAME_SIZE;
	xsk_ring_prod__submit(&x->fill, n);
	x->pool_n = 0;
	for (uint32_t i = x->frames / 2; i < x->frames; i++)
		x->pool[x->pool_n++] = (uint64_t)i * NB_XSK_FRAME_SIZE;
	return true;
}

static void busy_poll_on(struct nb_xsk *x, const struct nb_xsk_config *cfg)
{
	int fd = nb_xsk_fd(x), one = 1, us = (int)cfg->busy_poll_us;
	int budget = cfg->busy_budget ? (int)cfg->busy_budget : 64;
	x->busy_poll = setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)) == 0 &&
		       setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &us, sizeof(us)) == 0 &&
		       setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget)) == 0;
}

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

bool nb_xsk_open(const struct nb_xsk_config *cfg, struct nb_xsk **out, struct nb_error *err)
{
	uint32_t ring = cfg->ring ? cfg->ring : NB_XSK_RING;
	uint32_t frames = cfg->frames ? cfg->frames : NB_XSK_FRAMES;
	if (!is_pow2(ring) || !is_pow2(frames) || frames < 2 * ring)
		return nb_error_set(err, "xdp: ring %u and frames %u must be powers of two, frames "
				    "at least twice the ring", ring, frames);
	struct nb_xsk *x = calloc(1, sizeof(*x));
	if (!x)
		return nb_error_set(err, "xdp: out of memory");
	*x = (struct nb_xsk){ .frames = frames, .ring = ring, .queue = cfg->queue };
	x->area_len = (size_t)frames * NB_XSK_FRAME_SIZE;
	x->pool = calloc(frames / 2, sizeof(*x->pool));
	x->stash = calloc(frames / 2, sizeof(*x->stash));
	void *a = mmap(NULL, x->area_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool ok = a != MAP_FAILED && x->pool && x->stash;
	if (!ok)
		nb_error_errno(err, errno, "xdp: %zu KiB for the UMEM", x->area_len / 1024);
	x->area = a == MAP_FAILED ? NULL : a;
	ok = ok && umem_create(x, err) && bind_any(x, cfg, err) && fill_all(x, err);
	if (!ok) {
		nb_xsk_close(x);
		return false;
	}
	if (cfg->busy_poll_us)
		busy_poll_on(x, cfg);
	*out = x;
	return true;
}

/* ---- sending ---- */

static void reclaim(struct nb_xsk *x)
{
	uint32_t idx;
	uint32_t n = xsk_ring_cons__peek(&x->comp, x->ring, &idx);
	for (uint32_t i = 0; i < n; i++)
		x->pool[x->pool_n++] = *xsk_ring_cons__comp_addr(&x->comp, idx + i);
	if (n)
		xsk_ring_cons__release(&x->comp, n);
	x->pending -= n;
}

uint32_t nb_xsk_tx_get(struct nb_xsk *x, uint8_t **frames, uint32_t n)
{
	reclaim(x);
	if (n > NB_XSK_BATCH_MAX)
		n = NB_XSK_BATCH_MAX;
	if (n > x->pool_n)
		n = x->pool_n;
	uint32_t room = xsk_prod_nb_free(&x->tx, n);
	if (n > room)
		n = room;
	if (n == 0 || xsk_ring_prod__reserve(&x->tx, n, &x->tx_idx) != n)
		return x->tx_n = 0;
	for (uint32_t i = 0; i < n; i++) {
		x->tx_addr[i] = x->pool[--x->pool_n];
		frames[i] = x->area + x->tx_addr[i];
	}
	return x->tx_n = n;
}

/* A kick: in copy mode the kernel sends from inside sendto, at most a small budget of frames
 * per call (EAGAIN: more are left), so it is repeated while the TX ring holds descriptors; a
 * zero-copy driver only needs to be woken once. */
static bool kick(struct nb_xsk *x, struct nb_error *err)
{
	for (int tries = 0; tries < 64; tries++) {
		if (!xsk_ring_prod__needs_wakeup(&x->tx))
			return true;
		if (sendto(nb_xsk_fd(x), NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0) {
			if (x->zc || __atomic_load_n(x->tx.consumer, __ATOMIC_ACQUIRE) == *x->tx.producer)
				return true;
			continue;
		}
		if (errno == EAGAIN || errno == EINTR)
			continue;
		if (errno == EBUSY || errno == ENOBUFS)
			return true; /* the device is busy: these frames go at the next kick */
		return nb_error_errno(err, errno, "xdp: queue %u: transmit", x->queue);
	}
	return true;
}

bool nb_xsk_tx_send(struct nb_xsk *x, const uint32_t *lens, uint32_t n, struct nb_error *err)
{
	if (n > x->tx_n)
		n = x->tx_n;
	for (uint32_t i = 0; i < n; i++) {
		struct xdp_desc *d = xsk_ring_prod__tx_desc(&x->tx, x->tx_idx + i);
		d->addr = x->tx_addr[i];
		d->len = lens[i];
		d->options = 0;
	}
	/* Frames reserved and not written go back: the ring's reservation and the pool. */
	x->tx.cached_prod -= x->tx_n - n;
	for (uint32_t i = n; i < x->tx_n; i++)
		x->pool[x->pool_n++] = x->tx_addr[i];
	xsk_ring_prod__submit(&x->tx, n);
	x->pending += n;
	x->tx_n = 0;
	return n == 0 || kick(x, err);
}

uint32_t nb_xsk_tx_pending(const struct nb_xsk *x)
{
	return x->pending;
}

bool nb_xsk_tx_flush(struct nb_xsk *x, struct nb_error *err)
{
	reclaim(x);
	return x->pending == 0 || kick(x, err);
}

/* ---- receiving ---- */

uint32_t nb_xsk_rx_peek(struct nb_xsk *x, const uint8_t **data, uint32_t *lens, uint32_t n)
{
	uint32_t idx;
	if (n > NB_XSK_BATCH_MAX)
		n = NB_XSK_BATCH_MAX;
	n = xsk_ring_cons__peek(&x->rx, n, &idx);
	for (uint32_t i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&x->rx, idx + i);
		data[i] = x->area + d->addr;
		lens[i] = d->len;
		x->rx_addr[i] = d->addr & ~(uint64_t)(NB_XSK_FRAME_SIZE - 1);
	}
	return n;
}

/* Give the stashed frames to the fill ring, as many as it has room for. */
static void refill(struct nb_xsk *x)
{
	uint32_t idx, n = xsk_prod_nb_free(&x->fill, x->stash_n);
	if (n > x->stash_n)
		n = x->stash_n;
	if (n == 0 || xsk_ring_prod__reserve(&x->fill, n, &idx) != n)
		return;
	for (uint32_t i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&x->fill, idx + i) = x->stash[--x->stash_n];
	xsk_ring_prod__submit(&x->fill, n);
}

void nb_xsk_rx_release(struct nb_xsk *x, uint32_t n)
{
	xsk_ring_cons__release(&x->rx, n);
	for (uint32_t i = 0; i < n; i++)
		x->stash[x->stash_n++] = x->rx_addr[i];
	refill(x);
}

bool nb_xsk_rx_nap(struct nb_xsk *x, uint64_t ns, struct nb_error *err)
{
	refill(x);
	if (xsk_ring_prod__needs_wakeup(&x->fill) &&
	    recvfrom(nb_xsk_fd(x), NULL, 0, MSG_DONTWAIT, NULL, NULL) < 0 && errno != EAGAIN &&
	    errno != EBUSY && errno != EINTR)
		return nb_error_errno(err, errno, "xdp: queue %u: wake the driver", x->queue);
	nanosleep(&(struct timespec){ (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) }, NULL);
	return true;
}

bool nb_xsk_rx_wait(struct nb_xsk *x, int timeout_ms, struct nb_error *err)
{
	int fd = nb_xsk_fd(x);
	refill(x);
	if (x->busy_poll) {
		if (recvfrom(fd, NULL, 0, MSG_DONTWAIT, NULL, NULL) < 0 && errno != EAGAIN &&
		    errno != EBUSY && errno != EINTR)
			return nb_error_errno(err, errno, "xdp: queue %u: busy poll", x->queue);
		return true;
	}
	/* poll also wakes a driver that set need_wakeup on the fill ring. */
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, timeout_ms) < 0 && errno != EINTR)
		return nb_error_errno(err, errno, "xdp: queue %u: poll", x->queue);
	if (p.revents & (POLLERR | POLLNVAL))
		return nb_error_set(err, "xdp: queue %u: the socket failed (the interface went away?)",
				    x->queue);
	return true;
}

bool nb_xsk_stats(const struct nb_xsk *x, struct nb_xsk_stats *s, struct nb_error *err)
{
	struct xdp_statistics st;
	socklen_t len = sizeof(st);
	memset(&st, 0, sizeof(st));
	if (getsockopt(nb_xsk_fd(x), SOL_XDP, XDP_STATISTICS, &st, &len) < 0)
		return nb_error_errno(err, errno, "xdp: queue %u: XDP_STATISTICS", x->queue);
	*s = (struct nb_xsk_stats){
		.rx_dropped = st.rx_dropped, .rx_ring_full = st.rx_ring_full,
		.rx_fill_empty = st.rx_fill_ring_empty_descs, .rx_invalid = st.rx_invalid_descs,
		.tx_invalid = st.tx_invalid_descs, .tx_ring_empty = st.tx_ring_empty_descs,
	};
	return true;
}

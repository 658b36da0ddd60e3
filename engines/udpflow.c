/* nbrun — the batched UDP data path shared by stream and pps (see udpflow.h). */
#include "udpflow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "epoch.h"
#include "io.h"
#include "schedule.h"
#include "sock.h"

/* ---- sender ---- */

bool nb_udptx_start(struct nb_udptx *t, uint64_t num, uint64_t den, uint64_t burst_ns)
{
	prctl(PR_SET_TIMERSLACK, 1UL); /* wake-ups on time: late ones become bursts */
	if (!nb_sock_udp_send_errors(t->f->fd, &t->f->err))
		return false;
	nb_pacer_init(&t->pacer, num, den, burst_ns, nb_now_ns());
	t->cookie = nb_dgram_cookie(t->f->p->key, t->f->index);
	return true;
}

/* Stamp n datagrams with consecutive sequence numbers, each its own send time, and the epoch. */
static void stamp(struct nb_udptx *t, uint32_t n, uint32_t epoch)
{
	for (uint32_t i = 0; i < n; i++)
		nb_dgram_put(t->hdr + i * t->stride, t->seq + i, nb_now_ns(), t->cookie, epoch);
}

/* Send the n datagrams stamped with epoch; returns how many the kernel took, or -1 on a hard
 * error (errno). */
static int send_stamped(struct nb_udptx *t, uint32_t n, uint32_t epoch)
{
	struct nb_flow *f = t->f;
	int sent = t->send ? t->send(t, n) : sendmmsg(f->fd, t->msg, n, MSG_DONTWAIT);
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
	 * some, returns their number and forgets the error: an ICMP unreachable (the
	 * peer is gone) ends the flow like a refused first datagram; any other refusal
	 * is counted here. */
	if ((uint32_t)sent < n && nb_sock_peer_unreachable(f->fd)) {
		errno = ECONNREFUSED;
		return -1;
	}
	if ((uint32_t)sent < n)
		nb_count(f, NB_C_SND_ERRS, 1);
	t->seq += (uint64_t)sent;
	nb_count(f, NB_C_TX_PACKETS, (uint64_t)sent);
	nb_count(f, NB_C_TX_BYTES, (uint64_t)sent * f->p->size);
	nb_epoch_sent(f, epoch, (uint64_t)sent);
	return sent;
}

/* Stamp, send and count up to n datagrams inside one epoch (see epoch.h): a tick reading the
 * counters never sees a datagram tagged with its new epoch, nor misses one of the old. */
static int send_batch(struct nb_udptx *t, uint32_t n)
{
	uint32_t epoch = nb_flow_enter(t->f);
	stamp(t, n, epoch);
	int sent = send_stamped(t, n, epoch);
	int e = errno;
	nb_flow_leave(t->f);
	errno = e;
	return sent;
}

/* An ECONNREFUSED means the peer's port was closed when an earlier datagram arrived:
 * expected while the run winds down, an error before. */
static int send_failed(struct nb_udptx *t)
{
	struct nb_flow *f = t->f;
	if (nb_flow_quiet(f))
		return 0;
	return nb_error_errno(&f->err, errno, "flow %u: send", f->index), -1;
}

int nb_udptx_send(struct nb_udptx *t, uint32_t n)
{
	struct nb_flow *f = t->f;
	int sent = send_batch(t, n);
	if (sent < 0)
		return send_failed(t) == 0 ? -2 : -1;
	if (t->pacer.lag_new) { /* a release's oldest datagram: its schedule lag */
		nb_flow_lag(f, t->pacer.lag_due_ns, t->pacer.lag_at_ns);
		t->pacer.lag_new = false;
	}
	nb_pacer_sent(&t->pacer, (uint32_t)sent);
	nb_gauge_set(f, NB_G_MAX_BURST, t->pacer.max_run);
	atomic_store_explicit(&f->c[NB_C_PACE_FORGIVEN], t->pacer.forgiven, memory_order_relaxed);
	return sent;
}

int nb_udptx_step(struct nb_udptx *t)
{
	struct nb_flow *f = t->f;
	nb_io_rt_turn();
	uint32_t n = nb_pacer_wait(&t->pacer, t->per_call, f->quiesce);
	if (n == 0)
		return 0;
	int sent = nb_udptx_send(t, n);
	if (sent < 0)
		return sent == -2 ? 0 : -1;
	if (sent == 0 && nb_sock_wait(f->fd, true, f) < 0) /* refused: wait for room */
		return send_failed(t);
	return 1;
}

/* ---- receiver ---- */

void nb_udprx_free(struct nb_udprx *r)
{
	free(r->buf);
	free(r->ctl);
	free(r->msg);
	free(r->iov);
	r->buf = r->ctl = NULL;
	r->msg = NULL;
	r->iov = NULL;
}

bool nb_udprx_init(struct nb_udprx *r, struct nb_flow *f, uint32_t nmsg, size_t buflen,
		   size_t ctllen)
{
	ctllen += CMSG_SPACE(sizeof(struct timespec)); /* SCM_TIMESTAMPNS of every datagram */
	*r = (struct nb_udprx){ .f = f, .nmsg = nmsg, .buflen = buflen, .ctllen = ctllen };
	r->buf = malloc(nmsg * buflen);
	r->ctl = calloc(nmsg, ctllen);
	r->msg = calloc(nmsg, sizeof(*r->msg));
	r->iov = calloc(nmsg, sizeof(*r->iov));
	if (!r->buf || !r->ctl || !r->msg || !r->iov) {
		nb_udprx_free(r);
		return nb_error_set(&f->err, "flow %u: out of memory", f->index);
	}
	for (uint32_t i = 0; i < nmsg; i++) {
		r->iov[i] = (struct iovec){ r->buf + i * buflen, buflen };
		r->msg[i].msg_hdr.msg_iov = &r->iov[i];
		r->msg[i].msg_hdr.msg_iovlen = 1;
		r->msg[i].msg_hdr.msg_control = r->ctl + i * ctllen;
	}
	nb_seqrx_init(&r->seq, f);
	int one = 1;
	if (!nb_sock_set_rcvtimeo(f->fd, NB_UDPRX_SLICE_MS) ||
	    setsockopt(f->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0) {
		nb_udprx_free(r);
		return nb_error_errno(&f->err, errno, "flow %u: SO_RCVTIMEO / SO_TIMESTAMPNS", f->index);
	}
	return true;
}

uint64_t nb_udprx_stamp(const struct msghdr *h, int64_t real_to_mono_ns, uint64_t fallback_ns)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR((struct msghdr *)h, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
			continue;
		struct timespec ts;
		memcpy(&ts, CMSG_DATA(c), sizeof(ts));
		int64_t real = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		return (uint64_t)(real - real_to_mono_ns);
	}
	return fallback_ns;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC now: the kernel stamps received datagrams on the former. */
static int64_t real_to_mono(uint64_t mono_ns)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - (int64_t)mono_ns;
}

/* Account the n datagrams of one recvmmsg inside one epoch (see epoch.h), each at the time the
 * kernel received it (not one time for the whole call: that would make jitter measure batching). */
static void account(struct nb_udprx *r, int n)
{
	uint64_t now = nb_now_ns();
	int64_t off = real_to_mono(now);
	r->seq.cur = nb_flow_enter(r->f);
	for (int i = 0; i < n; i++) {
		uint64_t at = nb_udprx_stamp(&r->msg[i].msg_hdr, off, now);
		if (r->account)
			r->account(r, (uint32_t)i, at);
		else
			nb_seqrx_account(&r->seq, r->f, r->iov[i].iov_base, r->msg[i].msg_len, at);
	}
	nb_flow_leave(r->f);
}

int nb_udprx_once(struct nb_udprx *r, int flags)
{
	struct nb_flow *f = r->f;
	for (uint32_t i = 0; i < r->nmsg; i++)
		r->msg[i].msg_hdr.msg_controllen = r->ctllen;
	int n = recvmmsg(f->fd, r->msg, r->nmsg, flags, NULL);
	/* EAGAIN: the timeout (re-check stop); ECONNREFUSED: an ICMP from an earlier send. */
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
	    errno != ECONNREFUSED) {
		if (nb_flow_stopping(f))
			return -2;
		nb_error_errno(&f->err, errno, "flow %u: recvmmsg", f->index);
		return -1;
	}
	if (n > 0)
		account(r, n);
	return n > 0 ? n : 0;
}

int nb_udprx_run(struct nb_udprx *r)
{
	while (!nb_flow_stopping(r->f)) {
		int n = nb_udprx_once(r, MSG_WAITFORONE);
		if (n < 0)
			return n == -2 ? 0 : -1;
	}
	return 0;
}

void nb_udpflow_kernel_counters(struct nb_flow *f)
{
	uint32_t drops;
	if (!f->sends && nb_sock_rcv_drops(f->fd, &drops))
		nb_count_wrapped32(f, NB_C_RCVBUF_DROPS, drops);
}

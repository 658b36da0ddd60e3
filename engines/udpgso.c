/* nbrun — UDP GSO and GRO for the UDP test flows (see udpgso.h). */
#include "udpgso.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

const char *nb_gso_name(enum nb_gso g)
{
	static const char *const names[NB_GSO_COUNT] = { "", "off", "on", "unsupported" };
	return (unsigned)g < NB_GSO_COUNT ? names[g] : "";
}

const char *nb_gro_name(enum nb_gro g)
{
	static const char *const names[NB_GRO_COUNT] = { "", "off", "on" };
	return (unsigned)g < NB_GRO_COUNT ? names[g] : "";
}

uint32_t nb_udpgso_segs(uint32_t size)
{
	uint32_t fit = NB_UDP_MAX_PAYLOAD / (size ? size : 1);
	fit = fit < NB_GSO_SEGS_MAX ? fit : NB_GSO_SEGS_MAX;
	return fit ? fit : 1;
}

/* ---- sender ---- */

/* What the kernel or the route answers when it cannot do GSO at all (see udpgso.h). */
static bool gso_refused(int e)
{
	return e == EIO || e == EINVAL || e == EMSGSIZE || e == ENOPROTOOPT || e == EOPNOTSUPP;
}

/* One GSO send of the n stamped datagrams; refused as such, the same n by sendmmsg, and the
 * flow stays there. Returns as sendmmsg does. */
static int send_gso(struct nb_udptx *t, uint32_t n)
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
	if (sendmsg(t->f->fd, &m, MSG_DONTWAIT) >= 0)
		return (int)n;
	if (!gso_refused(errno))
		return -1;
	t->send = NULL;
	nb_gauge_set(t->f, NB_G_GSO, NB_GSO_UNSUPPORTED);
	return sendmmsg(t->f->fd, t->msg, n, MSG_DONTWAIT);
}

void nb_udpgso_tx_free(struct nb_udpgso_tx *t)
{
	free(t->tx.hdr);
	free(t->msg);
	free(t->iov);
	t->tx.hdr = NULL;
	t->msg = NULL;
	t->iov = NULL;
}

bool nb_udpgso_tx_init(struct nb_udpgso_tx *t, struct nb_flow *f, uint32_t per_call, bool gso)
{
	size_t size = f->p->size;
	bool on = gso && per_call >= 2 && per_call <= nb_udpgso_segs(f->p->size);
	*t = (struct nb_udpgso_tx){ .tx = { .f = f, .stride = size, .per_call = per_call,
					    .send = on ? send_gso : NULL } };
	t->tx.hdr = calloc(per_call, size);
	t->msg = calloc(per_call, sizeof(*t->msg));
	t->iov = calloc(per_call, sizeof(*t->iov));
	if (!t->tx.hdr || !t->msg || !t->iov) {
		nb_udpgso_tx_free(t);
		return nb_error_set(&f->err, "flow %u: out of memory", f->index);
	}
	for (uint32_t i = 0; i < per_call; i++) {
		t->iov[i] = (struct iovec){ t->tx.hdr + (size_t)i * size, size };
		t->msg[i].msg_hdr.msg_iov = &t->iov[i];
		t->msg[i].msg_hdr.msg_iovlen = 1;
	}
	t->tx.msg = t->msg;
	nb_gauge_set(f, NB_G_GSO, on ? NB_GSO_ON : NB_GSO_OFF);
	return true;
}

/* ---- receiver ---- */

/* The segment size of a coalesced buffer from its control data (0 = one datagram). */
static size_t gro_segment(struct msghdr *h)
{
	int seg = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c))
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO)
			memcpy(&seg, CMSG_DATA(c), sizeof(seg));
	return seg > 0 ? (size_t)seg : 0;
}

void nb_udpgso_account(struct nb_udprx *r, uint32_t i, uint64_t recv_ns)
{
	size_t len = r->msg[i].msg_len, seg = gro_segment(&r->msg[i].msg_hdr);
	const unsigned char *b = r->iov[i].iov_base;
	if (seg == 0 || seg >= len) {
		nb_seqrx_account(&r->seq, r->f, b, len, recv_ns);
		return;
	}
	for (size_t off = 0; off < len; off += seg)
		nb_seqrx_account(&r->seq, r->f, b + off, len - off < seg ? len - off : seg,
				 off ? 0 : recv_ns);
}

bool nb_udpgso_gro_on(int fd)
{
	int one = 1;
	return setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) == 0;
}

bool nb_udpgso_rx_init(struct nb_udprx *r, struct nb_flow *f, bool gro, uint32_t nmsg, size_t buflen)
{
	bool on = gro && nb_udpgso_gro_on(f->fd);
	nb_gauge_set(f, NB_G_GRO, on ? NB_GRO_ON : NB_GRO_OFF);
	if (!on)
		return nb_udprx_init(r, f, nmsg, buflen, 0);
	if (!nb_udprx_init(r, f, NB_GRO_BATCH, NB_GRO_BUF, CMSG_SPACE(sizeof(int))))
		return false;
	r->account = nb_udpgso_account;
	return true;
}

/* nbrun — a UDP test flow as non-blocking steps (see udpstep.h). */
#include "udpstep.h"

#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "pace.h"
#include "sock.h"
#include "udpgso.h"

struct udpstep {
	struct nb_udpgso_tx tx;
	struct nb_udprx rx;
	uint64_t deadline;      /* sender: the timed step asked for (0: none) */
};

bool nb_udpstep_open(struct nb_flow *f, const struct nb_udpstep_setup *u, struct nb_flow_wants *w)
{
	struct udpstep *st = calloc(1, sizeof(*st));
	if (!st)
		return nb_error_set(&f->err, "flow %u: out of memory", f->index);
	*w = (struct nb_flow_wants){ .events = EPOLLIN };
	if (!f->sends) {
		if (!nb_udpgso_rx_init(&st->rx, f, u->gro, u->nmsg, u->buflen)) {
			free(st);
			return false;
		}
		nb_seqrx_set_rate(&st->rx.seq, u->rate);
		f->run = st;
		return true;
	}
	if (!nb_udpgso_tx_init(&st->tx, f, u->per_call, u->gso)) {
		free(st);
		return false;
	}
	nb_gauge_set(f, NB_G_PACING, u->pacing);
	if (!nb_udptx_start(&st->tx.tx, u->num, u->den, u->burst_ns)) {
		nb_udpgso_tx_free(&st->tx);
		free(st);
		return false;
	}
	*w = (struct nb_flow_wants){ .at_ns = 1 }; /* at once */
	f->run = st;
	return true;
}

void nb_udpstep_close(struct nb_flow *f)
{
	struct udpstep *st = f->run;
	if (!st)
		return;
	if (f->sends)
		nb_udpgso_tx_free(&st->tx);
	else
		nb_udprx_free(&st->rx);
	free(st);
	f->run = NULL;
}

static int recv_step(struct udpstep *st, struct nb_flow *f)
{
	if (nb_flow_stopping(f))
		return 0;
	int n = nb_udprx_once(&st->rx, MSG_DONTWAIT);
	return n == -2 ? 0 : n < 0 ? -1 : 1;
}

static int send_step(struct udpstep *st, struct nb_flow *f, uint32_t events, uint64_t now,
		     struct nb_flow_wants *w)
{
	struct nb_udptx *t = &st->tx.tx;
	if (nb_flow_quiet(f))
		return 0;
	if ((events & EPOLLERR) && nb_sock_peer_unreachable(f->fd))
		return nb_flow_quiet(f) ? 0 : (nb_error_set(&f->err, "flow %u: send: the peer is "
							  "unreachable", f->index), -1);
	if (events == 0 && st->deadline && now >= st->deadline)
		nb_pacer_woke(&t->pacer, now - st->deadline);
	st->deadline = 0;
	uint64_t wait;
	uint32_t n = nb_pacer_due(&t->pacer, now, t->per_call, &wait);
	if (n == 0) {
		uint64_t sleep = nb_pacer_sleep_ns(&t->pacer, wait);
		*w = (struct nb_flow_wants){ .at_ns = now + sleep };
		st->deadline = sleep ? now + sleep : 0; /* 0: spin, no lateness to learn */
		return 1;
	}
	int sent = nb_udptx_send(t, n);
	if (sent < 0)
		return sent == -2 ? 0 : -1;
	/* Refused, or unpaced: wait for room; paced: step again at once (the rest of a release,
	 * or the wait for the next batch). */
	if (sent == 0 || t->pacer.frac_num == 0)
		*w = (struct nb_flow_wants){ .events = EPOLLOUT };
	else
		*w = (struct nb_flow_wants){ .at_ns = now };
	return 1;
}

int nb_udpstep_step(struct nb_flow *f, uint32_t events, uint64_t now_ns, struct nb_flow_wants *w)
{
	struct udpstep *st = f->run;
	return f->sends ? send_step(st, f, events, now_ns, w) : recv_step(st, f);
}

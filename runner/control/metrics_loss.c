/* The loss budget of a UDP case: where the datagrams `lost` counts went, from each end's host
 * counters (engines/lossstats.h) over the span. The sending end(s) may drop at their root qdisc
 * and interface, the receiving end(s) at their interface, IP, UDP and the socket's buffer (the
 * socket's own count, rcvbuf_drops, exact); what none of them holds was lost on the path.
 *
 * A qdisc drop of our own datagram comes back to the sending socket as ENOBUFS (every UDP
 * sender sets IP_RECVERR): nbrun counts it in snd_errs, keeps its sequence number and never
 * counts it sent, so it is never loss. Only qdisc drops beyond snd_errs (someone else's, or a
 * GSO buffer the qdisc cut) can be part of `lost`. The host counters are the whole namespace's:
 * when the parts add up to more than the loss, other traffic moved them (or drops at the window's
 * edge: each end reads its counters at its own ticks), and the budget says by how much
 * (lb_excess > 0: noisy, no lb_path) instead of inventing a split. docs/reports.md. */
#include "metrics.h"

#include <math.h>

#include "lossstats.h"

/* Counter i's growth on one end from a to b; NAN when either reading lacks it or it went back. */
static double grow(const struct nb_snapshot *a, const struct nb_snapshot *b, int i)
{
	uint32_t bit = 1u << i;
	if (!a->has_loss || !b->has_loss || !(a->loss_ok & bit) || !(b->loss_ok & bit) ||
	    b->loss[i] < a->loss[i])
		return NAN;
	return (double)(b->loss[i] - a->loss[i]);
}

/* Whether an end has a flow that sends (role 1) or one that receives (role 0). */
static bool has_role(const struct nb_snapshot *s, bool sends)
{
	for (uint32_t f = 0; f < s->nflows; f++)
		if (s->flow[f].sends == sends)
			return true;
	return false;
}

struct budget {
	double tx_qdisc, tx_if, rx_if, rx_ip, rx_udp;
};

/* One end's share: its sender-side counters when it sends, its receiver-side ones when it
 * receives (a bidir end both). */
static void add_end(const struct nb_snapshot *a, const struct nb_snapshot *b, struct budget *g)
{
	if (has_role(b, true)) {
		g->tx_qdisc += grow(a, b, NB_L_QDISC_DROPS);
		g->tx_if += grow(a, b, NB_L_IF_TX_DROPPED) + grow(a, b, NB_L_IF_TX_ERRORS);
	}
	if (has_role(b, false)) {
		g->rx_if += grow(a, b, NB_L_IF_RX_DROPPED) + grow(a, b, NB_L_IF_RX_MISSED) +
			    grow(a, b, NB_L_IF_RX_ERRORS);
		g->rx_ip += grow(a, b, NB_L_IP_IN_DROPS);
		/* InErrors counts the receive-buffer drops too: those are the socket's part */
		g->rx_udp += grow(a, b, NB_L_UDP_IN_ERRORS) - grow(a, b, NB_L_UDP_RCVBUF);
	}
}

void nb_metrics_loss_budget(const struct nb_engine *e, const struct nb_params *p,
			    const struct nb_span *s, struct nb_metrics *m)
{
	double lost = m->v[NB_COL_LOST];
	if (p->proto != NB_PROTO_UDP || !e->traits.directional || nb_engine_agentless(e) ||
	    !isfinite(lost))
		return;
	struct budget g = { 0 };
	add_end(s->l0, s->l1, &g);
	add_end(s->p0, s->p1, &g);
	m->v[NB_COL_LB_TX_QDISC] = g.tx_qdisc;
	m->v[NB_COL_LB_TX_IF] = g.tx_if;
	m->v[NB_COL_LB_RX_IF] = g.rx_if;
	m->v[NB_COL_LB_RX_IP] = g.rx_ip;
	m->v[NB_COL_LB_RX_UDP] = g.rx_udp < 0 ? NAN : g.rx_udp;
	double refused = isfinite(m->v[NB_COL_SND_ERRS]) ? m->v[NB_COL_SND_ERRS] : 0;
	double sock = isfinite(m->v[NB_COL_RCVBUF_DROPS]) ? m->v[NB_COL_RCVBUF_DROPS] : 0;
	double parts = fmax(0, g.tx_qdisc - refused) + g.tx_if + g.rx_if + g.rx_ip +
		       m->v[NB_COL_LB_RX_UDP] + sock;
	if (!isfinite(parts))
		return; /* a part no end could read: no path figure, not noisy either */
	m->v[NB_COL_LB_EXCESS] = fmax(0, parts - lost);
	m->v[NB_COL_LB_PATH] = parts > lost ? NAN : lost - parts;
}

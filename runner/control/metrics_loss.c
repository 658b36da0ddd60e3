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

struct nb_lossstats nb_metrics_loss_of(const struct nb_snapshot *s)
{
	struct nb_lossstats l = { .ok = s && s->has_loss ? s->loss_ok : 0 };
	for (int i = 0; s && i < NB_L_COUNT; i++)
		l.v[i] = s->loss[i];
	return l;
}

/* Counter i's growth on one end from a to b; NAN when either reading lacks it or it went back. */
static double grow(const struct nb_lossstats *a, const struct nb_lossstats *b, int i)
{
	uint32_t bit = 1u << i;
	if (!(a->ok & bit) || !(b->ok & bit) || b->v[i] < a->v[i])
		return NAN;
	return (double)(b->v[i] - a->v[i]);
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

/* One end's share from its readings a to b: its sender-side counters when it sends, its
 * receiver-side ones when it receives (a bidir end both); roles from the later snapshot sb. */
static void add_end(const struct nb_lossstats *a, const struct nb_lossstats *b,
		    const struct nb_snapshot *sb, struct budget *g)
{
	if (has_role(sb, true)) {
		g->tx_qdisc += grow(a, b, NB_L_QDISC_DROPS);
		g->tx_if += grow(a, b, NB_L_IF_TX_DROPPED) + grow(a, b, NB_L_IF_TX_ERRORS);
	}
	if (has_role(sb, false)) {
		g->rx_if += grow(a, b, NB_L_IF_RX_DROPPED) + grow(a, b, NB_L_IF_RX_MISSED) +
			    grow(a, b, NB_L_IF_RX_ERRORS);
		g->rx_ip += grow(a, b, NB_L_IP_IN_DROPS);
		/* InErrors counts the receive-buffer drops too: those are the socket's part */
		g->rx_udp += grow(a, b, NB_L_UDP_IN_ERRORS) - grow(a, b, NB_L_UDP_RCVBUF);
	}
}

/* What the budget covers, and of it what the flows' own counts place. */
struct covers {
	double sent, lost, refused, sock;
};

static double or0(double v)
{
	return isfinite(v) ? v : 0;
}

/* The lb_* columns from the ends' shares g over a span that covers c. */
static void settle(const struct budget *g, const struct covers *c, struct nb_metrics *m)
{
	m->v[NB_COL_LB_TX_QDISC] = g->tx_qdisc;
	m->v[NB_COL_LB_TX_IF] = g->tx_if;
	m->v[NB_COL_LB_RX_IF] = g->rx_if;
	m->v[NB_COL_LB_RX_IP] = g->rx_ip;
	m->v[NB_COL_LB_RX_UDP] = g->rx_udp < 0 ? NAN : g->rx_udp;
	m->v[NB_COL_LB_SENT] = c->sent;
	m->v[NB_COL_LB_LOST] = c->lost;
	m->v[NB_COL_LB_SND_ERRS] = c->refused;
	m->v[NB_COL_LB_RCVBUF] = c->sock;
	double parts = fmax(0, g->tx_qdisc - or0(c->refused)) + g->tx_if + g->rx_if + g->rx_ip +
		       m->v[NB_COL_LB_RX_UDP] + or0(c->sock);
	if (!isfinite(parts))
		return; /* a part no end could read: no path figure, not noisy either */
	m->v[NB_COL_LB_EXCESS] = fmax(0, parts - c->lost);
	m->v[NB_COL_LB_PATH] = parts > c->lost ? NAN : c->lost - parts;
}

static bool has_budget(const struct nb_engine *e, const struct nb_params *p)
{
	return p->proto == NB_PROTO_UDP && e->traits.directional && !nb_engine_agentless(e);
}

void nb_metrics_loss_budget(const struct nb_engine *e, const struct nb_params *p,
			    const struct nb_span *s, struct nb_metrics *m)
{
	double lost = m->v[NB_COL_LOST];
	if (!has_budget(e, p) || !isfinite(lost))
		return;
	struct budget g = { 0 };
	struct nb_lossstats l0 = nb_metrics_loss_of(s->l0), l1 = nb_metrics_loss_of(s->l1);
	struct nb_lossstats p0 = nb_metrics_loss_of(s->p0), p1 = nb_metrics_loss_of(s->p1);
	add_end(&l0, &l1, s->l1, &g);
	add_end(&p0, &p1, s->p1, &g);
	struct covers c = { m->v[NB_COL_TX_PACKETS], lost, m->v[NB_COL_SND_ERRS],
			    m->v[NB_COL_RCVBUF_DROPS] };
	settle(&g, &c, m);
}

/* The flows' whole-test counts at an end's last reading (they count from 0; the socket's drop
 * counter from the socket's creation). */
static void flows_whole(const struct nb_snapshot *s, struct covers *c, double *received)
{
	for (uint32_t f = 0; f < s->nflows; f++) {
		const uint64_t *v = s->flow[f].c;
		if (s->flow[f].sends) {
			c->sent += (double)v[NB_C_TX_PACKETS];
			c->refused += (double)v[NB_C_SND_ERRS];
		} else {
			*received += (double)v[NB_C_RX_PACKETS] - (double)v[NB_C_DUP];
			c->sock += (double)v[NB_C_RCVBUF_DROPS];
		}
	}
}

void nb_metrics_loss_budget_run(const struct nb_engine *e, const struct nb_params *p,
				const struct nb_lossstats *lpre, const struct nb_snapshot *lpost,
				const struct nb_lossstats *ppre, const struct nb_snapshot *ppost,
				struct nb_metrics *m)
{
	if (!has_budget(e, p) || !isfinite(m->v[NB_COL_LOST]))
		return;
	struct covers c = { 0 };
	double received = 0;
	flows_whole(lpost, &c, &received);
	flows_whole(ppost, &c, &received);
	c.lost = c.sent - received;
	for (int i = NB_COL_LB_TX_QDISC; i <= NB_COL_LB_RCVBUF; i++)
		m->v[i] = NAN;
	if (c.lost < 0)
		return; /* more received than sent (not the test's datagrams): no budget */
	struct budget g = { 0 };
	struct nb_lossstats l1 = nb_metrics_loss_of(lpost), p1 = nb_metrics_loss_of(ppost);
	add_end(lpre, &l1, lpost, &g);
	add_end(ppre, &p1, ppost, &g);
	settle(&g, &c, m);
}

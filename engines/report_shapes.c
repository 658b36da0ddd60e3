/* nbrun — the two shapes of columns that several engines' report ops share (engine.h `report`):
 * a directional engine's (stream, pps: one sender and one receiver per flow) and a round-trip
 * engine's (rr, crr, latency, icmp, connect: the client's counters say everything).
 *
 * Directional, TCP: tx columns come from the sender's kernel counts over its own interval, rx
 * columns from the receiver's over its own. UDP: the datagrams the sender sent in its interval
 * (its epoch), and of those the ones the receiver got, settled at the receiver's next reading
 * (epoch.h): lost = tx - rx in every row, and both rates are per the sender's interval. */
#include "report_shapes.h"

#include <math.h>

#include "params.h"

/* One flow's readings over a span: its sender's, its receiver's, and the receiver's next
 * readings, where the epochs that end at s0 and s1 were settled (epoch.h). */
struct ends {
	const struct nb_snapshot *s0, *s1, *r0, *r1, *r0n, *r1n;
	double min_s;  /* the span's shortest length with a rate */
};

static struct ends ends_of(const struct nb_params *p, const struct nb_span *s, uint32_t f)
{
	if (nb_params_dir_client_sends(p, f))
		return (struct ends){ s->l0, s->l1, s->p0, s->p1, s->p0n, s->p1n, s->min_s };
	return (struct ends){ s->p0, s->p1, s->l0, s->l1, s->l0n, s->l1n, s->min_s };
}

/* UDP: the datagrams the sender sent in its interval and those of them the receiver got,
 * wherever they arrived (NB_C_RX_SETTLED): lost = tx - rx exactly, and the rates are per the
 * sender's interval, the one those datagrams belong to. */
static void udp_flow(const struct nb_params *p, const struct ends *e, uint32_t f,
		     double acc[NB_COL_COUNT])
{
	double dt = nb_span_rate_dt(e->s0, e->s1, e->min_s);
	double txp = nb_span_diff(e->s0, e->s1, f, NB_C_TX_SETTLED);
	double rxp = nb_span_diff(e->r0n, e->r1n, f, NB_C_RX_SETTLED);
	double txb = txp * p->size, rxb = rxp * p->size;
	acc[NB_COL_TX_PACKETS] += txp;
	acc[NB_COL_RX_PACKETS] += rxp;
	acc[NB_COL_TX_BYTES] += txb;
	acc[NB_COL_RX_BYTES] += rxb;
	acc[NB_COL_TX_BPS] += nb_span_per_s(txb * 8, dt);
	acc[NB_COL_RX_BPS] += nb_span_per_s(rxb * 8, dt);
	acc[NB_COL_TX_PPS] += nb_span_per_s(txp, dt);
	acc[NB_COL_RX_PPS] += nb_span_per_s(rxp, dt);
	acc[NB_COL_LOST] += txp - rxp;
	acc[NB_COL_LATE] += nb_span_diff(e->r0, e->r1, f, NB_C_LATE);
	acc[NB_COL_FOREIGN] += nb_span_diff(e->r0, e->r1, f, NB_C_FOREIGN);
}

/* TCP: each end's kernel counts over its own interval (bytes sent with retransmissions, bytes
 * received in order: TCP_INFO, read at the tick). */
static void tcp_flow(const struct ends *e, uint32_t f, double acc[NB_COL_COUNT])
{
	double sdt = nb_span_rate_dt(e->s0, e->s1, e->min_s), rdt = nb_span_rate_dt(e->r0, e->r1, e->min_s);
	double txb = nb_span_diff(e->s0, e->s1, f, NB_C_TX_BYTES), rxb = nb_span_diff(e->r0, e->r1, f, NB_C_RX_BYTES);
	double txp = nb_span_diff(e->s0, e->s1, f, NB_C_TX_PACKETS), rxp = nb_span_diff(e->r0, e->r1, f, NB_C_RX_PACKETS);
	acc[NB_COL_TX_BYTES] += txb;
	acc[NB_COL_RX_BYTES] += rxb;
	acc[NB_COL_TX_PACKETS] += txp;
	acc[NB_COL_RX_PACKETS] += rxp;
	acc[NB_COL_TX_BPS] += nb_span_per_s(txb * 8, sdt);
	acc[NB_COL_RX_BPS] += nb_span_per_s(rxb * 8, rdt);
	acc[NB_COL_TX_PPS] += nb_span_per_s(txp, sdt);
	acc[NB_COL_RX_PPS] += nb_span_per_s(rxp, rdt);
	acc[NB_COL_RETRANS] += nb_span_diff(e->s0, e->s1, f, NB_C_RETRANS);
	acc[NB_COL_CWND] += (double)e->s1->flow[f].g[NB_G_CWND];
	acc[NB_COL_SRTT_US] += (double)e->s1->flow[f].g[NB_G_SRTT_US];
	acc[NB_COL_BYTES_RETRANS] += nb_span_diff(e->s0, e->s1, f, NB_C_BYTES_RETRANS);
	/* the lowest of the flows' lowest RTTs (the kernel's ~0U: no sample yet), 0 = none */
	double min_rtt = (double)e->s1->flow[f].g[NB_G_MIN_RTT_US];
	if (min_rtt > 0 && min_rtt < UINT32_MAX &&
	    (acc[NB_COL_MIN_RTT_US] == 0 || min_rtt < acc[NB_COL_MIN_RTT_US]))
		acc[NB_COL_MIN_RTT_US] = min_rtt;
}

/* One flow of a directional engine: tx from its sender, rx from its receiver. */
static void directional_flow(const struct nb_params *p, const struct nb_span *s, uint32_t f,
			     double acc[NB_COL_COUNT], double *jitter_sum, uint32_t *receivers)
{
	struct ends e = ends_of(p, s, f);
	if (p->proto == NB_PROTO_UDP)
		udp_flow(p, &e, f, acc);
	else
		tcp_flow(&e, f, acc);
	acc[NB_COL_DUP] += nb_span_diff(e.r0, e.r1, f, NB_C_DUP);
	acc[NB_COL_REORDER] += nb_span_diff(e.r0, e.r1, f, NB_C_REORDER);
	acc[NB_COL_RCVBUF_DROPS] += nb_span_diff(e.r0, e.r1, f, NB_C_RCVBUF_DROPS);
	acc[NB_COL_SND_ERRS] += nb_span_diff(e.s0, e.s1, f, NB_C_SND_ERRS);
	acc[NB_COL_PACE_FORGIVEN] += nb_span_diff(e.s0, e.s1, f, NB_C_PACE_FORGIVEN);
	if ((double)e.s1->flow[f].g[NB_G_MAX_BURST] > acc[NB_COL_MAX_BURST])
		acc[NB_COL_MAX_BURST] = (double)e.s1->flow[f].g[NB_G_MAX_BURST];
	/* jitter is a difference between datagrams: a receiver that got fewer than two has none */
	if (nb_span_diff(e.r0, e.r1, f, NB_C_RX_PACKETS) >= 2) {
		*jitter_sum += (double)e.r1->flow[f].g[NB_G_JITTER_NS] / 1000.0;
		(*receivers)++;
	}
}

void nb_report_directional(const struct nb_engine *e, const struct nb_params *p,
			   const struct nb_span *s, uint32_t lo, uint32_t hi, struct nb_metrics *m)
{
	double acc[NB_COL_COUNT] = { 0 };
	double jitter = 0;
	uint32_t n = 0;
	for (uint32_t f = lo; f < hi; f++)
		directional_flow(p, s, f, acc, &jitter, &n);
	static const enum nb_col summed[] = {
		NB_COL_TX_BYTES, NB_COL_RX_BYTES, NB_COL_TX_PACKETS, NB_COL_RX_PACKETS, NB_COL_TX_BPS,
		NB_COL_RX_BPS, NB_COL_TX_PPS, NB_COL_RX_PPS, NB_COL_SND_ERRS, NB_COL_RCVBUF_DROPS,
	};
	for (size_t i = 0; i < sizeof(summed) / sizeof(summed[0]); i++)
		m->v[summed[i]] = acc[summed[i]];
	if (p->proto == NB_PROTO_UDP) {
		m->v[NB_COL_LOST] = acc[NB_COL_LOST];
		m->v[NB_COL_LOSS_PCT] = nb_span_pct(acc[NB_COL_LOST], acc[NB_COL_TX_PACKETS]);
		m->v[NB_COL_DUP] = acc[NB_COL_DUP];
		m->v[NB_COL_REORDER] = acc[NB_COL_REORDER];
		m->v[NB_COL_LATE] = acc[NB_COL_LATE];
		m->v[NB_COL_FOREIGN] = acc[NB_COL_FOREIGN];
		m->v[NB_COL_JITTER_US] = n ? jitter / n : NAN;
		m->v[NB_COL_MAX_BURST] = acc[NB_COL_MAX_BURST];
		m->v[NB_COL_PACE_FORGIVEN] = p->rate ? acc[NB_COL_PACE_FORGIVEN] : NAN;
	} else {
		m->v[NB_COL_RETRANS] = acc[NB_COL_RETRANS];
		m->v[NB_COL_CWND] = acc[NB_COL_CWND];
		m->v[NB_COL_SRTT_US] = n ? acc[NB_COL_SRTT_US] / n : NAN;
		m->v[NB_COL_BYTES_RETRANS] = acc[NB_COL_BYTES_RETRANS];
		m->v[NB_COL_MIN_RTT_US] = acc[NB_COL_MIN_RTT_US] > 0 ? acc[NB_COL_MIN_RTT_US] : NAN;
		m->v[NB_COL_RCVBUF_DROPS] = NAN;
		m->v[NB_COL_SND_ERRS] = NAN;
	}
	if (p->rate) {
		bool pps = e->traits.rate == NB_RATE_KIND_PACKETS;
		m->v[NB_COL_TARGET_RATE] = (double)p->rate * (hi - lo);
		m->v[NB_COL_ACHIEVED_RATE] = pps ? acc[NB_COL_TX_PPS] : acc[NB_COL_TX_BPS];
	}
}

void nb_report_round_trips(const struct nb_engine *e, const struct nb_params *p,
			   const struct nb_span *s, uint32_t lo, uint32_t hi, struct nb_metrics *m)
{
	(void)e;
	const struct nb_snapshot *a = s->l0, *b = s->l1;
	double dt = nb_span_rate_dt(a, b, s->min_s);
	m->v[NB_COL_TX_BYTES] = nb_span_sum(a, b, lo, hi, NB_C_TX_BYTES);
	m->v[NB_COL_RX_BYTES] = nb_span_sum(a, b, lo, hi, NB_C_RX_BYTES);
	m->v[NB_COL_TX_PACKETS] = nb_span_sum(a, b, lo, hi, NB_C_TX_PACKETS);
	m->v[NB_COL_RX_PACKETS] = nb_span_sum(a, b, lo, hi, NB_C_RX_PACKETS);
	m->v[NB_COL_TX_BPS] = nb_span_per_s(m->v[NB_COL_TX_BYTES] * 8, dt);
	m->v[NB_COL_RX_BPS] = nb_span_per_s(m->v[NB_COL_RX_BYTES] * 8, dt);
	m->v[NB_COL_TX_PPS] = nb_span_per_s(m->v[NB_COL_TX_PACKETS], dt);
	m->v[NB_COL_RX_PPS] = nb_span_per_s(m->v[NB_COL_RX_PACKETS], dt);
	double trans = nb_span_sum(a, b, lo, hi, NB_C_TRANSACTIONS);
	m->v[NB_COL_TRANS] = trans;
	m->v[NB_COL_TRANS_PER_S] = nb_span_per_s(trans, dt);
	if (p->proto == NB_PROTO_UDP)
		m->v[NB_COL_TIMEOUTS] = nb_span_sum(a, b, lo, hi, NB_C_TIMEOUTS);
	double conns = nb_span_sum(a, b, lo, hi, NB_C_CONNECTS);
	if (conns > 0)
		m->v[NB_COL_CONNECT_US] = nb_span_sum(a, b, lo, hi, NB_C_CONNECT_NS) / conns / 1000.0;
	if (p->rate) {
		m->v[NB_COL_TARGET_RATE] = (double)p->rate * (hi - lo);
		m->v[NB_COL_ACHIEVED_RATE] = m->v[NB_COL_TX_PPS];
	}
}

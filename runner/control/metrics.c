#include "metrics.h"

#include <math.h>

#include "params.h"
#include "stats.h"
#include "summary.h"

enum nb_col nb_metrics_headline(const struct nb_engine *e)
{
	int col = nb_col_find(e->traits.headline.column);
	return col < 0 ? NB_COL_DURATION_S : (enum nb_col)col; /* test_engines: never < 0 */
}

static double dt_s(const struct nb_snapshot *a, const struct nb_snapshot *b)
{
	return b->t_ns >= a->t_ns ? (double)(b->t_ns - a->t_ns) / 1e9 : NAN;
}

/* A cumulative counter's growth; one that went back is no number (never a silent wrap). */
static double cdiff(const struct nb_snapshot *a, const struct nb_snapshot *b, uint32_t f,
		    enum nb_counter c)
{
	return b->flow[f].c[c] >= a->flow[f].c[c] ? (double)(b->flow[f].c[c] - a->flow[f].c[c]) : NAN;
}

double nb_metrics_catch_up_s(const struct nb_timeline *tl, uint32_t k)
{
	double len = k ? (double)(nb_timeline_tick_offset(tl, k) - nb_timeline_tick_offset(tl, k - 1)) / 1e9
		       : 0;
	return fmax(0.5 * len, NB_METRICS_MIN_SPAN_S);
}

static double per_s(double v, double dt)
{
	return dt >= NB_METRICS_MIN_SPAN_S ? v / dt : NAN;
}

/* The time a rate of the span divides by: none (NAN) for a span shorter than its minimum. */
static double rate_dt(const struct nb_snapshot *a, const struct nb_snapshot *b, double min_s)
{
	double dt = dt_s(a, b);
	return dt >= min_s ? dt : NAN;
}

/* Sum of counter c over the flows in [lo, hi) on one end. */
static double csum(const struct nb_snapshot *a, const struct nb_snapshot *b, uint32_t lo,
		   uint32_t hi, enum nb_counter c)
{
	double v = 0;
	for (uint32_t f = lo; f < hi; f++)
		v += cdiff(a, b, f, c);
	return v;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : NAN;
}

/* CPU and host columns, and interface rates, for both ends. */
static void cpu_and_if(const struct nb_span *s, struct nb_metrics *m)
{
	double ldt = rate_dt(s->l0, s->l1, s->min_s), pdt = rate_dt(s->p0, s->p1, s->min_s);
	m->v[NB_COL_CPU_LOCAL_PCT] = per_s((double)(s->l1->engine_cpu_ns - s->l0->engine_cpu_ns) / 1e7, ldt);
	m->v[NB_COL_CPU_PEER_PCT] = per_s((double)(s->p1->engine_cpu_ns - s->p0->engine_cpu_ns) / 1e7, pdt);
	m->v[NB_COL_HOST_CPU_LOCAL_PCT] = pct((double)(s->l1->host_busy_ticks - s->l0->host_busy_ticks),
					      (double)(s->l1->host_total_ticks - s->l0->host_total_ticks));
	m->v[NB_COL_HOST_CPU_PEER_PCT] = pct((double)(s->p1->host_busy_ticks - s->p0->host_busy_ticks),
					     (double)(s->p1->host_total_ticks - s->p0->host_total_ticks));
	const struct nb_snapshot *ends[2][2] = { { s->l0, s->l1 }, { s->p0, s->p1 } };
	const enum nb_col first[2] = { NB_COL_IF_LOCAL_RXPCK_S, NB_COL_IF_PEER_RXPCK_S };
	for (int e = 0; e < 2; e++) {
		const struct nb_snapshot *a = ends[e][0], *b = ends[e][1];
		double dt = rate_dt(a, b, s->min_s);
		if (!a->has_if || !b->has_if)
			continue;
		m->v[first[e] + 0] = per_s((double)(b->if_stats[0] - a->if_stats[0]), dt);
		m->v[first[e] + 1] = per_s((double)(b->if_stats[1] - a->if_stats[1]), dt);
		/* sar's kB: 1024 bytes */
		m->v[first[e] + 2] = per_s((double)(b->if_stats[2] - a->if_stats[2]) / 1024.0, dt);
		m->v[first[e] + 3] = per_s((double)(b->if_stats[3] - a->if_stats[3]) / 1024.0, dt);
		m->v[first[e] + 4] = per_s((double)(b->if_stats[4] - a->if_stats[4]), dt);
	}
}

/* One flow's readings over a span: its sender's, its receiver's, and the receiver's next
 * readings, where the epochs that end at s0 and s1 were settled (epoch.h). */
struct ends {
	const struct nb_snapshot *s0, *s1, *r0, *r1, *r0n, *r1n;
	double min_s;  /* the span's shortest length with a rate */
};

static struct ends ends_of(const struct nb_params *p, const struct nb_span *s, uint32_t f)
{
	if (nb_params_client_sends(p, f))
		return (struct ends){ s->l0, s->l1, s->p0, s->p1, s->p0n, s->p1n, s->min_s };
	return (struct ends){ s->p0, s->p1, s->l0, s->l1, s->l0n, s->l1n, s->min_s };
}

/* UDP: the datagrams the sender sent in its interval and those of them the receiver got,
 * wherever they arrived (NB_C_RX_SETTLED): lost = tx - rx exactly, and the rates are per the
 * sender's interval, the one those datagrams belong to. */
static void udp_flow(const struct nb_params *p, const struct ends *e, uint32_t f,
		     double acc[NB_COL_COUNT])
{
	double dt = rate_dt(e->s0, e->s1, e->min_s);
	double txp = cdiff(e->s0, e->s1, f, NB_C_TX_SETTLED);
	double rxp = cdiff(e->r0n, e->r1n, f, NB_C_RX_SETTLED);
	double txb = txp * p->size, rxb = rxp * p->size;
	acc[NB_COL_TX_PACKETS] += txp;
	acc[NB_COL_RX_PACKETS] += rxp;
	acc[NB_COL_TX_BYTES] += txb;
	acc[NB_COL_RX_BYTES] += rxb;
	acc[NB_COL_TX_BPS] += per_s(txb * 8, dt);
	acc[NB_COL_RX_BPS] += per_s(rxb * 8, dt);
	acc[NB_COL_TX_PPS] += per_s(txp, dt);
	acc[NB_COL_RX_PPS] += per_s(rxp, dt);
	acc[NB_COL_LOST] += txp - rxp;
	acc[NB_COL_LATE] += cdiff(e->r0, e->r1, f, NB_C_LATE);
	acc[NB_COL_FOREIGN] += cdiff(e->r0, e->r1, f, NB_C_FOREIGN);
}

/* TCP: each end's kernel counts over its own interval (bytes sent with retransmissions, bytes
 * received in order: TCP_INFO, read at the tick). */
static void tcp_flow(const struct ends *e, uint32_t f, double acc[NB_COL_COUNT])
{
	double sdt = rate_dt(e->s0, e->s1, e->min_s), rdt = rate_dt(e->r0, e->r1, e->min_s);
	double txb = cdiff(e->s0, e->s1, f, NB_C_TX_BYTES), rxb = cdiff(e->r0, e->r1, f, NB_C_RX_BYTES);
	double txp = cdiff(e->s0, e->s1, f, NB_C_TX_PACKETS), rxp = cdiff(e->r0, e->r1, f, NB_C_RX_PACKETS);
	acc[NB_COL_TX_BYTES] += txb;
	acc[NB_COL_RX_BYTES] += rxb;
	acc[NB_COL_TX_PACKETS] += txp;
	acc[NB_COL_RX_PACKETS] += rxp;
	acc[NB_COL_TX_BPS] += per_s(txb * 8, sdt);
	acc[NB_COL_RX_BPS] += per_s(rxb * 8, rdt);
	acc[NB_COL_TX_PPS] += per_s(txp, sdt);
	acc[NB_COL_RX_PPS] += per_s(rxp, rdt);
	acc[NB_COL_RETRANS] += cdiff(e->s0, e->s1, f, NB_C_RETRANS);
	acc[NB_COL_CWND] += (double)e->s1->flow[f].g[NB_G_CWND];
	acc[NB_COL_SRTT_US] += (double)e->s1->flow[f].g[NB_G_SRTT_US];
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
	acc[NB_COL_DUP] += cdiff(e.r0, e.r1, f, NB_C_DUP);
	acc[NB_COL_REORDER] += cdiff(e.r0, e.r1, f, NB_C_REORDER);
	acc[NB_COL_RCVBUF_DROPS] += cdiff(e.r0, e.r1, f, NB_C_RCVBUF_DROPS);
	acc[NB_COL_SND_ERRS] += cdiff(e.s0, e.s1, f, NB_C_SND_ERRS);
	acc[NB_COL_PACE_FORGIVEN] += cdiff(e.s0, e.s1, f, NB_C_PACE_FORGIVEN);
	if ((double)e.s1->flow[f].g[NB_G_MAX_BURST] > acc[NB_COL_MAX_BURST])
		acc[NB_COL_MAX_BURST] = (double)e.s1->flow[f].g[NB_G_MAX_BURST];
	/* jitter is a difference between datagrams: a receiver that got fewer than two has none */
	if (cdiff(e.r0, e.r1, f, NB_C_RX_PACKETS) >= 2) {
		*jitter_sum += (double)e.r1->flow[f].g[NB_G_JITTER_NS] / 1000.0;
		(*receivers)++;
	}
}

static void directional(const struct nb_engine *e, const struct nb_params *p,
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
		m->v[NB_COL_LOSS_PCT] = pct(acc[NB_COL_LOST], acc[NB_COL_TX_PACKETS]);
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
		m->v[NB_COL_RCVBUF_DROPS] = NAN;
		m->v[NB_COL_SND_ERRS] = NAN;
	}
	if (p->rate) {
		bool pps = e->traits.rate == NB_RATE_KIND_PACKETS;
		m->v[NB_COL_TARGET_RATE] = (double)p->rate * (hi - lo);
		m->v[NB_COL_ACHIEVED_RATE] = pps ? acc[NB_COL_TX_PPS] : acc[NB_COL_TX_BPS];
	}
}

void nb_metrics_latency(const struct nb_hist *h, struct nb_metrics *m)
{
	struct nb_hist_summary s;
	nb_hist_summarize(h, &s);
	if (s.count == 0)
		return;
	m->v[NB_COL_LAT_MEAN_US] = s.mean_ns / 1000.0;
	m->v[NB_COL_LAT_STDDEV_US] = s.stddev_ns / 1000.0;
	m->v[NB_COL_LAT_MIN_US] = (double)s.min_ns / 1000.0;
	/* A percentile the sample count cannot resolve (p99.99 of 2001 samples is the maximum) is
	 * left empty, as the summary leaves it out. */
	const uint64_t q[NB_LAT_NQ] = { s.p50_ns, s.p90_ns, s.p99_ns, s.p999_ns, s.p9999_ns };
	const int col[NB_LAT_NQ] = { NB_COL_LAT_P50_US, NB_COL_LAT_P90_US, NB_COL_LAT_P99_US,
				     NB_COL_LAT_P999_US, NB_COL_LAT_P9999_US };
	for (int i = 0; i < NB_LAT_NQ; i++)
		m->v[col[i]] = nb_stats_quantile_supported(nb_lat_quantiles[i], (double)s.count)
				       ? (double)q[i] / 1000.0
				       : NAN;
	m->v[NB_COL_LAT_MAX_US] = (double)s.max_ns / 1000.0;
}

/* Agentless engines: every request answered, refused (connect) or lost (icmp: timeouts). */
static void agentless(const struct nb_params *p, const struct nb_span *s, uint32_t lo, uint32_t hi,
		      struct nb_metrics *m)
{
	const struct nb_snapshot *a = s->l0, *b = s->l1;
	double lost = csum(a, b, lo, hi, NB_C_TIMEOUTS);
	m->v[NB_COL_TIMEOUTS] = lost;
	if (p->proto == NB_PROTO_TCP) {
		m->v[NB_COL_REFUSED] = csum(a, b, lo, hi, NB_C_REFUSED);
		return;
	}
	m->v[NB_COL_LOST] = lost;
	m->v[NB_COL_LOSS_PCT] = pct(lost, lost + m->v[NB_COL_TRANS]);
	m->v[NB_COL_DUP] = csum(a, b, lo, hi, NB_C_DUP);
	m->v[NB_COL_SND_ERRS] = csum(a, b, lo, hi, NB_C_SND_ERRS);
}

static void request_response(const struct nb_params *p, const struct nb_span *s, uint32_t lo,
			     uint32_t hi, struct nb_metrics *m)
{
	const struct nb_snapshot *a = s->l0, *b = s->l1;
	double dt = rate_dt(a, b, s->min_s);
	m->v[NB_COL_TX_BYTES] = csum(a, b, lo, hi, NB_C_TX_BYTES);
	m->v[NB_COL_RX_BYTES] = csum(a, b, lo, hi, NB_C_RX_BYTES);
	m->v[NB_COL_TX_PACKETS] = csum(a, b, lo, hi, NB_C_TX_PACKETS);
	m->v[NB_COL_RX_PACKETS] = csum(a, b, lo, hi, NB_C_RX_PACKETS);
	m->v[NB_COL_TX_BPS] = per_s(m->v[NB_COL_TX_BYTES] * 8, dt);
	m->v[NB_COL_RX_BPS] = per_s(m->v[NB_COL_RX_BYTES] * 8, dt);
	m->v[NB_COL_TX_PPS] = per_s(m->v[NB_COL_TX_PACKETS], dt);
	m->v[NB_COL_RX_PPS] = per_s(m->v[NB_COL_RX_PACKETS], dt);
	double trans = csum(a, b, lo, hi, NB_C_TRANSACTIONS);
	m->v[NB_COL_TRANS] = trans;
	m->v[NB_COL_TRANS_PER_S] = per_s(trans, dt);
	if (p->proto == NB_PROTO_UDP)
		m->v[NB_COL_TIMEOUTS] = csum(a, b, lo, hi, NB_C_TIMEOUTS);
	double conns = csum(a, b, lo, hi, NB_C_CONNECTS);
	if (conns > 0)
		m->v[NB_COL_CONNECT_US] = csum(a, b, lo, hi, NB_C_CONNECT_NS) / conns / 1000.0;
	if (p->rate) {
		m->v[NB_COL_TARGET_RATE] = (double)p->rate * (hi - lo);
		m->v[NB_COL_ACHIEVED_RATE] = m->v[NB_COL_TX_PPS];
	}
}

/* bidir: each direction's own columns from its own flows (the client sends on flows
 * 0 .. streams-1, the agent on streams .. 2 streams-1: nb_params_client_sends), so that a
 * direction short of its target shows apart from the sum. */
static void bidir_split(const struct nb_engine *e, const struct nb_params *p,
			const struct nb_span *s, struct nb_metrics *out)
{
	if (!e->traits.directional || p->direction != NB_DIR_BIDIR)
		return;
	for (int d = 0; d < 2; d++) {
		struct nb_metrics m;
		nb_metrics_clear(&m);
		directional(e, p, s, d ? p->streams : 0, d ? 2 * p->streams : p->streams, &m);
		for (int i = 0; i < NB_DIR_NCOLS; i++)
			out->v[nb_col_dir(nb_dir_base[i], (enum nb_col_dir)d)] = m.v[nb_dir_base[i]];
	}
}

/* The headline's units per CPU-second of each end's engine threads (bits, packets or
 * transactions a CPU-second buys); a lower-is-better headline (latency) has no such cost. */
static void cost_per_cpu(const struct nb_engine *e, struct nb_metrics *m)
{
	double v = m->v[nb_metrics_headline(e)];
	if (!e->traits.headline.higher_is_better || !isfinite(v))
		return;
	const enum nb_col cpu[2] = { NB_COL_CPU_LOCAL_PCT, NB_COL_CPU_PEER_PCT };
	const enum nb_col cost[2] = { NB_COL_LOCAL_PER_CPU_S, NB_COL_PEER_PER_CPU_S };
	for (int k = 0; k < 2; k++)
		if (m->v[cpu[k]] > 0)
			m->v[cost[k]] = v / (m->v[cpu[k]] / 100.0);
}

void nb_metrics_sched_lag(const struct nb_snapshot *a, const struct nb_snapshot *b,
			  struct nb_metrics *m)
{
	struct nb_hist *d = a->lag && b->lag ? nb_hist_create() : NULL;
	if (!d)
		return;
	nb_hist_diff(d, b->lag, a->lag);
	struct nb_hist_summary h;
	nb_hist_summarize(d, &h);
	nb_hist_destroy(d);
	if (h.count == 0)
		return;
	/* as the latency percentiles: a p99 of fewer than 100 sends is their maximum by another name */
	m->v[NB_COL_SCHED_LAG_P99_US] = nb_stats_quantile_supported(0.99, (double)h.count)
						? (double)h.p99_ns / 1000.0 : NAN;
	m->v[NB_COL_SCHED_LAG_MAX_US] = (double)h.max_ns / 1000.0;
}

void nb_metrics_span(const struct nb_engine *e, const struct nb_params *p, const struct nb_span *s,
		     int32_t flow, const struct nb_hist *hist, struct nb_metrics *out)
{
	nb_metrics_clear(out);
	uint32_t lo = flow < 0 ? 0 : (uint32_t)flow;
	uint32_t hi = flow < 0 ? s->l1->nflows : (uint32_t)flow + 1;
	out->v[NB_COL_DURATION_S] = dt_s(s->l0, s->l1);
	if (e->traits.directional)
		directional(e, p, s, lo, hi, out);
	else
		request_response(p, s, lo, hi, out);
	if (nb_engine_agentless(e))
		agentless(p, s, lo, hi, out);
	if (hist && flow < 0)
		nb_metrics_latency(hist, out);
	if (flow < 0) {
		nb_metrics_sched_lag(s->l0, s->l1, out);
		cpu_and_if(s, out);
		cost_per_cpu(e, out);
		nb_metrics_cpu_threads(s, out);
		bidir_split(e, p, s, out);
	}
}

void nb_metrics_window(const struct nb_engine *e, const struct nb_snapshot *lfinal,
			struct nb_metrics *out)
{
	if (!e->due_window)
		return;
	double sent = 0, answered = 0;
	for (uint32_t f = 0; f < lfinal->nflows; f++) {
		sent += (double)lfinal->flow[f].c[NB_C_WIN_SENT];
		answered += (double)lfinal->flow[f].c[NB_C_WIN_ANSWERED];
	}
	out->v[NB_COL_TRANS] = answered;
	out->v[NB_COL_TRANS_PER_S] = per_s(answered, out->v[NB_COL_DURATION_S]);
	out->v[NB_COL_TIMEOUTS] = sent - answered;
}

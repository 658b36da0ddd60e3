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

double nb_metrics_catch_up_s(const struct nb_timeline *tl, uint32_t k)
{
	double len = k ? (double)(nb_timeline_tick_offset(tl, k) - nb_timeline_tick_offset(tl, k - 1)) / 1e9
		       : 0;
	return fmax(0.5 * len, NB_METRICS_MIN_SPAN_S);
}

/* CPU and host columns, and interface rates, for both ends. */
static void cpu_and_if(const struct nb_span *s, struct nb_metrics *m)
{
	double ldt = nb_span_rate_dt(s->l0, s->l1, s->min_s), pdt = nb_span_rate_dt(s->p0, s->p1, s->min_s);
	m->v[NB_COL_CPU_LOCAL_PCT] = nb_span_per_s((double)(s->l1->engine_cpu_ns - s->l0->engine_cpu_ns) / 1e7, ldt);
	m->v[NB_COL_CPU_PEER_PCT] = nb_span_per_s((double)(s->p1->engine_cpu_ns - s->p0->engine_cpu_ns) / 1e7, pdt);
	m->v[NB_COL_HOST_CPU_LOCAL_PCT] = nb_span_pct((double)(s->l1->host_busy_ticks - s->l0->host_busy_ticks),
					      (double)(s->l1->host_total_ticks - s->l0->host_total_ticks));
	m->v[NB_COL_HOST_CPU_PEER_PCT] = nb_span_pct((double)(s->p1->host_busy_ticks - s->p0->host_busy_ticks),
					     (double)(s->p1->host_total_ticks - s->p0->host_total_ticks));
	const struct nb_snapshot *ends[2][2] = { { s->l0, s->l1 }, { s->p0, s->p1 } };
	const enum nb_col first[2] = { NB_COL_IF_LOCAL_RXPCK_S, NB_COL_IF_PEER_RXPCK_S };
	for (int e = 0; e < 2; e++) {
		const struct nb_snapshot *a = ends[e][0], *b = ends[e][1];
		double dt = nb_span_rate_dt(a, b, s->min_s);
		if (!a->has_if || !b->has_if)
			continue;
		m->v[first[e] + 0] = nb_span_per_s((double)(b->if_stats[0] - a->if_stats[0]), dt);
		m->v[first[e] + 1] = nb_span_per_s((double)(b->if_stats[1] - a->if_stats[1]), dt);
		/* sar's kB: 1024 bytes */
		m->v[first[e] + 2] = nb_span_per_s((double)(b->if_stats[2] - a->if_stats[2]) / 1024.0, dt);
		m->v[first[e] + 3] = nb_span_per_s((double)(b->if_stats[3] - a->if_stats[3]) / 1024.0, dt);
		m->v[first[e] + 4] = nb_span_per_s((double)(b->if_stats[4] - a->if_stats[4]), dt);
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
		e->report(e, p, s, d ? p->streams : 0, d ? 2 * p->streams : p->streams, &m);
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

/* Add b's lag minus a's into sum (scratch: a histogram to diff into). */
static void add_lag(struct nb_hist *sum, struct nb_hist *scratch, const struct nb_snapshot *a,
		    const struct nb_snapshot *b)
{
	nb_hist_diff(scratch, b->lag, a->lag);
	nb_hist_merge(sum, scratch);
}

void nb_metrics_sched_lag(const struct nb_snapshot *a, const struct nb_snapshot *b,
			  struct nb_metrics *m)
{
	nb_metrics_sched_lag_ends(a, b, NULL, NULL, m);
}

void nb_metrics_sched_lag_ends(const struct nb_snapshot *l0, const struct nb_snapshot *l1,
			       const struct nb_snapshot *p0, const struct nb_snapshot *p1,
			       struct nb_metrics *m)
{
	bool local = l0 && l1 && l0->lag && l1->lag, peer = p0 && p1 && p0->lag && p1->lag;
	struct nb_hist *d = local || peer ? nb_hist_create() : NULL;
	struct nb_hist *scratch = d ? nb_hist_create() : NULL;
	struct nb_hist_summary h = { 0 };
	if (scratch) {
		if (local)
			add_lag(d, scratch, l0, l1);
		if (peer)
			add_lag(d, scratch, p0, p1);
		nb_hist_summarize(d, &h);
	}
	nb_hist_destroy(d);
	nb_hist_destroy(scratch);
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
	out->v[NB_COL_DURATION_S] = nb_span_dt(s->l0, s->l1);
	out->own_of = e;
	e->report(e, p, s, lo, hi, out); /* its counters -> its columns */
	if (hist && flow < 0)
		nb_metrics_latency(hist, out);
	if (flow < 0) {
		nb_metrics_sched_lag_ends(s->l0, s->l1, s->p0, s->p1, out);
		cpu_and_if(s, out);
		cost_per_cpu(e, out);
		nb_metrics_cpu_threads(s, out);
		bidir_split(e, p, s, out);
		nb_metrics_loss_budget(e, p, s, out);
	}
}

void nb_metrics_window(const struct nb_engine *e, const struct nb_snapshot *lfinal,
		       struct nb_metrics *out)
{
	if (e->report_run)
		e->report_run(lfinal, out);
}

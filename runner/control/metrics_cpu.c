/* nbrun — the CPU columns that need one thread at a time: the busiest flow thread of each role on
 * each end, and the host's stolen time (see metrics.h).
 *
 * A sum over threads (cpu_*_pct) cannot tell two threads at 50 % from one at 100 %: only the
 * busiest single thread says whether a flow hit a core's limit. Roles are kept apart because a
 * paced sender's load is what its pacing chose (a burst shorter than the timer's lateness spins
 * on purpose, pace.h), while its receiver's load is real work. */
#include "metrics.h"

#include <math.h>

static double dt_s(const struct nb_snapshot *a, const struct nb_snapshot *b)
{
	return b->t_ns >= a->t_ns ? (double)(b->t_ns - a->t_ns) / 1e9 : NAN;
}

static void busiest(const struct nb_snapshot *a, const struct nb_snapshot *b, enum nb_col tx,
		    enum nb_col rx, struct nb_metrics *m)
{
	double dt = dt_s(a, b);
	if (!(dt >= NB_METRICS_MIN_SPAN_S))
		return;
	for (uint32_t f = 0; f < b->nflows && f < a->nflows; f++) {
		uint64_t used = b->flow[f].cpu_ns > a->flow[f].cpu_ns ? b->flow[f].cpu_ns - a->flow[f].cpu_ns : 0;
		double pct = (double)used / 1e7 / dt;
		enum nb_col col = b->flow[f].sends ? tx : rx;
		if (!(m->v[col] >= pct))
			m->v[col] = pct;
	}
}

static double steal_pct(const struct nb_snapshot *a, const struct nb_snapshot *b)
{
	double total = (double)(b->host_total_ticks - a->host_total_ticks);
	return total > 0 ? 100.0 * (double)(b->host_steal_ticks - a->host_steal_ticks) / total : NAN;
}

void nb_metrics_cpu_threads(const struct nb_span *s, struct nb_metrics *out)
{
	busiest(s->l0, s->l1, NB_COL_CPU_LOCAL_TX_THREAD_PCT, NB_COL_CPU_LOCAL_RX_THREAD_PCT, out);
	busiest(s->p0, s->p1, NB_COL_CPU_PEER_TX_THREAD_PCT, NB_COL_CPU_PEER_RX_THREAD_PCT, out);
	out->v[NB_COL_HOST_STEAL_LOCAL_PCT] = steal_pct(s->l0, s->l1);
	out->v[NB_COL_HOST_STEAL_PEER_PCT] = steal_pct(s->p0, s->p1);
}

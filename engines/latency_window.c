/* nbrun — the latency engine's window by due time (see latency_int.h). */
#include "latency_int.h"

#include <stdlib.h>

#include "span.h"

bool nb_latency_flow_init(struct nb_flow *f, struct nb_error *err)
{
	struct nb_latency_flow *l = calloc(1, sizeof(*l));
	if (!l || (f->side == NB_SIDE_CLIENT && !(l->win_hist = nb_hist_create()))) {
		free(l);
		return nb_error_set(err, "out of memory");
	}
	f->priv = l;
	return true;
}

void nb_latency_flow_fini(struct nb_flow *f)
{
	struct nb_latency_flow *l = f->priv;
	if (l)
		nb_hist_destroy(l->win_hist);
	free(l);
	f->priv = NULL;
}

void nb_latency_set_window(struct nb_flow *f, uint64_t start_ns, uint64_t end_ns)
{
	struct nb_latency_flow *l = f->priv;
	l->win_start_ns = start_ns;
	l->win_end_ns = end_ns;
}

void nb_latency_window_hist(const struct nb_flow *f, struct nb_hist *out)
{
	const struct nb_latency_flow *l = f->priv;
	if (l->win_hist)
		nb_hist_merge(out, l->win_hist);
}

/* The run's result counts the window by due time: trans = the window's messages answered,
 * timeouts = those sent and not answered, trans_per_s over the measured time. */
void nb_latency_report_run(const struct nb_snapshot *lfinal, struct nb_metrics *out)
{
	double sent = 0, answered = 0;
	for (uint32_t f = 0; f < lfinal->nflows; f++) {
		sent += (double)lfinal->flow[f].c[NB_C_WIN_SENT];
		answered += (double)lfinal->flow[f].c[NB_C_WIN_ANSWERED];
	}
	out->v[NB_COL_TRANS] = answered;
	out->v[NB_COL_TRANS_PER_S] = nb_span_per_s(answered, out->v[NB_COL_DURATION_S]);
	out->v[NB_COL_TIMEOUTS] = sent - answered;
}

#include "interval_rows.h"

#include "params.h"

/* Seconds from the baseline to tick k (the last tick is cut at the duration). */
static double tick_s(const struct nb_msg_setup *su, uint32_t k)
{
	uint64_t off = (uint64_t)k * su->interval_ns;
	return (double)(off > su->duration_ns ? su->duration_ns : off) / 1e9;
}

/* Interval k's row of run_id: when it falls, whether the statistics leave it out. */
static struct nb_interval row_of(const struct nb_msg_setup *su, uint32_t run_id, uint32_t rep,
				 uint32_t k, const char *path)
{
	struct nb_interval row = { .run_id = run_id, .case_id = su->case_id, .rep = rep, .path = path };
	row.t_start = tick_s(su, k - 1);
	row.t_end = tick_s(su, k);
	row.omitted = row.t_start * 1e9 < (double)su->omit_ns - 1;
	row.cooldown = su->cooldown_ns && row.t_end * 1e9 > (double)(su->duration_ns - su->cooldown_ns) + 1;
	return row;
}

void nb_rows_write_interval(struct nb_rows *w, const struct nb_engine *e,
			    const struct nb_msg_setup *su, uint32_t run_id, uint32_t rep, uint32_t k,
			    const struct nb_span *span, const struct nb_hist *hist, const char *path,
			    struct nb_metrics *sum)
{
	struct nb_interval row = row_of(su, run_id, rep, k, path);
	uint32_t nflows = span->l1->nflows;
	bool dir = e->traits.directional;
	for (int32_t f = 0; nflows > 1 && f < (int32_t)nflows; f++) {
		row.stream = f;
		row.direction = !dir ? "" : nb_params_client_sends(&su->params, (uint32_t)f) ? "forward"
											    : "reverse";
		nb_metrics_span(e, &su->params, span, f, NULL, &row.m);
		nb_rows_interval(w, e, &row, false);
	}
	row.stream = -1; /* all flows summed: the row the statistics use */
	row.direction = dir ? nb_dir_name(su->params.direction) : "";
	nb_metrics_span(e, &su->params, span, -1, hist, &row.m);
	nb_rows_interval(w, e, &row, path == NULL);
	if (sum)
		*sum = row.m;
}

void nb_rows_write_sum(struct nb_rows *w, const struct nb_engine *e, const struct nb_msg_setup *su,
		       uint32_t run_id, uint32_t rep, uint32_t k, const struct nb_metrics *m)
{
	struct nb_interval row = row_of(su, run_id, rep, k, NB_PATH_ALL);
	row.stream = -1;
	row.direction = e->traits.directional ? nb_dir_name(su->params.direction) : "";
	row.m = *m;
	nb_rows_interval(w, e, &row, true);
}

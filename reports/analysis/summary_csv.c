/* summary.csv: one row per case, a fixed column order, units in the header names. */
#include "summary.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"

static const char *const fixed_head[] = {
	"case_id", "test", "engine", "protocol", "size_bytes", "request_bytes", "response_bytes",
	"streams", "direction", "rate", "metric", "unit",
	"value_mean", "value_stddev", "value_cv_pct", "value_min", "value_median", "value_max",
	"value_ci95_lo", "value_ci95_hi", "n", "n_failed", "n_invalid", "outliers",
	"autorep", "ci_target_pct", "ci_reached", "reps_for_ci2pct", "trials",
};
#define NFIXED (sizeof(fixed_head) / sizeof(fixed_head[0]))
static const char *const lat_head[] = { "latency_count", "latency_us_min", "latency_us_mean",
					"latency_us_max" };
static const char *const sweep_head[] = { "sweep_loss_target_pct", "sweep_threshold",
					  "sweep_lowest_fail", "sweep_complete" };
#define NLAT (sizeof(lat_head) / sizeof(lat_head[0]))
#define NSWEEP (sizeof(sweep_head) / sizeof(sweep_head[0]))
#define NHEAD (NFIXED + NB_COL_COUNT + NLAT + 2 * NB_LAT_NQ + NSWEEP)

static void build_header(char names[NHEAD][48], const char *ptrs[NHEAD])
{
	size_t n = 0;
	for (size_t i = 0; i < NFIXED; i++)
		snprintf(names[n++], 48, "%s", fixed_head[i]);
	for (size_t i = 0; i < NB_COL_COUNT; i++)
		snprintf(names[n++], 48, "%s_mean", nb_cols[i].name);
	for (size_t i = 0; i < NLAT; i++)
		snprintf(names[n++], 48, "%s", lat_head[i]);
	for (size_t q = 0; q < NB_LAT_NQ; q++)
		snprintf(names[n++], 48, "latency_us_%s", nb_lat_names[q]);
	for (size_t q = 0; q < NB_LAT_NQ; q++)
		snprintf(names[n++], 48, "latency_us_%s_runmean", nb_lat_names[q]);
	for (size_t i = 0; i < NSWEEP; i++)
		snprintf(names[n++], 48, "%s", sweep_head[i]);
	for (size_t i = 0; i < NHEAD; i++)
		ptrs[i] = names[i];
}

static void write_params(struct nb_csv *f, const struct nb_case_stats *c)
{
	const struct nb_plan_case *p = c->pc;
	nb_csv_str(f, p->case_id);
	nb_csv_str(f, p->test);
	nb_csv_str(f, p->engine);
	nb_csv_str(f, p->protocol);
	nb_csv_num(f, p->size);
	nb_csv_num(f, p->request);
	nb_csv_num(f, p->response);
	nb_csv_num(f, p->streams);
	nb_csv_str(f, p->direction);
	nb_csv_num(f, p->rate);
	nb_csv_str(f, c->metric);
	nb_csv_str(f, c->metric_col >= 0 ? nb_cols[c->metric_col].unit : "");
}

static void write_value_stats(struct nb_csv *f, const struct nb_case_stats *c)
{
	const struct nb_stats *v = &c->value;
	bool any = v->n > 0;
	nb_csv_num(f, nb_stats_mean(v));
	nb_csv_num(f, nb_stats_stddev(v));
	nb_csv_num(f, nb_stats_cv(v) * 100.0);
	nb_csv_num(f, any ? v->min : NAN);
	nb_csv_num(f, c->median);
	nb_csv_num(f, any ? v->max : NAN);
	nb_csv_num(f, c->ci_lo);
	nb_csv_num(f, c->ci_hi);
	nb_csv_u64(f, v->n);
	nb_csv_u64(f, c->n_failed);
	nb_csv_u64(f, c->n_invalid);
	nb_csv_u64(f, c->outliers);
	nb_csv_u64(f, c->pc->autorep);
	nb_csv_num(f, c->pc->ci_target * 100.0);
	if (v->n >= 2)
		nb_csv_u64(f, c->ci_reached);
	else
		nb_csv_str(f, NULL);
	nb_csv_num(f, c->reps_needed ? (double)c->reps_needed : NAN);
	nb_csv_u64(f, c->n_trials);
}

static void write_latency(struct nb_csv *f, const struct nb_case_stats *c)
{
	bool h = c->merged && c->lat.count > 0;
	nb_csv_num(f, h ? (double)c->lat.count : NAN);
	nb_csv_num(f, h ? (double)c->lat.min_ns / 1000.0 : NAN);
	nb_csv_num(f, h ? c->lat.mean_ns / 1000.0 : NAN);
	nb_csv_num(f, h ? (double)c->lat.max_ns / 1000.0 : NAN);
	for (size_t q = 0; q < NB_LAT_NQ; q++) /* empty when too few samples for it */
		nb_csv_num(f, nb_case_lat_pct_ns(c, q) / 1000.0);
	for (size_t q = 0; q < NB_LAT_NQ; q++)
		nb_csv_num(f, c->lat_runmean_us[q]);
}

static void write_sweep(struct nb_csv *f, const struct nb_results *res, const struct nb_case_stats *c)
{
	struct nb_sweep_result sw;
	if (!nb_sweeps_json_find(res, c->pc->case_id, &sw)) {
		for (size_t i = 0; i < NSWEEP; i++)
			nb_csv_str(f, NULL);
		return;
	}
	nb_csv_num(f, sw.loss_target * 100.0);
	nb_csv_num(f, sw.threshold);
	nb_csv_num(f, sw.lowest_fail);
	nb_csv_str(f, sw.complete_known ? (sw.complete ? "1" : "0") : NULL);
}

bool nb_summary_write_csv(const struct nb_results *res, const struct nb_summary *s, const char *path,
			  struct nb_error *err)
{
	static char names[NHEAD][48];
	const char *head[NHEAD];
	build_header(names, head);
	struct nb_csv *f = nb_csv_create(path, head, NHEAD, err);
	if (!f)
		return false;
	for (size_t i = 0; i < s->n; i++) {
		const struct nb_case_stats *c = &s->c[i];
		write_params(f, c);
		write_value_stats(f, c);
		for (size_t k = 0; k < NB_COL_COUNT; k++)
			nb_csv_num(f, c->metric_mean[k]);
		write_latency(f, c);
		write_sweep(f, res, c);
		nb_csv_end(f);
	}
	return nb_csv_finish(f, err);
}

static void variant(const struct nb_plan_case *p, char *buf, size_t len)
{
	snprintf(buf, len, "s%.0f/r%.0fx%.0f/%s/rate%.0f/%s", isfinite(p->size) ? p->size : 0,
		 isfinite(p->request) ? p->request : 0, isfinite(p->response) ? p->response : 0,
		 p->direction, isfinite(p->rate) ? p->rate : 0, nb_plan_case_param(p, "wait"));
}

/* bidir: each direction's own rate and drop numbers (the fwd_ and rev_ columns). */
static uint32_t pitfall_dirs(const struct nb_case_stats *c, struct nb_pitfall_dir d[2])
{
	static const char *const names[2] = { "forward", "reverse" };
	if (strcmp(c->pc->direction, "bidir") != 0)
		return 0;
	for (int k = 0; k < 2; k++) {
		enum nb_col_dir dir = (enum nb_col_dir)k;
		d[k] = (struct nb_pitfall_dir){
			.name = names[k],
			.target_rate = c->metric_mean[nb_col_dir(NB_COL_TARGET_RATE, dir)],
			.achieved_rate = c->metric_min[nb_col_dir(NB_COL_ACHIEVED_RATE, dir)],
			.rcvbuf_drops = c->metric_max[nb_col_dir(NB_COL_RCVBUF_DROPS, dir)],
			.snd_errs = c->metric_max[nb_col_dir(NB_COL_SND_ERRS, dir)],
		};
	}
	return 2;
}

void nb_summary_pitfall_cases(const struct nb_summary *s, struct nb_pitfall_case *out,
			      char (*variants)[64])
{
	for (size_t i = 0; i < s->n; i++) {
		const struct nb_case_stats *c = &s->c[i];
		const struct nb_plan_case *p = c->pc;
		const double *mx = c->metric_max;
		variant(p, variants[i], 64);
		out[i] = (struct nb_pitfall_case){
			.case_id = p->case_id, .test = p->test, .eng = p->eng,
			.protocol = p->protocol, .variant = variants[i],
			.streams = isfinite(p->streams) && p->streams > 0 ? (uint32_t)p->streams : 1,
			.n = (uint32_t)c->value.n, .mean = nb_stats_mean(&c->value),
			.stddev = nb_stats_stddev(&c->value), .cv = nb_stats_cv(&c->value),
			.cpu_thread_max_pct = {
				{ mx[NB_COL_CPU_LOCAL_TX_THREAD_PCT], mx[NB_COL_CPU_LOCAL_RX_THREAD_PCT] },
				{ mx[NB_COL_CPU_PEER_TX_THREAD_PCT], mx[NB_COL_CPU_PEER_RX_THREAD_PCT] },
			},
			.host_cpu_local_max_pct = mx[NB_COL_HOST_CPU_LOCAL_PCT],
			.host_cpu_peer_max_pct = mx[NB_COL_HOST_CPU_PEER_PCT],
			.steal_max_pct = { mx[NB_COL_HOST_STEAL_LOCAL_PCT], mx[NB_COL_HOST_STEAL_PEER_PCT] },
			.target_rate = c->metric_mean[NB_COL_TARGET_RATE],
			.achieved_rate = c->metric_min[NB_COL_ACHIEVED_RATE],
			.rcvbuf_drops = mx[NB_COL_RCVBUF_DROPS], .snd_errs = mx[NB_COL_SND_ERRS],
			.lost_max = mx[NB_COL_LOST], .loss_pct_max = mx[NB_COL_LOSS_PCT],
			.foreign_max = mx[NB_COL_FOREIGN],
			.refused_max = mx[NB_COL_REFUSED],
			.omit_s = p->omit_s, .first_interval = c->first_interval,
			.median_interval = c->median_interval,
		};
		out[i].ndirs = pitfall_dirs(c, out[i].dirs);
	}
}

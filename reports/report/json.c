#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afile.h"
#include "fmt.h"
#include "loss_budget.h"
#include "ip_capacity.h"
#include "path_stats.h"
#include "tcp_rfc6349.h"

static json_t *plan_json(const struct nb_results *res)
{
	json_t *a = json_array();
	for (size_t i = 0; i < res->ncases; i++) {
		const struct nb_plan_case *p = &res->cases[i];
		json_array_append_new(a, json_pack("{s:o s:o s:o s:o s:o s:o s:o s:o s:o s:o s:o s:o s:o s:o s:o s:o s:b}",
			"case_id", nb_json_string(p->case_id), "test", nb_json_string(p->test),
			"engine", nb_json_string(p->engine), "protocol", nb_json_string(p->protocol),
			"size", nb_json_number(p->size), "request", nb_json_number(p->request),
			"response", nb_json_number(p->response), "streams", nb_json_number(p->streams),
			"direction", nb_json_string(p->direction), "rate", nb_json_number(p->rate),
			"wait", nb_json_string(nb_plan_case_param(p, "wait")), "duration_s", nb_json_number(p->duration_s),
			"warmup_s", nb_json_number(p->warmup_s), "omit_s", nb_json_number(p->omit_s),
			"interval_s", nb_json_number(p->interval_s),
			"repetitions", nb_json_string(p->repetitions), "swept", p->swept));
	}
	return a;
}

static json_t *metrics_json(const struct nb_metrics *m)
{
	json_t *o = json_object();
	for (size_t k = 0; k < NB_COL_COUNT; k++)
		if (isfinite(m->v[k]))
			json_object_set_new(o, nb_cols[k].name, json_real(m->v[k]));
	return o;
}

static json_t *runs_json(const struct nb_results *res, const struct nb_summary *s)
{
	json_t *a = json_array();
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		struct nb_metrics m = r->m; /* percentiles beyond its samples are left out */
		nb_summary_hide_thin_pct(&m, nb_run_lat_samples(r));
		json_array_append_new(a, json_pack("{s:I s:o s:o s:o s:o s:I s:o s:o s:o s:o s:o s:o s:o s:o s:b s:o}",
			"run_id", (json_int_t)r->run_id, "case_id", nb_json_string(r->case_id),
			"test", nb_json_string(r->test), "engine", nb_json_string(r->engine),
			"protocol", nb_json_string(r->protocol), "rep", (json_int_t)r->rep,
			"kind", nb_json_string(r->kind), "offered_rate", nb_json_number(r->offered_rate),
			"status", nb_json_string(r->status), "metric", nb_json_string(r->metric),
			"value", nb_json_number(r->value), "flags", nb_json_string(r->flags),
			"error", nb_json_string(r->error), "started", nb_json_string(r->started),
			"outlier", s->run_outlier[i], "metrics", metrics_json(&m)));
	}
	return a;
}

static json_t *latency_json(const struct nb_case_stats *c)
{
	if (!c->merged || !c->lat.count)
		return json_null();
	const struct nb_hist_summary *h = &c->lat;
	json_t *o = json_pack("{s:I s:f s:f s:f}", "count", (json_int_t)h->count,
			      "min_us", (double)h->min_ns / 1000.0, "mean_us", h->mean_ns / 1000.0,
			      "max_us", (double)h->max_ns / 1000.0);
	json_t *runmean = json_object();
	for (size_t q = 0; q < NB_LAT_NQ; q++) {
		char key[32];
		snprintf(key, sizeof(key), "%s_us", nb_lat_names[q]);
		json_object_set_new(o, key, nb_json_number(nb_case_lat_pct_ns(c, q) / 1000.0));
		json_object_set_new(runmean, key, nb_json_number(c->lat_runmean_us[q]));
	}
	json_object_set_new(o, "run_mean", runmean);
	return o;
}

/* A search's goals in MLRsearch's words (sweeps.json), [] for a plain sweep or older folder. */
static json_t *goals_json(const struct nb_results *res, const char *case_id)
{
	struct nb_sweep_result g[8];
	size_t n = nb_sweeps_json_goals(res, case_id, g, 8);
	json_t *a = json_array();
	for (size_t k = 0; k < n; k++)
		json_array_append_new(a, json_pack("{s:s s:o s:o s:o s:o s:o s:o s:o}",
			"goal", g[k].goal_name, "loss_ratio", nb_json_number(g[k].loss_target),
			"exceed_ratio", nb_json_number(g[k].exceed_ratio),
			"final_trial_s", nb_json_number(g[k].final_trial_s),
			"duration_sum_s", nb_json_number(g[k].duration_sum_s),
			"relevant_lower_bound", nb_json_number(g[k].lower_bound),
			"relevant_upper_bound", nb_json_number(g[k].upper_bound),
			"conditional_throughput", nb_json_number(g[k].conditional)));
	return a;
}

static json_t *sweep_json(const struct nb_results *res, const char *case_id)
{
	struct nb_sweep_result sw;
	if (!nb_sweeps_json_find(res, case_id, &sw))
		return json_null();
	return json_pack("{s:o s:o s:o s:o s:o}", "loss_target", nb_json_number(sw.loss_target),
			 "threshold", nb_json_number(sw.threshold), "lowest_fail",
			 nb_json_number(sw.lowest_fail),
			 "complete", sw.complete_known ? json_boolean(sw.complete) : json_null(),
			 "goals", goals_json(res, case_id));
}

/* RFC 9097's IP-layer capacity of a one-way UDP case (ip_capacity.h), or null. */
static json_t *ip_capacity_json(const struct nb_results *res, const struct nb_case_stats *c)
{
	bool assumed;
	unsigned hdr = nb_ip_header_bytes(res->meta.peer, &assumed);
	struct nb_ip_capacity_case k;
	if (!nb_ip_capacity_applies(c) ||
	    !nb_ip_capacity_of_case(res, (size_t)(c->pc - res->cases), hdr, &k))
		return json_null();
	return json_pack("{s:o s:o s:o s:o s:I s:I s:b}", "mean_bps", nb_json_number(k.mean_bps),
			 "max_bps", nb_json_number(k.max_bps), "max_of_runs_bps",
			 nb_json_number(k.max_of_runs), "dt_s", nb_json_number(k.dt_s),
			 "runs", (json_int_t)k.runs, "header_bytes", (json_int_t)hdr,
			 "header_assumed", assumed);
}

/* Where the case's bottleneck bandwidth came from, as results.json names it (null: unknown). */
static json_t *bottleneck_source_json(enum nb_rfc6349_bb from)
{
	switch (from) {
	case NB_BB_CONFIG:
		return json_string("bottleneck");
	case NB_BB_IP_CAPACITY:
		return json_string("ip_capacity");
	default:
		return json_null();
	}
}

/* A one-way TCP case in RFC 6349's terms (tcp_rfc6349.h), or null: the numbers of report.md's
 * section, the ones that need a bottleneck bandwidth null when it is unknown. */
static json_t *rfc6349_json(const struct nb_results *res, const struct nb_summary *s, size_t i)
{
	const struct nb_case_stats *c = &s->c[i];
	size_t ci = (size_t)(c->pc - res->cases);
	struct nb_rfc6349_case k;
	struct nb_rfc6349_bottleneck b;
	if (!nb_rfc6349_applies(c) || !nb_rfc6349_of_case(res, ci, &k))
		return json_null();
	nb_rfc6349_bottleneck_of(res, s, ci, &b);
	nb_rfc6349_with_bottleneck(res, ci, &b, &k);
	bool known = b.from != NB_BB_UNKNOWN;
	return json_pack("{s:o s:o s:o s:o s:o s:o s:I s:o s:o s:o s:o s:o s:o s:o}",
			 "baseline_rtt_us", nb_json_number(k.baseline_rtt_us),
			 "mean_rtt_us", nb_json_number(k.mean_rtt_us),
			 "buffer_delay_pct", nb_json_number(k.buffer_delay_pct),
			 "tcp_efficiency_pct", nb_json_number(k.efficiency_pct),
			 "bytes_retrans", nb_json_number(k.retrans_bytes),
			 "bdp_bytes", nb_json_number(k.bdp_bytes), "runs", (json_int_t)k.runs,
			 "window_bytes", nb_json_number(k.window_bytes),
			 "bottleneck_bps", nb_json_number(b.bps),
			 "bottleneck_source", bottleneck_source_json(b.from),
			 "bottleneck_case_id",
			 b.from == NB_BB_IP_CAPACITY ? nb_json_string(b.case_id) : json_null(),
			 "transfer_time_ratio", nb_json_number(k.ttr),
			 "bdp_bottleneck_bytes", nb_json_number(k.bdp_bb_bytes),
			 "window_below_bdp", known && isfinite(k.window_bytes)
						     ? json_boolean(k.window_below_bdp)
						     : json_null());
}

static json_t *case_json(const struct nb_results *res, const struct nb_summary *s, size_t i)
{
	const struct nb_case_stats *c = &s->c[i];
	const struct nb_stats *v = &c->value;
	json_t *mm = json_object();
	for (size_t k = 0; k < NB_COL_COUNT; k++)
		if (isfinite(c->metric_mean[k]))
			json_object_set_new(mm, nb_cols[k].name, json_real(c->metric_mean[k]));
	json_t *o = json_pack("{s:o s:o s:o s:I s:I s:I s:I s:I s:o s:o s:o s:o s:o s:o s:o s:o s:b s:o s:o s:o s:o s:o s:o s:o s:o s:o}",
		"case_id", nb_json_string(c->pc->case_id), "metric", nb_json_string(c->metric),
		"unit", nb_json_string(c->metric_col >= 0 ? nb_cols[c->metric_col].unit : ""),
		"n", (json_int_t)v->n, "n_failed", (json_int_t)c->n_failed,
		"n_invalid", (json_int_t)c->n_invalid, "outliers", (json_int_t)c->outliers,
		"trials", (json_int_t)c->n_trials,
		"mean", nb_json_number(nb_stats_mean(v)), "stddev", nb_json_number(nb_stats_stddev(v)),
		"cv", nb_json_number(nb_stats_cv(v)), "min", nb_json_number(v->n ? v->min : NAN),
		"median", nb_json_number(c->median), "max", nb_json_number(v->n ? v->max : NAN),
		"ci95_lo", nb_json_number(c->ci_lo),
		"ci95_hi", nb_json_number(c->ci_hi), "autorep", c->pc->autorep,
		"ci_target", nb_json_number(c->pc->ci_target),
		"ci_reached", v->n >= 2 ? json_boolean(c->ci_reached) : json_null(),
		"reps_for_ci2pct", c->reps_needed ? json_integer(c->reps_needed) : json_null(),
		"metrics_mean", mm, "latency", latency_json(c), "sweep", sweep_json(res, c->pc->case_id),
		"paths", nb_path_stats_json(res, c), "ip_capacity", ip_capacity_json(res, c),
		"rfc6349", rfc6349_json(res, s, i));
	if (o)
		nb_loss_budget_json(res, c, o); /* where the lost packets went, and the bottleneck */
	return o;
}

static json_t *facts_json(const struct nb_facts *f)
{
	json_t *a = json_array();
	for (size_t i = 0; i < f->n; i++)
		json_array_append_new(a, json_pack("{s:o s:o s:o s:b}", "group", nb_json_string(f->v[i].group),
						   "key", nb_json_string(f->v[i].key),
						   "value", nb_json_string(f->v[i].value), "ok", f->v[i].ok));
	return a;
}

static json_t *pitfalls_json(const struct nb_pitfalls *pf)
{
	json_t *a = json_array();
	for (size_t i = 0; pf && i < pf->n; i++)
		json_array_append_new(a, json_pack("{s:o s:o s:o}", "code", nb_json_string(pf->v[i].code),
						   "case_id", nb_json_string(pf->v[i].case_id),
						   "text", nb_json_string(pf->v[i].text)));
	return a;
}

static json_t *report_json(const struct nb_results *res)
{
	json_t *probs = json_array();
	for (size_t i = 0; i < res->nproblems; i++)
		json_array_append_new(probs, nb_json_string(res->problems[i]));
	return json_pack("{s:I s:o}", "incomplete_rows", (json_int_t)res->incomplete, "problems", probs);
}

bool nb_json_write(const char *path, const struct nb_results *res, const struct nb_summary *s,
		   const struct nb_pitfalls *pf, struct nb_error *err)
{
	json_t *sum = json_array();
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(sum, case_json(res, s, i));
	json_t *root = json_pack("{s:i s:o s:o s:{s:o s:o} s:o s:o s:o s:o}", "format_version", 1,
		"meta", res->meta.root ? json_deep_copy(res->meta.root) : json_object(),
		"plan", plan_json(res), "env", "local", facts_json(&res->local),
		"peer", facts_json(&res->peer), "runs", runs_json(res, s), "summary", sum,
		"warnings", pitfalls_json(pf), "report", report_json(res));
	if (!root)
		return nb_error_set(err, "%s: cannot build the JSON document", path);
	bool ok = nb_afile_json(path, root, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
				JSON_REAL_PRECISION(NB_FMT_DIGITS), err);
	json_decref(root);
	return ok;
}

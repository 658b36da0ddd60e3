/* The Prometheus text exposition of a results folder (see export.h). One gauge family per
 * quantity, named in base units (seconds, bits, ratios); each series is one case's statistic:
 * the headline gets mean, stddev, ci95_lo, ci95_hi, min, median and max across the counted
 * repetitions, every other quantity its mean. Latency is also one summary family,
 * nbrun_latency_seconds: the quantiles of every transaction (the runs' histograms merged)
 * with their _sum and _count. No timestamps: the
 * Pushgateway refuses them and the textfile collector ignores them. */
#include <math.h>
#include <string.h>

#include "export.h"
#include "fmt.h"
#include "path_stats.h"
#include "sweep_latency_csv.h"
#include "sweeps_json.h"

/* One quantity: a column, the gauge family it goes to, its scale to base units (Prometheus
 * wants bytes, not bits, and ratios, not percent). */
static const struct family {
	enum nb_col col;
	const char *name, *help;
	double scale;
} families[] = {
	{ NB_COL_RX_BPS, "nbrun_throughput_bytes_per_second", "Throughput received", 1.0 / 8 },
	{ NB_COL_TX_BPS, "nbrun_sent_bytes_per_second", "Throughput sent", 1.0 / 8 },
	{ NB_COL_RX_PPS, "nbrun_received_packets_per_second", "Packets received per second", 1 },
	{ NB_COL_TX_PPS, "nbrun_sent_packets_per_second", "Packets sent per second", 1 },
	{ NB_COL_TRANS_PER_S, "nbrun_transactions_per_second", "Request/response transactions per "
	  "second", 1 },
	{ NB_COL_LOSS_PCT, "nbrun_loss_ratio", "Datagrams lost, as a ratio of those sent", 0.01 },
	{ NB_COL_JITTER_US, "nbrun_jitter_seconds", "RFC 3550 interarrival jitter", 1e-6 },
	{ NB_COL_RETRANS, "nbrun_tcp_retransmits", "TCP segments retransmitted in a run", 1 },
	{ NB_COL_LAT_MEAN_US, "nbrun_latency_mean_seconds", "Mean round-trip time of a run", 1e-6 },
	{ NB_COL_LAT_P50_US, "nbrun_latency_p50_seconds", "Median round-trip time of a run", 1e-6 },
	{ NB_COL_LAT_P90_US, "nbrun_latency_p90_seconds", "90th percentile round-trip time of a run",
	  1e-6 },
	{ NB_COL_LAT_P99_US, "nbrun_latency_p99_seconds", "99th percentile round-trip time of a run",
	  1e-6 },
	{ NB_COL_LAT_P999_US, "nbrun_latency_p999_seconds", "99.9th percentile round-trip time of a "
	  "run", 1e-6 },
	{ NB_COL_LAT_P9999_US, "nbrun_latency_p9999_seconds", "99.99th percentile round-trip time of "
	  "a run", 1e-6 },
	{ NB_COL_CPU_LOCAL_PCT, "nbrun_cpu_local_ratio", "CPU time of the client's engine threads, "
	  "as a ratio of one core", 0.01 },
	{ NB_COL_CPU_PEER_PCT, "nbrun_cpu_peer_ratio", "CPU time of the agent's engine threads, "
	  "as a ratio of one core", 0.01 },
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

/* A label value escaped as the format asks: backslash, double quote and newline. */
static void put_value(FILE *out, const char *s)
{
	for (; *s; s++)
		fputs(*s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : *s == '\n' ? "\\n" : (char[]){ *s, 0 },
		      out);
}

static void put_label(FILE *out, const char *key, const char *value)
{
	fprintf(out, ",%s=\"", key);
	put_value(out, value);
	fputc('"', out);
}

static void put_num_label(FILE *out, const char *key, double v)
{
	char buf[400];
	if (!isfinite(v))
		return;
	nb_fmt_num(v, buf, sizeof(buf));
	put_label(out, key, buf);
}

/* {case_id="...",...,[statistic="..."],[quantile="..."],[path="..."],user labels}: path only
 * for a case that ran on several paths ("all" for its sum, else the path's name). */
static void labels_path(FILE *out, const struct nb_results *res, const struct nb_plan_case *pc,
			const char *stat, const char *quantile, const char *path, const char *goal,
			const char *pct)
{
	fputs("{case_id=\"", out);
	put_value(out, pc->case_id);
	fputc('"', out);
	put_label(out, "test", pc->test);
	put_label(out, "engine", pc->engine);
	put_label(out, "protocol", pc->protocol);
	put_num_label(out, "size", pc->size);
	put_num_label(out, "streams", pc->streams);
	if (pc->direction && *pc->direction)
		put_label(out, "direction", pc->direction);
	if (stat)
		put_label(out, "statistic", stat);
	if (quantile)
		put_label(out, "quantile", quantile);
	if (path)
		put_label(out, "path", path);
	if (goal)
		put_label(out, "goal", goal);
	if (pct)
		put_label(out, "pct_of_goal", pct);
	for (size_t l = 0; l < res->meta.nlabels; l++)
		put_label(out, res->meta.label_keys[l], res->meta.label_values[l]);
	fputc('}', out);
}

static void labels(FILE *out, const struct nb_results *res, const struct nb_plan_case *pc,
		   const char *stat, const char *quantile)
{
	size_t ci = (size_t)(pc - res->cases);
	struct nb_path_stats ps[1];
	bool paths = nb_path_stats_of_case(res, ci, ps, 1) > 0;
	labels_path(out, res, pc, stat, quantile, paths ? NB_PATH_ALL : NULL, NULL, NULL);
}

/* " VALUE\n" after a series' labels. */
static void put_value_num(FILE *out, double v)
{
	char buf[400];
	nb_fmt_num(v, buf, sizeof(buf));
	fprintf(out, " %s\n", buf);
}

/* name{labels} value, in the family's base unit; nothing for a value that is not known. */
static void series(FILE *out, const struct family *f, const struct nb_results *res,
		   const struct nb_plan_case *pc, const char *stat, double v)
{
	if (!isfinite(v))
		return;
	fputs(f->name, out);
	labels(out, res, pc, stat, NULL);
	put_value_num(out, v * f->scale);
}

/* A multi-path case: each path's own mean headline, labelled with its path. */
static void path_series(FILE *out, const struct family *f, const struct nb_results *res,
			const struct nb_case_stats *c)
{
	struct nb_path_stats ps[NB_REPORT_PATHS_MAX];
	size_t n = nb_path_stats_of_case(res, (size_t)(c->pc - res->cases), ps, NB_REPORT_PATHS_MAX);
	for (size_t i = 0; i < n; i++) {
		double v = nb_stats_mean(&ps[i].value);
		if (!ps[i].value.n || !isfinite(v))
			continue;
		fputs(f->name, out);
		labels_path(out, res, c->pc, "mean", NULL, ps[i].path, NULL, NULL);
		put_value_num(out, v * f->scale);
	}
}

/* The headline's statistics across the counted repetitions. */
static void headline(FILE *out, const struct family *f, const struct nb_results *res,
		     const struct nb_case_stats *c)
{
	double mean = nb_stats_mean(&c->value);
	series(out, f, res, c->pc, "mean", mean);
	series(out, f, res, c->pc, "stddev", nb_stats_stddev(&c->value));
	series(out, f, res, c->pc, "ci95_lo", c->ci_lo);
	series(out, f, res, c->pc, "ci95_hi", c->ci_hi);
	series(out, f, res, c->pc, "min", c->value.n ? c->value.min : NAN);
	series(out, f, res, c->pc, "median", c->median);
	series(out, f, res, c->pc, "max", c->value.n ? c->value.max : NAN);
	path_series(out, f, res, c);
}

static void family_cases(FILE *out, const struct family *f, const struct nb_results *res,
			 const struct nb_summary *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct nb_case_stats *c = &s->c[i];
		if (c->metric_col == (int)f->col)
			headline(out, f, res, c);
		else
			series(out, f, res, c->pc, "mean", c->value.n ? c->metric_mean[f->col] : NAN);
	}
}

#define LAT "nbrun_latency_seconds"

/* The summary of every transaction's round-trip time of one case: quantiles, sum, count. */
static void latency_summary(FILE *out, const struct nb_results *res, const struct nb_case_stats *c)
{
	static const char *const quantiles[NB_LAT_NQ] = { "0.5", "0.9", "0.99", "0.999", "0.9999" };
	if (!c->merged || c->lat.count == 0)
		return;
	for (size_t q = 0; q < NB_LAT_NQ; q++) {
		double ns = nb_case_lat_pct_ns(c, q);
		if (!isfinite(ns))
			continue;
		fputs(LAT, out);
		labels(out, res, c->pc, NULL, quantiles[q]);
		put_value_num(out, ns * 1e-9);
	}
	fputs(LAT "_sum", out);
	labels(out, res, c->pc, NULL, NULL);
	put_value_num(out, c->lat.mean_ns * 1e-9 * (double)c->lat.count);
	fputs(LAT "_count", out);
	labels(out, res, c->pc, NULL, NULL);
	fprintf(out, " %llu\n", (unsigned long long)c->lat.count);
}

/* A search's goals (sweeps.json): MLRsearch's conditional throughput per flow, one family per
 * rate unit, a series per goal labelled goal="NDR", "PDR". */
static void goal_family(FILE *out, const struct nb_results *res, const struct nb_summary *s,
			const char *unit, const char *name, double scale)
{
	bool any = false;
	for (size_t i = 0; i < s->n; i++) {
		struct nb_sweep_result g[NB_EXPORT_GOALS_MAX];
		size_t n = nb_sweeps_json_goals(res, s->c[i].pc->case_id, g, NB_EXPORT_GOALS_MAX);
		for (size_t k = 0; k < n; k++) {
			if (!g[k].unit || strcmp(g[k].unit, unit) != 0 || !isfinite(g[k].conditional))
				continue;
			if (!any) /* a family only where a search has a goal in this unit */
				fprintf(out, "# HELP %s MLRsearch conditional throughput of a "
					     "loss-threshold search's goal (RFC 9971 Appendix B; goal NDR: "
					     "loss ratio 0, PDR: above 0), per flow (nbrun, per case).\n"
					     "# TYPE %s gauge\n", name, name);
			any = true;
			fputs(name, out);
			labels_path(out, res, s->c[i].pc, NULL, NULL, NULL, g[k].goal_name, NULL);
			put_value_num(out, g[k].conditional * scale);
		}
	}
}

#define PDR_LAT "nbrun_pdr_latency_seconds"

/* A search's latency at % of PDR (sweep_latency.csv): the probe's round trip at each fraction
 * of the goal's rate, a series per fraction and quantile. */
static void pdr_latency(FILE *out, const struct nb_results *res, const struct nb_summary *s)
{
	bool any = false;
	for (size_t i = 0; i < s->n; i++) {
		struct nb_sweep_latency_value v[NB_SWEEP_LATENCY_VALUES_MAX];
		size_t n = nb_sweep_latency_values(res, s->c[i].pc->case_id, v,
						   NB_SWEEP_LATENCY_VALUES_MAX);
		for (size_t k = 0; k < n; k++) {
			char pct[32];
			if (!any)
				fputs("# HELP " PDR_LAT " Round trip of a UDP latency probe beside a search's "
				      "load at a fraction (pct_of_goal) of its PDR rate (FD.io CSIT's "
				      "latency at % PDR; nbrun, per case).\n# TYPE " PDR_LAT " gauge\n", out);
			any = true;
			snprintf(pct, sizeof(pct), "%g", v[k].pct);
			fputs(PDR_LAT, out);
			labels_path(out, res, s->c[i].pc, NULL, v[k].quantile, NULL, v[k].goal, pct);
			put_value_num(out, v[k].us * 1e-6);
		}
	}
}

bool nb_export_prom(FILE *out, const struct nb_results *res, const struct nb_summary *s)
{
	for (size_t i = 0; i < NFAMILIES; i++) {
		const struct family *f = &families[i];
		fprintf(out, "# HELP %s %s (nbrun, per case).\n# TYPE %s gauge\n", f->name, f->help,
			f->name);
		family_cases(out, f, res, s);
	}
	fputs("# HELP " LAT " Round-trip time of every transaction, the runs' histograms merged "
	      "(nbrun, per case).\n# TYPE " LAT " summary\n", out);
	for (size_t i = 0; i < s->n; i++)
		latency_summary(out, res, &s->c[i]);
	goal_family(out, res, s, "bit/s", "nbrun_conditional_throughput_bytes_per_second", 1.0 / 8);
	goal_family(out, res, s, "pkt/s", "nbrun_conditional_throughput_packets_per_second", 1);
	pdr_latency(out, res, s);
	return !ferror(out);
}

/* github-action-benchmark's custom-tool JSON (see export.h): an array of {name, unit, value,
 * range, extra}, one entry per case whose headline is better in the asked direction, so one
 * file feeds `tool: customBiggerIsBetter` and the other `tool: customSmallerIsBetter`. The
 * value is the mean of the counted repetitions, range the 95 % CI half-width, extra the
 * repetitions, stddev and the batch's labels. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "export.h"
#include "fmt.h"
#include "sweeps_json.h"

static json_t *entry(const struct nb_results *res, const struct nb_case_stats *c)
{
	const char *unit = nb_cols[c->metric_col].unit;
	double mean = nb_stats_mean(&c->value);
	char range[128], sd[48], extra[1024];
	nb_fmt_value(c->ci_half, unit, sd, sizeof(sd));
	snprintf(range, sizeof(range), "± %s", isfinite(c->ci_half) ? sd : "?");
	if (c->ci_clipped) { /* the interval cut at 0 is not symmetric: both ends */
		nb_fmt_value(c->ci_hi, unit, sd, sizeof(sd));
		snprintf(range, sizeof(range), "0 to %s (95 %% CI, n too small)", sd);
	}
	nb_fmt_value(nb_stats_stddev(&c->value), unit, sd, sizeof(sd));
	int n = snprintf(extra, sizeof(extra), "%s, %zu run%s, stddev %s", c->metric,
			 c->value.n, c->value.n == 1 ? "" : "s", sd);
	for (size_t l = 0; l < res->meta.nlabels && n > 0 && (size_t)n < sizeof(extra); l++)
		n += snprintf(extra + n, sizeof(extra) - (size_t)n, "%s%s=%s", l ? ", " : "\nlabels: ",
			      res->meta.label_keys[l], res->meta.label_values[l]);
	return json_pack("{s:s, s:s, s:f, s:s, s:s}", "name", c->pc->case_id, "unit", unit,
			 "value", mean, "range", range, "extra", extra);
}

/* A search's goal: its conditional throughput (one search, no spread), bigger is better. */
static json_t *goal_entry(const struct nb_results *res, const struct nb_plan_case *pc,
			  const struct nb_sweep_result *g)
{
	char name[600], extra[1024], lo[48];
	nb_fmt_value(g->lower_bound, g->unit, lo, sizeof(lo));
	snprintf(name, sizeof(name), "%s %s", pc->case_id, g->goal_name);
	int n = snprintf(extra, sizeof(extra), "%s conditional throughput (MLRsearch, RFC 9971), "
			 "loss ratio %g %%, relevant lower bound %s, per flow, one search", g->goal_name,
			 g->loss_target * 100.0, lo);
	for (size_t l = 0; l < res->meta.nlabels && n > 0 && (size_t)n < sizeof(extra); l++)
		n += snprintf(extra + n, sizeof(extra) - (size_t)n, "%s%s=%s", l ? ", " : "\nlabels: ",
			      res->meta.label_keys[l], res->meta.label_values[l]);
	return json_pack("{s:s, s:s, s:f, s:s}", "name", name, "unit", g->unit, "value",
			 g->conditional, "extra", extra);
}

/* Each goal of case c's search with a conditional throughput, into a; false on no memory. */
static bool goal_entries(json_t *a, const struct nb_results *res, const struct nb_case_stats *c,
			 size_t *n)
{
	struct nb_sweep_result g[NB_EXPORT_GOALS_MAX];
	size_t ng = nb_sweeps_json_goals(res, c->pc->case_id, g, NB_EXPORT_GOALS_MAX);
	for (size_t k = 0; k < ng; k++) {
		if (!isfinite(g[k].conditional) || !g[k].unit)
			continue;
		json_t *e = goal_entry(res, c->pc, &g[k]);
		if (!e || json_array_append_new(a, e) != 0)
			return false;
		(*n)++;
	}
	return true;
}

bool nb_export_gh(FILE *out, const struct nb_results *res, const struct nb_summary *s,
		  enum nb_better better, size_t *n)
{
	json_t *a = json_array();
	*n = 0;
	for (size_t i = 0; a && i < s->n; i++) {
		const struct nb_case_stats *c = &s->c[i];
		if (better == NB_BETTER_HIGHER && !goal_entries(a, res, c, n))
			break;
		if (nb_export_case_better(c) != better || c->value.n == 0)
			continue;
		json_t *e = entry(res, c);
		if (!e || json_array_append_new(a, e) != 0)
			break;
		(*n)++;
	}
	bool ok = a && json_dumpf(a, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
				    JSON_REAL_PRECISION(NB_FMT_DIGITS)) == 0 &&
		  fputc('\n', out) != EOF;
	json_decref(a);
	return ok;
}

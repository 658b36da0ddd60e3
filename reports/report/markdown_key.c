/* report.md's opening, the answer first: the key numbers (each case's headline with its 95 % CI
 * in the unit a person reads, a latency case's p50, p99 and p99.9 together), then the conditions
 * every case shares, said once (PKB's "for all tests"), so that the tables below show only what
 * differs per case. */
#include "markdown.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "sweeps_json.h"

/* Index into nb_lat_quantiles of a latency percentile headline, or -1. */
static int headline_pct(int col)
{
	static const enum nb_col pct[NB_LAT_NQ] = { NB_COL_LAT_P50_US, NB_COL_LAT_P90_US,
						    NB_COL_LAT_P99_US, NB_COL_LAT_P999_US,
						    NB_COL_LAT_P9999_US };
	for (int q = 0; q < NB_LAT_NQ; q++)
		if ((int)pct[q] == col)
			return q;
	return -1;
}

static const char *const pct_label[NB_LAT_NQ] = { "p50", "p90", "p99", "p99.9", "p99.99" };

/* " p99 40.1 µs" for the runs' mean of percentile q (a dash when no run had samples enough). */
static void runmean_pct(FILE *f, const struct nb_case_stats *c, int q)
{
	char v[48];
	nb_fmt_value(c->lat_runmean_us[q], "us", v, sizeof(v));
	fprintf(f, "%s %s", pct_label[q], isfinite(c->lat_runmean_us[q]) ? v : "—");
}

/* The headline's mean in bold, to ~3 significant digits of its display unit. */
static void headline(FILE *f, const struct nb_case_stats *c, struct nb_scale sc, int d)
{
	fprintf(f, "**%.*f%s%s**", d, c->value.mean / sc.div, *sc.unit ? " " : "", sc.unit);
}

static void result_cell(FILE *f, const struct nb_case_stats *c, struct nb_scale sc, int d)
{
	int hq = headline_pct(c->metric_col);
	static const int tail[] = { 0, 2, 3 }; /* p50, p99, p99.9 */
	if (hq >= 0) {
		fprintf(f, "%s ", pct_label[hq]);
		headline(f, c, sc, d);
	} else
		headline(f, c, sc, d);
	bool lat = hq >= 0 || isfinite(c->lat_runmean_us[0]);
	for (size_t k = 0; lat && k < sizeof(tail) / sizeof(tail[0]); k++)
		if (tail[k] != hq) {
			fputs(k == 0 && hq < 0 ? " · latency " : " · ", f);
			runmean_pct(f, c, tail[k]);
		}
}

/* A search's answer: its highest rate within each loss goal. */
static void sweep_cell(FILE *f, const struct nb_results *res, const struct nb_case_stats *c)
{
	struct nb_sweep_result sw;
	char v[64];
	size_t g = 0;
	for (; nb_sweeps_json_goal(res, c->pc->case_id, g, &sw); g++) {
		fputs(g ? "; " : "", f);
		if (!isfinite(sw.loss_target)) {
			fputs("a plain sweep (see its section)", f);
			continue;
		}
		nb_fmt_value(sw.threshold, sw.unit ? sw.unit : "bit/s", v, sizeof(v));
		fprintf(f, "highest rate with loss ≤ %g %%: ", sw.loss_target * 100.0);
		fprintf(f, isfinite(sw.threshold) ? "**%s**" : "none", v);
	}
	fputs(g ? " | — |" : "a sweep without a result (see its section) | — |", f);
	fprintf(f, " %zu trials |\n", c->n_trials);
}

static void key_row(FILE *f, const struct nb_results *res, const struct nb_case_stats *c)
{
	fputs("| ", f);
	nb_md_cell(f, c->pc->test);
	fputs(" | ", f);
	nb_md_code(f, c->pc->case_id);
	fputs(" | ", f);
	const char *unit = c->metric_col >= 0 ? nb_cols[c->metric_col].unit : "";
	if (c->value.n == 0 && c->n_trials) {
		sweep_cell(f, res, c);
		return;
	}
	if (c->value.n == 0) {
		fputs("no counted run | — | 0 |\n", f);
		return;
	}
	struct nb_scale sc = nb_fmt_scale(unit, fabs(c->value.mean));
	int d = nb_fmt_decimals(c->value.mean / sc.div, NAN);
	result_cell(f, c, sc, d);
	if (c->value.n >= 2)
		fprintf(f, " | %.*f – %.*f %s%s |", d, c->ci_lo / sc.div, d, c->ci_hi / sc.div, sc.unit,
			c->ci_clipped ? " (n too small)" : "");
	else
		fputs(" | — (one run) |", f);
	fprintf(f, " %zu |\n", c->value.n);
}

void nb_md_key_numbers(FILE *f, const struct nb_results *res, const struct nb_summary *s)
{
	fputs("## Key numbers\n\n", f);
	if (s->n == 0) {
		fputs("No case has results yet.\n\n", f);
		return;
	}
	bool lat = false, clipped = false;
	for (size_t i = 0; i < s->n; i++) {
		lat = lat || headline_pct(s->c[i].metric_col) >= 0 ||
		      isfinite(s->c[i].lat_runmean_us[0]);
		clipped = clipped || s->c[i].ci_clipped;
	}
	fputs("| Test | Case | Result | 95 % CI | n |\n|---|---|--:|--:|--:|\n", f);
	for (size_t i = 0; i < s->n; i++)
		key_row(f, res, &s->c[i]);
	fputs("\nResult: the test's headline (in bold), the mean over the n counted repetitions, "
	      "with the 95 % confidence interval of that mean", f);
	if (lat)
		fputs("; latency percentiles are each the mean of every repetition's own percentile, "
		      "the percentiles of all samples merged are in the latency tables", f);
	if (clipped)
		fputs("; *n too small*: the interval reached below 0 and is cut there, the repetitions "
		      "are too few for their spread", f);
	fputs(".\n\n", f);
}

/* Whether every case has the same duration, warm-up, omit, interval and repetitions. */
static bool same_timing(const struct nb_summary *s)
{
	const struct nb_plan_case *a = s->c[0].pc;
	for (size_t i = 1; i < s->n; i++) {
		const struct nb_plan_case *b = s->c[i].pc;
		if (a->duration_s != b->duration_s || a->warmup_s != b->warmup_s ||
		    a->omit_s != b->omit_s || a->interval_s != b->interval_s ||
		    strcmp(a->repetitions, b->repetitions) != 0)
			return false;
	}
	return isfinite(a->duration_s);
}

static bool same_engine(const struct nb_summary *s)
{
	for (size_t i = 1; i < s->n; i++)
		if (strcmp(s->c[0].pc->engine, s->c[i].pc->engine) != 0)
			return false;
	return true;
}

bool nb_md_timing_common(const struct nb_summary *s)
{
	return s->n > 0 && same_timing(s);
}

static void timing(FILE *f, const struct nb_results *res, const struct nb_summary *s)
{
	const struct nb_plan_case *p = s->c[0].pc;
	fprintf(f, "- **Every case:** ");
	if (same_engine(s)) {
		fputs("engine ", f);
		nb_md_code(f, p->engine);
		fputs(" · ", f);
	}
	if (same_timing(s)) {
		fprintf(f, "%g s measured after a %g s warm-up, the first %g s omitted, in %g s "
			   "intervals · ", p->duration_s, p->warmup_s, p->omit_s, p->interval_s);
		if (p->autorep)
			fprintf(f, "repetitions auto (%u–%u, until the 95 %% CI is within ±%g %%)",
				(unsigned)p->rep_min, (unsigned)p->rep_max, p->ci_target * 100.0);
		else {
			nb_md_cell(f, p->repetitions);
			fputs(" repetitions", f);
		}
	} else
		fputs("timing and repetitions differ per test (Method)", f);
	fputs(", run order ", f);
	nb_md_text(f, res->meta.order ? res->meta.order : "unknown");
	nb_md_common_params(f, s);
	fputs(".\n", f);
}

/* The facts a reader asks about first, in this order; the rest is in Environment. */
static const struct {
	const char *group, *key, *label;
} key_facts[] = {
	{ "host", "kernel", "kernel" },
	{ "cpu", "model", "CPU" },
	{ "cpu", "online_count", "CPUs online" },
	{ "iface", "name", "interface" },
	{ "iface", "mtu", "MTU" },
	{ "iface", "qdisc", "qdisc" },
	{ "iface", "offload.gso", "GSO" },
	{ "iface", "offload.gro", "GRO" },
	{ "tcp", "congestion_control", "congestion control" },
	{ "nbrun", "version", "nbrun" },
};

static void fact_value(FILE *f, const struct nb_fact *x)
{
	if (!x)
		fputs("not recorded", f);
	else if (x->ok)
		nb_md_cell(f, x->value);
	else
		fputs("not known", f);
}

static void ends(FILE *f, const struct nb_results *res)
{
	const struct nb_facts *l = &res->local, *p = &res->peer;
	bool peer = p->n > 0;
	fputs(peer ? "- **Both ends:** " : "- **This end:** ", f);
	size_t shown = 0;
	for (size_t i = 0; i < sizeof(key_facts) / sizeof(key_facts[0]); i++) {
		const struct nb_fact *a = nb_facts_get(l, key_facts[i].group, key_facts[i].key);
		const struct nb_fact *b = peer ? nb_facts_get(p, key_facts[i].group, key_facts[i].key) : NULL;
		if (!a && !b)
			continue;
		fprintf(f, "%s%s ", shown++ ? " · " : "", key_facts[i].label);
		if (!peer || nb_facts_same(a, b))
			fact_value(f, a);
		else {
			fputs("**local ", f);
			fact_value(f, a);
			fputs(", peer ", f);
			fact_value(f, b);
			fputs("**", f);
		}
	}
	if (!shown)
		fputs("no fact recorded", f);
	fputs(peer ? " (a fact that differs is in bold, with each end's value; every fact is in "
		     "Environment).\n" : " (every fact is in Environment).\n", f);
}

void nb_md_conditions(FILE *f, const struct nb_results *res, const struct nb_summary *s)
{
	fputs("## Conditions\n\n", f);
	if (s->n == 0) {
		fputs("No case was planned.\n\n", f);
		return;
	}
	timing(f, res, s);
	if (res->have_env)
		ends(f, res);
	fputs("- **Per case:** only what differs, in the results tables below.\n\n", f);
}

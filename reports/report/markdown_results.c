/* report.md: the results tables (one per test and headline), latency percentiles, and the
 * charts section (each sweep's table: markdown_sweep.c). */
#include "markdown.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

struct pcol {
	const char *head;
	bool (*has)(const struct nb_plan_case *);
	void (*cell)(FILE *, const struct nb_plan_case *);
};

/* Whether the engine's traits rule a column out; an engine this build does not know rules
 * nothing out (its cells show what plan.csv says). */
static bool not_directional(const struct nb_plan_case *p)
{
	return p->eng && !p->eng->traits.directional;
}

static bool takes_no_wait(const struct nb_plan_case *p)
{
	return p->eng && !nb_engine_has_key(p->eng, "wait");
}

static void bytes(FILE *f, double v)
{
	if (v >= 1048576 && fmod(v, 1048576) == 0)
		fprintf(f, "%g MiB", v / 1048576);
	else if (v >= 1024 && fmod(v, 1024) == 0)
		fprintf(f, "%g KiB", v / 1024);
	else
		fprintf(f, "%g B", v);
}

static bool has_proto(const struct nb_plan_case *p) { return *p->protocol; }
static bool has_size(const struct nb_plan_case *p) { return p->size > 0; }
static bool has_rr(const struct nb_plan_case *p) { return p->request > 0 || p->response > 0; }
static bool has_streams(const struct nb_plan_case *p) { return p->streams > 0; }
static bool has_dir(const struct nb_plan_case *p) { return *p->direction && !not_directional(p); }
static bool has_rate(const struct nb_plan_case *p) { return p->rate > 0; }
static bool has_wait(const struct nb_plan_case *p) { return *nb_plan_case_param(p, "wait") && !takes_no_wait(p); }

static void c_proto(FILE *f, const struct nb_plan_case *p) { nb_md_cell(f, p->protocol); }
static void c_size(FILE *f, const struct nb_plan_case *p) { has_size(p) ? bytes(f, p->size) : (void)fputs("—", f); }
static void c_streams(FILE *f, const struct nb_plan_case *p) { fprintf(f, "%g", isfinite(p->streams) ? p->streams : 1); }
static void c_dir(FILE *f, const struct nb_plan_case *p) { nb_md_cell(f, p->direction); }
static void c_wait(FILE *f, const struct nb_plan_case *p) { nb_md_cell(f, nb_plan_case_param(p, "wait")); }

static void c_rr(FILE *f, const struct nb_plan_case *p)
{
	fprintf(f, "%g / ", isfinite(p->request) ? p->request : 0);
	bytes(f, isfinite(p->response) ? p->response : 0);
}

static void c_rate(FILE *f, const struct nb_plan_case *p)
{
	char buf[64];
	if (!has_rate(p)) {
		fputs("unlimited", f);
		return;
	}
	const char *unit = p->eng && p->eng->traits.rate_unit ? p->eng->traits.rate_unit : "";
	nb_fmt_value(p->rate, unit, buf, sizeof(buf));
	fputs(buf, f);
}

static const struct pcol pcols[] = {
	{ "Protocol", has_proto, c_proto },
	{ "Size", has_size, c_size },
	{ "Request / response", has_rr, c_rr },
	{ "Streams / flows", has_streams, c_streams },
	{ "Direction", has_dir, c_dir },
	{ "Rate per flow", has_rate, c_rate },
	{ "Wait", has_wait, c_wait },
};
#define NPCOLS (sizeof(pcols) / sizeof(pcols[0]))

static bool same_group(const struct nb_case_stats *a, const struct nb_case_stats *b)
{
	return strcmp(a->pc->test, b->pc->test) == 0 && a->metric_col == b->metric_col &&
	       b->n_trials == 0;
}

static bool first_of_group(const struct nb_summary *s, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (same_group(&s->c[k], &s->c[i]))
			return false;
	return s->c[i].n_trials == 0;
}

/* Column k's cell of case i, in buf (empty when the case has none). */
static void pcol_text(const struct nb_summary *s, size_t i, size_t k, char *buf, size_t len)
{
	buf[0] = '\0';
	FILE *m = pcols[k].has(s->c[i].pc) ? fmemopen(buf, len, "w") : NULL;
	if (m) {
		pcols[k].cell(m, s->c[i].pc);
		fclose(m);
	}
}

static bool same_group(const struct nb_case_stats *a, const struct nb_case_stats *b);

/* Column k reads the same in every case of the report (g < 0) or of group g: said once, in
 * Conditions or on the test's line, instead of in every row. */
static bool pcol_common(const struct nb_summary *s, long g, size_t k)
{
	char first[128], cur[128];
	size_t i0 = g < 0 ? 0 : (size_t)g;
	pcol_text(s, i0, k, first, sizeof(first));
	for (size_t i = i0 + 1; i < s->n && first[0]; i++) {
		if (g >= 0 && !same_group(&s->c[g], &s->c[i]))
			continue;
		pcol_text(s, i, k, cur, sizeof(cur));
		if (strcmp(first, cur) != 0)
			return false;
	}
	return s->n > 0 && first[0];
}

/* " · protocol tcp · direction forward": the columns common to the report (g < 0) or to group g
 * and not to the whole report. */
static void common_params(FILE *f, const struct nb_summary *s, long g)
{
	char buf[128];
	for (size_t k = 0; k < NPCOLS; k++)
		if (pcol_common(s, g, k) && (g < 0 || !pcol_common(s, -1, k))) {
			pcol_text(s, g < 0 ? 0 : (size_t)g, k, buf, sizeof(buf));
			fprintf(f, " · %c%s ", pcols[k].head[0] + ('a' - 'A'), pcols[k].head + 1);
			fputs(buf, f); /* written by the cell, already escaped */
		}
}

void nb_md_common_params(FILE *f, const struct nb_summary *s)
{
	common_params(f, s, -1);
}

static void group_columns(const struct nb_summary *s, size_t g, bool show[NPCOLS])
{
	for (size_t k = 0; k < NPCOLS; k++) {
		show[k] = false;
		if (pcol_common(s, (long)g, k))
			continue;
		for (size_t i = g; i < s->n && !show[k]; i++)
			show[k] = same_group(&s->c[g], &s->c[i]) && pcols[k].has(s->c[i].pc);
	}
}

static void fmt_pct(FILE *f, double cv)
{
	double p = cv * 100.0;
	fprintf(f, " (%.*f %%)", p < 1 ? 2 : p < 10 ? 1 : 0, p);
}

static void value_cells(FILE *f, const struct nb_case_stats *c, struct nb_scale sc)
{
	const struct nb_stats *v = &c->value;
	if (v->n == 0) {
		fputs(" — | — | — |", f);
		return;
	}
	double m = v->mean / sc.div, sd = nb_stats_stddev(v) / sc.div;
	int d = nb_fmt_decimals(m, sd);
	fprintf(f, " %.*f", d, m);
	if (v->n >= 2) {
		fprintf(f, " ± %.*f", d, sd);
		if (isfinite(nb_stats_cv(v)))
			fmt_pct(f, nb_stats_cv(v));
	}
	fprintf(f, " | %.*f – %.*f |", d, v->min / sc.div, d, v->max / sc.div);
	if (v->n >= 2)
		fprintf(f, " %.*f – %.*f%s |", d, c->ci_lo / sc.div, d, c->ci_hi / sc.div,
			c->ci_clipped ? " (n too small)" : "");
	else
		fputs(" — |", f);
}

static void n_cell(FILE *f, const struct nb_case_stats *c)
{
	fprintf(f, " %zu", c->value.n);
	const char *sep = " (";
	if (c->n_failed)
		fprintf(f, "%s%zu failed", sep, c->n_failed), sep = ", ";
	if (c->n_invalid)
		fprintf(f, "%s%zu invalid", sep, c->n_invalid), sep = ", ";
	if (c->outliers)
		fprintf(f, "%s%zu outlier%s", sep, c->outliers, c->outliers > 1 ? "s" : ""), sep = ", ";
	fprintf(f, "%s |", *sep == ',' ? ")" : "");
}

static struct nb_scale group_scale(const struct nb_summary *s, size_t g)
{
	double mag = 0;
	for (size_t i = g; i < s->n; i++)
		if (same_group(&s->c[g], &s->c[i]) && s->c[i].value.n)
			mag = fmax(mag, fabs(s->c[i].value.mean));
	const char *unit = s->c[g].metric_col >= 0 ? nb_cols[s->c[g].metric_col].unit : "";
	return nb_fmt_scale(unit, mag);
}

static void group_extras(const struct nb_summary *s, size_t g, bool show[NB_MD_NEXTRA])
{
	for (size_t k = 0; k < NB_MD_NEXTRA; k++) {
		show[k] = false;
		for (size_t i = g; i < s->n && !show[k]; i++)
			show[k] = same_group(&s->c[g], &s->c[i]) && nb_md_extra_has(k, &s->c[i]);
	}
}

/* A latency percentile headline is one percentile per run: "p50" of "Latency p50", or NULL.
 * Its column says it is their mean, beside the latency table's percentile of all samples. */
static const char *run_percentile(int col)
{
	static const struct {
		enum nb_col col;
		const char *name;
	} pct[] = { { NB_COL_LAT_P50_US, "p50" }, { NB_COL_LAT_P90_US, "p90" },
		    { NB_COL_LAT_P99_US, "p99" }, { NB_COL_LAT_P999_US, "p99.9" },
		    { NB_COL_LAT_P9999_US, "p99.99" } };
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		if ((int)pct[i].col == col)
			return pct[i].name;
	return NULL;
}

static void table_head(FILE *f, const bool show[NPCOLS], const bool extra[NB_MD_NEXTRA],
		       const char *u, int metric_col)
{
	fprintf(f, "| Case |");
	for (size_t k = 0; k < NPCOLS; k++)
		if (show[k])
			fprintf(f, " %s |", pcols[k].head);
	const char *pct = run_percentile(metric_col);
	if (pct)
		fprintf(f, " Mean of the runs' %s ± stddev (CV), %s | Min – max | 95 %% CI | n |", pct, u);
	else
		fprintf(f, " Mean ± stddev (CV), %s | Min – max | 95 %% CI | n |", u);
	for (size_t k = 0; k < NB_MD_NEXTRA; k++)
		if (extra[k])
			nb_md_extra_head(f, k, u);
	fprintf(f, "\n|---|");
	for (size_t k = 0; k < NPCOLS; k++)
		if (show[k])
			fprintf(f, "---|");
	fprintf(f, "--:|--:|--:|--:|");
	for (size_t k = 0; k < NB_MD_NEXTRA; k++)
		if (extra[k])
			fprintf(f, "--:|");
	fputs("\n", f);
}

/* Said once under a table whose CI column has a cut interval. */
static void clipped_note(FILE *f, const struct nb_summary *s, size_t g)
{
	for (size_t i = g; i < s->n; i++)
		if (same_group(&s->c[g], &s->c[i]) && s->c[i].ci_clipped) {
			fputs("\n*n too small*: the t interval of the mean reached below 0, which no "
			      "measured value can; it is cut at 0 (that keeps its 95 % coverage) and says "
			      "the repetitions are too few for their spread: add repetitions.\n", f);
			return;
		}
}

/* What "per client core" means, with the group's first case as the example. */
static void per_core_note(FILE *f, const struct nb_summary *s, size_t g, struct nb_scale sc)
{
	fputs("\nPer client core, per agent core: the headline divided by the cores that end's engine "
	      "threads kept busy (their CPU time per second of the run), what one fully busy core "
	      "would carry at that pace", f);
	const struct nb_case_stats *c = &s->c[g];
	double used = c->metric_mean[NB_COL_CPU_LOCAL_PCT] / 100.0;
	double per = c->metric_mean[NB_COL_LOCAL_PER_CPU_S] / sc.div;
	if (c->value.n && isfinite(used) && isfinite(per) && used > 0) {
		fprintf(f, ": %.*f %s at %.*f %s per client core means the client's threads used %.2f "
			   "of a core", nb_fmt_decimals(c->value.mean / sc.div, NAN),
			c->value.mean / sc.div, sc.unit, nb_fmt_decimals(per, NAN), per, sc.unit, used);
		fputs(" (", f);
		nb_md_code(f, c->pc->case_id);
		fputs(")", f);
	}
	fputs(".\n", f);
}

static void group_table(FILE *f, const struct nb_summary *s, size_t g)
{
	bool show[NPCOLS], extra[NB_MD_NEXTRA];
	group_columns(s, g, show);
	group_extras(s, g, extra);
	struct nb_scale sc = group_scale(s, g);
	table_head(f, show, extra, *sc.unit ? sc.unit : "value", s->c[g].metric_col);
	for (size_t i = g; i < s->n; i++) {
		const struct nb_case_stats *c = &s->c[i];
		if (!same_group(&s->c[g], c))
			continue;
		fputs("| ", f);
		nb_md_code(f, c->pc->case_id);
		fputs(" |", f);
		for (size_t k = 0; k < NPCOLS; k++)
			if (show[k]) {
				fputc(' ', f);
				pcols[k].cell(f, c->pc);
				fputs(" |", f);
			}
		value_cells(f, c, sc);
		n_cell(f, c);
		for (size_t k = 0; k < NB_MD_NEXTRA; k++)
			if (extra[k])
				nb_md_extra_cell(f, k, c, sc);
		fputs("\n", f);
	}
	if (extra[0] || extra[2])
		fputs("\nThe columns after n are means over the repetitions; a bidir case gives "
		      "forward / reverse (client → agent / agent → client), each direction judged on "
		      "its own (see the warnings).\n", f);
	if (extra[7] || extra[8])
		per_core_note(f, s, g, sc);
	clipped_note(f, s, g);
	fputs("\n", f);
}

static void run_notes(FILE *f, const struct nb_results *res, const struct nb_summary *s, size_t ci)
{
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		if (r->case_idx != ci || nb_run_kind_swept(r->kind))
			continue;
		if (strcmp(r->status, "ok") != 0) {
			fprintf(f, "- %s: ", strcmp(r->status, "failed") == 0        ? "Failed"
					     : strcmp(r->status, "interrupted") == 0 ? "Interrupted"
					     : strcmp(r->status, "suspect") == 0     ? "Suspect"
										     : "Invalid");
			nb_md_code(f, r->case_id);
			fprintf(f, " repetition %u: ", (unsigned)r->rep);
			nb_md_cell(f, *r->error ? r->error : r->flags);
			fputs("\n", f);
		} else if (s->run_outlier[i]) {
			char v[64];
			nb_fmt_value(r->value, r->metric_col >= 0 ? nb_cols[r->metric_col].unit : "", v, sizeof(v));
			fputs("- Outlier (beyond 1.5 × IQR, kept in the statistics): ", f);
			nb_md_code(f, r->case_id);
			fprintf(f, " repetition %u: %s\n", (unsigned)r->rep, v);
		}
	}
}

static void autorep_note(FILE *f, const struct nb_case_stats *c)
{
	if (!c->pc->autorep || c->value.n == 0)
		return;
	double rel = c->value.n >= 2 ? c->ci_half / fabs(c->value.mean) * 100.0 : NAN;
	fprintf(f, "- Repetitions auto: ");
	nb_md_code(f, c->pc->case_id);
	if (c->ci_reached)
		fprintf(f, " reached the ±%g %% target after %zu repetitions (95 %% CI ±%.2f %%).\n",
			c->pc->ci_target * 100.0, c->value.n, rel);
	else if (isfinite(rel))
		fprintf(f, " did **not** reach the ±%g %% target after %zu repetitions (95 %% CI ±%.2f %%).\n",
			c->pc->ci_target * 100.0, c->value.n, rel);
	else
		fprintf(f, " did **not** reach the ±%g %% target: only %zu repetition%s.\n",
			c->pc->ci_target * 100.0, c->value.n, c->value.n == 1 ? "" : "s");
}

/* The data-path facts among a run's flags (its key=value words: pacing=, gso=, gro=). */
static void data_path(const char *flags, char *out, size_t n)
{
	char buf[256];
	out[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", flags ? flags : "");
	for (char *save = NULL, *w = strtok_r(buf, ";", &save); w; w = strtok_r(NULL, ";", &save))
		if (strchr(w, '='))
			snprintf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? ", " : "", w);
}

/* "- Data path of `case`: pacing=user, gso=on, gro=off." from its ok runs (not trials). */
static void data_path_note(FILE *f, const struct nb_results *res, size_t ci)
{
	char first[256] = "", cur[256];
	const char *id = NULL;
	bool differ = false;
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		if (r->case_idx != ci || nb_run_kind_swept(r->kind) || strcmp(r->status, "ok") != 0)
			continue;
		data_path(r->flags, cur, sizeof(cur));
		if (!id)
			memcpy(first, cur, sizeof(first)), id = r->case_id;
		else
			differ = differ || strcmp(first, cur) != 0;
	}
	if (!id || !first[0])
		return;
	fputs("- Data path of ", f);
	nb_md_code(f, id);
	fputs(": ", f);
	nb_md_cell(f, first);
	fputs(differ ? " (not the same in every repetition: see runs.csv).\n" : ".\n", f);
}

static void group_notes(FILE *f, const struct nb_results *res, const struct nb_summary *s, size_t g)
{
	for (size_t i = g; i < s->n; i++)
		if (same_group(&s->c[g], &s->c[i])) {
			data_path_note(f, res, i);
			run_notes(f, res, s, i);
			autorep_note(f, &s->c[i]);
		}
}

static void us_cell(FILE *f, double ns)
{
	if (isfinite(ns))
		fprintf(f, " %.*f |", nb_fmt_decimals(ns / 1000.0, NAN), ns / 1000.0);
	else
		fputs(" — |", f);
}

static bool thin_tail(const struct nb_case_stats *c)
{
	return c->merged && c->lat.count && !c->lat_ok[NB_LAT_NQ - 1];
}

static void latency_row(FILE *f, const struct nb_case_stats *c)
{
	const struct nb_hist_summary *h = &c->lat;
	fputs("| ", f);
	nb_md_code(f, c->pc->case_id);
	fprintf(f, " | %llu |", (unsigned long long)h->count);
	us_cell(f, (double)h->min_ns);
	for (size_t q = 0; q < NB_LAT_NQ; q++)
		us_cell(f, nb_case_lat_pct_ns(c, q));
	us_cell(f, (double)h->max_ns);
	us_cell(f, c->lat_runmean_us[2] * 1000.0);
	fputs("\n", f);
}

static void latency_table(FILE *f, const struct nb_summary *s, size_t g)
{
	bool any = false, thin = false;
	for (size_t i = g; i < s->n; i++)
		if (same_group(&s->c[g], &s->c[i]) && s->c[i].merged && s->c[i].lat.count) {
			any = true;
			thin = thin || thin_tail(&s->c[i]);
		}
	if (!any)
		return;
	fprintf(f, "Round-trip latency in µs, from the histograms of all repetitions merged "
		   "(last column: mean of each repetition's own p99):\n\n"
		   "| Case | Samples | Min | p50 of all samples | p90 | p99 | p99.9 | p99.99 | Max | "
		   "p99, mean of runs |\n"
		   "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
	for (size_t i = g; i < s->n; i++) {
		const struct nb_case_stats *c = &s->c[i];
		if (same_group(&s->c[g], c) && c->merged && c->lat.count)
			latency_row(f, c);
	}
	if (thin)
		fputs("\n— : too few samples for that percentile (a percentile q needs at least "
		      "1 / (1 − q) samples: 100 for p99, 1 000 for p99.9, 10 000 for p99.99); below "
		      "that it would only repeat the maximum.\n", f);
	fputs("\n", f);
}

void nb_md_results(FILE *f, const struct nb_results *res, const struct nb_summary *s)
{
	fprintf(f, "## Results\n\n");
	if (s->n == 0)
		fprintf(f, "No case has results yet.\n\n");
	else
		fputs("In each table: the mean over the counted repetitions ± their standard deviation "
		      "(CV = stddev / mean), the lowest and the highest repetition, the 95 % confidence "
		      "interval of the mean, and n, the repetitions counted.\n\n", f);
	for (size_t g = 0; g < s->n; g++) {
		if (!first_of_group(s, g))
			continue;
		const struct nb_case_stats *c = &s->c[g];
		fputs("### ", f);
		nb_md_cell(f, c->pc->test);
		fprintf(f, " — %s\n\nEngine ", c->metric_col >= 0 ? nb_cols[c->metric_col].label : "no result");
		nb_md_code(f, c->pc->engine);
		fputs(", headline ", f);
		nb_md_code(f, c->metric);
		common_params(f, s, (long)g);
		fputs(".\n\n", f);
		group_table(f, s, g);
		group_notes(f, res, s, g);
		fputs("\n", f);
		latency_table(f, s, g);
	}
	for (size_t i = 0; i < s->n; i++)
		if (s->c[i].n_trials > 0)
			nb_md_sweep_table(f, res, &s->c[i]);
}

static void alt_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '[' ? '(' : *s == ']' ? ')' : (*s == '\n' ? ' ' : *s), f);
}

static void chart_entry(FILE *f, const struct nb_chart *ch, bool gnuplot)
{
	fputs("#### ", f);
	nb_md_cell(f, ch->title);
	fputs("\n\n", f);
	if (ch->rendered) {
		fputs("![", f);
		alt_text(f, ch->title);
		fprintf(f, "](charts/%s.png)\n\n", ch->name);
	} else {
		fprintf(f, "_Not rendered (%s): data [charts/%s.dat](charts/%s.dat), script "
			   "[charts/%s.gp](charts/%s.gp)._\n\n",
			gnuplot ? "gnuplot failed" : "gnuplot is not installed", ch->name, ch->name,
			ch->name, ch->name);
	}
	nb_md_cell(f, ch->sentence);
	fputs("\n\n", f);
}

void nb_md_charts(FILE *f, const struct nb_charts *charts)
{
	fprintf(f, "## Charts\n\n");
	if (!charts || charts->n == 0) {
		fprintf(f, "No chart applies to these results.\n\n");
		return;
	}
	size_t nts = 0;
	for (size_t i = 0; i < charts->n; i++) {
		if (charts->v[i].kind == NB_CHART_TIMESERIES)
			nts++;
		else
			chart_entry(f, &charts->v[i], charts->gnuplot);
	}
	if (nts == 0)
		return;
	fprintf(f, "<details>\n<summary>Stability within each run: %zu per-interval chart%s"
		"</summary>\n\n", nts, nts == 1 ? "" : "s");
	for (size_t i = 0; i < charts->n; i++)
		if (charts->v[i].kind == NB_CHART_TIMESERIES)
			chart_entry(f, &charts->v[i], charts->gnuplot);
	fprintf(f, "</details>\n\n");
}

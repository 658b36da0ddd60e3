/* nbrun — compare's working cases (working.csv, docs/compare.md): per BASE working case, each
 * probe's latency inflation at p50 (inflation_p50_us, lower is better; the row is named by the
 * probe's case id) and the case's RPM (rpm_tcp, TCP, higher is better), BASE against each NEW,
 * built as rows of the comparison beside the headlines: judged as a headline is (each side's
 * counted runs, the change with its 95 % CI: the rank test when the runs allow one, else
 * Welch's, else the one-run interval; a verdict against --threshold), counted in the gate's
 * exit code and written by every writer (Markdown, CSV, JSON, JUnit). compare.md also has them
 * in a section of their own, in its words: better, worse, no difference, inconclusive. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_int.h"
#include "fmt.h"
#include "md_text.h"
#include "working_lookup.h"

#define PROBES_MAX 8

/* One number of a working case: where working.csv has it, and which way is better. */
struct wnum {
	const char *part, *phase, *col;
	int proxy;            /* an nb_cols column of the same better direction */
	const char *unit;     /* when not the proxy's, else NULL */
};

static bool sample_of(const struct nb_results *res, const char *id, const struct wnum *w,
		      struct nb_cmp_sample *s)
{
	if (!nb_cmp_sample_start(s, res->nruns + 1))
		return false;
	size_t n = nb_working_csv_values(res, id, w->part, w->phase, w->col, s->v, res->nruns + 1);
	for (size_t i = 0; i < n; i++)
		nb_stats_add(&s->st, s->v[i]);
	s->runs = n;
	nb_cmp_sample_end(s);
	return true;
}

/* An inflation can be below 0 (a loaded p50 under the idle one, by noise), so a change below
 * -100 % is possible: its CI is not cut there (the verdict never rested on the cut bound). */
static void uncut(struct nb_cmp_cell *cell, const struct nb_cmp_sample *base)
{
	if (!cell->clipped)
		return;
	bool rank = cell->test == NB_CMP_TEST_RANK;
	double ref = fabs(rank ? base->median : base->st.mean);
	cell->lo = rank ? cell->mw.lo : cell->welch.lo;
	cell->ch_lo = cell->lo / ref;
	cell->clipped = false;
}

/* A NEW side's cell: the case's values there, judged; a case run with other parameters is not
 * compared (its own row is a problem of the gate already). */
static bool build_cell(const struct nb_compare *c, const struct nb_cmp_row *row, size_t side,
		       const struct wnum *w)
{
	struct nb_cmp_cell *cell = &row->cells[side - 1];
	const struct nb_results *res = &c->sides[side].res;
	cell->present = nb_results_case(res, row->working) != (size_t)-1;
	nb_stats_init(&cell->s.st);
	cell->change = NAN;
	if (!cell->present)
		return true;
	if (!sample_of(res, row->working, w, &cell->s))
		return false;
	nb_cmp_judge(cell, &row->base, row->col, row->rank, c->threshold);
	if (!row->unit)
		uncut(cell, &row->base);
	return nb_cmp_cell_params(c, res, row->working, cell); /* the working case's parameters */
}

static void free_row(const struct nb_compare *c, struct nb_cmp_row *row)
{
	free(row->base.v);
	for (size_t s = 1; row->cells && s < c->nsides; s++) {
		free(row->cells[s - 1].s.v);
		free(row->cells[s - 1].param_diff);
	}
	free(row->cells);
}

/* One row; a number no side has at all (RPM without connect and crr probes) is left out. */
static bool add_row(struct nb_compare *c, const struct nb_plan_case *pc, const char *row_id,
		    const struct wnum *w)
{
	struct nb_cmp_row *v = realloc(c->rows, (c->nrows + 1) * sizeof(*v));
	if (!v)
		return false;
	c->rows = v;
	struct nb_cmp_row *row = &v[c->nrows];
	*row = (struct nb_cmp_row){ .case_id = row_id, .test = pc->test, .metric = w->col,
				    .col = w->proxy, .unit = w->unit, .working = pc->case_id,
				    .rank = true };
	row->cells = calloc(c->nsides - 1, sizeof(*row->cells));
	bool ok = row->cells && sample_of(&c->sides[0].res, pc->case_id, w, &row->base);
	size_t any = row->base.st.n;
	for (size_t s = 1; ok && s < c->nsides; s++) {
		ok = build_cell(c, row, s, w);
		any += row->cells[s - 1].s.st.n;
	}
	if (ok && any)
		c->nrows++;
	else
		free_row(c, row);
	return ok;
}

bool nb_cmp_working_rows(struct nb_compare *c)
{
	const struct nb_results *base = &c->sides[0].res;
	for (size_t i = 0; i < base->ncases; i++) {
		const char *id = base->cases[i].case_id;
		if (!nb_working_csv_cell(base, id, "load", "part")[0])
			continue;
		for (int k = 1; k <= PROBES_MAX; k++) {
			char p[16];
			snprintf(p, sizeof(p), "probe%d", k);
			const char *pid = nb_working_csv_cell(base, id, p, "part_case_id");
			if (!nb_working_csv_cell(base, id, p, "part")[0])
				continue;
			const struct wnum infl = { p, "loaded", "inflation_p50_us",
						   NB_COL_LAT_P50_US, NULL };
			if (!add_row(c, &base->cases[i], *pid ? pid : id, &infl))
				return false;
		}
		const struct wnum rpm = { "case", "", "rpm_tcp", NB_COL_TRANS_PER_S, "RPM" };
		if (!add_row(c, &base->cases[i], id, &rpm))
			return false;
	}
	return true;
}

/* The verdict in this section's words: which side is better, or that they are the same. */
static const char *verdict_word(const struct nb_cmp_cell *cell)
{
	switch (cell->verdict) {
	case NB_CMP_IMPROVEMENT: return "**better**";
	case NB_CMP_REGRESSION: return "**worse**";
	case NB_CMP_UNCHANGED: return "no difference";
	case NB_CMP_NODATA: return "no data";
	case NB_CMP_DIFFERENT: return "not compared";
	default: return "inconclusive";
	}
}

static void md_row(const struct nb_compare *c, FILE *f, const struct nb_cmp_row *row, size_t side)
{
	const struct nb_cmp_cell *cell = &row->cells[side - 1];
	char base[96], nw[96], ch[128], why[256];
	unsigned show = nb_cmp_cell_shows(cell);
	nb_cmp_fmt_sample(row, &row->base, show, base, sizeof(base));
	nb_cmp_fmt_sample(row, &cell->s, show, nw, sizeof(nw));
	nb_cmp_fmt_change_ci(row, cell, ch, sizeof(ch));
	nb_cmp_fmt_reason(c, row, cell, why, sizeof(why));
	bool rpm = row->unit != NULL;
	fputs("| ", f);
	nb_md_code(f, row->working);
	fputs(" | ", f);
	nb_md_cell(f, c->sides[side].name);
	fputs(" | ", f);
	if (!rpm)
		nb_md_code(f, row->case_id);
	fprintf(f, "%s, %s is better | %s | %s | %s | %s (", rpm ? "RPM (TCP)" : ": inflation p50",
		rpm ? "higher" : "lower", base, nw, ch, verdict_word(cell));
	nb_md_cell(f, why);
	fprintf(f, ") | %zu/%zu |\n", row->base.st.n, cell->s.st.n);
}

void nb_cmp_working_md(const struct nb_compare *c, FILE *f)
{
	bool any = false;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct nb_cmp_row *row = &c->rows[i];
		if (!row->working)
			continue;
		if (!any)
			fputs("## Latency under working conditions\n\n| Case | Side | Number | Base | "
			      "New | Change | Verdict | n |\n|---|---|---|--:|--:|--:|---|--:|\n", f);
		any = true;
		for (size_t s = 1; s < c->nsides; s++)
			if (row->cells[s - 1].present)
				md_row(c, f, row, s);
	}
	if (any)
		fprintf(f, "\nEach side's counted runs (working.csv), judged as the headlines are: the "
			"change with its 95 %% CI and a verdict against ±%.4g %% — better or worse when "
			"the whole CI is beyond it, no difference when the whole CI is inside it. Lower "
			"inflation is better, higher RPM is better. A worse one is a regression of the "
			"gate (metrics `inflation_p50_us`, named by the probe's case id, and `rpm_tcp`). "
			"RPM (TCP) is not HTTP RPM (docs/reports.md).\n\n",
			c->threshold * 100.0);
}

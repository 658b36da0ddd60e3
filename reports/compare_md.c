/* nbrun — compare: the Markdown report (renders on GitHub). */
#include "compare_int.h"

#include <math.h>
#include <string.h>

/* A table cell: '|' would end the cell and a newline the row. */
static void md_cell(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
}

static void md_code(FILE *f, const char *s)
{
	fputc('`', f);
	for (; s && *s; s++)
		fputc(*s == '`' ? '\'' : *s == '|' ? '/' : *s == '\n' ? ' ' : *s, f);
	fputc('`', f);
}

static size_t counted_runs(const struct nb_results *res)
{
	size_t n = 0;
	for (size_t i = 0; i < res->nruns; i++)
		n += nb_run_counts(&res->runs[i]);
	return n;
}

static void conditions(const struct nb_compare *c, FILE *f)
{
	if (c->n_env_diff == 0)
		return;
	fprintf(f, "> **Warning: results were taken under different conditions:** ");
	const char *sep = "";
	for (size_t s = 1; s < c->nsides; s++)
		for (size_t k = 0; k < c->sides[s].n_env_diff; k++) {
			fprintf(f, "%s", sep);
			if (c->nsides > 2) {
				md_cell(f, c->sides[s].label);
				fprintf(f, ": ");
			}
			md_cell(f, c->sides[s].env_diff[k]);
			sep = "; ";
		}
	fprintf(f, ". A difference in the environment is often the real cause of a change "
		   "(see [Environment differences](#environment-differences)).\n\n");
}

static void method(const struct nb_compare *c, FILE *f)
{
	fprintf(f, "Metric: ");
	if (c->metric)
		md_code(f, c->metric);
	else
		fprintf(f, "each case's headline metric");
	fprintf(f, " · threshold %.4g %% · significance: Welch's t-test at 95 %% on the repetitions "
		   "(`welch`); when one side has a single run, whether it falls outside the other "
		   "side's 95 %% prediction interval (`overlap`); with one run on each side there is no "
		   "spread, so the threshold alone decides (`n=1`).\n\n", c->threshold * 100.0);
}

static void folders(const struct nb_compare *c, FILE *f)
{
	fprintf(f, "| | folder | config | started | cases | counted runs | result |\n"
		   "|---|---|---|---|---:|---:|---|\n");
	for (size_t s = 0; s < c->nsides; s++) {
		const struct nb_cmp_side *side = &c->sides[s];
		const struct nb_meta *m = &side->res.meta;
		char line[256] = "";
		if (s > 0)
			nb_cmp_summary_line(side->count, line, sizeof(line));
		fprintf(f, "| %s | ", s == 0 ? "**base**" : "new");
		md_code(f, side->res.dir);
		fprintf(f, " | ");
		md_cell(f, m->config_name ? m->config_name : "—");
		fprintf(f, " | ");
		md_cell(f, m->started ? m->started : "—");
		fprintf(f, " | %zu | %zu | %s |\n", side->res.ncases, counted_runs(&side->res),
			s == 0 ? "baseline" : line);
	}
	fprintf(f, "\n");
}

static void regressions(const struct nb_compare *c, FILE *f)
{
	if (c->count[NB_CMP_REGRESSION] == 0)
		return;
	fprintf(f, "## Regressions\n\n");
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t s = 1; s < c->nsides; s++) {
			const struct nb_cmp_row *row = &c->rows[i];
			const struct nb_cmp_cell *cell = &row->cells[s - 1];
			if (!cell->present || cell->verdict != NB_CMP_REGRESSION)
				continue;
			char ch[48], b[96], n[96];
			nb_cmp_fmt_change(cell->change, ch, sizeof(ch));
			nb_cmp_fmt_stats(&row->base, nb_cmp_row_unit(row), b, sizeof(b));
			nb_cmp_fmt_stats(&cell->st, nb_cmp_row_unit(row), n, sizeof(n));
			fprintf(f, "- ");
			md_code(f, row->case_id);
			if (c->nsides > 2)
				fprintf(f, " in %s", c->sides[s].label);
			fprintf(f, ": %s %s, %s → %s (%s)\n", row->metric, ch, b, n, cell->reason);
		}
	fprintf(f, "\n");
}

static void verdict_cell(FILE *f, const struct nb_cmp_cell *cell, bool with_test)
{
	const char *name = nb_cmp_verdict_name(cell->verdict);
	if (cell->verdict == NB_CMP_REGRESSION || cell->verdict == NB_CMP_IMPROVEMENT)
		fprintf(f, "**%s**", name);
	else
		fprintf(f, "%s", name);
	if (cell->verdict == NB_CMP_UNCHANGED || cell->verdict == NB_CMP_NODATA ||
	    (with_test && cell->test != NB_CMP_TEST_NONE))
		fprintf(f, " (%s%s%s)", cell->reason,
			cell->verdict == NB_CMP_UNCHANGED && with_test ? ", " : "",
			cell->verdict == NB_CMP_UNCHANGED && with_test ? nb_cmp_test_name(cell->test) : "");
}

static void test_cell(FILE *f, const struct nb_cmp_cell *cell)
{
	if (cell->test == NB_CMP_TEST_WELCH)
		fprintf(f, "welch t=%.2f, df=%.1f", cell->welch.t, cell->welch.df);
	else
		fprintf(f, "%s", nb_cmp_test_name(cell->test));
}

static void one_cell(FILE *f, const struct nb_cmp_row *row, const struct nb_cmp_cell *cell,
		     bool single)
{
	char n[96], ch[48];
	if (!cell->present) {
		fprintf(f, " not in this folder | | %s", single ? " | |" : "|");
		return;
	}
	nb_cmp_fmt_stats(&cell->st, nb_cmp_row_unit(row), n, sizeof(n));
	nb_cmp_fmt_change(cell->change, ch, sizeof(ch));
	fprintf(f, " %s | %s | ", n, ch);
	if (single) {
		test_cell(f, cell);
		fprintf(f, " | ");
	}
	verdict_cell(f, cell, !single);
	fprintf(f, " |");
}

static void table(const struct nb_compare *c, FILE *f)
{
	bool single = c->nsides == 2;
	fprintf(f, "## Results\n\n| case | metric | base |");
	for (size_t s = 1; s < c->nsides; s++) {
		fprintf(f, " %s | change |%s verdict |", single ? "new" : c->sides[s].label,
			single ? " test |" : "");
	}
	fprintf(f, "\n|---|---|---:|");
	for (size_t s = 1; s < c->nsides; s++)
		fprintf(f, "---:|---:|%s---|", single ? "---|" : "");
	fprintf(f, "\n");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct nb_cmp_row *row = &c->rows[i];
		char b[96];
		nb_cmp_fmt_stats(&row->base, nb_cmp_row_unit(row), b, sizeof(b));
		fprintf(f, "| ");
		md_code(f, row->case_id);
		fprintf(f, " | ");
		md_cell(f, *row->metric ? row->metric : "—");
		fprintf(f, " | %s |", b);
		for (size_t s = 1; s < c->nsides; s++)
			one_cell(f, row, &row->cells[s - 1], single);
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
}

static void id_list(FILE *f, const char *what, const char *label, const char *const *ids, size_t n)
{
	if (n == 0)
		return;
	fprintf(f, "- %zu case%s %s ", n, n == 1 ? "" : "s", what);
	md_code(f, label);
	fprintf(f, ": ");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s", i ? ", " : "");
		md_code(f, ids[i]);
	}
	fprintf(f, "\n");
}

static void unmatched(const struct nb_compare *c, FILE *f)
{
	size_t n = 0;
	for (size_t s = 1; s < c->nsides; s++)
		n += c->sides[s].n_only_here + c->sides[s].n_missing;
	if (n == 0)
		return;
	fprintf(f, "## Unmatched cases\n\nThese cases are in one folder only and were not compared:\n\n");
	for (size_t s = 1; s < c->nsides; s++) {
		const struct nb_cmp_side *side = &c->sides[s];
		id_list(f, "only in base, missing from", side->label, side->missing, side->n_missing);
		id_list(f, "only in", side->label, side->only_here, side->n_only_here);
	}
	fprintf(f, "\n");
}

static void env_section(const struct nb_compare *c, FILE *f)
{
	bool unknown = false;
	for (size_t s = 0; s < c->nsides; s++)
		unknown |= !c->sides[s].res.have_env;
	if (c->n_env_diff == 0 && !unknown)
		return;
	fprintf(f, "## Environment differences\n\n");
	for (size_t s = 0; s < c->nsides; s++)
		if (!c->sides[s].res.have_env) {
			md_code(f, c->sides[s].label);
			fprintf(f, " has no readable env.json: its conditions cannot be compared.\n\n");
		}
	for (size_t s = 1; s < c->nsides; s++) {
		const struct nb_cmp_side *side = &c->sides[s];
		if (side->n_env_diff == 0)
			continue;
		fprintf(f, "Base → ");
		md_code(f, side->label);
		fprintf(f, ":\n\n");
		for (size_t k = 0; k < side->n_env_diff; k++) {
			fprintf(f, "- ");
			md_cell(f, side->env_diff[k]);
			fprintf(f, "\n");
		}
		fprintf(f, "\n");
	}
}

bool nb_compare_write_md(const struct nb_compare *c, FILE *f, const char *chart_png)
{
	char line[256];
	nb_cmp_summary_line(c->count, line, sizeof(line));
	fprintf(f, "# nbrun compare\n\n%s\n\n", line);
	conditions(c, f);
	method(c, f);
	folders(c, f);
	regressions(c, f);
	table(c, f);
	if (chart_png)
		fprintf(f, "![Each case relative to base](%s)\n\nEach case's mean relative to base "
			   "(base = 100 %%); error bars are one standard deviation, the band is the "
			   "±%.4g %% threshold.\n\n", chart_png, c->threshold * 100.0);
	unmatched(c, f);
	env_section(c, f);
	return !ferror(f);
}

/* nbrun — compare: the Markdown report (renders on GitHub). */
#include "compare_int.h"

#include <math.h>
#include <string.h>

#include "md_text.h"

/* Every text from the folders (names, facts, labels, errors) is written with nb_md_text or
 * nb_md_code (markdown.c): inert Markdown, as in the report. */

static size_t counted_runs(const struct nb_results *res)
{
	size_t n = 0;
	for (size_t i = 0; i < res->nruns; i++)
		n += nb_run_counts(&res->runs[i]);
	return n;
}

static void title(const struct nb_compare *c, FILE *f)
{
	char line[320];
	fprintf(f, "# nbrun compare");
	for (size_t s = 0; c->neutral && s < c->nsides; s++) {
		fprintf(f, "%s", s == 0 ? ": " : " vs ");
		nb_md_text(f, c->sides[s].name);
	}
	nb_cmp_fmt_counts(c, c->count, line, sizeof(line));
	fprintf(f, "\n\n%s\n\n", line);
	int rc = nb_compare_exit(c);
	if (c->neutral)
		fprintf(f, "Neutral comparison: no side is the baseline of a gate (exit %d: %s).\n\n",
			rc, nb_cmp_exit_meaning(rc));
	else
		fprintf(f, "**Gate: %s** (exit %d: %s).\n\n", rc ? "fail" : "pass", rc,
			nb_cmp_exit_meaning(rc));
}

/* The answer first: each case's verdict with its change and CI, in the units of its metric. */
static void verdicts(const struct nb_compare *c, FILE *f)
{
	if (c->nrows == 0)
		return;
	fprintf(f, "## Verdicts\n\n");
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t s = 1; s < c->nsides; s++) {
			const struct nb_cmp_row *row = &c->rows[i];
			const struct nb_cmp_cell *cell = &row->cells[s - 1];
			if (!cell->present || !*row->metric)
				continue;
			char v[96], ch[128], b[96], n[96];
			nb_cmp_fmt_verdict(c, s, row, cell, v, sizeof(v));
			nb_cmp_fmt_change_ci(row, cell, ch, sizeof(ch));
			nb_cmp_fmt_sample(row, &row->base, nb_cmp_cell_shows(cell), b, sizeof(b));
			nb_cmp_fmt_sample(row, &cell->s, nb_cmp_cell_shows(cell), n, sizeof(n));
			fprintf(f, "- ");
			nb_md_code(f, row->case_id);
			if (c->nsides > 2) {
				fprintf(f, " in ");
				nb_md_text(f, c->sides[s].name);
			}
			fprintf(f, " %s: **%s** %s · %s → %s\n", row->metric, v, ch, b, n);
		}
	fprintf(f, "\n");
}

static void problems(const struct nb_compare *c, FILE *f)
{
	if (c->nproblems == 0)
		return;
	fprintf(f, "## Problems\n\nThese fail the gate%s:\n\n",
		c->allow_missing ? " (interrupted, failed and missing ones are allowed by "
				   "`--allow-missing` and only listed)" : "");
	for (size_t i = 0; i < c->nproblems; i++) {
		const struct nb_cmp_problem *p = &c->problems[i];
		fprintf(f, "- **%s**: ", nb_cmp_problem_name(p->kind));
		if (p->case_id) {
			nb_md_code(f, p->case_id);
			fprintf(f, " in ");
		}
		nb_md_code(f, c->sides[p->side].name);
		fprintf(f, ": ");
		nb_md_text(f, p->text);
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
}

/* The differences of every NEW side, expected or not, as "; "-separated text. */
static void diff_list(const struct nb_compare *c, FILE *f, bool expected)
{
	const char *sep = "";
	for (size_t s = 1; s < c->nsides; s++)
		for (size_t k = 0; k < c->sides[s].ndiff; k++) {
			char line[600];
			if (c->sides[s].diff[k].expected != expected)
				continue;
			nb_cmp_fmt_diff(&c->sides[s].diff[k], line, sizeof(line));
			fprintf(f, "%s", sep);
			if (c->nsides > 2) {
				nb_md_text(f, c->sides[s].name);
				fprintf(f, ": ");
			}
			nb_md_text(f, line);
			sep = "; ";
		}
}

static void conditions(const struct nb_compare *c, FILE *f)
{
	size_t expected = 0;
	for (size_t s = 1; s < c->nsides; s++)
		for (size_t k = 0; k < c->sides[s].ndiff; k++)
			expected += c->sides[s].diff[k].expected;
	if (c->n_env_diff) {
		fprintf(f, "> **Warning: results were taken under different conditions:** ");
		diff_list(c, f, false);
		fprintf(f, ". A difference in the environment is often the real cause of a change "
			   "(see [Differences](#differences)).\n\n");
	}
	if (expected) {
		fprintf(f, "Expected differences (declared with `--expect-diff`, context rather than "
			   "a warning): ");
		diff_list(c, f, true);
		fprintf(f, ".\n\n");
	}
}

/* Each case of one metric as a sub-item, when the metric has several. */
static void case_sentences(const struct nb_compare *c, FILE *f, size_t s, const char *metric)
{
	size_t n = 0;
	for (size_t i = 0; i < c->nrows; i++)
		n += strcmp(c->rows[i].metric, metric) == 0 && c->rows[i].cells[s - 1].present;
	for (size_t i = 0; n > 1 && i < c->nrows; i++) {
		const struct nb_cmp_row *row = &c->rows[i];
		if (strcmp(row->metric, metric) != 0 || !row->cells[s - 1].present)
			continue;
		char line[600];
		nb_cmp_sentence(c, s, row, &row->cells[s - 1], line, sizeof(line));
		fprintf(f, "  - ");
		nb_md_code(f, row->case_id);
		fprintf(f, ": ");
		nb_md_text(f, line);
		fprintf(f, ".\n");
	}
}

/* Neutral mode: one sentence per NEW side and metric ("B is 6.8 % slower than A (95 % CI
 * 6.0–7.6 %)"), the cases under it when there are several. */
static void summary(const struct nb_compare *c, FILE *f)
{
	if (!c->neutral)
		return;
	fprintf(f, "## Summary\n\n");
	for (size_t s = 1; s < c->nsides; s++)
		for (size_t i = 0; i < c->nrows; i++) {
			const char *m = c->rows[i].metric;
			size_t k = 0;
			while (k < i && strcmp(c->rows[k].metric, m) != 0)
				k++;
			if (k < i || !*m)
				continue;
			char line[600];
			nb_cmp_metric_sentence(c, s, m, line, sizeof(line));
			fprintf(f, "- **%s**: ", m);
			nb_md_text(f, line);
			fprintf(f, ".\n");
			case_sentences(c, f, s, m);
		}
	fprintf(f, "\n");
}

static void method(const struct nb_compare *c, FILE *f)
{
	fprintf(f, "Metric%s: ", c->nmetrics > 1 ? "s" : "");
	for (size_t i = 0; i < c->nmetrics; i++) {
		fprintf(f, "%s", i ? ", " : "");
		if (strcmp(c->metrics[i], NB_CMP_METRIC_ALL) == 0)
			fprintf(f, "each case's headline metric");
		else
			nb_md_code(f, c->metrics[i]);
	}
	if (c->nmetrics == 0)
		fprintf(f, "each case's headline metric");
	fprintf(f, " · threshold ±%.4g %% · each change comes with the 95 %% confidence interval "
		   "of the difference: Welch's (`welch`) on the repetitions, from the other side's "
		   "spread when one side has a single run (`one-run`), and for latency and "
		   "request/response rates, whose repetitions are often bimodal, the Hodges-Lehmann "
		   "median shift with its Mann-Whitney CI (`mann-whitney`) when each side has runs "
		   "enough for one (4 and 4, 3 and 5 ...); each row shows the statistic its verdict "
		   "is on, medians or means; a CI reaching below -100 %% "
		   "(a negative value, which no metric can have) is cut there and marked *n too "
		   "small*. %s needs the whole CI "
		   "beyond the threshold, *%s* the whole CI inside it; anything else is "
		   "*inconclusive*.", c->threshold * 100.0,
		c->neutral ? "A difference" : "A regression or improvement",
		c->neutral ? "the same" : "unchanged");
	if (c->judged > 1)
		fprintf(f, " %zu comparisons were judged, each at 95 %%: with no real change at all, "
			   "about 1 in 40 CIs still lies wholly on one side of zero by chance (about "
			   "%.1f here), fewer beyond the threshold; re-run a lone flagged case before "
			   "acting on it.", c->judged, (double)c->judged / 40.0);
	fprintf(f, "\n\n");
}

static void folders(const struct nb_compare *c, FILE *f)
{
	fprintf(f, "| | folder | config | started | complete | cases | counted runs | result |\n"
		   "|---|---|---|---|---|---:|---:|---|\n");
	for (size_t s = 0; s < c->nsides; s++) {
		const struct nb_cmp_side *side = &c->sides[s];
		const struct nb_meta *m = &side->res.meta;
		char line[320] = "";
		if (s > 0)
			nb_cmp_fmt_counts(c, side->count, line, sizeof(line));
		fprintf(f, "| ");
		nb_md_text(f, c->neutral ? side->name : s == 0 ? "**base**" : "new");
		fprintf(f, " | ");
		nb_md_code(f, side->res.dir);
		fprintf(f, " | ");
		nb_md_text(f, m->config_name ? m->config_name : "—");
		fprintf(f, " | ");
		nb_md_text(f, m->started ? m->started : "—");
		fprintf(f, " | %s | %zu | %zu | %s |\n",
			!m->complete_known ? "unknown" : m->complete ? "yes" : "**no**",
			side->res.ncases, counted_runs(&side->res), s == 0 ? "baseline" : line);
	}
	fprintf(f, "\n");
}

static void regressions(const struct nb_compare *c, FILE *f)
{
	if (c->neutral || c->count[NB_CMP_REGRESSION] == 0)
		return;
	fprintf(f, "## Regressions\n\n");
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t s = 1; s < c->nsides; s++) {
			const struct nb_cmp_row *row = &c->rows[i];
			const struct nb_cmp_cell *cell = &row->cells[s - 1];
			if (!cell->present || cell->verdict != NB_CMP_REGRESSION)
				continue;
			char ch[128], b[96], n[96];
			nb_cmp_fmt_change_ci(row, cell, ch, sizeof(ch));
			nb_cmp_fmt_sample(row, &row->base, nb_cmp_cell_shows(cell), b, sizeof(b));
			nb_cmp_fmt_sample(row, &cell->s, nb_cmp_cell_shows(cell), n, sizeof(n));
			fprintf(f, "- ");
			nb_md_code(f, row->case_id);
			if (c->nsides > 2)
				fprintf(f, " in %s", c->sides[s].name);
			fprintf(f, ": %s %s, %s → %s (%s)\n", row->metric, ch, b, n,
				nb_cmp_test_name(cell->test));
		}
	fprintf(f, "\n");
}

/* A rank metric decided on means says why: its runs are too few for a 95 % rank CI. */
static void test_cell(FILE *f, const struct nb_cmp_row *row, const struct nb_cmp_cell *cell)
{
	if (cell->test == NB_CMP_TEST_RANK)
		fprintf(f, "mann-whitney U=%.1f, p=%.3g%s", cell->mw.u, cell->mw.p,
			cell->mw.exact ? " (exact)" : "");
	else if (cell->test == NB_CMP_TEST_WELCH)
		fprintf(f, "welch t=%.2f, df=%.1f", cell->welch.t, cell->welch.df);
	else
		fprintf(f, "%s", nb_cmp_test_name(cell->test));
	if (row->rank && cell->test != NB_CMP_TEST_RANK && cell->test != NB_CMP_TEST_NONE)
		fprintf(f, " (too few runs for a rank CI: means compared)");
}

static void verdict_cell(const struct nb_compare *c, FILE *f, size_t s,
			 const struct nb_cmp_row *row, const struct nb_cmp_cell *cell)
{
	char v[96], why[400];
	nb_cmp_fmt_verdict(c, s, row, cell, v, sizeof(v));
	nb_cmp_fmt_reason(c, row, cell, why, sizeof(why));
	bool bold = cell->present && cell->verdict >= NB_CMP_REGRESSION &&
		    cell->verdict <= NB_CMP_CHANGED;
	fprintf(f, bold ? "**%s** (" : "%s (", v);
	nb_md_text(f, why);
	fprintf(f, ")");
}

static void one_cell(const struct nb_compare *c, FILE *f, size_t s, const struct nb_cmp_row *row,
		     bool single)
{
	const struct nb_cmp_cell *cell = &row->cells[s - 1];
	char n[96], ch[128];
	nb_cmp_fmt_sample(row, &cell->s, nb_cmp_cell_shows(cell), n, sizeof(n));
	nb_cmp_fmt_change_ci(row, cell, ch, sizeof(ch));
	fprintf(f, " %s | %s | ", cell->present ? n : "not in this folder", ch);
	if (single) {
		test_cell(f, row, cell);
		fprintf(f, " | ");
	}
	verdict_cell(c, f, s, row, cell);
	fprintf(f, " |");
}

/* "5/5" and "base: unstable; new: cpu-bound": one n and one warning cell per row. */
static void n_and_warnings(const struct nb_compare *c, FILE *f, const struct nb_cmp_row *row)
{
	fprintf(f, " %zu", row->base.st.n);
	for (size_t s = 1; s < c->nsides; s++)
		fprintf(f, "/%zu", row->cells[s - 1].s.st.n);
	fprintf(f, " | ");
	const char *sep = "";
	for (size_t s = 0; s < c->nsides; s++) {
		const char *w = s == 0 ? row->base.warn : row->cells[s - 1].s.warn;
		if (!*w)
			continue;
		fprintf(f, "%s⚠ ", sep);
		nb_md_text(f, c->sides[s].name);
		fprintf(f, ": ");
		nb_md_text(f, w);
		sep = "; ";
	}
	fprintf(f, " |\n");
}

static void table_head(const struct nb_compare *c, FILE *f, bool single, const char *heading)
{
	fprintf(f, "%s\n\n| case | metric | ", heading);
	nb_md_text(f, single && !c->neutral ? "base" : c->sides[0].name);
	fprintf(f, " |");
	for (size_t s = 1; s < c->nsides; s++) {
		fprintf(f, " ");
		nb_md_text(f, single && !c->neutral ? "new" : c->sides[s].name);
		fprintf(f, " | change (95 %% CI) |%s verdict |", single ? " decided by |" : "");
	}
	fprintf(f, " n | warnings |\n|---|---|---:|");
	for (size_t s = 1; s < c->nsides; s++)
		fprintf(f, "---:|---:|%s---|", single ? "---|" : "");
	fprintf(f, "---:|---|\n");
}

/* A row worth a line in the summary: any NEW cell not unchanged (or not there). */
static bool changed_row(const struct nb_cmp_row *row, size_t nnew)
{
	for (size_t s = 0; s < nnew; s++)
		if (!row->cells[s].present || row->cells[s].verdict != NB_CMP_UNCHANGED)
			return true;
	return false;
}

/* Every row, or (changes_only) the rows changed_row keeps; false when none was written. */
static bool table(const struct nb_compare *c, FILE *f, const char *heading, bool changes_only)
{
	bool single = c->nsides == 2, any = false;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct nb_cmp_row *row = &c->rows[i];
		if (changes_only && !changed_row(row, c->nsides - 1))
			continue;
		if (!any)
			table_head(c, f, single, heading);
		any = true;
		char b[160];
		nb_cmp_fmt_sample(row, &row->base, nb_cmp_base_shows(c, row), b, sizeof(b));
		fprintf(f, "| ");
		nb_md_code(f, row->case_id);
		fprintf(f, " | ");
		nb_md_text(f, *row->metric ? row->metric : "—");
		fprintf(f, " (%s is better) | %s |", nb_cmp_better_name(row->col), b);
		for (size_t s = 1; s < c->nsides; s++)
			one_cell(c, f, s, row, single);
		n_and_warnings(c, f, row);
	}
	fprintf(f, "%s", any ? "\n" : "");
	return any;
}

static void id_list(FILE *f, const char *what, const char *label, const char *const *ids, size_t n)
{
	if (n == 0)
		return;
	fprintf(f, "- %zu case%s %s ", n, n == 1 ? "" : "s", what);
	nb_md_code(f, label);
	fprintf(f, ": ");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s", i ? ", " : "");
		nb_md_code(f, ids[i]);
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
		id_list(f, "only in base, missing from", side->name, side->missing, side->n_missing);
		id_list(f, "only in", side->name, side->only_here, side->n_only_here);
	}
	fprintf(f, "\n");
}

static void param_diffs(const struct nb_compare *c, FILE *f, size_t s)
{
	for (size_t i = 0; i < nb_cmp_case_rows(c); i++) {
		const struct nb_cmp_cell *cell = &c->rows[i].cells[s - 1];
		if (!cell->param_diff)
			continue;
		fprintf(f, "- case ");
		nb_md_code(f, c->rows[i].case_id);
		fprintf(f, ": ");
		nb_md_text(f, cell->param_diff);
		fprintf(f, "%s\n", cell->params_expected ? " (expected)" : " — **not compared**");
	}
}

static bool side_differs(const struct nb_compare *c, size_t s)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].cells[s - 1].param_diff)
			return true;
	return c->sides[s].ndiff > 0;
}

static void differences(const struct nb_compare *c, FILE *f)
{
	bool any = false;
	for (size_t s = 0; s < c->nsides; s++)
		any |= !c->sides[s].res.have_env || (s > 0 && side_differs(c, s));
	if (!any)
		return;
	fprintf(f, "## Differences\n\nEnvironment (env.json), config and nbrun version (meta.json), "
		   "and each case's parameters (plan.csv):\n\n");
	for (size_t s = 0; s < c->nsides; s++)
		if (!c->sides[s].res.have_env) {
			nb_md_code(f, c->sides[s].name);
			fprintf(f, " has no readable env.json: its conditions cannot be compared.\n\n");
		}
	for (size_t s = 1; s < c->nsides; s++) {
		const struct nb_cmp_side *side = &c->sides[s];
		if (!side_differs(c, s))
			continue;
		nb_md_text(f, c->sides[0].name);
		fprintf(f, " → ");
		nb_md_code(f, side->name);
		fprintf(f, ":\n\n");
		for (size_t k = 0; k < side->ndiff; k++) {
			char line[600];
			nb_cmp_fmt_diff(&side->diff[k], line, sizeof(line));
			fprintf(f, "- ");
			nb_md_text(f, line);
			fprintf(f, "%s\n", side->diff[k].expected ? " (expected)" : "");
		}
		param_diffs(c, f, s);
		fprintf(f, "\n");
	}
}

/* Neutral mode: each metric's chart of the folders side by side, beside compare.png. */
static void values_charts(const struct nb_compare *c, FILE *f, const char *chart_png)
{
	const char *slash = chart_png ? strrchr(chart_png, '/') : NULL;
	if (!c->neutral || !slash)
		return;
	for (size_t i = 0; i < c->nrows; i++) {
		size_t k = 0;
		while (k < i && strcmp(c->rows[k].metric, c->rows[i].metric) != 0)
			k++;
		if (k < i || !*c->rows[i].metric)
			continue;
		fprintf(f, "![%s of each folder](%.*s/values-%s.png)\n\n", c->rows[i].metric,
			(int)(slash - chart_png), chart_png, c->rows[i].metric);
	}
	fprintf(f, "Each case's %s in real units: a bar per folder at its mean with the 95 %% CI of "
		   "that mean, ", c->nsides > 2 ? "values" : "two values");
	nb_md_text(f, c->sides[0].name);
	fputs("'s in grey, the other's in the colour of its verdict against it.\n\n", f);
}

bool nb_compare_write_md(const struct nb_compare *c, FILE *f, const char *chart_png)
{
	title(c, f);
	verdicts(c, f);
	conditions(c, f);
	problems(c, f);
	summary(c, f);
	folders(c, f);
	regressions(c, f);
	nb_cmp_working_md(c, f);
	table(c, f, "## Results", false);
	nb_cmp_md_searches(c, f);
	nb_cmp_md_pdr_latency(c, f);
	method(c, f);
	if (chart_png)
		fprintf(f, "![Each case relative to base](%s)\n\nEach bar is a case's change as a ratio "
			   "to %s (1.00 = no change) with its 95 %% CI, in its verdict's colour; the band is "
			   "the ±%.4g %% threshold, and each case's label says which direction is "
			   "better.\n\n",
			chart_png, c->sides[0].name, c->threshold * 100.0);
	values_charts(c, f, chart_png);
	unmatched(c, f);
	differences(c, f);
	return !ferror(f);
}

/* For $GITHUB_STEP_SUMMARY: the gate and the counts first, then what fails it, then only the
 * rows that are not unchanged. */
bool nb_compare_write_summary(const struct nb_compare *c, FILE *f)
{
	char line[320];
	int rc = nb_compare_exit(c);
	nb_cmp_fmt_counts(c, c->count, line, sizeof(line));
	if (c->neutral)
		fprintf(f, "**Neutral comparison** (exit %d: %s) · %s\n\n", rc,
			nb_cmp_exit_meaning(rc), line);
	else
		fprintf(f, "**Gate: %s** (exit %d: %s) · %s\n\n", rc ? "fail" : "pass", rc,
			nb_cmp_exit_meaning(rc), line);
	problems(c, f);
	conditions(c, f);
	if (!table(c, f, "### Changes", true))
		fprintf(f, "Every case is unchanged: the whole 95 %% CI of each change lies within "
			   "±%.4g %%.\n", c->threshold * 100.0);
	return !ferror(f);
}

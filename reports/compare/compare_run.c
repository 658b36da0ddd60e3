/* nbrun — compare: the command (build, write, chart, what stderr says, exit code). */
#include "compare_int.h"

#include <errno.h>
#include <string.h>

#include "afile.h"

static void chart(const struct nb_compare *c, const char *dir, bool *rendered, FILE *diag)
{
	struct nb_error err = { "" };
	if (!nb_compare_chart(c, dir, rendered, &err) || *err.msg)
		fprintf(diag, "nbrun: compare: chart: %s\n", err.msg);
	err.msg[0] = '\0';
	if (c->neutral && (!nb_compare_chart_values(c, dir, &err) || *err.msg)) /* A, B side by side */
		fprintf(diag, "nbrun: compare: chart: %s\n", err.msg);
}

static bool write_format(const struct nb_compare *c, const char *format, FILE *f,
			 const char *chart_png, struct nb_error *err)
{
	if (strcmp(format, "csv") == 0)
		return nb_compare_write_csv(c, f) || nb_error_set(err, "write error");
	if (strcmp(format, "json") == 0)
		return nb_compare_write_json(c, f, err);
	return nb_compare_write_md(c, f, chart_png) || nb_error_set(err, "write error");
}

/* With --out, the chart goes into OUT-charts/ beside it ("vendor.md" → "vendor-charts/"), so
 * two comparisons written to one folder never share their charts. */
static bool emit(const struct nb_compare *c, const struct nb_compare_opts *o, FILE *out, FILE *diag,
		 struct nb_error *err)
{
	const char *format = o->format ? o->format : "md";
	bool rendered = false;
	char dir[4200], png[4300] = "";
	if (o->out) {
		nb_compare_chart_dir(o->out, dir, sizeof(dir));
		chart(c, dir, &rendered, diag);
		const char *slash = strrchr(dir, '/');
		snprintf(png, sizeof(png), "%s/compare.png", slash ? slash + 1 : dir);
	}
	FILE *f = o->out ? fopen(o->out, "w") : out;
	if (!f)
		return nb_error_errno(err, errno, "cannot write %s", o->out);
	bool ok = write_format(c, format, f, rendered ? png : NULL, err);
	if (o->out && fclose(f) != 0 && ok)
		return nb_error_errno(err, errno, "cannot write %s", o->out);
	if (!o->out)
		fflush(f);
	return ok;
}

/* --junit, written whole or not at all; --summary, appended (GitHub gives each step its own
 * $GITHUB_STEP_SUMMARY file, and steps append to it). */
static bool extras(const struct nb_compare *c, const struct nb_compare_opts *o,
		   struct nb_error *err)
{
	if (o->junit) {
		struct nb_afile a;
		if (!nb_afile_open(&a, o->junit, err))
			return false;
		nb_compare_write_junit(c, a.f);
		if (!nb_afile_commit(&a, err))
			return false;
	}
	if (!o->summary)
		return true;
	FILE *f = fopen(o->summary, "a");
	if (!f)
		return nb_error_errno(err, errno, "cannot write %s", o->summary);
	bool ok = nb_compare_write_summary(c, f);
	if (fclose(f) != 0 || !ok)
		return nb_error_set(err, "cannot write %s", o->summary);
	return true;
}

static void tell_problems(const struct nb_compare *c, FILE *diag)
{
	for (size_t i = 0; i < c->nproblems; i++) {
		const struct nb_cmp_problem *p = &c->problems[i];
		if (p->case_id)
			fprintf(diag, "nbrun: compare: %s: %s (%s): %s\n", nb_cmp_problem_name(p->kind),
				p->case_id, c->sides[p->side].name, p->text);
		else
			fprintf(diag, "nbrun: compare: %s: %s: %s\n", nb_cmp_problem_name(p->kind),
				c->sides[p->side].name, p->text);
	}
	for (size_t s = 1; s < c->nsides; s++)
		for (size_t k = 0; k < c->sides[s].ndiff; k++) {
			if (c->sides[s].diff[k].expected)
				continue;
			char line[600];
			nb_cmp_fmt_diff(&c->sides[s].diff[k], line, sizeof(line));
			fprintf(diag, "nbrun: compare: warning: results were taken under different "
				"conditions (%zu difference%s, e.g. %s)\n", c->n_env_diff,
				c->n_env_diff == 1 ? "" : "s", line);
			return;
		}
}

/* Each regression (gate mode) and each inconclusive verdict, one line each. */
static void tell_cells(const struct nb_compare *c, FILE *diag)
{
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t s = 1; s < c->nsides; s++) {
			const struct nb_cmp_row *row = &c->rows[i];
			const struct nb_cmp_cell *cell = &row->cells[s - 1];
			bool bad = cell->verdict == NB_CMP_REGRESSION && !c->neutral;
			if (!cell->present || !(bad || cell->verdict == NB_CMP_INCONCLUSIVE))
				continue;
			char ch[160], why[400];
			nb_cmp_fmt_change_ci(row, cell, ch, sizeof(ch));
			nb_cmp_fmt_reason(c, row, cell, why, sizeof(why));
			fprintf(diag, "nbrun: compare: %s: %s (%s): %s %s%s%s\n",
				nb_cmp_verdict_name(cell->verdict), row->case_id, c->sides[s].name,
				row->metric, ch, bad ? "" : " — ", bad ? "" : why);
		}
}

static void tell(const struct nb_compare *c, int rc, FILE *diag)
{
	tell_problems(c, diag);
	tell_cells(c, diag);
	char line[320];
	nb_cmp_fmt_counts(c, c->count, line, sizeof(line));
	fprintf(diag, "compare: %s; exit %d (%s)\n", line, rc, nb_cmp_exit_meaning(rc));
}

/* Whether an --expect-diff key matched a difference (a fact, or a parameter of a case). */
static bool expect_used(const struct nb_compare *c, const char *key)
{
	size_t n = strlen(key);
	for (size_t s = 1; s < c->nsides; s++)
		for (size_t k = 0; k < c->sides[s].ndiff; k++)
			if (nb_cmp_expected(&key, 1, c->sides[s].diff[k].where, c->sides[s].diff[k].key))
				return true;
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t s = 1; s < c->nsides; s++) {
			const char *d = c->rows[i].cells[s - 1].param_diff;
			for (const char *p = d; p && (p = strstr(p, key)); p += n)
				if ((p == d || (p >= d + 2 && p[-2] == ',')) && p[n] == ' ')
					return true;
		}
	return false;
}

int nb_compare_run(const struct nb_compare_opts *o, FILE *out, FILE *diag)
{
	struct nb_compare c;
	struct nb_error err = { "" };
	if (!nb_compare_build(&c, o, &err)) {
		fprintf(diag, "nbrun: compare: %s\n", err.msg);
		return NB_CMP_EXIT_INPUT;
	}
	if (!emit(&c, o, out, diag, &err) || !extras(&c, o, &err)) {
		fprintf(diag, "nbrun: compare: %s\n", err.msg);
		nb_compare_free(&c);
		return NB_CMP_EXIT_INPUT;
	}
	int rc = nb_compare_exit(&c);
	tell(&c, rc, diag);
	for (size_t i = 0; i < c.nexpect; i++)
		if (!expect_used(&c, c.expect[i]))
			fprintf(diag, "nbrun: compare: note: --expect-diff %s: no such difference\n",
				c.expect[i]);
	nb_compare_free(&c);
	return rc;
}

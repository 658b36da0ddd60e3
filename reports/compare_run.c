/* nbrun — compare: the command (build, write, chart, exit code). */
#include "compare_int.h"

#include <errno.h>
#include <string.h>

/* The chart goes into compare-charts/ beside the --out file. */
static void chart_dir(const char *out, char *dir, size_t len)
{
	const char *slash = strrchr(out, '/');
	if (!slash)
		snprintf(dir, len, "compare-charts");
	else
		snprintf(dir, len, "%.*s/compare-charts", (int)(slash - out), out);
}

static void chart(const struct nb_compare *c, const char *out, bool *rendered, FILE *diag)
{
	char dir[4200];
	struct nb_error err = { "" };
	chart_dir(out, dir, sizeof(dir));
	if (!nb_compare_chart(c, dir, rendered, &err) || *err.msg)
		fprintf(diag, "nbrun: compare: chart: %s\n", err.msg);
}

static bool write_format(const struct nb_compare *c, const char *format, FILE *f, bool chart_png,
			 struct nb_error *err)
{
	if (strcmp(format, "csv") == 0)
		return nb_compare_write_csv(c, f) || nb_error_set(err, "write error");
	if (strcmp(format, "json") == 0)
		return nb_compare_write_json(c, f, err);
	return nb_compare_write_md(c, f, chart_png ? "compare-charts/compare.png" : NULL) ||
	       nb_error_set(err, "write error");
}

static bool emit(const struct nb_compare *c, const struct nb_compare_opts *o, FILE *out, FILE *diag,
		 struct nb_error *err)
{
	const char *format = o->format ? o->format : "md";
	bool rendered = false;
	if (o->out)
		chart(c, o->out, &rendered, diag);
	FILE *f = o->out ? fopen(o->out, "w") : out;
	if (!f)
		return nb_error_errno(err, errno, "cannot write %s", o->out);
	bool ok = write_format(c, format, f, rendered, err);
	if (o->out && fclose(f) != 0 && ok)
		return nb_error_errno(err, errno, "cannot write %s", o->out);
	if (!o->out)
		fflush(f);
	return ok;
}

static void tell(const struct nb_compare *c, FILE *diag)
{
	for (size_t s = 1; s < c->nsides; s++)
		if (c->sides[s].n_env_diff) {
			fprintf(diag, "nbrun: compare: warning: results were taken under different "
				"conditions (%zu environment difference%s, e.g. %s)\n", c->n_env_diff,
				c->n_env_diff == 1 ? "" : "s", c->sides[s].env_diff[0]);
			break;
		}
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t s = 1; s < c->nsides; s++) {
			const struct nb_cmp_row *row = &c->rows[i];
			const struct nb_cmp_cell *cell = &row->cells[s - 1];
			if (!cell->present || cell->verdict != NB_CMP_REGRESSION)
				continue;
			char ch[48];
			nb_cmp_fmt_change(cell->change, ch, sizeof(ch));
			fprintf(diag, "nbrun: compare: regression: %s (%s): %s %s\n", row->case_id,
				c->sides[s].label, row->metric, ch);
		}
	char line[256];
	nb_cmp_summary_line(c->count, line, sizeof(line));
	fprintf(diag, "compare: %s\n", line);
}

int nb_compare_run(const struct nb_compare_opts *o, FILE *out, FILE *diag)
{
	struct nb_compare c;
	struct nb_error err = { "" };
	if (!nb_compare_build(&c, o, &err)) {
		fprintf(diag, "nbrun: compare: %s\n", err.msg);
		return NB_CMP_EXIT_INPUT;
	}
	if (!emit(&c, o, out, diag, &err)) {
		fprintf(diag, "nbrun: compare: %s\n", err.msg);
		nb_compare_free(&c);
		return NB_CMP_EXIT_INPUT;
	}
	tell(&c, diag);
	int rc = c.count[NB_CMP_REGRESSION] ? NB_CMP_EXIT_REGRESSION : NB_CMP_EXIT_OK;
	nb_compare_free(&c);
	return rc;
}

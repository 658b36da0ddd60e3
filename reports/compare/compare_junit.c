/* nbrun — compare: JUnit XML for CI (GitLab, GitHub, Jenkins show it natively). One
 * testsuite per metric, one testcase per case (and NEW folder), a failure element wherever
 * the exit code would fail: a regression (gate mode), a case failed, missing or run with other
 * parameters, and an inconclusive verdict with --fail-on-inconclusive. What --allow-missing
 * relaxes is skipped, not failed. A last testsuite, "folders", has a testcase per folder whose
 * failure says its batch did not finish, so the file fails exactly when the exit code does
 * (a usage error, exit 2, writes no file). */
#include "compare_int.h"

#include <string.h>

/* Text and attribute values: the five entities, and no control character XML 1.0 forbids. */
static void xml(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		switch (ch) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (ch >= 0x20 || ch == '\n' || ch == '\t')
				fputc(ch, f);
		}
	}
}

enum outcome { PASS, FAIL, SKIP };

/* What one testcase says: its outcome, the failure's type and one-line message. */
struct verdict {
	enum outcome o;
	const char *type;
	char msg[400];
};

/* The problem of this case in this NEW folder (or in BASE), if any. */
static const struct nb_cmp_problem *case_problem(const struct nb_compare *c, const char *id,
						 size_t s)
{
	for (size_t i = 0; i < c->nproblems; i++) {
		const struct nb_cmp_problem *p = &c->problems[i];
		if (p->case_id && strcmp(p->case_id, id) == 0 && (p->side == s || p->side == 0))
			return p;
	}
	return NULL;
}

static void judge(const struct nb_compare *c, const struct nb_cmp_row *row, size_t s,
		  struct verdict *v)
{
	const struct nb_cmp_cell *cell = &row->cells[s - 1];
	const struct nb_cmp_problem *p = case_problem(c, row->case_id, s);
	*v = (struct verdict){ .o = PASS, .type = nb_cmp_verdict_name(cell->verdict) };
	if (p) {
		v->o = c->allow_missing && p->kind != NB_CMP_P_PARAMS ? SKIP : FAIL;
		v->type = nb_cmp_problem_name(p->kind);
		snprintf(v->msg, sizeof(v->msg), "%s (%s): %s", v->type, c->sides[p->side].name,
			 p->text);
		return;
	}
	bool bad = (cell->verdict == NB_CMP_REGRESSION && !c->neutral) ||
		   (cell->verdict == NB_CMP_INCONCLUSIVE && c->fail_on_inconclusive);
	v->o = bad ? FAIL : PASS;
	char ch[160], why[400];
	nb_cmp_fmt_change_ci(row, cell, ch, sizeof(ch));
	nb_cmp_fmt_reason(c, row, cell, why, sizeof(why));
	snprintf(v->msg, sizeof(v->msg), "%s: %s %s, threshold ±%.4g %% (%.200s)", v->type,
		 row->metric, ch, c->threshold * 100.0, why);
}

/* The numbers behind a verdict, one "key: value" a line. */
static void numbers(const struct nb_compare *c, FILE *f, const struct nb_cmp_row *row, size_t s)
{
	const struct nb_cmp_cell *cell = &row->cells[s - 1];
	char b[96], n[96], ch[160];
	nb_cmp_fmt_sample(row, &row->base, nb_cmp_cell_shows(cell), b, sizeof(b));
	nb_cmp_fmt_sample(row, &cell->s, nb_cmp_cell_shows(cell), n, sizeof(n));
	nb_cmp_fmt_change_ci(row, cell, ch, sizeof(ch));
	fprintf(f, "metric: %s (%s is better)\nbase: %s, n = %zu\nnew: %s, n = %zu\nchange: ",
		row->metric, nb_cmp_better_name(row->col), b, row->base.st.n,
		cell->present ? n : "not in this folder", cell->s.st.n);
	xml(f, ch);
	fprintf(f, "\nthreshold: ±%.4g %%\ndecided by: %s\n", c->threshold * 100.0,
		nb_cmp_test_name(cell->test));
}

static void testcase(const struct nb_compare *c, FILE *f, const struct nb_cmp_row *row, size_t s)
{
	struct verdict v;
	judge(c, row, s, &v);
	fprintf(f, "    <testcase classname=\"nbrun.compare.");
	xml(f, row->metric);
	fprintf(f, "\" name=\"");
	xml(f, row->case_id);
	if (c->nsides > 2) {
		fprintf(f, " (");
		xml(f, c->sides[s].name);
		fprintf(f, ")");
	}
	fprintf(f, "\" time=\"0\">\n      <%s", v.o == FAIL ? "failure" : v.o == SKIP ? "skipped" :
		"system-out");
	if (v.o != PASS) {
		fprintf(f, " type=\"%s\" message=\"", v.type);
		xml(f, v.msg);
		fprintf(f, "\"");
	}
	fprintf(f, ">");
	if (v.o == PASS) {
		xml(f, v.msg);
		fprintf(f, "\n");
	}
	numbers(c, f, row, s);
	fprintf(f, "</%s>\n    </testcase>\n", v.o == FAIL ? "failure" : v.o == SKIP ? "skipped" :
		"system-out");
}

static bool first_of_metric(const struct nb_compare *c, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (strcmp(c->rows[k].metric, c->rows[i].metric) == 0)
			return false;
	return true;
}

static void suite(const struct nb_compare *c, FILE *f, const char *metric)
{
	size_t n[3] = { 0, 0, 0 };
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t s = 1; s < c->nsides && strcmp(c->rows[i].metric, metric) == 0; s++) {
			struct verdict v;
			judge(c, &c->rows[i], s, &v);
			n[v.o]++;
		}
	fprintf(f, "  <testsuite name=\"");
	xml(f, *metric ? metric : "(no metric)");
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
		n[PASS] + n[FAIL] + n[SKIP], n[FAIL], n[SKIP]);
	for (size_t i = 0; i < c->nrows; i++)
		for (size_t s = 1; s < c->nsides && strcmp(c->rows[i].metric, metric) == 0; s++)
			testcase(c, f, &c->rows[i], s);
	fprintf(f, "  </testsuite>\n");
}

static const struct nb_cmp_problem *folder_problem(const struct nb_compare *c, size_t s)
{
	for (size_t i = 0; i < c->nproblems; i++)
		if (!c->problems[i].case_id && c->problems[i].side == s)
			return &c->problems[i];
	return NULL;
}

/* Each folder's batch finished: a testcase per folder. */
static void folders(const struct nb_compare *c, FILE *f)
{
	size_t bad = 0;
	for (size_t s = 0; s < c->nsides; s++)
		bad += folder_problem(c, s) != NULL;
	fprintf(f, "  <testsuite name=\"folders\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		"skipped=\"%zu\">\n", c->nsides, c->allow_missing ? 0 : bad, c->allow_missing ? bad : 0);
	for (size_t s = 0; s < c->nsides; s++) {
		const struct nb_cmp_problem *p = folder_problem(c, s);
		fprintf(f, "    <testcase classname=\"nbrun.compare.folders\" name=\"");
		xml(f, c->sides[s].name);
		fprintf(f, " batch complete\" time=\"0\">\n");
		if (p) {
			const char *el = c->allow_missing ? "skipped" : "failure";
			fprintf(f, "      <%s type=\"%s\" message=\"", el, nb_cmp_problem_name(p->kind));
			xml(f, p->text);
			fprintf(f, "\"/>\n");
		}
		fprintf(f, "    </testcase>\n");
	}
	fprintf(f, "  </testsuite>\n");
}

bool nb_compare_write_junit(const struct nb_compare *c, FILE *f)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"nbrun compare\">\n");
	for (size_t i = 0; i < c->nrows; i++)
		if (first_of_metric(c, i))
			suite(c, f, c->rows[i].metric);
	folders(c, f);
	fprintf(f, "</testsuites>\n");
	return !ferror(f);
}

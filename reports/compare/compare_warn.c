/* nbrun — compare: the warnings each folder's report gives a case (cpu-bound, unstable,
 * slow-start, single-stream) and the notes its runs carry (littles-law, gro-local,
 * host-bound ...), put on the compared row, so that a change measured on a CPU-bound or
 * unstable case says so where it is read. */
#include "compare_int.h"

#include <stdlib.h>
#include <string.h>

#include "pitfalls.h"
#include "summary.h"

/* Append word to buf as a ", "-separated set. */
static void add_word(char *buf, size_t len, const char *word, size_t wlen)
{
	size_t used = strlen(buf);
	for (const char *p = buf; *p;) {
		size_t n = strcspn(p, ",");
		if (n == wlen && strncmp(p, word, wlen) == 0)
			return;
		p += n + (p[n] == ',');
		p += *p == ' ';
	}
	if (wlen && used + wlen + 3 < len)
		snprintf(buf + used, len - used, "%s%.*s", used ? ", " : "", (int)wlen, word);
}

/* The ';'-separated flags of the case's counted runs. */
static void run_flags(const struct nb_results *res, const char *case_id, char *buf, size_t len)
{
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *run = &res->runs[i];
		if (!nb_run_counts(run) || strcmp(run->case_id, case_id) != 0)
			continue;
		for (const char *p = run->flags; *p;) {
			size_t n = strcspn(p, ";");
			add_word(buf, len, p, n);
			p += n + (p[n] == ';');
		}
	}
}

static struct nb_cmp_sample *sample_of(struct nb_compare *c, size_t s, size_t row)
{
	struct nb_cmp_row *r = &c->rows[row];
	return s == 0 ? &r->base : r->cells[s - 1].present ? &r->cells[s - 1].s : NULL;
}

/* The result checks of the folder's report (no environment checks: those are diffed). */
static bool side_warnings(struct nb_compare *c, size_t s)
{
	const struct nb_results *res = &c->sides[s].res;
	struct nb_summary sum;
	struct nb_pitfalls pf = { 0 };
	if (!nb_summary_compute(res, &sum, NULL))
		return false;
	struct nb_pitfall_case *cases = calloc(sum.n + 1, sizeof(*cases));
	char (*variants)[64] = calloc(sum.n + 1, sizeof(*variants));
	bool ok = cases && variants;
	if (ok) {
		nb_summary_pitfall_cases(&sum, cases, variants);
		ok = nb_pitfalls_check(NULL, NULL, cases, sum.n, NB_PITFALLS_CV_DEFAULT, &pf);
	}
	for (size_t i = 0; ok && i < c->nrows; i++) {
		struct nb_cmp_sample *x = sample_of(c, s, i);
		for (size_t k = 0; x && k < pf.n; k++)
			if (strcmp(pf.v[k].case_id, c->rows[i].case_id) == 0)
				add_word(x->warn, sizeof(x->warn), pf.v[k].code, strlen(pf.v[k].code));
		if (x)
			run_flags(res, c->rows[i].case_id, x->warn, sizeof(x->warn));
	}
	nb_pitfalls_free(&pf);
	free(cases);
	free(variants);
	nb_summary_free(&sum);
	return ok;
}

bool nb_cmp_warnings(struct nb_compare *c)
{
	for (size_t s = 0; s < c->nsides; s++)
		if (!side_warnings(c, s))
			return false;
	return true;
}

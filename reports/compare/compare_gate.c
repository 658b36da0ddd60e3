/* nbrun — compare: the gate fails closed. What cannot be compared is a problem with its own
 * exit code, never a silent pass: a folder whose batch did not finish, a case whose runs
 * failed (or that has no run at all), a BASE case missing from NEW, a case whose parameters
 * differ. --allow-missing turns the first three into notes; a parameter difference only
 * --expect-diff can excuse. */
#include "compare_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bool add(struct nb_compare *c, enum nb_cmp_problem_kind kind, size_t side,
		const char *case_id, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static bool add(struct nb_compare *c, enum nb_cmp_problem_kind kind, size_t side,
		const char *case_id, const char *fmt, ...)
{
	struct nb_cmp_problem *v = realloc(c->problems, (c->nproblems + 1) * sizeof(*v));
	if (!v)
		return false;
	c->problems = v;
	struct nb_cmp_problem *p = &v[c->nproblems++];
	*p = (struct nb_cmp_problem){ .kind = kind, .side = side, .case_id = case_id };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->text, sizeof(p->text), fmt, ap);
	va_end(ap);
	return true;
}

/* Planned repetitions (fixed counts, or an auto minimum) of the cases that are not sweeps,
 * and the repetitions the folder recorded and counted. */
static void run_counts(const struct nb_results *res, size_t *planned, size_t *recorded,
		       size_t *ok)
{
	*planned = *recorded = *ok = 0;
	for (size_t i = 0; i < res->ncases; i++)
		*planned += res->cases[i].swept ? 0 : res->cases[i].rep_min;
	for (size_t i = 0; i < res->nruns; i++) {
		if (nb_run_kind_swept(res->runs[i].kind))
			continue;
		(*recorded)++;
		*ok += nb_run_counts(&res->runs[i]);
	}
}

/* meta.json says the batch did not finish; without meta.json, fewer runs than planned. */
static bool interrupted(struct nb_compare *c, size_t s)
{
	const struct nb_results *res = &c->sides[s].res;
	size_t planned, recorded, ok;
	run_counts(res, &planned, &recorded, &ok);
	if (res->meta.complete_known && !res->meta.complete)
		return add(c, NB_CMP_P_INTERRUPTED, s, NULL, "the batch did not finish (meta.json: "
			   "complete false): %zu of %zu planned runs ok", ok, planned);
	if (!res->meta.complete_known && recorded < planned)
		return add(c, NB_CMP_P_INTERRUPTED, s, NULL, "%zu of %zu planned runs recorded "
			   "(no meta.json says the batch finished)", recorded, planned);
	return true;
}

static bool swept(const struct nb_results *res, const char *case_id)
{
	size_t i = nb_results_case(res, case_id);
	return i != (size_t)-1 && res->cases[i].swept;
}

/* In NEW any failed run fails the case; in BASE only a case left without a counted run. */
static bool failed(struct nb_compare *c, size_t s, const char *id, const struct nb_cmp_sample *x)
{
	if (swept(&c->sides[s].res, id))
		return true;
	size_t ok = x->runs - x->failed;
	if (x->runs == 0)
		return add(c, NB_CMP_P_FAILED, s, id, "no run recorded");
	if (x->failed == 0 || (s == 0 && ok > 0))
		return true;
	return add(c, NB_CMP_P_FAILED, s, id, "%zu of %zu runs failed%s%.180s", x->failed, x->runs,
		   x->error ? ": " : "", x->error ? x->error : "");
}

static bool cell_problems(struct nb_compare *c, const struct nb_cmp_row *row, size_t s)
{
	const struct nb_cmp_cell *cell = &row->cells[s - 1];
	if (!cell->present)
		return add(c, NB_CMP_P_MISSING, s, row->case_id, "in base, not in this folder");
	size_t before = c->nproblems;
	if (!failed(c, s, row->case_id, &cell->s))
		return false;
	if (c->nproblems == before && cell->param_diff && !cell->params_expected)
		return add(c, NB_CMP_P_PARAMS, s, row->case_id, "%.200s", cell->param_diff);
	return true;
}

bool nb_cmp_find_problems(struct nb_compare *c)
{
	for (size_t s = 0; s < c->nsides; s++)
		if (!interrupted(c, s))
			return false;
	for (size_t i = 0; i < nb_cmp_case_rows(c); i++) {
		const struct nb_cmp_row *row = &c->rows[i];
		if (!failed(c, 0, row->case_id, &row->base))
			return false;
		for (size_t s = 1; s < c->nsides; s++)
			if (!cell_problems(c, row, s))
				return false;
	}
	return true;
}

static bool has_problem(const struct nb_compare *c, enum nb_cmp_problem_kind kind)
{
	for (size_t i = 0; i < c->nproblems; i++)
		if (c->problems[i].kind == kind)
			return true;
	return false;
}

int nb_compare_exit(const struct nb_compare *c)
{
	static const struct {
		enum nb_cmp_problem_kind kind;
		int rc;
		bool relaxed;   /* by --allow-missing */
	} order[] = {
		{ NB_CMP_P_INTERRUPTED, NB_CMP_EXIT_INTERRUPTED, true },
		{ NB_CMP_P_FAILED, NB_CMP_EXIT_FAILED, true },
		{ NB_CMP_P_MISSING, NB_CMP_EXIT_MISSING, true },
		{ NB_CMP_P_PARAMS, NB_CMP_EXIT_PARAMS, false },
	};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!(order[i].relaxed && c->allow_missing) && has_problem(c, order[i].kind))
			return order[i].rc;
	if (!c->neutral && c->count[NB_CMP_REGRESSION])
		return NB_CMP_EXIT_REGRESSION;
	if (c->fail_on_inconclusive && c->count[NB_CMP_INCONCLUSIVE])
		return NB_CMP_EXIT_INCONCLUSIVE;
	return NB_CMP_EXIT_OK;
}

const char *nb_cmp_exit_meaning(int rc)
{
	switch (rc) {
	case NB_CMP_EXIT_OK: return "pass";
	case NB_CMP_EXIT_REGRESSION: return "a regression beyond the threshold";
	case NB_CMP_EXIT_INPUT: return "usage or input error";
	case NB_CMP_EXIT_INTERRUPTED: return "a results folder is from an interrupted batch";
	case NB_CMP_EXIT_FAILED: return "a case failed or has no data";
	case NB_CMP_EXIT_MISSING: return "a case of base is missing from new";
	case NB_CMP_EXIT_PARAMS: return "a case ran with different parameters";
	case NB_CMP_EXIT_INCONCLUSIVE: return "an inconclusive verdict (--fail-on-inconclusive)";
	}
	return "?";
}

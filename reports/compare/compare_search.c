/* nbrun compare: the loss-threshold searches of BASE against each NEW folder, goal by goal in
 * MLRsearch's words (sweeps.json: NDR, PDR and their conditional throughput). A folder holds
 * one search per repetition, and its first is compared: a single value each side has no spread
 * to judge a change by, so the change is shown and never given a verdict (nor counted by the
 * gate). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare_int.h"
#include "csv.h"
#include "fmt.h"
#include "json_value.h"
#include "md_text.h"
#include "sweeps_json.h"

#define GOALS_MAX 8

/* The goal named like want in the NEW folder's search of case_id; false when it has none. */
static bool goal_in(const struct nb_results *res, const char *case_id,
		    const struct nb_sweep_result *want, struct nb_sweep_result *out)
{
	struct nb_sweep_result g[GOALS_MAX];
	size_t n = nb_sweeps_json_goals(res, case_id, g, GOALS_MAX);
	for (size_t k = 0; k < n; k++)
		if (strcmp(g[k].goal_name, want->goal_name) == 0) {
			*out = g[k];
			return true;
		}
	return false;
}


/* Calls fn for every goal of every BASE search, with each NEW side's goal (NULL: none). */
static void each_goal(const struct nb_compare *c,
		      void (*fn)(void *ctx, const struct nb_plan_case *pc,
				 const struct nb_sweep_result *base,
				 const struct nb_sweep_result *news),
		      void *ctx)
{
	const struct nb_results *b = &c->sides[0].res;
	for (size_t i = 0; i < b->ncases; i++) {
		struct nb_sweep_result g[GOALS_MAX], news[16];
		size_t n = nb_sweeps_json_goals(b, b->cases[i].case_id, g, GOALS_MAX);
		for (size_t k = 0; k < n; k++) {
			for (size_t s = 1; s < c->nsides && s < 16; s++)
				if (!goal_in(&c->sides[s].res, b->cases[i].case_id, &g[k], &news[s]))
					news[s] = (struct nb_sweep_result){ .conditional = NAN };
			fn(ctx, &b->cases[i], &g[k], news);
		}
	}
}

/* ---- Markdown ---- */

struct md_ctx {
	const struct nb_compare *c;
	FILE *f;
	bool any;
};

static void md_row(void *ctx, const struct nb_plan_case *pc, const struct nb_sweep_result *base,
		   const struct nb_sweep_result *news)
{
	struct md_ctx *m = ctx;
	double v[NB_CMP_SINGLE_SIDES] = { NAN };
	if (!m->any)
		nb_cmp_single_header(m->c, m->f, "Searches (MLRsearch goals)", "Goal");
	m->any = true;
	fputs("| ", m->f);
	nb_md_code(m->f, pc->case_id);
	fputs(" | ", m->f);
	nb_md_cell(m->f, base->goal_name);
	fputs(" |", m->f);
	for (size_t s = 1; s < m->c->nsides && s < NB_CMP_SINGLE_SIDES; s++)
		v[s] = news[s].conditional;
	nb_cmp_single_cells(m->c, m->f, base->conditional, v, base->unit);
}

void nb_cmp_md_searches(const struct nb_compare *c, FILE *f)
{
	struct md_ctx m = { c, f, false };
	each_goal(c, md_row, &m);
	if (m.any)
		fputs("\nEach goal's conditional throughput per flow (RFC 9971 Appendix B: at the "
		      "relevant lower bound; NDR is the goal of loss ratio 0, PDR one above 0), from "
		      "the first search of each folder. One search per side has no spread to judge a "
		      "change by: the change is shown, not given a verdict, and the gate does not "
		      "count it.\n\n", f);
}

/* ---- CSV (compare's columns; the verdict is "not judged") ---- */

struct csv_ctx {
	const struct nb_compare *c;
	FILE *f;
	size_t side;
};

static void csv_row(void *ctx, const struct nb_plan_case *pc, const struct nb_sweep_result *base,
		    const struct nb_sweep_result *news)
{
	struct csv_ctx *x = ctx;
	const struct nb_sweep_result *n = &news[x->side];
	char metric[64], num[400];
	nb_sweep_goal_metric(base, metric, sizeof(metric));
	nb_csv_quote(x->f, pc->case_id);
	fputc(',', x->f);
	nb_csv_quote(x->f, pc->test ? pc->test : "");
	fprintf(x->f, ",%s,%s,higher,", metric, base->unit ? base->unit : "");
	nb_csv_quote(x->f, x->c->sides[0].name);
	fputc(',', x->f);
	nb_csv_quote(x->f, x->c->sides[x->side].name);
	nb_fmt_num(base->conditional, num, sizeof(num));
	fprintf(x->f, ",%d,%s,,", isfinite(base->conditional), num);
	nb_fmt_num(base->conditional, num, sizeof(num));
	fprintf(x->f, "%s", num);
	nb_fmt_num(n->conditional, num, sizeof(num));
	fprintf(x->f, ",%d,%s,,%s", isfinite(n->conditional), num, num);
	nb_fmt_num(nb_cmp_single_change_pct(base->conditional, n->conditional), num, sizeof(num));
	fprintf(x->f, ",%s,,,-,,,,,,not judged,one search each side,,,\n", num);
}

void nb_cmp_csv_searches(const struct nb_compare *c, FILE *f, size_t side)
{
	struct csv_ctx x = { c, f, side };
	if (side < 16)
		each_goal(c, csv_row, &x);
}

/* ---- JSON ---- */

static void json_row(void *ctx, const struct nb_plan_case *pc, const struct nb_sweep_result *base,
		     const struct nb_sweep_result *news)
{
	const struct nb_compare *c = ((void **)ctx)[0];
	json_t *a = ((void **)ctx)[1], *sides = json_array();
	char metric[64];
	nb_sweep_goal_metric(base, metric, sizeof(metric));
	for (size_t s = 1; s < c->nsides && s < 16; s++)
		json_array_append_new(sides, json_pack("{s:s, s:o, s:o}", "label", c->sides[s].name,
			"conditional_throughput", nb_json_number(news[s].conditional),
			"change_pct", nb_json_number(nb_cmp_single_change_pct(base->conditional,
							       news[s].conditional))));
	json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:o, s:s, s:o, s:o, s:o}",
		"case_id", pc->case_id, "goal", base->goal_name, "metric", metric,
		"unit", nb_json_string(base->unit), "definition", "RFC 9971 conditional throughput",
		"loss_ratio", nb_json_number(base->loss_target),
		"conditional_throughput", nb_json_number(base->conditional), "new", sides));
}

json_t *nb_cmp_json_searches(const struct nb_compare *c)
{
	json_t *a = json_array();
	void *ctx[2] = { (void *)c, a };
	each_goal(c, json_row, ctx);
	return a;
}

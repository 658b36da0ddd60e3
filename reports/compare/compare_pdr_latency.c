/* nbrun compare: a search's latency at % of its PDR rate (sweep_latency.csv: FD.io CSIT's
 * latency at % PDR) of BASE against each NEW folder, fraction by fraction and percentile by
 * percentile, under the names export gives them (pdr_latency_50pct_p50_us ...). One
 * measurement per side (the first repetition's) has no spread: the change is shown, never
 * given a verdict nor counted by the gate, as the searches' goals. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare_int.h"
#include "csv.h"
#include "fmt.h"
#include "json_value.h"
#include "md_text.h"
#include "sweep_latency_csv.h"

#define SIDES_MAX NB_CMP_SINGLE_SIDES

/* NEW side res's value of metric in case_id (NAN: none). */
static double value_in(const struct nb_results *res, const char *case_id, const char *metric)
{
	struct nb_sweep_latency_value v[NB_SWEEP_LATENCY_VALUES_MAX];
	size_t n = nb_sweep_latency_values(res, case_id, v, NB_SWEEP_LATENCY_VALUES_MAX);
	for (size_t k = 0; k < n; k++)
		if (strcmp(v[k].metric, metric) == 0)
			return v[k].us;
	return NAN;
}


/* Calls fn for every number of every BASE case's latency at % of PDR, each NEW side's beside. */
static void each_value(const struct nb_compare *c,
		       void (*fn)(void *ctx, const struct nb_plan_case *pc,
				  const struct nb_sweep_latency_value *base, const double *news),
		       void *ctx)
{
	const struct nb_results *b = &c->sides[0].res;
	for (size_t i = 0; i < b->ncases; i++) {
		struct nb_sweep_latency_value v[NB_SWEEP_LATENCY_VALUES_MAX];
		size_t n = nb_sweep_latency_values(b, b->cases[i].case_id, v,
						   NB_SWEEP_LATENCY_VALUES_MAX);
		for (size_t k = 0; k < n; k++) {
			double news[SIDES_MAX] = { NAN };
			for (size_t s = 1; s < c->nsides && s < SIDES_MAX; s++)
				news[s] = value_in(&c->sides[s].res, b->cases[i].case_id, v[k].metric);
			fn(ctx, &b->cases[i], &v[k], news);
		}
	}
}

struct md_ctx {
	const struct nb_compare *c;
	FILE *f;
	bool any;
};

static void md_row(void *ctx, const struct nb_plan_case *pc, const struct nb_sweep_latency_value *base,
		   const double *news)
{
	struct md_ctx *m = ctx;
	if (!m->any)
		nb_cmp_single_header(m->c, m->f, "Latency at % of PDR", "Number");
	m->any = true;
	fputs("| ", m->f);
	nb_md_code(m->f, pc->case_id);
	fputs(" | ", m->f);
	nb_md_code(m->f, base->metric);
	fputs(" |", m->f);
	nb_cmp_single_cells(m->c, m->f, base->us, news, "us");
}

void nb_cmp_md_pdr_latency(const struct nb_compare *c, FILE *f)
{
	struct md_ctx m = { c, f, false };
	each_value(c, md_row, &m);
	if (m.any)
		fputs("\nEach search's UDP latency probe beside its load at a fraction of its PDR rate "
		      "(FD.io CSIT's latency at % PDR; sweep_latency.csv), round trips, from the first "
		      "search of each folder; lower is better. One measurement per side has no spread "
		      "to judge a change by: the change is shown, not given a verdict, and the gate "
		      "does not count it.\n\n", f);
}

struct csv_ctx {
	const struct nb_compare *c;
	FILE *f;
	size_t side;
};

static void csv_row(void *ctx, const struct nb_plan_case *pc, const struct nb_sweep_latency_value *base,
		    const double *news)
{
	struct csv_ctx *x = ctx;
	char b[400], n[400], ch[400];
	nb_fmt_num(base->us, b, sizeof(b));
	nb_fmt_num(news[x->side], n, sizeof(n));
	nb_fmt_num(nb_cmp_single_change_pct(base->us, news[x->side]), ch, sizeof(ch));
	nb_csv_quote(x->f, pc->case_id);
	fputc(',', x->f);
	nb_csv_quote(x->f, pc->test ? pc->test : "");
	fprintf(x->f, ",%s,us,lower,", base->metric);
	nb_csv_quote(x->f, x->c->sides[0].name);
	fputc(',', x->f);
	nb_csv_quote(x->f, x->c->sides[x->side].name);
	fprintf(x->f, ",1,%s,,%s,%d,%s,,%s,%s,,,-,,,,,,not judged,one measurement each side,,,\n",
		b, b, isfinite(news[x->side]), n, n, ch);
}

void nb_cmp_csv_pdr_latency(const struct nb_compare *c, FILE *f, size_t side)
{
	struct csv_ctx x = { c, f, side };
	if (side < SIDES_MAX)
		each_value(c, csv_row, &x);
}

static void json_row(void *ctx, const struct nb_plan_case *pc,
		     const struct nb_sweep_latency_value *base, const double *news)
{
	const struct nb_compare *c = ((void **)ctx)[0];
	json_t *a = ((void **)ctx)[1], *sides = json_array();
	for (size_t s = 1; s < c->nsides && s < SIDES_MAX; s++)
		json_array_append_new(sides, json_pack("{s:s, s:o, s:o}", "label", c->sides[s].name,
			"us", nb_json_number(news[s]), "change_pct",
			nb_json_number(nb_cmp_single_change_pct(base->us, news[s]))));
	json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:o, s:s, s:o, s:o}",
		"case_id", pc->case_id, "metric", base->metric, "goal", base->goal,
		"pct_of_goal", nb_json_number(base->pct), "quantile", base->quantile,
		"us", nb_json_number(base->us), "new", sides));
}

json_t *nb_cmp_json_pdr_latency(const struct nb_compare *c)
{
	json_t *a = json_array();
	void *ctx[2] = { (void *)c, a };
	each_value(c, json_row, ctx);
	return a;
}

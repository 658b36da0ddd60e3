/* nbrun compare: the tables of numbers with one value each side (a search's goals, its latency
 * at % of PDR): their header over the sides, and each NEW side's value with its change. Shown,
 * never judged (see compare_int.h). */
#include <math.h>
#include <stdio.h>

#include "compare_int.h"
#include "fmt.h"
#include "md_text.h"

double nb_cmp_single_change_pct(double base, double new_)
{
	return isfinite(base) && isfinite(new_) && base != 0 ? 100.0 * (new_ - base) / base : NAN;
}

void nb_cmp_single_header(const struct nb_compare *c, FILE *f, const char *title, const char *what)
{
	fprintf(f, "## %s\n\n| Case | %s |", title, what);
	for (size_t s = 0; s < c->nsides; s++) {
		fputc(' ', f);
		nb_md_cell(f, c->sides[s].name);
		fputs(" |", f);
	}
	fputs("\n|---|---|", f);
	for (size_t s = 0; s < c->nsides; s++)
		fputs("--:|", f);
	fputc('\n', f);
}

void nb_cmp_single_cells(const struct nb_compare *c, FILE *f, double base, const double *news,
			 const char *unit)
{
	nb_md_value_cell(f, base, unit);
	for (size_t s = 1; s < c->nsides && s < NB_CMP_SINGLE_SIDES; s++) {
		char v[64];
		double ch = nb_cmp_single_change_pct(base, news[s]);
		nb_fmt_value(news[s], unit, v, sizeof(v));
		if (!isfinite(news[s]))
			fputs(" — |", f);
		else if (isfinite(ch))
			fprintf(f, " %s (%+.1f %%) |", v, ch);
		else
			fprintf(f, " %s |", v);
	}
	fputc('\n', f);
}

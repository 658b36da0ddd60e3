/* nbrun — compare's section on working cases (working.csv, docs/compare.md): per case both
 * folders ran, each probe's latency inflation at p50 (lower is better) and RPM (TCP, higher is
 * better), BASE against each NEW, as means over the counted runs with their counts. These are
 * shown, not judged: no CI is made from them in this version, so they are never a regression. */
#include <math.h>
#include <stdio.h>

#include "compare_int.h"
#include "fmt.h"
#include "md_text.h"
#include "working_lookup.h"

#define PROBES_MAX 8

static void mean_cell(FILE *f, const struct nb_results *res, const char *id, const char *part,
		      const char *phase, const char *col, const char *unit)
{
	size_t n = 0;
	double v = nb_working_csv_mean(res, id, part, phase, col, &n);
	char buf[64];
	if (unit)
		nb_fmt_value(v, unit, buf, sizeof(buf));
	else if (isfinite(v))
		snprintf(buf, sizeof(buf), "%.0f", v);
	else
		snprintf(buf, sizeof(buf), "—");
	fprintf(f, " %s (n %zu) |", buf, n);
}

static void ratio_cell(FILE *f, const struct nb_results *a, const struct nb_results *b,
		       const char *id, const char *part, const char *phase, const char *col)
{
	double x = nb_working_csv_mean(a, id, part, phase, col, NULL);
	double y = nb_working_csv_mean(b, id, part, phase, col, NULL);
	if (isfinite(x) && isfinite(y) && x != 0)
		fprintf(f, " ×%.3g |", y / x);
	else
		fputs(" — |", f);
}

static void case_rows(const struct nb_compare *c, FILE *f, const char *id)
{
	const struct nb_results *base = &c->sides[0].res;
	for (size_t s = 1; s < c->nsides; s++) {
		const struct nb_results *nw = &c->sides[s].res;
		for (int i = 0; i <= PROBES_MAX; i++) {
			char p[16];
			snprintf(p, sizeof(p), i ? "probe%d" : "case", i);
			const char *phase = i ? "loaded" : "";
			const char *col = i ? "inflation_p50_us" : "rpm_tcp";
			if (!nb_working_csv_cell(base, id, p, "part")[0])
				continue;
			fputs("| ", f);
			nb_md_code(f, id);
			fputs(" | ", f);
			nb_md_cell(f, c->sides[s].name);
			fputs(" | ", f);
			if (i)
				nb_md_code(f, nb_working_csv_cell(base, id, p, "part_case_id"));
			else
				fputs("RPM (TCP), higher is better", f);
			fputs(i ? ": inflation p50, lower is better |" : " |", f);
			mean_cell(f, base, id, p, phase, col, i ? "us" : NULL);
			mean_cell(f, nw, id, p, phase, col, i ? "us" : NULL);
			ratio_cell(f, base, nw, id, p, phase, col);
			fputs("\n", f);
		}
	}
}

void nb_cmp_working_md(const struct nb_compare *c, FILE *f)
{
	const struct nb_results *base = &c->sides[0].res;
	bool any = false;
	for (size_t i = 0; i < base->ncases; i++) {
		const char *id = base->cases[i].case_id;
		if (!nb_working_csv_cell(base, id, "load", "part")[0])
			continue;
		if (!any)
			fprintf(f, "## Latency under working conditions\n\n| Case | Side | Number | %s | "
				"New | New / base |\n|---|---|---|--:|--:|--:|\n", "Base");
		any = true;
		case_rows(c, f, id);
	}
	if (any)
		fputs("\nMeans over each side's counted runs (working.csv); shown, not judged: no "
		      "confidence interval is made from them yet, so they gate nothing. RPM (TCP) is "
		      "not HTTP RPM (docs/reports.md).\n\n", f);
}

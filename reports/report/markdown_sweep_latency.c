/* report.md: a searched case's latency at % of its PDR rate (sweep_latency.csv, docs/reports.md):
 * a row per fraction, as FD.io CSIT measures it after the search, with the load's achieved rate
 * and loss beside the probe's percentiles. */
#include "markdown.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "md_text.h"

static void latency_row(FILE *f, const struct nb_csv_table *t, size_t r, const char *u)
{
	double pct = nb_csv_num_cell(t, r, nb_csv_col(t, "pct"));
	const char *status = nb_csv_cell(t, r, nb_csv_col(t, "status"));
	fprintf(f, "| %g %% |", pct);
	if (pct == 0) {
		fputs(" the probe alone | — | — |", f);
	} else {
		nb_md_value_cell(f, nb_csv_num_cell(t, r, nb_csv_col(t, "offered_rate")), u);
		nb_md_value_cell(f, nb_csv_num_cell(t, r, nb_csv_col(t, "achieved_rate")), u);
		double loss = nb_csv_num_cell(t, r, nb_csv_col(t, "loss_pct"));
		if (isfinite(loss))
			fprintf(f, " %.3g %% |", loss);
		else
			fputs(" — |", f);
	}
	fprintf(f, " %s |", nb_csv_cell(t, r, nb_csv_col(t, "samples")));
	static const char *const q[] = { "p50_us", "p90_us", "p99_us", "p999_us" };
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		nb_md_value_cell(f, nb_csv_num_cell(t, r, nb_csv_col(t, q[i])), "us");
	fputc(' ', f);
	nb_md_cell(f, status);
	fputs(" |\n", f);
}

void nb_md_sweep_latency(FILE *f, const struct nb_results *res, const struct nb_case_stats *c,
			 const char *unit)
{
	const struct nb_csv_table *t = &res->sweep_latency_t;
	int cid = nb_csv_col(t, "case_id");
	size_t first = 0, n = 0;
	for (size_t r = 0; r < t->nrows; r++)
		if (strcmp(nb_csv_cell(t, r, cid), c->pc->case_id) == 0 &&
		    nb_sweep_latency_row_current(res, t, r) && !n++)
			first = r;
	if (!n)
		return;
	char pdr[64];
	nb_fmt_value(nb_csv_num_cell(t, first, nb_csv_col(t, "pdr_rate")), unit, pdr, sizeof(pdr));
	fputs("#### Latency at % of PDR\n\n", f);
	fprintf(f, "After the search, in the same case, the load at each fraction of the %s rate "
		   "(its relevant lower bound, %s per flow) with a UDP latency probe of ",
		nb_csv_cell(t, first, nb_csv_col(t, "goal")), pdr);
	nb_md_code(f, nb_csv_cell(t, first, nb_csv_col(t, "probe_case_id")));
	fprintf(f, " (%s messages/s) beside it, as FD.io CSIT defines latency at %% PDR (CSIT "
		   "methodology, \"Packet Latency\": no load, then 10, 50 and 90 %% of PDR; the PDR "
		   "of draft-ietf-bmwg-mlrsearch / RFC 9971). 0 %% is the probe alone. Round trips, "
		   "from each message's scheduled send time; the probe's own messages are in "
		   "addition to the load, as CSIT's latency streams are.\n\n",
		nb_csv_cell(t, first, nb_csv_col(t, "probe_rate")));
	fputs("| Of PDR | Offered | Achieved | Loss | Samples | p50 | p90 | p99 | p99.9 | Status |\n"
	      "|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n", f);
	for (size_t r = 0; r < t->nrows; r++)
		if (strcmp(nb_csv_cell(t, r, cid), c->pc->case_id) == 0 &&
		    nb_sweep_latency_row_current(res, t, r))
			latency_row(f, t, r, unit);
	fputs("\n", f);
}

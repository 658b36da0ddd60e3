/* report.md's "Where the packets were lost": per UDP case its loss budget over the runs
 * (reports/analysis/loss_budget.h), then every case's bottleneck sentence: the budget's for a
 * UDP case, the threads', host's and retransmissions' for the others. */
#include "markdown.h"

#include <math.h>
#include <string.h>

#include "loss_budget.h"

static void count(FILE *f, double v)
{
	fprintf(f, " %.0f |", v);
}

static void budget_row(FILE *f, const struct nb_case_stats *c, const struct nb_loss_budget *b)
{
	fprintf(f, "| ");
	nb_md_code(f, c->pc->case_id);
	fprintf(f, " | %zu |", b->runs);
	count(f, b->sent);
	count(f, b->lost);
	count(f, b->refused);
	count(f, b->tx_qdisc);
	count(f, b->tx_if);
	count(f, b->rx_if);
	count(f, b->rx_ip_udp);
	count(f, b->sock);
	if (b->noisy_runs)
		fprintf(f, " %.0f, noisy in %zu (+%.0f) |\n", b->path, b->noisy_runs, b->excess);
	else
		fprintf(f, " %.0f |\n", b->path);
}

void nb_md_loss_budget(FILE *f, const struct nb_results *res, const struct nb_summary *s)
{
	bool any = false;
	for (size_t i = 0; i < s->n && i < res->ncases; i++) {
		struct nb_loss_budget b;
		if (!nb_loss_budget_of_case(res, i, &b))
			continue;
		if (!any)
			fprintf(f, "## Where the packets were lost\n\n"
				   "Each UDP case's datagrams over its runs, by where the two ends' "
				   "counters say they went (docs/reports.md, \"the loss budget\"). "
				   "Refused sends were made again and are not lost; a qdisc drop the "
				   "sender's socket was told of is one of them. The path is what is left: "
				   "lost less every count of both ends. The host counters are the whole "
				   "network namespace's: a run whose counters saw more drops than it lost "
				   "is noisy (+ by how many) and gives no path figure.\n\n"
				   "| Case | Runs | Sent | Lost | Refused at the sender | Sender qdisc | "
				   "Sender interface | Receiver interface | Receiver IP/UDP | Receiver "
				   "socket buffer | Path |\n"
				   "|---|---|---|---|---|---|---|---|---|---|---|\n");
		any = true;
		budget_row(f, &s->c[i], &b);
	}
	fprintf(f, any ? "\nBottleneck, per case:\n\n" : "## Bottleneck\n\nPer case, from what its "
		   "rows record (docs/reports.md):\n\n");
	size_t lines = 0;
	for (size_t i = 0; i < s->n && i < res->ncases; i++) {
		struct nb_loss_budget b;
		char v[768];
		if (nb_loss_budget_of_case(res, i, &b))
			nb_loss_budget_verdict(&b, v, sizeof(v));
		else if (!nb_case_bottleneck(&s->c[i], v, sizeof(v)))
			continue;
		fprintf(f, "- ");
		nb_md_code(f, s->c[i].pc->case_id);
		fprintf(f, ": ");
		nb_md_text(f, v);
		fprintf(f, ".\n");
		lines++;
	}
	if (!lines && !any)
		fprintf(f, "- no case has a counted run.\n");
	fprintf(f, "\n");
}

/* report.md: "TCP in RFC 6349's terms" — each one-way TCP stream case's baseline RTT, mean RTT
 * during the transfer, Buffer Delay %, TCP Efficiency % and the bandwidth-delay product beside
 * the window it was given (reports/analysis/tcp_rfc6349.h). */
#include "markdown.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tcp_rfc6349.h"

static void pct_cell(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, " %.4g %% |", v);
	else
		fputs(" — |", f);
}

void nb_md_rfc6349(FILE *f, const struct nb_results *res, const struct nb_summary *s)
{
	bool any = false;
	for (size_t i = 0; i < s->n; i++) {
		const struct nb_case_stats *c = &s->c[i];
		struct nb_rfc6349_case k;
		if (!nb_rfc6349_applies(c) ||
		    !nb_rfc6349_of_case(res, (size_t)(c->pc - res->cases), &k))
			continue;
		if (!any)
			fputs("## TCP in RFC 6349's terms\n\n| Case | Runs | Baseline RTT | Mean RTT "
			      "| Buffer Delay | TCP Efficiency | Bytes retransmitted | BDP at the rate "
			      "achieved | `window` |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|\n", f);
		any = true;
		const char *w = nb_plan_case_param(c->pc, "window");
		fputs("| ", f);
		nb_md_code(f, c->pc->case_id);
		fprintf(f, " | %zu |", k.runs);
		nb_md_value_cell(f, k.baseline_rtt_us, "us");
		nb_md_value_cell(f, k.mean_rtt_us, "us");
		pct_cell(f, k.buffer_delay_pct);
		pct_cell(f, k.efficiency_pct);
		nb_md_value_cell(f, k.retrans_bytes, "B");
		nb_md_value_cell(f, k.bdp_bytes, "B");
		fputc(' ', f);
		nb_md_cell(f, w && *w && strcmp(w, "0") != 0 ? w : "default");
		fputs(" |\n", f);
	}
	if (any)
		fputs("\nThe means of the counted runs. Baseline RTT: the sender's lowest RTT "
		      "(`tcpi_min_rtt`, runs.csv `min_rtt_us`), RFC 6349 section 3.2's baseline RTT. Mean "
		      "RTT: the smoothed RTT at the end of each measured interval, averaged. Buffer "
		      "Delay: (mean RTT − baseline) / baseline, section 4.3 — what queues added during "
		      "the transfer. TCP Efficiency: (bytes sent − bytes retransmitted) / bytes sent, "
		      "section 4.2, from the sender's `tcpi_bytes_sent` and `tcpi_bytes_retrans`. BDP: "
		      "the rate achieved × the baseline RTT, the bytes in flight that rate needs on an "
		      "empty path (section 3.3.1). Whether a smaller `window` held the rate below the "
		      "path's needs the path's bottleneck bandwidth, which nbrun is not told, as does "
		      "the TCP Transfer Time Ratio (section 4.1): neither is given.\n\n", f);
}

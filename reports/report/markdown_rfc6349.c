/* report.md: "TCP in RFC 6349's terms" — each one-way TCP stream case's baseline RTT, mean RTT
 * during the transfer, Buffer Delay %, TCP Efficiency %, the bandwidth-delay product beside the
 * window it was given, and with a bottleneck bandwidth (the case's `bottleneck`, or an RFC 9097
 * capacity the batch measured) the TCP Transfer Time Ratio and the window-below-BDP pitfall
 * (reports/analysis/tcp_rfc6349.h). */
#include "markdown.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "tcp_rfc6349.h"

static void pct_cell(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, " %.4g %% |", v);
	else
		fputs(" — |", f);
}

/* The bottleneck cells: where it came from, the ratio, the BDP at it. */
static void bottleneck_cells(FILE *f, const struct nb_rfc6349_bottleneck *b,
			     const struct nb_rfc6349_case *k)
{
	if (b->from == NB_BB_UNKNOWN) {
		fputs(" not computed: bottleneck bandwidth unknown | — | — |", f);
		return;
	}
	char v[32];
	nb_fmt_value(b->bps, "bit/s", v, sizeof(v));
	fprintf(f, " %s (", v);
	if (b->from == NB_BB_CONFIG)
		fputs("`bottleneck`", f);
	else {
		fputs("IP capacity of ", f);
		nb_md_code(f, b->case_id);
	}
	fputs(") |", f);
	if (isfinite(k->ttr))
		fprintf(f, " %.3f |", k->ttr);
	else
		fputs(" — |", f);
	nb_md_value_cell(f, k->bdp_bb_bytes, "B");
}

static void row(FILE *f, const struct nb_case_stats *c, const struct nb_rfc6349_case *k,
		const struct nb_rfc6349_bottleneck *b)
{
	const char *w = nb_plan_case_param(c->pc, "window");
	fputs("| ", f);
	nb_md_code(f, c->pc->case_id);
	fprintf(f, " | %zu |", k->runs);
	nb_md_value_cell(f, k->baseline_rtt_us, "us");
	nb_md_value_cell(f, k->mean_rtt_us, "us");
	pct_cell(f, k->buffer_delay_pct);
	pct_cell(f, k->efficiency_pct);
	nb_md_value_cell(f, k->retrans_bytes, "B");
	nb_md_value_cell(f, k->bdp_bytes, "B");
	fputc(' ', f);
	nb_md_cell(f, w && *w && strcmp(w, "0") != 0 ? w : "default");
	fputs(" |", f);
	bottleneck_cells(f, b, k);
	fputc('\n', f);
}

/* Case i of s in RFC 6349's terms, with its bottleneck; false when the section leaves it out. */
static bool case_of(const struct nb_results *res, const struct nb_summary *s, size_t i,
		    struct nb_rfc6349_case *k, struct nb_rfc6349_bottleneck *b)
{
	const struct nb_case_stats *c = &s->c[i];
	size_t ci = (size_t)(c->pc - res->cases);
	if (!nb_rfc6349_applies(c) || !nb_rfc6349_of_case(res, ci, k))
		return false;
	nb_rfc6349_bottleneck_of(res, s, ci, b);
	nb_rfc6349_with_bottleneck(res, ci, b, k);
	return true;
}

/* The pitfall of RFC 6349 section 3.3.1: a window below BB x RTT caps the rate at window / RTT. */
static void pitfalls(FILE *f, const struct nb_results *res, const struct nb_summary *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct nb_rfc6349_case k;
		struct nb_rfc6349_bottleneck b;
		if (!case_of(res, s, i, &k, &b) || !k.window_below_bdp)
			continue;
		char w[32], bdp[32], cap[32];
		nb_fmt_value(k.window_bytes, "B", w, sizeof(w));
		nb_fmt_value(k.bdp_bb_bytes, "B", bdp, sizeof(bdp));
		nb_fmt_value(k.window_bytes * 8.0 / (k.baseline_rtt_us / 1e6), "bit/s", cap, sizeof(cap));
		fputs("- **Window below the BDP** (", f);
		nb_md_code(f, s->c[i].pc->case_id);
		fprintf(f, "): the `window` of %s is below the bandwidth-delay product at the bottleneck, "
			"%s (bottleneck × baseline RTT, RFC 6349 section 3.3.1): TCP can carry at most "
			"window / RTT = %s, so this case measured the window, not the path; give it a "
			"`window` of at least the BDP.\n", w, bdp, cap);
	}
}

void nb_md_rfc6349(FILE *f, const struct nb_results *res, const struct nb_summary *s)
{
	bool any = false;
	for (size_t i = 0; i < s->n; i++) {
		struct nb_rfc6349_case k;
		struct nb_rfc6349_bottleneck b;
		if (!case_of(res, s, i, &k, &b))
			continue;
		if (!any)
			fputs("## TCP in RFC 6349's terms\n\n| Case | Runs | Baseline RTT | Mean RTT "
			      "| Buffer Delay | TCP Efficiency | Bytes retransmitted | BDP at the rate "
			      "achieved | `window` | Bottleneck | TCP Transfer Time Ratio | BDP at the "
			      "bottleneck |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n", f);
		any = true;
		row(f, &s->c[i], &k, &b);
	}
	if (!any)
		return;
	fputs("\nThe means of the counted runs. Baseline RTT: the sender's lowest RTT "
	      "(`tcpi_min_rtt`, runs.csv `min_rtt_us`), RFC 6349 section 3.2's baseline RTT. Mean "
	      "RTT: the smoothed RTT at the end of each measured interval, averaged. Buffer "
	      "Delay: (mean RTT − baseline) / baseline, section 4.3 — what queues added during "
	      "the transfer. TCP Efficiency: (bytes sent − bytes retransmitted) / bytes sent, "
	      "section 4.2, from the sender's `tcpi_bytes_sent` and `tcpi_bytes_retrans`. BDP: "
	      "the rate achieved × the baseline RTT, the bytes in flight that rate needs on an "
	      "empty path (section 3.3.1). Bottleneck: the path's bottleneck bandwidth (BB), the "
	      "case's `bottleneck` key, else the largest RFC 9097 Maximum IP-Layer Capacity a UDP "
	      "case of this batch measured. TCP Transfer Time Ratio: the measured time over the "
	      "ideal time of the bytes received at BB (section 4.1; the RFC's ideal uses the "
	      "Maximum Achievable TCP Throughput, BB less the layer 1–4 headers of section 3.3.1: "
	      "at BB as given, headers make even a perfect transfer a little above 1). BDP at the "
	      "bottleneck: BB × the baseline RTT, the window the path needs (section 3.3.1).\n\n", f);
	pitfalls(f, res, s);
	fputc('\n', f);
}

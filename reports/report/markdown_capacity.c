/* report.md: "IP-layer capacity (RFC 9097)" — each one-way UDP case's rate counted at the IP
 * layer, over its whole measured time and as the maximum over its sub-intervals, with the
 * headers counted as the RFC counts them (reports/analysis/ip_capacity.h). */
#include "markdown.h"

#include <stdio.h>

#include "ip_capacity.h"

void nb_md_ip_capacity(FILE *f, const struct nb_results *res, const struct nb_summary *s)
{
	bool assumed, any = false;
	unsigned hdr = nb_ip_header_bytes(res->meta.peer, &assumed);
	for (size_t i = 0; i < s->n; i++) {
		const struct nb_case_stats *c = &s->c[i];
		struct nb_ip_capacity_case k;
		if (!nb_ip_capacity_applies(c) ||
		    !nb_ip_capacity_of_case(res, (size_t)(c->pc - res->cases), hdr, &k))
			continue;
		if (!any)
			fputs("## IP-layer capacity (RFC 9097)\n\n| Case | Runs | IP-layer rate (whole "
			      "run) | Maximum IP-layer capacity | Largest of any run | Sub-interval |\n"
			      "|---|--:|--:|--:|--:|--:|\n", f);
		any = true;
		fputs("| ", f);
		nb_md_code(f, c->pc->case_id);
		fprintf(f, " | %zu |", k.runs);
		nb_md_value_cell(f, k.mean_bps, "bit/s");
		nb_md_value_cell(f, k.max_bps, "bit/s");
		nb_md_value_cell(f, k.max_of_runs, "bit/s");
		nb_md_value_cell(f, k.dt_s, "s");
		fputs("\n", f);
	}
	if (any)
		fprintf(f, "\nReceived bits at the IP layer as RFC 5136 section 2.3.1 counts them: each "
			   "datagram's payload, its %u-byte UDP header and its %u-byte IP header (IPv%d%s), "
			   "no link-layer header. The whole-run rate is the mean over the measured time "
			   "(warm-up, omitted and cool-down intervals left out); the Maximum IP-Layer "
			   "Capacity (RFC 9097 section 6) is the largest sub-interval's rate, the "
			   "sub-interval being the case's `interval` (RFC 9097's dt): the mean of the "
			   "runs' maxima, and the largest.\n\n", NB_UDP_HEADER, hdr - NB_UDP_HEADER,
			hdr == NB_UDP_HEADER + NB_IPV6_HEADER ? 6 : 4,
			assumed ? ", assumed: the peer was named, not given as an address" : "");
}

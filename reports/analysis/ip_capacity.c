/* nbrun — RFC 9097's IP-layer capacity of a UDP case (see ip_capacity.h). */
#include "ip_capacity.h"

#include <arpa/inet.h>
#include <math.h>
#include <string.h>

double nb_ip_layer_bps(double bytes, double packets, double seconds, unsigned hdr)
{
	if (!(seconds > 0) || !isfinite(bytes) || !isfinite(packets))
		return NAN;
	return 8.0 * (bytes + packets * (double)hdr) / seconds;
}

/* Part of the measured time T: not warm-up, omitted or cool-down. */
static bool measured(const struct nb_interval *iv)
{
	return !iv->omitted && !iv->cooldown && iv->t_start >= 0;
}

void nb_ip_capacity(const struct nb_interval *const *iv, size_t n, unsigned hdr,
		    struct nb_ip_capacity *out)
{
	double bytes = 0, packets = 0, secs = 0;
	*out = (struct nb_ip_capacity){ .mean_bps = NAN, .max_bps = NAN, .dt_s = NAN };
	for (size_t i = 0; i < n; i++) {
		const struct nb_interval *x = iv[i];
		double dt = x->t_end - x->t_start;
		double b = x->m.v[NB_COL_RX_BYTES], p = x->m.v[NB_COL_RX_PACKETS];
		double bps = nb_ip_layer_bps(b, p, dt, hdr);
		if (!measured(x) || !isfinite(bps))
			continue;
		bytes += b, packets += p, secs += dt, out->n++;
		out->max_bps = isfinite(out->max_bps) ? fmax(out->max_bps, bps) : bps;
		out->dt_s = isfinite(out->dt_s) ? fmax(out->dt_s, dt) : dt;
	}
	if (out->n)
		out->mean_bps = nb_ip_layer_bps(bytes, packets, secs, hdr);
}

bool nb_ip_capacity_applies(const struct nb_case_stats *c)
{
	const struct nb_plan_case *p = c->pc;
	return p->protocol && strcmp(p->protocol, "udp") == 0 &&
	       (c->metric_col == NB_COL_RX_BPS || c->metric_col == NB_COL_RX_PPS) &&
	       !(p->direction && strcmp(p->direction, "bidir") == 0) && c->value.n > 0;
}

bool nb_ip_capacity_of_case(const struct nb_results *res, size_t ci, unsigned hdr,
			    struct nb_ip_capacity_case *out)
{
	double sm = 0, sx = 0;
	*out = (struct nb_ip_capacity_case){ .mean_bps = NAN, .max_bps = NAN, .max_of_runs = NAN,
					     .dt_s = NAN };
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		struct nb_ip_capacity cap;
		if (r->case_idx != ci || !nb_run_counts(r) || r->iv_n == 0)
			continue;
		nb_ip_capacity((const struct nb_interval *const *)&res->iv_sorted[r->iv_first], r->iv_n,
			       hdr, &cap);
		if (!cap.n)
			continue;
		sm += cap.mean_bps, sx += cap.max_bps, out->runs++;
		out->max_of_runs = isfinite(out->max_of_runs) ? fmax(out->max_of_runs, cap.max_bps)
							     : cap.max_bps;
		out->dt_s = isfinite(out->dt_s) ? fmax(out->dt_s, cap.dt_s) : cap.dt_s;
	}
	if (out->runs) {
		out->mean_bps = sm / (double)out->runs;
		out->max_bps = sx / (double)out->runs;
	}
	return out->runs > 0;
}

unsigned nb_ip_header_bytes(const char *peer, bool *assumed)
{
	char host[256];
	const char *p = peer ? peer : "", *on = strstr(p, " on ");
	size_t len;
	if (on) /* "embedded agent on 127.0.0.1" */
		p = on + 4;
	if (*p == '[') { /* [v6]:PORT */
		const char *e = strchr(p, ']');
		len = e ? (size_t)(e - p - 1) : strlen(p + 1);
		p++;
	} else {
		const char *colon = strchr(p, ':');
		/* one colon: HOST:PORT; more: a bare IPv6 address */
		len = colon && !strchr(colon + 1, ':') ? (size_t)(colon - p) : strlen(p);
	}
	if (len >= sizeof(host))
		len = sizeof(host) - 1;
	memcpy(host, p, len);
	host[len] = '\0';
	unsigned char a[16];
	*assumed = false;
	if (inet_pton(AF_INET6, host, a) == 1)
		return NB_UDP_HEADER + NB_IPV6_HEADER;
	*assumed = inet_pton(AF_INET, host, a) != 1;
	return NB_UDP_HEADER + NB_IPV4_HEADER;
}

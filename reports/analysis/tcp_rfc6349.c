/* nbrun — a TCP stream case in RFC 6349's terms (see tcp_rfc6349.h). */
#include "tcp_rfc6349.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ip_capacity.h"

double nb_rfc6349_efficiency_pct(double tx_bytes, double retrans_bytes)
{
	if (!(tx_bytes > 0) || !isfinite(retrans_bytes) || retrans_bytes < 0)
		return NAN;
	return 100.0 * (tx_bytes - retrans_bytes) / tx_bytes;
}

double nb_rfc6349_buffer_delay_pct(double mean_rtt, double baseline_rtt)
{
	if (!(baseline_rtt > 0) || !isfinite(mean_rtt))
		return NAN;
	return 100.0 * (mean_rtt - baseline_rtt) / baseline_rtt;
}

double nb_rfc6349_bdp_bytes(double rate_bps, double rtt_us)
{
	if (!isfinite(rate_bps) || !isfinite(rtt_us))
		return NAN;
	return rate_bps / 8.0 * rtt_us / 1e6;
}

/* Adds v to *sum and counts it in *n when it is a number. */
static void add(double v, double *sum, size_t *n)
{
	if (isfinite(v))
		*sum += v, (*n)++;
}

double nb_rfc6349_ttr(double seconds, double bytes, double bottleneck_bps)
{
	if (!(seconds > 0) || !(bytes > 0) || !(bottleneck_bps > 0))
		return NAN;
	return seconds / (bytes * 8.0 / bottleneck_bps);
}

/* A plan.csv cell of case pc as a positive number, else NAN (empty, 0: unknown or default). */
static double cell_number(const struct nb_plan_case *pc, const char *key)
{
	const char *v = nb_plan_case_param(pc, key);
	char *end;
	double x = v && *v ? strtod(v, &end) : NAN;
	return x > 0 && *end == '\0' ? x : NAN;
}

void nb_rfc6349_bottleneck_of(const struct nb_results *res, const struct nb_summary *s, size_t ci,
			      struct nb_rfc6349_bottleneck *out)
{
	*out = (struct nb_rfc6349_bottleneck){ NB_BB_UNKNOWN, NAN, NULL };
	double bb = cell_number(&res->cases[ci], "bottleneck");
	if (isfinite(bb)) {
		*out = (struct nb_rfc6349_bottleneck){ NB_BB_CONFIG, bb, NULL };
		return;
	}
	bool assumed;
	unsigned hdr = nb_ip_header_bytes(res->meta.peer, &assumed);
	for (size_t i = 0; i < s->n && i < res->ncases; i++) {
		struct nb_ip_capacity_case k;
		if (!nb_ip_capacity_applies(&s->c[i]) || !nb_ip_capacity_of_case(res, i, hdr, &k) ||
		    !(k.max_of_runs > 0) || (isfinite(out->bps) && k.max_of_runs <= out->bps))
			continue;
		*out = (struct nb_rfc6349_bottleneck){ NB_BB_IP_CAPACITY, k.max_of_runs,
						       res->cases[i].case_id };
	}
}

void nb_rfc6349_with_bottleneck(const struct nb_results *res, size_t ci,
				const struct nb_rfc6349_bottleneck *b, struct nb_rfc6349_case *k)
{
	k->ttr = k->bdp_bb_bytes = NAN;
	k->window_bytes = cell_number(&res->cases[ci], "window");
	k->window_below_bdp = false;
	if (!(b->bps > 0))
		return;
	double sum = 0;
	size_t n = 0;
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		/* the receiver's time for its bytes, on its own clock (rx_bps is over its span) */
		double bytes = r->m.v[NB_COL_RX_BYTES], rate = r->m.v[NB_COL_RX_BPS];
		double t = r->case_idx == ci && nb_run_counts(r) && rate > 0
				   ? nb_rfc6349_ttr(bytes * 8.0 / rate, bytes, b->bps)
				   : NAN;
		add(t, &sum, &n);
	}
	k->ttr = n ? sum / (double)n : NAN;
	k->bdp_bb_bytes = nb_rfc6349_bdp_bytes(b->bps, k->baseline_rtt_us);
	k->window_below_bdp = k->window_bytes < k->bdp_bb_bytes; /* false with either NAN */
}

bool nb_rfc6349_applies(const struct nb_case_stats *c)
{
	const struct nb_plan_case *p = c->pc;
	return p->protocol && strcmp(p->protocol, "tcp") == 0 && c->metric_col == NB_COL_RX_BPS &&
	       !(p->direction && strcmp(p->direction, "bidir") == 0) && c->value.n > 0;
}

/* The mean smoothed RTT of the run's measured intervals (not warm-up, omitted or cool-down). */
static double mean_rtt(const struct nb_results *res, const struct nb_run *r)
{
	double sum = 0;
	size_t n = 0;
	for (size_t k = 0; k < r->iv_n; k++) {
		const struct nb_interval *iv = res->iv_sorted[r->iv_first + k];
		double v = iv->m.v[NB_COL_SRTT_US];
		if (iv->omitted || iv->cooldown || iv->t_start < 0 || !isfinite(v))
			continue;
		sum += v, n++;
	}
	return n ? sum / (double)n : NAN;
}

bool nb_rfc6349_of_case(const struct nb_results *res, size_t ci, struct nb_rfc6349_case *out)
{
	enum { BASE, MEAN, DELAY, EFF, BDP, RETR, N };
	double sum[N] = { 0 };
	size_t n[N] = { 0 };
	*out = (struct nb_rfc6349_case){ .ttr = NAN, .bdp_bb_bytes = NAN, .window_bytes = NAN };
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *r = &res->runs[i];
		if (r->case_idx != ci || !nb_run_counts(r))
			continue;
		double base = r->m.v[NB_COL_MIN_RTT_US], mean = mean_rtt(res, r);
		if (!isfinite(base))
			continue; /* a folder from before, or no RTT sample */
		out->runs++;
		add(base, &sum[BASE], &n[BASE]);
		add(mean, &sum[MEAN], &n[MEAN]);
		add(nb_rfc6349_buffer_delay_pct(mean, base), &sum[DELAY], &n[DELAY]);
		add(nb_rfc6349_efficiency_pct(r->m.v[NB_COL_TX_BYTES], r->m.v[NB_COL_BYTES_RETRANS]),
		    &sum[EFF], &n[EFF]);
		add(nb_rfc6349_bdp_bytes(r->m.v[NB_COL_RX_BPS], base), &sum[BDP], &n[BDP]);
		add(r->m.v[NB_COL_BYTES_RETRANS], &sum[RETR], &n[RETR]);
	}
	double *v[N] = { &out->baseline_rtt_us, &out->mean_rtt_us, &out->buffer_delay_pct,
			 &out->efficiency_pct, &out->bdp_bytes, &out->retrans_bytes };
	for (int k = 0; k < N; k++)
		*v[k] = n[k] ? sum[k] / (double)n[k] : NAN;
	return out->runs > 0;
}

/* nbrun — a TCP stream case in RFC 6349's terms (see tcp_rfc6349.h). */
#include "tcp_rfc6349.h"

#include <math.h>
#include <string.h>

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

/* Adds v to *sum and counts it in *n when it is a number. */
static void add(double v, double *sum, size_t *n)
{
	if (isfinite(v))
		*sum += v, (*n)++;
}

bool nb_rfc6349_of_case(const struct nb_results *res, size_t ci, struct nb_rfc6349_case *out)
{
	enum { BASE, MEAN, DELAY, EFF, BDP, RETR, N };
	double sum[N] = { 0 };
	size_t n[N] = { 0 };
	*out = (struct nb_rfc6349_case){ 0 };
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

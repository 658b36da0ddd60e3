/* nbrun — a span's arithmetic (see span.h). */
#include "span.h"

#include <math.h>

double nb_span_dt(const struct nb_snapshot *a, const struct nb_snapshot *b)
{
	return b->t_ns >= a->t_ns ? (double)(b->t_ns - a->t_ns) / 1e9 : NAN;
}

double nb_span_rate_dt(const struct nb_snapshot *a, const struct nb_snapshot *b, double min_s)
{
	double dt = nb_span_dt(a, b);
	return dt >= min_s ? dt : NAN;
}

double nb_span_per_s(double v, double dt)
{
	return dt >= NB_SPAN_MIN_S ? v / dt : NAN;
}

double nb_span_pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : NAN;
}

double nb_span_diff(const struct nb_snapshot *a, const struct nb_snapshot *b, uint32_t f,
		    enum nb_counter c)
{
	return b->flow[f].c[c] >= a->flow[f].c[c] ? (double)(b->flow[f].c[c] - a->flow[f].c[c]) : NAN;
}

double nb_span_sum(const struct nb_snapshot *a, const struct nb_snapshot *b, uint32_t lo,
		   uint32_t hi, enum nb_counter c)
{
	double v = 0;
	for (uint32_t f = lo; f < hi; f++)
		v += nb_span_diff(a, b, f, c);
	return v;
}

double nb_span_own_sum(const struct nb_snapshot *a, const struct nb_snapshot *b, uint32_t lo,
		       uint32_t hi, unsigned i)
{
	double v = 0;
	for (uint32_t f = lo; f < hi; f++)
		v += b->flow[f].own[i] >= a->flow[f].own[i] ? (double)(b->flow[f].own[i] - a->flow[f].own[i])
							  : NAN;
	return v;
}

/* nbrun — a search's result in MLRsearch's words (see sweep_mlr.h). The two appendices of
 * RFC 9971 are followed line by line, so a reader can hold the code against the document. */
#include "sweep_mlr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Durations are whole nanoseconds: sums that differ by less came from rounding to seconds. */
#define SLACK_S 1e-9

void nb_mlr_classify(const struct nb_mlr_goal *g, double good_long, double bad_long,
		     double good_short, double bad_short, bool *optimistic, bool *pessimistic)
{
	double x = g->exceed_ratio;
	double balancing = good_short * x / (1.0 - x);
	double effective_bad = bad_long + fmax(0.0, bad_short - balancing);
	double whole = fmax(good_long + effective_bad, g->duration_sum_s);
	double quantile_sum = whole * x;
	*optimistic = effective_bad <= quantile_sum + SLACK_S;
	*pessimistic = whole - good_long <= quantile_sum + SLACK_S;
}

double nb_mlr_conditional(const struct nb_mlr_goal *g, double load, const double *loss,
			  const double *dur, size_t n, double *quantile)
{
	double good = 0, bad = 0;
	for (size_t i = 0; i < n; i++)
		*(loss[i] <= g->loss_ratio ? &good : &bad) += dur[i];
	double all = fmax(g->duration_sum_s, good + bad);
	double remaining = all * (1.0 - g->exceed_ratio);
	double q = NAN;
	size_t i = 0;
	for (; i < n; i++) {
		if (!isnan(q) && !(remaining > SLACK_S))
			break;
		q = loss[i];
		remaining -= dur[i];
	}
	if (i == n && remaining > SLACK_S)
		q = 1.0; /* the trials missing from the duration sum count as lost */
	*quantile = q;
	return load * (1.0 - q);
}

/* A trial that measured the path: it ran, its sender kept the schedule, not the burst. */
static bool counted(const struct nb_trial *t)
{
	return t->ok && t->valid && !t->calibration && t->offered;
}

static bool is_long(const struct nb_mlr_goal *g, const struct nb_trial *t)
{
	return (double)t->duration_ns / 1e9 >= g->final_trial_s;
}

/* Appendix A at one load: sums in integer ns first, so that confirm x trial is exact. */
static void classify_load(const struct nb_mlr_goal *g, const struct nb_trial *t, size_t n,
			  uint64_t load, bool *lower, bool *upper)
{
	uint64_t sum[2][2] = { { 0, 0 }, { 0, 0 } }; /* [long][bad] */
	for (size_t i = 0; i < n; i++)
		if (counted(&t[i]) && t[i].offered == load)
			sum[is_long(g, &t[i])][t[i].loss_ratio > g->loss_ratio] += t[i].duration_ns;
	bool opt, pes;
	nb_mlr_classify(g, (double)sum[1][0] / 1e9, (double)sum[1][1] / 1e9, (double)sum[0][0] / 1e9,
			(double)sum[0][1] / 1e9, &opt, &pes);
	*lower = opt && pes;
	*upper = !opt && !pes;
}

static int by_loss(const void *a, const void *b)
{
	const double *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Appendix B at the lower bound; false when out of memory. */
static bool conditional_at(const struct nb_mlr_goal *g, const struct nb_trial *t, size_t n,
			   struct nb_mlr_result *out)
{
	double *pairs = calloc(2 * (n + 1), sizeof(*pairs));
	double *loss = calloc(n + 1, sizeof(*loss)), *dur = calloc(n + 1, sizeof(*dur));
	bool ok = pairs && loss && dur;
	size_t k = 0;
	for (size_t i = 0; ok && i < n; i++)
		if (counted(&t[i]) && t[i].offered == out->lower && is_long(g, &t[i])) {
			pairs[2 * k] = t[i].loss_ratio;
			pairs[2 * k + 1] = (double)t[i].duration_ns / 1e9;
			k++;
		}
	if (ok && k) {
		qsort(pairs, k, 2 * sizeof(*pairs), by_loss);
		for (size_t i = 0; i < k; i++)
			loss[i] = pairs[2 * i], dur[i] = pairs[2 * i + 1];
		out->conditional = nb_mlr_conditional(g, (double)out->lower, loss, dur, k,
						      &out->quantile_loss);
	}
	free(pairs);
	free(loss);
	free(dur);
	return ok;
}

bool nb_mlr_result(const struct nb_mlr_goal *g, const struct nb_trial *t, size_t n,
		   struct nb_mlr_result *out)
{
	*out = (struct nb_mlr_result){ .conditional = NAN, .quantile_loss = NAN };
	for (size_t i = 0; i < n; i++) {
		bool lower, upper;
		if (!counted(&t[i]))
			continue;
		classify_load(g, t, n, t[i].offered, &lower, &upper);
		if (upper && (!out->upper || t[i].offered < out->upper))
			out->upper = t[i].offered;
	}
	for (size_t i = 0; i < n; i++) {
		bool lower, upper;
		if (!counted(&t[i]) || (out->upper && t[i].offered >= out->upper))
			continue;
		classify_load(g, t, n, t[i].offered, &lower, &upper);
		if (lower && t[i].offered > out->lower)
			out->lower = t[i].offered;
	}
	return !out->lower || conditional_at(g, t, n, out);
}

struct nb_mlr_goal nb_mlr_goal_of(const struct nb_sweep *s, double loss)
{
	uint64_t initial = s->short_trial_ns ? s->short_trial_ns : s->trial_ns;
	return (struct nb_mlr_goal){
		.loss_ratio = loss, .exceed_ratio = 0, .final_trial_s = (double)s->trial_ns / 1e9,
		.duration_sum_s = (double)(s->trial_ns * (s->confirm ? s->confirm : 1)) / 1e9,
		.initial_trial_s = (double)initial / 1e9, .width = s->precision,
	};
}

void nb_mlr_goal_name(const struct nb_sweep *s, uint32_t g, char *buf, size_t len)
{
	uint32_t nonzero = 0;
	for (uint32_t i = 0; i < s->nloss; i++)
		nonzero += s->loss[i] > 0;
	double loss = g < s->nloss ? s->loss[g] : NAN;
	if (loss == 0)
		snprintf(buf, len, "NDR");
	else if (nonzero == 1)
		snprintf(buf, len, "PDR");
	else
		snprintf(buf, len, "PDR %g%%", loss * 100.0);
}

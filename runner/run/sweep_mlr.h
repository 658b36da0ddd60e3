/* nbrun — a search's result in MLRsearch's words (RFC 9971, draft-ietf-bmwg-mlrsearch).
 *
 * The search (sweep.c) decides what to try; this module reads its finished list of trials the
 * way MLRsearch defines a goal's result, independently of the search's own bookkeeping: each
 * load is classified per goal (Appendix A, "Load Classification"), the relevant upper bound is
 * the smallest load classified as an upper bound, the relevant lower bound the largest lower
 * bound below it, and the conditional throughput is computed at the relevant lower bound
 * (Appendix B, "Conditional Throughput"). Only trials that measured the path count (ok and
 * valid: a sender that fell short tested itself). Pure arithmetic, tested against hand-computed
 * tables (tests/test_sweep_mlr.c).
 */
#ifndef NB_SWEEP_MLR_H
#define NB_SWEEP_MLR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweep.h"

/** A search goal, MLRsearch's attributes; durations in seconds. */
struct nb_mlr_goal {
	double loss_ratio;       /* Goal Loss Ratio (0.005 = 0.5 %) */
	double exceed_ratio;     /* Goal Exceed Ratio, in [0, 1) */
	double final_trial_s;    /* Goal Final Trial Duration */
	double duration_sum_s;   /* Goal Duration Sum */
	double initial_trial_s;  /* Goal Initial Trial Duration (= final when no short trials) */
	double width;            /* Goal Width, relative (the search's precision) */
};

/** One goal's result: loads in the unit of nb_trial.offered (per flow); 0 = none. */
struct nb_mlr_result {
	uint64_t lower;          /* Relevant Lower Bound */
	uint64_t upper;          /* Relevant Upper Bound */
	double conditional;      /* Conditional Throughput at the lower bound (NAN: no lower bound) */
	double quantile_loss;    /* the trial loss ratio it took (NAN: none) */
};

/** How one load classifies for goal g (Appendix A): true/true = lower bound, false/false =
 *  upper bound, else undecided. Sums in seconds. */
void nb_mlr_classify(const struct nb_mlr_goal *g, double good_long, double bad_long,
		     double good_short, double bad_short, bool *optimistic, bool *pessimistic);
/** Appendix B at one load: the long trials' loss ratios and durations, sorted by increasing
 *  loss ratio (n >= 1). Returns the conditional throughput at load; *quantile the ratio used. */
double nb_mlr_conditional(const struct nb_mlr_goal *g, double load, const double *loss,
			  const double *dur, size_t n, double *quantile);
/** The goal's result over every counted trial of a search. False only when out of memory. */
bool nb_mlr_result(const struct nb_mlr_goal *g, const struct nb_trial *t, size_t n,
		   struct nb_mlr_result *out);
/** The goal of a search's loss ratio loss, as nbrun's keys set it (docs/config.md): final trial
 *  = trial, duration sum = confirm x trial, exceed ratio 0 (every full-length trial at the
 *  lower bound must pass), initial trial = short_trial or trial, width = precision. */
struct nb_mlr_goal nb_mlr_goal_of(const struct nb_sweep *s, double loss);
/** "NDR" for loss 0, "PDR" for the one non-zero goal, else "PDR 0.1%"-style (len >= 24). */
void nb_mlr_goal_name(const struct nb_sweep *s, uint32_t g, char *buf, size_t len);

#endif

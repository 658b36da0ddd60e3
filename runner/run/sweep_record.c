/* nbrun — a sweep's result for people (one sentence per loss goal) and for the report (the
 * entries of sweeps.json, which reports/sweeps_json.c writes). See sweep_run.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "params.h"
#include "sweep_run.h"
#include "sweeps_json.h"

/* Only engines with a rate sweep (the `sweep` key), so never NULL. */
static const char *rate_unit(const struct nb_case *c)
{
	return c->engine->traits.rate_unit;
}

/* "187.4 Mbit/s" */
static const char *fmt_rate(const struct nb_case *c, double v, char *buf, size_t len)
{
	struct nb_scale sc = nb_fmt_scale(rate_unit(c), v);
	snprintf(buf, len, "%.4g %s", v / sc.div, sc.unit);
	return buf;
}

static const char *stop_reason(const struct nb_sweep_outcome *o)
{
	return o->interrupted ? "interrupted" : o->trial_limit ? "trial limit reached"
					       : o->broken ? "trials failed to run" : "stopped";
}

static void plain_sentence(const struct nb_case *c, const struct nb_sweep_outcome *o, char *buf,
			   size_t len)
{
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < o->ntrials; i++) {
		if (!o->trials[i].ok)
			continue;
		lo = fmin(lo, o->trials[i].loss_ratio * 100.0);
		hi = fmax(hi, o->trials[i].loss_ratio * 100.0);
	}
	char a[32], b[32];
	const struct nb_trial *first = o->ntrials ? &o->trials[0] : NULL;
	const struct nb_trial *last = o->ntrials ? &o->trials[o->ntrials - 1] : NULL;
	snprintf(buf, len, "%s: sweep of %zu rates, %s to %s: loss %.3g %% to %.3g %% (%.0f s)%s", c->id,
		 o->ntrials, fmt_rate(c, first ? (double)first->offered : NAN, a, sizeof(a)),
		 fmt_rate(c, last ? (double)last->offered : NAN, b, sizeof(b)), isfinite(lo) ? lo : NAN,
		 isfinite(hi) ? hi : NAN, (double)o->elapsed_ns / 1e9,
		 o->interrupted ? " — interrupted" : "");
}

/* The middle of the sentence for a goal that did not end in a plain "found". */
static void other_status(const struct nb_case *c, const struct nb_sweep_outcome *o,
			 const struct nb_sweep_goal *g, const char *loss, char *buf, size_t len)
{
	char a[32], b[32];
	const struct nb_sweep *s = &c->sweep;
	switch (g->status) {
	case NB_SWEEP_BELOW_FROM:
		snprintf(buf, len, "loss above %s even at %s (from): no rate meets it", loss,
			 fmt_rate(c, (double)s->from, a, sizeof(a)));
		break;
	case NB_SWEEP_AT_OR_ABOVE_TO:
		snprintf(buf, len, "no loss above %s up to %s (to): the threshold is at or above it", loss,
			 fmt_rate(c, (double)s->to, a, sizeof(a)));
		break;
	case NB_SWEEP_HOST_BOUND:
		if (g->threshold)
			snprintf(buf, len, "highest rate with loss ≤ %s: at least %s (host-bound above %s: "
				 "the sender could not go faster)", loss,
				 fmt_rate(c, (double)g->threshold, a, sizeof(a)),
				 fmt_rate(c, (double)o->host_bound_above, b, sizeof(b)));
		else
			snprintf(buf, len, "the sender could not reach even %s (host-bound): no threshold "
				 "for loss ≤ %s", fmt_rate(c, (double)s->from, a, sizeof(a)), loss);
		break;
	default:
		snprintf(buf, len, "search for loss ≤ %s incomplete (%s): the threshold lies between %s "
			 "and %s", loss, stop_reason(o),
			 g->bracket_lo ? fmt_rate(c, (double)g->bracket_lo, a, sizeof(a)) : "from",
			 g->bracket_hi ? fmt_rate(c, (double)g->bracket_hi, b, sizeof(b)) : "to");
		break;
	}
}

void nb_sweep_sentence(const struct nb_case *c, const struct nb_sweep_outcome *o, uint32_t g,
		       char *buf, size_t len)
{
	if (!o->search || g >= o->ngoals) {
		plain_sentence(c, o, buf, len);
		return;
	}
	const struct nb_sweep_goal *goal = &o->goal[g];
	char loss[32], mid[384], a[32], b[32];
	snprintf(loss, sizeof(loss), "%g %%", goal->loss * 100.0);
	if (goal->status == NB_SWEEP_FOUND)
		snprintf(mid, sizeof(mid), "highest rate with loss ≤ %s: %s (lowest failing %s, ", loss,
			 fmt_rate(c, (double)goal->threshold, a, sizeof(a)),
			 fmt_rate(c, (double)goal->lowest_fail, b, sizeof(b)));
	else
		other_status(c, o, goal, loss, mid, sizeof(mid));
	snprintf(buf, len, "%s: %s%s%zu trial%s, %.0f s)%s", c->id, mid,
		 goal->status == NB_SWEEP_FOUND ? "" : " (", o->ntrials, o->ntrials == 1 ? "" : "s",
		 (double)o->elapsed_ns / 1e9, nb_params_nflows(&c->params) > 1 ? " [rates per flow]" : "");
}

/* ---- sweeps.json ----------------------------------------------------------------------- */

static double rate_or_nan(uint64_t r)
{
	return r ? (double)r : NAN;
}

/* Mean achieved send rate of the valid trials at rate (NAN = none). */
static double achieved_at(const struct nb_sweep_outcome *o, uint64_t rate)
{
	double sum = 0;
	uint32_t n = 0;
	for (size_t i = 0; i < o->ntrials; i++)
		if (o->trials[i].offered == rate && o->trials[i].ok && o->trials[i].valid)
			sum += o->trials[i].sent_rate, n++;
	return n ? sum / n : NAN;
}

/* What every entry of the sweep says: the case, the whole sweep's trials and time. */
static struct nb_sweep_result common(const struct nb_case *c, uint32_t rep,
				     const struct nb_sweep_outcome *o, double max_burst)
{
	return (struct nb_sweep_result){
		.case_id = c->id, .rep = rep, .search = o->search, .unit = rate_unit(c),
		.flows = nb_params_nflows(&c->params), .trials = (double)o->ntrials,
		.elapsed_s = (double)o->elapsed_ns / 1e9, .trial_s = (double)o->trial_ns / 1e9,
		.host_bound_above = rate_or_nan(o->host_bound_above), .max_burst = max_burst,
		.interrupted = o->interrupted, .trial_limit = o->trial_limit,
		.complete_known = true, .complete = !o->interrupted,
	};
}

static void goal_entry(const struct nb_sweep_outcome *o, uint32_t g, struct nb_sweep_result *e)
{
	const struct nb_sweep_goal *goal = &o->goal[g];
	e->loss_target = goal->loss;
	e->status = nb_sweep_status_name(goal->status);
	e->complete = goal->status != NB_SWEEP_INCOMPLETE;
	e->threshold = rate_or_nan(goal->threshold);
	e->lowest_fail = rate_or_nan(goal->lowest_fail);
	e->bracket_lo = rate_or_nan(goal->bracket_lo);
	e->bracket_hi = rate_or_nan(goal->bracket_hi);
	e->goal_trials = goal->trials;
	e->achieved_rate = goal->threshold ? achieved_at(o, goal->threshold) : NAN;
}

bool nb_sweep_record_append(const char *dir, const struct nb_case *c, uint32_t rep,
			    const struct nb_sweep_outcome *o, double max_burst, struct nb_error *err)
{
	uint32_t n = o->search ? o->ngoals : 1;
	struct nb_sweep_result e[NB_LOSS_MAX];
	char sentence[NB_LOSS_MAX][768];
	double *rates = calloc(o->ntrials + 1, sizeof(*rates));
	if (!rates)
		return nb_error_set(err, "%s: out of memory", NB_SWEEPS_JSON_FILE);
	for (size_t i = 0; i < o->ntrials; i++)
		rates[i] = (double)o->trials[i].offered;
	for (uint32_t g = 0; g < n; g++) {
		e[g] = common(c, rep, o, max_burst);
		nb_sweep_sentence(c, o, o->search ? g : UINT32_MAX, sentence[g], sizeof(sentence[g]));
		e[g].sentence = sentence[g];
		if (o->search)
			goal_entry(o, g, &e[g]);
		e[g].rates = rates;
		e[g].nrates = o->ntrials;
	}
	bool ok = nb_sweeps_json_append(dir, e, n, err);
	free(rates);
	return ok;
}

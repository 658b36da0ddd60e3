/* Repetitions and sweeps: their values and nested keys (the checks that need
 * several keys of a test at once are in config_check.c). Each error points at
 * the node the user should change. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_int.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_REPS 1000
#define MAX_SWEEP_POINTS 1000
#define MAX_RETRIES 10

/* --- repetitions ------------------------------------------------------------------------ */

static bool reps_map(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_reps *r)
{
	static const char *const keys[] = { "auto", "min", "max", "ci" };
	const struct nb_ynode *a = nb_ymap_get(v, "auto"), *x;
	bool on = false;
	uint64_t n;
	if (!nb_cfg_check_keys(c, v, keys, N(keys), "repetitions"))
		return false;
	if (!a)
		return nb_yerror(c->err, v, "repetitions mapping without auto (expected {auto: true, "
				 "min: 3, max: 30, ci: 5%%} or an integer)");
	if (!nb_cfg_bool(c, a, &on))
		return false;
	if (!on)
		return nb_yerror(c->err, a, "auto: false (expected an integer for a fixed count)");
	if ((x = nb_ymap_get(v, "min")) && !nb_cfg_uint(c, x, 2, MAX_REPS, &n))
		return false;
	r->min = x ? (uint32_t)n : r->min;
	if ((x = nb_ymap_get(v, "max")) && !nb_cfg_uint(c, x, r->min, MAX_REPS, &n))
		return false;
	r->max = x ? (uint32_t)n : r->max;
	if (r->max < r->min)
		return nb_yerror(c->err, v, "min %u is above the default max %u (expected max: too)",
				 r->min, r->max);
	if ((x = nb_ymap_get(v, "ci")) && !nb_cfg_percent(c, x, 0.0001, 1.0, &r->ci))
		return false;
	return true;
}

bool nb_cfg_apply_reps(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	struct nb_reps r = { .count = 3, .autorep = true, .min = 3, .max = 30, .ci = 0.05 };
	uint64_t n;
	if (v->kind == NB_Y_MAP) {
		if (!reps_map(c, v, &r))
			return false;
		r.count = r.min;
	} else if (v->kind == NB_Y_SCALAR && strcmp(v->str, "auto") == 0) {
		r.count = r.min;
	} else {
		if (v->kind == NB_Y_SEQ)
			return nb_yerror(c->err, v, "expected an integer, auto, or {auto: true, min: 3, "
					 "max: 30, ci: 5%%}, got a list");
		if (!nb_cfg_uint(c, v, 1, MAX_REPS, &n))
			return false;
		r = (struct nb_reps){ .count = (uint32_t)n, .min = (uint32_t)n, .max = (uint32_t)n };
	}
	t->reps = r;
	return true;
}

/* --- sweep ------------------------------------------------------------------------------ */

/* A packet rate in a bit-rate engine's sweep: say which engine sweeps packet rates. */
static bool packet_rate_sweep(struct nb_cfg_ctx *c, const struct nb_ynode *v, const struct nb_test *t)
{
	const struct nb_engine *const *e = nb_engine_list();
	while (*e && !((*e)->traits.rate == NB_RATE_KIND_PACKETS && nb_engine_has_key(*e, "sweep")))
		e++;
	return nb_yerror(c->err, v, "'%s' is a packet rate (expected a bit rate such as 100M for a %s "
			 "sweep%s%s%s)", v->str, t->engine->name, *e ? "; use engine " : "",
			 *e ? (*e)->name : "", *e ? " to sweep packet rates" : "");
}

static bool sweep_rate_value(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t,
			     uint64_t *out)
{
	bool pps;
	if (!nb_cfg_rate(c, v, t->engine, out, &pps))
		return false;
	if (pps && t->engine->traits.rate == NB_RATE_KIND_BITS)
		return packet_rate_sweep(c, v, t);
	if (*out == 0)
		return nb_yerror(c->err, v, "a sweep rate of 0 (expected a positive rate)");
	return true;
}

static bool sweep_steps(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t,
			struct nb_sweep *s)
{
	if (v->kind == NB_Y_MAP || (v->kind == NB_Y_SEQ && v->nkids == 0))
		return nb_yerror(c->err, v, "expected a list of rates such as [100M, 200M, 500M], "
				 "got %s", v->kind == NB_Y_MAP ? "a mapping" : "an empty list");
	if (nb_cfg_nitems(v) > NB_AXIS_MAX)
		return nb_yerror(c->err, v, "%zu steps (expected at most %d)", nb_cfg_nitems(v),
				 NB_AXIS_MAX);
	for (size_t i = 0; i < nb_cfg_nitems(v); i++) {
		const struct nb_ynode *it = nb_cfg_item(v, i);
		if (!sweep_rate_value(c, it, t, &s->steps[i]))
			return false;
		if (i > 0 && s->steps[i] <= s->steps[i - 1])
			return nb_yerror(c->err, it, "steps must ascend (expected a rate above the "
					 "previous one)");
	}
	s->nsteps = (uint32_t)nb_cfg_nitems(v);
	return true;
}

static bool sweep_factor(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_sweep *s)
{
	if (!nb_cfg_scalar(c, v, "a factor above 1 such as 2"))
		return false;
	char *end;
	double f = strtod(v->str, &end);
	if (*end || !(f > 1.0) || f > 100.0)
		return nb_yerror(c->err, v, "bad factor '%s' (expected a number above 1 and at most "
				 "100 such as 2)", v->str);
	s->factor = f;
	return true;
}

static bool sweep_loss(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_sweep *s)
{
	if (v->kind == NB_Y_MAP || (v->kind == NB_Y_SEQ && v->nkids == 0))
		return nb_yerror(c->err, v, "expected a loss percentage or a list such as [0%%, 0.5%%], "
				 "got %s", v->kind == NB_Y_MAP ? "a mapping" : "an empty list");
	if (nb_cfg_nitems(v) > NB_LOSS_MAX)
		return nb_yerror(c->err, v, "%zu loss thresholds (expected at most %d)",
				 nb_cfg_nitems(v), NB_LOSS_MAX);
	for (size_t i = 0; i < nb_cfg_nitems(v); i++) {
		const struct nb_ynode *it = nb_cfg_item(v, i);
		if (!nb_cfg_percent(c, it, 0.0, 0.5, &s->loss[i]))
			return false;
		if (i > 0 && s->loss[i] <= s->loss[i - 1])
			return nb_yerror(c->err, it, "loss thresholds must ascend (expected a value "
					 "above the previous one)");
	}
	s->nloss = (uint32_t)nb_cfg_nitems(v);
	s->search = true;
	return true;
}

/* Exactly one of steps, step, factor, loss; returns its key node or NULL after an error. */
static const struct nb_ynode *sweep_mode(struct nb_cfg_ctx *c, const struct nb_ynode *rv)
{
	static const char *const modes[] = { "steps", "step", "factor", "loss", "loss_ratio" };
	const struct nb_ynode *first = NULL;
	for (size_t i = 0; i < N(modes); i++) {
		const struct nb_ynode *k = nb_ymap_key(rv, modes[i]);
		if (k && first) {
			nb_yerror(c->err, k, "'%s' and '%s' exclude each other (expected exactly one of "
				  "steps, step, factor or loss)", first->str, k->str);
			return NULL;
		}
		first = k ? k : first;
	}
	if (!first)
		nb_yerror(c->err, rv, "the sweep has no steps, step, factor or loss (expected "
			  "exactly one of them)");
	return first;
}

static bool sweep_bounds(struct nb_cfg_ctx *c, const struct nb_ynode *rv, struct nb_test *t,
			 struct nb_sweep *s, bool steps)
{
	const struct nb_ynode *f = nb_ymap_get(rv, "from"), *to = nb_ymap_get(rv, "to");
	if (steps && !f && !to) {
		s->from = s->steps[0];
		s->to = s->steps[s->nsteps - 1];
		return true;
	}
	if (!f || !to)
		return nb_yerror(c->err, rv, "the sweep has no '%s' (expected from and to)",
				 f ? "to" : "from");
	if (!sweep_rate_value(c, f, t, &s->from) || !sweep_rate_value(c, to, t, &s->to))
		return false;
	if (s->to <= s->from)
		return nb_yerror(c->err, to, "to (%s) is not above from (%s) (expected from < to)",
				 to->str, f->str);
	if (steps && (s->steps[0] < s->from || s->steps[s->nsteps - 1] > s->to))
		return nb_yerror(c->err, nb_ymap_get(rv, "steps"), "a step lies outside from..to "
				 "(expected steps between %s and %s)", f->str, to->str);
	return true;
}

static bool sweep_rate(struct nb_cfg_ctx *c, const struct nb_ynode *rv, struct nb_test *t,
		       struct nb_sweep *s)
{
	static const char *const keys[] = { "from", "to", "steps", "step", "factor", "loss",
					    "loss_ratio", "precision" };
	if (rv->kind != NB_Y_MAP)
		return nb_yerror(c->err, rv, "expected a mapping such as {from: 10M, to: 1G, loss: "
				 "0.1%%}, got %s", nb_ynode_kind_name(rv));
	const struct nb_ynode *mode, *x;
	if (!nb_cfg_check_keys(c, rv, keys, N(keys), "sweep.rate") || !(mode = sweep_mode(c, rv)))
		return false;
	const struct nb_ynode *mv = nb_ymap_get(rv, mode->str);
	bool ok = strcmp(mode->str, "steps") == 0   ? sweep_steps(c, mv, t, s)
		  : strcmp(mode->str, "step") == 0  ? sweep_rate_value(c, mv, t, &s->step)
		  : strcmp(mode->str, "factor") == 0 ? sweep_factor(c, mv, s)
						     : sweep_loss(c, mv, s);
	if (!ok || !sweep_bounds(c, rv, t, s, s->nsteps > 0))
		return false;
	if (s->step && (s->to - s->from) / s->step + 1 > MAX_SWEEP_POINTS)
		return nb_yerror(c->err, mv, "step %s gives %llu rates (expected at most %d)",
				 mv->str, (unsigned long long)((s->to - s->from) / s->step + 1),
				 MAX_SWEEP_POINTS);
	if ((x = nb_ymap_get(rv, "precision")) && !s->search)
		return nb_yerror(c->err, nb_ymap_key(rv, "precision"), "precision applies to a loss "
				 "search only (expected loss: too)");
	return !x || nb_cfg_percent(c, x, 0.0001, 0.5, &s->precision);
}

/* A key under today's name a or MLRsearch's b (RFC 9971's goal attributes): *out is the value
 * given (NULL: neither), *key its key; false after an error when both are given. */
static bool either(struct nb_cfg_ctx *c, const struct nb_ynode *v, const char *a, const char *b,
		   const struct nb_ynode **out, const struct nb_ynode **key)
{
	const struct nb_ynode *ka = nb_ymap_key(v, a), *kb = nb_ymap_key(v, b);
	if (ka && kb)
		return nb_yerror(c->err, kb, "'%s' and '%s' name the same thing (expected one of them)",
				 a, b);
	*key = ka ? ka : kb;
	*out = nb_ymap_get(v, ka ? a : b);
	return true;
}

/* short_trial (initial_trial): a search's coarse trials, shorter than its final ones at `trial`
 * (MLRsearch); without it every trial lasts `trial`, as the key says. */
static bool sweep_short_trial(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_sweep *s)
{
	const struct nb_ynode *x, *k;
	if (!either(c, v, "short_trial", "initial_trial", &x, &k))
		return false;
	if (!x)
		return true;
	if (!s->search)
		return nb_yerror(c->err, k, "%s applies to a loss search only (expected rate.loss too)",
				 k->str);
	if (!nb_cfg_duration(c, x, &s->short_trial_ns))
		return false;
	if (s->short_trial_ns == 0 || s->short_trial_ns >= s->trial_ns)
		return nb_yerror(c->err, x, "%s %s is not below trial (%gs) (expected a shorter "
				 "duration such as 1s, or no %s: every trial at trial)", k->str, x->str,
				 (double)s->trial_ns / 1e9, k->str);
	return true;
}

/* MLRsearch's goal attributes that today's keys already fix: duration_sum is confirm x trial
 * (a whole number of full-length trials), exceed_ratio is 0 (a lower bound is a load where
 * every full-length trial passed); both only for a search. */
static bool sweep_goal_keys(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_sweep *s)
{
	const struct nb_ynode *x;
	static const char *const search_only[] = { "duration_sum", "exceed_ratio" };
	for (size_t i = 0; i < N(search_only); i++)
		if (nb_ymap_get(v, search_only[i]) && !s->search)
			return nb_yerror(c->err, nb_ymap_key(v, search_only[i]), "%s applies to a loss "
					 "search only (expected rate.loss too)", search_only[i]);
	if ((x = nb_ymap_get(v, "exceed_ratio"))) {
		char *end;
		double r = nb_cfg_scalar(c, x, "0") ? strtod(x->str, &end) : NAN;
		if (isnan(r))
			return false;
		if (r != 0 || (*end && strcmp(end, "%") != 0))
			return nb_yerror(c->err, x, "exceed_ratio %s: this search takes a load as a lower "
					 "bound only when every full-length trial there passed (expected 0)",
					 x->str);
	}
	if (!(x = nb_ymap_get(v, "duration_sum")))
		return true;
	if (nb_ymap_key(v, "confirm"))
		return nb_yerror(c->err, nb_ymap_key(v, "duration_sum"), "'confirm' and 'duration_sum' "
				 "say the same thing (duration_sum = confirm x trial; expected one of them)");
	uint64_t ns;
	if (!nb_cfg_duration(c, x, &ns))
		return false;
	if (ns == 0 || ns % s->trial_ns || ns / s->trial_ns > 100)
		return nb_yerror(c->err, x, "duration_sum %s is not 1 to 100 full-length trials of %gs "
				 "(expected e.g. %gs)", x->str, (double)s->trial_ns / 1e9,
				 2 * (double)s->trial_ns / 1e9);
	s->confirm = (uint32_t)(ns / s->trial_ns);
	return true;
}

/* latency_at: the fractions of the PDR rate a search measures latency at once it has found it
 * (FD.io CSIT's latency at % PDR): ascending percentages, 0 % the probe alone, at least one
 * above it, and a search with a PDR (a non-zero loss goal) to take them of. */
static bool sweep_latency_at(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_sweep *s)
{
	const struct nb_ynode *x = nb_ymap_get(v, "latency_at"), *k = nb_ymap_key(v, "latency_at");
	if (!x)
		return true;
	if (!s->search || s->nloss == 0 || !(s->loss[s->nloss - 1] > 0))
		return nb_yerror(c->err, k, "latency_at needs a search with a PDR (expected rate.loss "
				 "with a non-zero goal such as [0%%, 0.5%%])");
	if (x->kind == NB_Y_MAP || (x->kind == NB_Y_SEQ && x->nkids == 0))
		return nb_yerror(c->err, x, "expected a list of percentages of the PDR rate such as "
				 "[0%%, 10%%, 50%%, 90%%], got %s", x->kind == NB_Y_MAP ? "a mapping"
				 : "an empty list");
	if (nb_cfg_nitems(x) > NB_LATENCY_AT_MAX)
		return nb_yerror(c->err, x, "%zu fractions (expected at most %d)", nb_cfg_nitems(x),
				 NB_LATENCY_AT_MAX);
	for (size_t i = 0; i < nb_cfg_nitems(x); i++) {
		const struct nb_ynode *it = nb_cfg_item(x, i);
		if (!nb_cfg_percent(c, it, 0.0, 1.0, &s->latency_at[i]))
			return false;
		if (i > 0 && s->latency_at[i] <= s->latency_at[i - 1])
			return nb_yerror(c->err, it, "latency_at must ascend (expected a percentage "
					 "above the previous one)");
	}
	s->nlatency_at = (uint32_t)nb_cfg_nitems(x);
	if (!(s->latency_at[s->nlatency_at - 1] > 0))
		return nb_yerror(c->err, x, "latency_at has no fraction above 0%% (expected e.g. [0%%, "
				 "50%%, 90%%]: 0%% is the probe alone, before the first load)");
	return true;
}

/* latency_rate: the probe's messages/s beside the load (CSIT's latency streams: 9 kpps). */
static bool sweep_latency_rate(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_sweep *s)
{
	const struct nb_ynode *x = nb_ymap_get(v, "latency_rate");
	const struct nb_engine *e = nb_engine_udp_probe();
	bool pps;
	if (!x)
		return true;
	if (!s->nlatency_at)
		return nb_yerror(c->err, nb_ymap_key(v, "latency_rate"), "latency_rate applies with "
				 "latency_at only (expected latency_at: [0%%, 50%%, 90%%] too)");
	if (!e)
		return nb_yerror(c->err, x, "no engine probes latency over UDP in this build");
	if (!nb_cfg_rate(c, x, e, &s->latency_rate, &pps))
		return false;
	if (s->latency_rate == 0 || s->latency_rate > 1000000)
		return nb_yerror(c->err, x, "latency_rate %s is out of range (expected 1pps to 1Mpps)",
				 x->str);
	return true;
}

bool nb_cfg_apply_sweep(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	static const char *const keys[] = { "rate", "trial", "short_trial", "confirm", "retries",
					    "final_trial", "initial_trial", "duration_sum",
					    "exceed_ratio", "latency_at", "latency_rate" };
	struct nb_sweep s = { .enabled = true, .precision = 0.01, .confirm = 1,
			      .retries = NB_SWEEP_RETRIES, .trial_ns = t->timing.duration_ns,
			      .latency_rate = NB_LATENCY_RATE };
	const struct nb_ynode *x;
	uint64_t n;
	if (v->kind != NB_Y_MAP)
		return nb_yerror(c->err, v, "expected a mapping such as {rate: {from: 10M, to: 1G, "
				 "loss: 0.1%%}}, got %s", nb_ynode_kind_name(v));
	if (!nb_cfg_check_keys(c, v, keys, N(keys), "sweep"))
		return false;
	if (!(x = nb_ymap_get(v, "rate")))
		return nb_yerror(c->err, v, "the sweep has no rate (expected rate: {from: .., to: .., "
				 "loss: ..} or steps)");
	if (!sweep_rate(c, x, t, &s))
		return false;
	const struct nb_ynode *k;
	if (!either(c, v, "trial", "final_trial", &x, &k))
		return false;
	if (x && !nb_cfg_duration(c, x, &s.trial_ns))
		return false;
	if (x && s.trial_ns == 0)
		return nb_yerror(c->err, x, "trial must be positive (expected e.g. 5s)");
	if (!sweep_short_trial(c, v, &s))
		return false;
	if ((x = nb_ymap_get(v, "confirm")) && !s.search)
		return nb_yerror(c->err, nb_ymap_key(v, "confirm"), "confirm applies to a loss search "
				 "only (expected rate.loss too)");
	if (x && !nb_cfg_uint(c, x, 1, 100, &n))
		return false;
	s.confirm = x ? (uint32_t)n : s.confirm;
	if ((x = nb_ymap_get(v, "retries")) && !nb_cfg_uint(c, x, 0, MAX_RETRIES, &n))
		return false;
	s.retries = x ? (uint32_t)n : s.retries;
	if (!sweep_goal_keys(c, v, &s) || !sweep_latency_at(c, v, &s) ||
	    !sweep_latency_rate(c, v, &s))
		return false;
	t->sweep = s;
	return true;
}

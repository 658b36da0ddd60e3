/* nbrun — rate sweeps and the loss-threshold search (see sweep.h).
 *
 * Why the search looks the way it does. A threshold is only as good as the
 * trial that would refute it, and trials cost time, so:
 *  - Everything is derived from the list of trials run so far; nothing is
 *    believed that no trial showed. A rate fails goal g when any valid trial
 *    at it lost more than g; the threshold is the highest rate that passed
 *    every trial at it *below* the lowest failing rate (a pass above a fail,
 *    as a non-monotonic device can give, is not trusted). So a rate that ever
 *    failed is never reported.
 *  - One trial answers every goal (NDR 0 %, PDR 0.5 % ...): its loss is
 *    compared with each goal, the goals being searched one after the other
 *    over the same, growing list (FD.io MLRsearch / RFC 9971).
 *  - Bracketing is exponential from `from` (x2 until a rate fails or `to`),
 *    then bisection until (hi - lo) / lo <= precision. A failing trial's
 *    received rate is where a drop-tail bottleneck sits, so it is tried once
 *    as a guess (just below it), then just above the guess: on a real
 *    bottleneck that closes the bracket in two trials instead of seven.
 *  - Every trial lasts `trial`, unless `short_trial` asks for short coarse
 *    trials (MLRsearch); then a goal whose bracket is narrow enters its
 *    final phase: full-length trials, and the candidate must pass `confirm`
 *    full-length re-runs. A failed confirmation makes the candidate a failing
 *    rate and the search goes on below it, still with full trials.
 *  - A trial whose sender fell short of the offered rate, or stalled (the pacer forgave
 *    debt, then caught up in a burst; or it lost packets after its sender fell more than
 *    NB_SWEEP_STALL_NS behind its schedule and paid that debt at twice the rate, a queue of
 *    its own making), tested the sender, not the path: it is neither pass nor fail at the
 *    offered rate. Its loss was counted against what was sent, though, so a
 *    short trial that passes a goal shows that the rate it did send passes it: a lower
 *    bound, used as one. A short trial that lost more shows nothing (after a stall the
 *    pacer pays its debt at twice the rate, a burst the path may drop).
 *  - One hiccup of a shared host (the sender descheduled for tens of milliseconds) makes a
 *    trial fall short, so a trial that fell short is retried at the same rate (`retries`).
 *    Only when every attempt falls short is the rate unreached: no rate at or above it is
 *    tried again. Whether that is the generator's limit is decided at the end, from every
 *    trial and the calibration burst (an unpaced send at the start, which measures what the
 *    sender can offer): host-bound only when none of them sent that much; otherwise the host
 *    held a sender back that can do more (sender-short), and no limit is claimed. A rate the
 *    sender reached once and then missed in every attempt means it cannot hold a rate at
 *    all: the search stops there (incomplete) rather than walk down after it.
 *  - The number of trials is bounded; stopping early leaves the bracket.
 */
#include "sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NONE UINT64_MAX      /* no such rate */
#define PROBE_FACTOR 2       /* exponential bracketing */
#define MAX_BROKEN 3         /* trials that did not run before the search gives up */

struct search {
	const struct nb_sweep *s;
	struct nb_sweep_outcome *out;
	bool (*run)(void *ctx, struct nb_trial *t);
	void *ctx;
	uint32_t max_trials;
	uint64_t short_ns;
	bool final[NB_LOSS_MAX];        /* the goal's bracket was narrow once: full trials now */
	bool done[NB_LOSS_MAX];
	uint64_t guessed_from[NB_LOSS_MAX]; /* failing rate whose received rate was used as a guess */
	uint64_t guess[NB_LOSS_MAX];    /* the last guess made (0 = none pending) */
	bool refine[NB_LOSS_MAX];       /* the guess passed: try just above it next */
	uint64_t capped_at[NB_LOSS_MAX]; /* unreached rate above which just-above-lo was tried */
};

/* What the next trial of a goal is. */
struct step {
	uint64_t rate;                  /* 0: the goal is done */
	bool full;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *nb_sweep_status_name(enum nb_sweep_status st)
{
	switch (st) {
	case NB_SWEEP_FOUND: return "found";
	case NB_SWEEP_BELOW_FROM: return "below-from";
	case NB_SWEEP_AT_OR_ABOVE_TO: return "at-or-above-to";
	case NB_SWEEP_HOST_BOUND: return "host-bound";
	case NB_SWEEP_SENDER_SHORT: return "sender-short";
	case NB_SWEEP_INCOMPLETE: return "incomplete";
	}
	return "?";
}

bool nb_sweep_stalled_loss(const struct nb_sweep *s, double loss_ratio, double lag_max_us,
			   uint32_t burst_us)
{
	double strictest = s->nloss ? s->loss[0] : 0.0;
	for (uint32_t g = 1; g < s->nloss; g++)
		strictest = fmin(strictest, s->loss[g]);
	double lag_ns = lag_max_us * 1e3;
	return loss_ratio > strictest && isfinite(lag_ns) &&
	       lag_ns > (double)burst_us * 1e3 + (double)NB_SWEEP_STALL_NS;
}

/* ---- what the trials so far say ------------------------------------------------------ */

static bool usable(const struct nb_trial *t)
{
	return t->ok && t->valid;
}

static bool fails(const struct nb_trial *t, uint32_t g)
{
	return usable(t) && !(t->pass_mask & (1u << g));
}

static uint64_t lowest_fail(const struct search *st, uint32_t g)
{
	uint64_t r = NONE;
	for (size_t i = 0; i < st->out->ntrials; i++)
		if (fails(&st->out->trials[i], g) && st->out->trials[i].offered < r)
			r = st->out->trials[i].offered;
	return r;
}

/* The sender did not keep its schedule (fell short, or stalled): a trial of the sender, not
 * of the path. */
static bool short_of(const struct nb_trial *t)
{
	return t->ok && !t->valid;
}

/* The lowest rate where every attempt of a visit fell short (t the last of them). */
static uint64_t lowest_unreached(const struct search *st)
{
	uint64_t r = NONE;
	for (size_t i = 0; i < st->out->ntrials; i++) {
		const struct nb_trial *t = &st->out->trials[i];
		if (short_of(t) && t->attempt >= st->s->retries && t->offered < r)
			r = t->offered;
	}
	return r;
}

/* A trial at rate reached it. */
static bool reached(const struct search *st, uint64_t rate)
{
	for (size_t i = 0; i < st->out->ntrials; i++)
		if (st->out->trials[i].offered == rate && usable(&st->out->trials[i]))
			return true;
	return false;
}

/* Some trial, or the calibration burst, sent at least rate (within the shortfall margin). */
static bool sent_at_least(const struct nb_sweep_outcome *out, uint64_t rate)
{
	double want = (double)rate * (1.0 - NB_SWEEP_SHORTFALL);
	if (out->calibration.ok && out->calibration.sent_rate >= want)
		return true;
	for (size_t i = 0; i < out->ntrials; i++)
		if (out->trials[i].ok && out->trials[i].sent_rate >= want)
			return true;
	return false;
}

/* The rate trial t shows to pass goal g: its offered rate (a valid pass), the rate it sent
 * (it fell short with loss within the goal; not below `from`, not above what was offered),
 * or 0. */
static uint64_t pass_rate(const struct search *st, const struct nb_trial *t, uint32_t g)
{
	if (usable(t))
		return t->pass_mask & (1u << g) ? t->offered : 0;
	if (!short_of(t) || !(t->bound_mask & (1u << g)) || !(t->sent_rate >= (double)st->s->from))
		return 0;
	return (uint64_t)fmin(t->sent_rate, (double)t->offered); /* a stalled one may send more */
}

static bool rate_failed(const struct search *st, uint64_t rate, uint32_t g)
{
	for (size_t i = 0; i < st->out->ntrials; i++)
		if (st->out->trials[i].offered == rate && fails(&st->out->trials[i], g))
			return true;
	return false;
}

/* Highest rate below `below` that a trial passed (or bounds from below) and none failed. */
static uint64_t highest_pass(const struct search *st, uint32_t g, uint64_t below)
{
	uint64_t best = 0;
	for (size_t i = 0; i < st->out->ntrials; i++) {
		uint64_t r = pass_rate(st, &st->out->trials[i], g);
		if (r && r < below && r > best && !rate_failed(st, r, g))
			best = r;
	}
	return best;
}

/* Passed `confirm` full-length re-runs: confirm full passes and one pass before them. */
static bool confirmed(const struct search *st, uint64_t rate, uint32_t g)
{
	uint32_t pass = 0, full = 0;
	for (size_t i = 0; i < st->out->ntrials; i++) {
		const struct nb_trial *t = &st->out->trials[i];
		if (pass_rate(st, t, g) != rate)
			continue;
		pass++;
		full += usable(t) && t->duration_ns >= st->s->trial_ns;
	}
	return full >= st->s->confirm && pass >= st->s->confirm + 1;
}

/* ---- choosing the next rate ---------------------------------------------------------- */

/* Just below the received rate of the trial that failed at `fail`, once per failing rate;
 * 0 when it would not narrow the bracket [floor, fail] by much. */
static uint64_t guess_below(struct search *st, uint32_t g, uint64_t fail, uint64_t low)
{
	if (fail == NONE || st->guessed_from[g] == fail)
		return 0;
	double recv = 0;
	for (size_t i = 0; i < st->out->ntrials; i++) {
		const struct nb_trial *t = &st->out->trials[i];
		if (t->offered == fail && fails(t, g) && isfinite(t->recv_rate))
			recv = t->recv_rate;
	}
	double p = st->s->precision;
	double cand = floor(recv * (1.0 - p / 4));
	if (!(cand > (double)low) || cand > (double)fail * (1.0 - 2 * p))
		return 0;
	st->guessed_from[g] = fail;
	st->guess[g] = (uint64_t)cand;
	return (uint64_t)cand;
}

/* lo raised by the precision, when that lies strictly inside (lo, upper); else 0. */
static uint64_t just_above(uint64_t lo, uint64_t upper, double precision)
{
	uint64_t cand = (uint64_t)floor((double)lo * (1.0 + precision));
	return cand > lo && cand < upper ? cand : 0;
}

static struct step finish_goal(struct search *st, uint32_t g, enum nb_sweep_status status)
{
	st->done[g] = true;
	st->out->goal[g].status = status;
	return (struct step){ 0, false };
}

/* The bracket is narrow: confirm the candidate lo with full-length trials, or finish. */
static struct step narrow(struct search *st, uint32_t g, uint64_t lo, uint64_t fail, uint64_t upper)
{
	st->final[g] = true;
	if (!confirmed(st, lo, g))
		return (struct step){ lo, true };
	st->out->goal[g].threshold = lo;
	return finish_goal(st, g, upper == NONE ? NB_SWEEP_AT_OR_ABOVE_TO
				  : upper == fail ? NB_SWEEP_FOUND : NB_SWEEP_HOST_BOUND);
}

/* Nothing passed below the lowest failing / invalid rate yet: go down. */
static struct step nothing_passed(struct search *st, uint32_t g, uint64_t fail, uint64_t upper)
{
	const struct nb_sweep *s = st->s;
	if (upper == NONE)
		return (struct step){ s->from, st->final[g] };
	if (upper <= s->from)
		return finish_goal(st, g, upper == fail ? NB_SWEEP_BELOW_FROM : NB_SWEEP_HOST_BOUND);
	uint64_t cand = guess_below(st, g, fail == upper ? fail : NONE, s->from);
	if (!cand)
		cand = upper / PROBE_FACTOR > s->from ? upper / PROBE_FACTOR : s->from;
	return (struct step){ cand, st->final[g] };
}

static struct step next_step(struct search *st, uint32_t g)
{
	const struct nb_sweep *s = st->s;
	uint64_t fail = lowest_fail(st, g), inv = lowest_unreached(st);
	uint64_t upper = fail < inv ? fail : inv;
	uint64_t lo = highest_pass(st, g, upper);
	st->out->goal[g].bracket_lo = lo;
	st->out->goal[g].bracket_hi = upper == NONE ? 0 : upper;
	st->out->goal[g].lowest_fail = fail == NONE ? 0 : fail;
	if (inv != NONE && reached(st, inv)) { /* a rate it sent once it now misses every time */
		st->out->unsteady = inv;
		return finish_goal(st, g, NB_SWEEP_INCOMPLETE);
	}
	if (st->guess[g] && lo == st->guess[g])
		st->refine[g] = true;
	st->guess[g] = 0;
	if (!lo)
		return nothing_passed(st, g, fail, upper);
	if (upper == NONE && lo < s->to)
		return (struct step){ lo > s->to / PROBE_FACTOR ? s->to : lo * PROBE_FACTOR, st->final[g] };
	double p = s->precision;
	uint64_t mid = lo + (upper - lo) / 2;
	if (upper == NONE || (double)(upper - lo) <= p * (double)lo || mid <= lo)
		return narrow(st, g, lo, fail, upper);
	uint64_t cand = 0;
	if (st->refine[g]) {
		st->refine[g] = false;
		cand = just_above(lo, upper, p);
	}
	if (!cand && upper == fail)
		cand = guess_below(st, g, fail, (uint64_t)((double)lo * (1.0 + p)));
	/* Capped where the sender fell short, lo is most likely the rate it did send (a lower
	 * bound): just above it, once per cap, closes the bracket in one trial when that is its
	 * limit. */
	if (!cand && upper != fail && st->capped_at[g] != upper) {
		st->capped_at[g] = upper;
		cand = just_above(lo, upper, p);
	}
	return (struct step){ cand ? cand : mid, st->final[g] };
}

/* ---- running trials ------------------------------------------------------------------ */

/* Run one trial (the attempt-th at its rate); false when the search must stop. */
static bool run_trial(struct search *st, uint32_t g, struct step step, uint32_t attempt)
{
	struct nb_sweep_outcome *out = st->out;
	struct nb_trial *t = &out->trials[out->ntrials];
	uint64_t full = st->s->trial_ns;
	*t = (struct nb_trial){ .offered = step.rate, .confirm = step.full, .attempt = attempt,
				.duration_ns = step.full || st->short_ns > full ? full : st->short_ns };
	if (!st->run(st->ctx, t)) {
		out->interrupted = true;
		return false;
	}
	out->ntrials++;
	out->goal[g].trials++;
	out->trial_ns += t->duration_ns;
	out->retries += attempt > 0;
	for (uint32_t k = 0; k < out->ngoals && t->ok; k++) {
		if (!(t->loss_ratio <= out->goal[k].loss))
			continue;
		if (t->valid)
			t->pass_mask |= 1u << k;
		else
			t->bound_mask |= 1u << k;
	}
	out->broken += !t->ok;
	return out->broken < MAX_BROKEN;
}

/* Run step, and again while its sender falls short, up to `retries` more times; false when
 * the search must stop. */
static bool attempt(struct search *st, uint32_t g, struct step step, uint32_t retries)
{
	for (uint32_t a = 0;; a++) {
		if (st->out->ntrials >= st->max_trials) {
			st->out->trial_limit = true;
			return false;
		}
		if (!run_trial(st, g, step, a))
			return false;
		if (!short_of(&st->out->trials[st->out->ntrials - 1]) || a >= retries)
			return true;
	}
}

/* The first goal not yet done, with its next step; false when every goal is done. */
static bool pick(struct search *st, uint32_t *g, struct step *step)
{
	for (uint32_t k = 0; k < st->out->ngoals; k++) {
		if (st->done[k])
			continue;
		*step = next_step(st, k);
		if (step->rate) {
			*g = k;
			return true;
		}
	}
	return false;
}

static void search(struct search *st)
{
	uint32_t g;
	struct step step;
	while (pick(st, &g, &step))
		if (!attempt(st, g, step, st->s->retries))
			break;
	/* Stopped early: a goal the last trial settled is done; the others keep their bracket. */
	for (uint32_t k = 0; k < st->out->ngoals; k++) {
		if (st->done[k] || next_step(st, k).rate == 0)
			continue;
		st->out->goal[k].status = NB_SWEEP_INCOMPLETE;
		st->out->goal[k].threshold = 0;
	}
}

/* ---- plain sweeps -------------------------------------------------------------------- */

size_t nb_sweep_plain_rates(const struct nb_sweep *s, uint64_t *rates, size_t max)
{
	size_t n = 0;
	if (s->nsteps) {
		for (; n < s->nsteps; n++)
			if (n < max)
				rates[n] = s->steps[n];
		return n;
	}
	double r = (double)s->from;
	while (r < (double)s->to && (s->step || s->factor > 1.0)) {
		if (n < max)
			rates[n] = (uint64_t)llround(r);
		n++;
		r = s->step ? r + (double)s->step : r * s->factor;
	}
	if (n < max)
		rates[n] = s->to;
	return n + 1;
}

/* Each rate once, retried while its sender falls short, unless a lower rate is already the
 * generator's limit (every attempt there fell short and nothing ever sent that much). */
static void plain(struct search *st)
{
	size_t n = nb_sweep_plain_rates(st->s, NULL, 0);
	uint64_t *rates = calloc(n, sizeof(*rates));
	if (!rates)
		return;
	nb_sweep_plain_rates(st->s, rates, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t u = lowest_unreached(st);
		bool beyond = u != NONE && rates[i] >= u && !sent_at_least(st->out, u);
		if (!attempt(st, 0, (struct step){ rates[i], true }, beyond ? 0 : st->s->retries))
			break;
	}
	free(rates);
}

/* ---- the end: was it the generator? ---------------------------------------------------- */

static double nan_sum(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : a + b;
}

/* What held the sender back in the attempts at rate, all of which fell short. */
static void short_host(struct nb_sweep_outcome *out, uint64_t rate)
{
	struct nb_trial_host h = { NAN, NAN, NAN, NAN, NAN, NAN };
	for (size_t i = 0; i < out->ntrials; i++) {
		const struct nb_trial *t = &out->trials[i];
		if (t->offered != rate || !short_of(t))
			continue;
		h.cpu_pct = fmax(h.cpu_pct, t->host.cpu_pct);
		h.host_cpu_pct = fmax(h.host_cpu_pct, t->host.host_cpu_pct);
		h.steal_pct = fmax(h.steal_pct, t->host.steal_pct);
		h.snd_errs = nan_sum(h.snd_errs, t->host.snd_errs);
		h.forgiven_ms = nan_sum(h.forgiven_ms, t->host.forgiven_ms);
		h.lag_ms = fmax(h.lag_ms, t->host.lag_ms);
	}
	out->short_host = h;
	/* A sender busy on its CPU or waiting for room after a refused send falls behind and has
	 * debt forgiven too; only without either was it simply not running. */
	bool cpu = h.cpu_pct >= NB_SWEEP_CPU_BOUND_PCT, errs = h.snd_errs > 0;
	out->limits = (cpu ? NB_SWEEP_LIMIT_CPU : 0u) | (errs ? NB_SWEEP_LIMIT_SEND_ERRORS : 0u) |
		      (!cpu && !errs && (h.forgiven_ms > 0 || nb_sweep_far_behind(h.lag_ms))
		       ? NB_SWEEP_LIMIT_LATE : 0u);
}

/* Host-bound is a claim about the generator: only where no trial, nor the calibration burst,
 * ever sent as much. A goal capped by a rate something did reach ends sender-short. */
static void conclude(struct search *st)
{
	struct nb_sweep_outcome *out = st->out;
	uint64_t u = lowest_unreached(st);
	out->unreached = u == NONE ? 0 : u;
	out->sender_max = out->calibration.ok ? fmax(0, out->calibration.sent_rate) : 0;
	for (size_t i = 0; i < out->ntrials; i++)
		if (out->trials[i].ok)
			out->sender_max = fmax(out->sender_max, out->trials[i].sent_rate);
	bool claim = out->unreached && !sent_at_least(out, out->unreached);
	out->host_bound_above = claim ? out->unreached : 0;
	for (uint32_t g = 0; g < out->ngoals; g++)
		if (out->goal[g].status == NB_SWEEP_HOST_BOUND &&
		    (!out->goal[g].bracket_hi || sent_at_least(out, out->goal[g].bracket_hi)))
			out->goal[g].status = NB_SWEEP_SENDER_SHORT;
	if (out->unreached)
		short_host(out, out->unreached);
}

/* The unpaced burst that measures what the sender can offer; false when told to stop. */
static bool calibrate(struct search *st, uint64_t ns)
{
	struct nb_trial *t = &st->out->calibration;
	*t = (struct nb_trial){ .calibration = true, .duration_ns = ns };
	if (!st->run(st->ctx, t)) {
		st->out->interrupted = true;
		return false;
	}
	st->out->broken += !t->ok;
	return true;
}

bool nb_sweep_execute(const struct nb_sweep *s, const struct nb_sweep_opts *o,
		      bool (*run)(void *ctx, struct nb_trial *t), void *ctx,
		      struct nb_sweep_outcome *out)
{
	memset(out, 0, sizeof(*out));
	struct search st = { .s = s, .out = out, .run = run, .ctx = ctx,
			     .max_trials = o && o->max_trials ? o->max_trials : NB_SWEEP_MAX_TRIALS,
			     .short_ns = s->short_trial_ns ? s->short_trial_ns : s->trial_ns };
	out->search = s->search;
	if (!s->search)
		st.max_trials = (uint32_t)(nb_sweep_plain_rates(s, NULL, 0) * (s->retries + 1));
	out->trials = calloc(st.max_trials + 1, sizeof(*out->trials));
	if (!out->trials)
		return false;
	out->ngoals = s->search ? s->nloss : 0;
	for (uint32_t g = 0; g < out->ngoals; g++)
		out->goal[g] = (struct nb_sweep_goal){ .loss = s->loss[g], .status = NB_SWEEP_INCOMPLETE };
	uint64_t t0 = now_ns();
	if (!s->search)
		plain(&st);
	else if (!(o && o->calibrate_ns) || calibrate(&st, o->calibrate_ns))
		search(&st);
	conclude(&st);
	out->elapsed_ns = now_ns() - t0;
	return true;
}

void nb_sweep_outcome_free(struct nb_sweep_outcome *out)
{
	free(out->trials);
	out->trials = NULL;
	out->ntrials = 0;
}

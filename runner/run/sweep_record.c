/* nbrun — a sweep's result for people (one sentence per loss goal) and for the report (the
 * entries of sweeps.json, which reports/files/sweeps_json.c writes). See sweep_run.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "params.h"
#include "sweep_mlr.h"
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
		: o->broken ? "trials failed to run"
		: o->unsteady ? "the sender missed a rate it had reached before" : "stopped";
}

/* Append to buf at *at (snprintf-style, never past len). */
static void add(char *buf, size_t len, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	if (*at >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	*at += n > 0 ? (size_t)n : 0;
}

/* What held the sender back where every attempt fell short, and what to do about it. */
static void limit_text(const struct nb_sweep_outcome *o, char *buf, size_t len)
{
	const struct nb_trial_host *h = &o->short_host;
	size_t at = 0;
	buf[0] = '\0';
	if (o->limits & NB_SWEEP_LIMIT_CPU)
		add(buf, len, &at, "a sending thread used %.0f %% of a core (CPU-bound: spread the "
		    "rate over more streams, or pin them to idle CPUs with cpus:)", h->cpu_pct);
	if (o->limits & NB_SWEEP_LIMIT_SEND_ERRORS)
		add(buf, len, &at, "%sthe kernel refused %.0f sends (ENOBUFS: the send buffer or the "
		    "interface queue was full; raise window: or the interface's txqueuelen)",
		    at ? "; " : "", h->snd_errs);
	if (o->limits & NB_SWEEP_LIMIT_LATE) {
		if (h->forgiven_ms > 0)
			add(buf, len, &at, "%sthe pacer forgave %.0f ms of sending per flow with CPU to "
			    "spare (the sender was descheduled", at ? "; " : "", h->forgiven_ms);
		else
			add(buf, len, &at, "%sthe sender fell up to %.3g ms behind its schedule with CPU "
			    "to spare and lost packets catching up (it was descheduled", at ? "; " : "",
			    h->lag_ms);
		if (isfinite(h->host_cpu_pct))
			add(buf, len, &at, ", host CPU %.0f %% busy", h->host_cpu_pct);
		if (h->steal_pct >= 1)
			add(buf, len, &at, ", %.0f %% stolen by the hypervisor", h->steal_pct);
		add(buf, len, &at, "; run on a quieter host, give nbrun CPUs of its own or real-time "
		    "priority (chrt -f 20), or raise retries:)");
	}
	if (!at)
		add(buf, len, &at, "nothing recorded says why (no CPU, send-error or pacer figure "
		    "stands out)");
}

/* "the calibration burst" or "a trial": where the sender showed it can send sender_max. */
static const char *shown_by(const struct nb_sweep_outcome *o)
{
	return o->calibration.ok && o->calibration.sent_rate >= o->sender_max ? "the calibration burst"
									       : "a trial";
}

/* The clause for a rate where every attempt fell short: host-bound, or no claim when a trial
 * or the calibration burst sent as much; either way what held the sender back. */
static void short_clause(const struct nb_case *c, const struct nb_sweep_outcome *o, uint64_t rate,
			 char *buf, size_t len, size_t *at)
{
	char a[32], b[32], why[512];
	limit_text(o, why, sizeof(why));
	fmt_rate(c, (double)rate, a, sizeof(a));
	if (o->host_bound_above && rate <= o->host_bound_above)
		add(buf, len, at, "host-bound above %s: every attempt there fell short and no trial "
		    "sent as much; %s", a, why);
	else
		add(buf, len, at, "every attempt at %s fell short, though %s sent %s, so no limit of "
		    "the sender is claimed; what held it back: %s", a, shown_by(o),
		    fmt_rate(c, o->sender_max, b, sizeof(b)), why);
}

/* " (14 trials, 2 retries, 41 s)" after what came before in the parenthesis. */
static void trailer(const struct nb_sweep_outcome *o, char *buf, size_t len, size_t *at)
{
	add(buf, len, at, "%zu trial%s", o->ntrials, o->ntrials == 1 ? "" : "s");
	if (o->retries)
		add(buf, len, at, ", %u retr%s", o->retries, o->retries == 1 ? "y" : "ies");
	add(buf, len, at, ", %.0f s)", (double)o->elapsed_ns / 1e9);
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
	size_t at = 0;
	const struct nb_trial *first = o->ntrials ? &o->trials[0] : NULL;
	const struct nb_trial *last = o->ntrials ? &o->trials[o->ntrials - 1] : NULL;
	add(buf, len, &at, "%s: sweep of %zu rates, %s to %s: loss %.3g %% to %.3g %% (", c->id,
	    o->ntrials - o->retries, fmt_rate(c, first ? (double)first->offered : NAN, a, sizeof(a)),
	    fmt_rate(c, last ? (double)last->offered : NAN, b, sizeof(b)), isfinite(lo) ? lo : NAN,
	    isfinite(hi) ? hi : NAN);
	trailer(o, buf, len, &at);
	if (o->unreached) {
		add(buf, len, &at, "; ");
		short_clause(c, o, o->unreached, buf, len, &at);
	}
	if (o->interrupted)
		add(buf, len, &at, " — interrupted");
}

/* Where an unfinished search left the threshold, every end a rate: no rate failed yet means
 * up to `to`, nothing passed yet means below the lowest failing rate. */
static void bracket(const struct nb_case *c, const struct nb_sweep_goal *g, char *buf, size_t len,
		    size_t *at)
{
	char a[32], b[32];
	const struct nb_sweep *s = &c->sweep;
	if (!g->bracket_lo && !g->bracket_hi)
		add(buf, len, at, "no trial bounded the threshold (the search spans %s to %s)",
		    fmt_rate(c, (double)s->from, a, sizeof(a)), fmt_rate(c, (double)s->to, b, sizeof(b)));
	else if (!g->bracket_lo)
		add(buf, len, at, "the threshold lies below %s",
		    fmt_rate(c, (double)g->bracket_hi, b, sizeof(b)));
	else
		add(buf, len, at, "the threshold lies between %s and %s",
		    fmt_rate(c, (double)g->bracket_lo, a, sizeof(a)),
		    fmt_rate(c, (double)(g->bracket_hi ? g->bracket_hi : s->to), b, sizeof(b)));
}

/* The middle of the sentence for a goal that did not end in a plain "found"; the trailer's
 * parenthesis opens at its end. */
static void other_status(const struct nb_case *c, const struct nb_sweep_outcome *o,
			 const struct nb_sweep_goal *g, const char *loss, char *buf, size_t len)
{
	char a[32];
	size_t at = 0;
	const struct nb_sweep *s = &c->sweep;
	switch (g->status) {
	case NB_SWEEP_BELOW_FROM:
		add(buf, len, &at, "loss above %s even at %s (from): no rate meets it (", loss,
		    fmt_rate(c, (double)s->from, a, sizeof(a)));
		break;
	case NB_SWEEP_AT_OR_ABOVE_TO:
		add(buf, len, &at, "no loss above %s up to %s (to): the threshold is at or above it (",
		    loss, fmt_rate(c, (double)s->to, a, sizeof(a)));
		break;
	case NB_SWEEP_HOST_BOUND:
	case NB_SWEEP_SENDER_SHORT:
		if (g->threshold)
			add(buf, len, &at, "highest rate with loss ≤ %s: at least %s — ", loss,
			    fmt_rate(c, (double)g->threshold, a, sizeof(a)));
		else
			add(buf, len, &at, "no threshold for loss ≤ %s — ", loss);
		short_clause(c, o, g->bracket_hi, buf, len, &at);
		add(buf, len, &at, " (");
		break;
	default:
		add(buf, len, &at, "search for loss ≤ %s incomplete (%s): ", loss, stop_reason(o));
		bracket(c, g, buf, len, &at);
		if (o->unreached && g->bracket_hi == o->unreached) {
			add(buf, len, &at, "; ");
			short_clause(c, o, o->unreached, buf, len, &at);
		}
		add(buf, len, &at, " (");
		break;
	}
}

/* What the rates are per: every flow of several paths; a search's several flows (a plain
 * sweep's sentence says its own). */
static void per_flow(const struct nb_case *c, const struct nb_sweep_outcome *o, bool search,
		     char *buf, size_t len, size_t *at)
{
	if (o->paths > 1)
		add(buf, len, at, " [rates per flow, every flow of %u paths at once]", o->paths);
	else if (search && nb_params_nflows(&c->params) > 1)
		add(buf, len, at, " [rates per flow]");
}

void nb_sweep_sentence(const struct nb_case *c, const struct nb_sweep_outcome *o, uint32_t g,
		       char *buf, size_t len)
{
	if (!o->search || g >= o->ngoals) {
		plain_sentence(c, o, buf, len);
		size_t at = strlen(buf);
		per_flow(c, o, false, buf, len, &at);
		return;
	}
	const struct nb_sweep_goal *goal = &o->goal[g];
	char loss[32], mid[NB_SWEEP_SENTENCE_MAX], a[32], b[32];
	size_t at = 0;
	snprintf(loss, sizeof(loss), "%g %%", goal->loss * 100.0);
	if (goal->status == NB_SWEEP_FOUND)
		snprintf(mid, sizeof(mid), "highest rate with loss ≤ %s: %s (lowest failing %s, ", loss,
			 fmt_rate(c, (double)goal->threshold, a, sizeof(a)),
			 fmt_rate(c, (double)goal->lowest_fail, b, sizeof(b)));
	else
		other_status(c, o, goal, loss, mid, sizeof(mid));
	add(buf, len, &at, "%s: %s", c->id, mid);
	trailer(o, buf, len, &at);
	per_flow(c, o, true, buf, len, &at);
}

/* Told on stderr as the sweep goes (shared by its trials, its result and its latency phases). */
void nb_sweep_say(const struct nb_sweep_env *env, const char *text)
{
	if (env->verbosity < 0)
		return;
	if (env->progress)
		nb_progress_message(env->progress, text);
	else
		fprintf(stderr, "%s\n", text);
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
				     const struct nb_sweep_outcome *o, double max_burst,
				     uint32_t first_run_id)
{
	return (struct nb_sweep_result){
		.case_id = c->id, .rep = rep, .first_run_id = first_run_id, .search = o->search, .unit = rate_unit(c),
		.flows = nb_params_nflows(&c->params) * (o->paths > 1 ? o->paths : 1), .trials = (double)o->ntrials,
		.elapsed_s = (double)o->elapsed_ns / 1e9, .trial_s = (double)o->trial_ns / 1e9,
		.host_bound_above = rate_or_nan(o->host_bound_above), .max_burst = max_burst,
		.unreached = rate_or_nan(o->unreached), .sender_max = o->sender_max > 0 ? o->sender_max : NAN,
		.calibration_rate = o->calibration.ok ? o->calibration.sent_rate : NAN,
		.retries = (double)o->retries, .interrupted = o->interrupted, .trial_limit = o->trial_limit,
		.complete_known = true, .complete = !o->interrupted,
	};
}

/* The goal in MLRsearch's words: its attributes, bounds and conditional throughput, read from
 * the trials as RFC 9971 defines them. False only when out of memory. */
static bool mlr_entry(const struct nb_case *c, const struct nb_sweep_outcome *o, uint32_t g,
		      char *name, size_t len, struct nb_sweep_result *e)
{
	struct nb_mlr_goal goal = nb_mlr_goal_of(&c->sweep, o->goal[g].loss);
	struct nb_mlr_result r;
	if (!nb_mlr_result(&goal, o->trials, o->ntrials, &r))
		return false;
	nb_mlr_goal_name(&c->sweep, g, name, len);
	e->goal_name = name;
	e->exceed_ratio = goal.exceed_ratio;
	e->final_trial_s = goal.final_trial_s;
	e->duration_sum_s = goal.duration_sum_s;
	e->initial_trial_s = goal.initial_trial_s;
	e->lower_bound = rate_or_nan(r.lower);
	e->upper_bound = rate_or_nan(r.upper);
	e->conditional = r.conditional;
	return true;
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
			    const struct nb_sweep_outcome *o, double max_burst, uint32_t first_run_id,
			    const struct nb_sweep_latency_out *lat, struct nb_error *err)
{
	uint32_t n = o->search ? o->ngoals : 1;
	struct nb_sweep_result e[NB_LOSS_MAX];
	char sentence[NB_LOSS_MAX][NB_SWEEP_SENTENCE_MAX], limit[512], name[NB_LOSS_MAX][24];
	limit_text(o, limit, sizeof(limit));
	double *rates = calloc(o->ntrials + 1, sizeof(*rates));
	if (!rates)
		return nb_error_set(err, "%s: out of memory", NB_SWEEPS_JSON_FILE);
	for (size_t i = 0; i < o->ntrials; i++)
		rates[i] = (double)o->trials[i].offered;
	for (uint32_t g = 0; g < n; g++) {
		e[g] = common(c, rep, o, max_burst, first_run_id);
		nb_sweep_sentence(c, o, o->search ? g : UINT32_MAX, sentence[g], sizeof(sentence[g]));
		e[g].sentence = sentence[g];
		e[g].limit = o->unreached ? limit : NULL;
		if (o->search)
			goal_entry(o, g, &e[g]);
		if (o->search && !mlr_entry(c, o, g, name[g], sizeof(name[g]), &e[g])) {
			free(rates);
			return nb_error_set(err, "%s: out of memory", NB_SWEEPS_JSON_FILE);
		}
		e[g].rates = rates;
		e[g].nrates = o->ntrials;
		if (lat && lat->n && lat->goal == g)
			e[g].latency = lat->row, e[g].nlatency = lat->n;
	}
	bool ok = nb_sweeps_json_append(dir, e, n, err);
	free(rates);
	return ok;
}

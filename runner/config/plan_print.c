/* Showing a plan: the --dry-run table with its time estimate, the number of trials of a
 * sweep, and a case's rate for people. (plan.csv is reports/files/plan_csv.c, filled by
 * runner/run/outdir.c.) */
#include <math.h>
#include <string.h>

#include "params.h"
#include "plan.h"
#include "units.h"

#define OVERHEAD_S 1.0

/* Search: an exponential probe from `from` up to `to`, then per loss threshold a bisection
 * of the factor-2 bracket down to `precision`, and the confirmations. */
static uint32_t search_trials(const struct nb_sweep *s)
{
	double probes = ceil(log2((double)s->to / (double)s->from)) + 1;
	double bisect = ceil(log2(1.0 / (s->precision > 0 ? s->precision : 0.01)));
	return (uint32_t)(probes + s->nloss * (bisect + s->confirm));
}

uint32_t nb_sweep_trials(const struct nb_sweep *s)
{
	if (!s->enabled)
		return 1;
	if (s->search)
		return search_trials(s);
	if (s->nsteps)
		return s->nsteps;
	if (s->step)
		return (uint32_t)((s->to - s->from) / s->step + 1 + ((s->to - s->from) % s->step != 0));
	uint32_t n = 1;
	for (double r = (double)s->from; r < (double)s->to && s->factor > 1.0; r *= s->factor)
		n++;
	return n;
}

/* A sweep's trials at `trial`, a search with short_trial's confirmations at it and the rest
 * at short_trial (each with its warm-up and overhead); then its latency at % of PDR: a run of
 * `trial` per fraction above 0 %, and 0 % a `trial` of the probe alone before the first. */
static double sweep_estimate_s(const struct nb_sweep *s, double warm)
{
	double n = nb_sweep_trials(s), full = n, trial = (double)s->trial_ns / 1e9;
	if (s->search && s->short_trial_ns)
		full = fmin(n, (double)s->nloss * s->confirm);
	double loaded = s->nlatency_at && s->latency_at[0] == 0 ? s->nlatency_at - 1 : s->nlatency_at;
	double lat = loaded * (warm + trial + OVERHEAD_S) + (s->nlatency_at > loaded ? trial : 0);
	return full * (warm + trial + OVERHEAD_S) +
	       (n - full) * (warm + (double)s->short_trial_ns / 1e9 + OVERHEAD_S) + lat;
}

double nb_case_estimate_s(const struct nb_case *c)
{
	double warm = (double)c->timing.warmup_ns / 1e9;
	if (c->sweep.enabled)
		return sweep_estimate_s(&c->sweep, warm);
	const struct nb_working *w = c->test->working; /* its probes run before and after the load */
	double phases = w ? (double)(w->idle_ns + w->after_ns) / 1e9 : 0;
	return warm + phases + (double)c->timing.duration_ns / 1e9 + OVERHEAD_S;
}

double nb_plan_estimate_s(const struct nb_plan *plan)
{
	double s = 0;
	for (size_t i = 0; i < plan->nslots; i++)
		s += nb_case_estimate_s(&plan->cases[plan->order[i].case_index]);
	return s;
}

char *nb_case_rate_str(const struct nb_case *c, char *buf, size_t len)
{
	const struct nb_params *p = &c->params;
	bool bits = c->engine->traits.rate == NB_RATE_KIND_BITS;
	char a[24], b[24];
	if (c->sweep.enabled)
		snprintf(buf, len, "%s..%s%s", nb_units_fmt_si(c->sweep.from, a, sizeof(a)),
			 nb_units_fmt_si(c->sweep.to, b, sizeof(b)), bits ? "" : "pps");
	else if (p->rate)
		snprintf(buf, len, "%s%s", nb_units_fmt_si(p->rate, a, sizeof(a)), bits ? "" : "pps");
	else
		snprintf(buf, len, "%s", c->engine->traits.loop == NB_LOOP_CLOSED_UNPACED ? "ping-pong"
											 : "-");
	return buf;
}

static void size_str(const struct nb_case *c, char *buf, size_t len)
{
	const struct nb_params *p = &c->params;
	char a[24], b[24];
	if (nb_engine_request_response(c->engine))
		snprintf(buf, len, "%s/%s", nb_units_fmt_size(p->request, a, sizeof(a)),
			 nb_units_fmt_size(p->response, b, sizeof(b)));
	else
		nb_units_fmt_size(p->size, buf, len);
}

static void reps_str(const struct nb_case *c, char *buf, size_t len)
{
	if (c->reps.autorep)
		snprintf(buf, len, "auto %u..%u", c->reps.min, c->reps.max);
	else
		snprintf(buf, len, "%u", c->reps.count);
}

/* A trailing paths column, only when some case has paths: (hosts, issue 17). */
static bool any_paths(const struct nb_plan *plan)
{
	for (size_t i = 0; i < plan->ncases; i++)
		if (plan->cases[i].test->npaths)
			return true;
	return false;
}

void nb_plan_print(const struct nb_plan *plan, FILE *out)
{
	int w = 7;
	bool paths = any_paths(plan);
	struct nb_case pc;
	for (size_t i = 0; i < plan->ncases; i++) {
		w = (int)strlen(plan->cases[i].id) > w ? (int)strlen(plan->cases[i].id) : w;
		for (uint32_t k = 0; nb_plan_probe_case(&plan->cases[i], k, &pc); k++)
			w = (int)strlen(pc.id) + 4 > w ? (int)strlen(pc.id) + 4 : w;
	}
	fprintf(out, "%-*s  %-7s  %-8s  %-9s  %7s  %-14s  %-9s  %-*s%s\n", w, "case id", "engine",
		"protocol", "size", "streams", "rate", "direction", paths ? 11 : 0, "repetitions",
		paths ? "  paths" : "");
	for (size_t i = 0; i < plan->ncases; i++) {
		const struct nb_case *c = &plan->cases[i];
		const struct nb_params *p = &c->params;
		char size[32], rate[48], reps[32], path[NB_PATHS_MAX * 2 * NB_HOST_NAME_MAX];
		size_str(c, size, sizeof(size));
		nb_case_rate_str(c, rate, sizeof(rate));
		reps_str(c, reps, sizeof(reps));
		nb_config_paths_str(c->test, path, sizeof(path));
		fprintf(out, "%-*s  %-7s  %-8s  %-9s  %7u  %-14s  %-9s  %-*s%s%s\n", w, c->id,
			p->engine, nb_proto_name(p->proto), size, p->streams, rate,
			c->engine->traits.directional ? nb_dir_name(p->direction) : "-", paths ? 11 : 0, reps,
			paths ? "  " : "", paths ? (path[0] ? path : "-") : "");
		for (uint32_t k = 0; nb_plan_probe_case(c, k, &pc); k++) { /* beside the load, indented */
			nb_case_rate_str(&pc, rate, sizeof(rate));
			fprintf(out, "  + %-*s  %-7s  %-8s  %-9s  %7u  %-14s  %-9s\n", w - 4, pc.id,
				pc.params.engine, nb_proto_name(pc.params.proto), "-", pc.params.streams,
				rate, "probe");
		}
	}
	char est[32];
	nb_units_fmt_duration(nb_plan_estimate_s(plan), est, sizeof(est));
	fprintf(out, "%zu case%s, %zu run%s, estimated %s (warm-up + duration per run, +1 s overhead "
		"each)\n", plan->ncases, plan->ncases == 1 ? "" : "s", plan->nslots,
		plan->nslots == 1 ? "" : "s", est);
}

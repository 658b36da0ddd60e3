/* nbrun — a sweep's result for people (one sentence per loss goal) and for the report
 * (sweeps.json). See sweep_run.h. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "sweep_run.h"

static const char *rate_unit(const struct nb_case *c)
{
	return strcmp(c->params.engine, "stream") == 0 ? "bit/s" : "pkt/s";
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

static json_t *rate_or_null(uint64_t r)
{
	return r ? json_real((double)r) : json_null();
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

static json_t *common(const struct nb_case *c, uint32_t rep, const struct nb_sweep_outcome *o,
		      double max_burst)
{
	return json_pack("{s:s, s:i, s:b, s:s, s:i, s:i, s:f, s:f, s:o, s:f, s:b, s:b}",
			 "case_id", c->id, "rep", (json_int_t)rep, "search", o->search,
			 "unit", rate_unit(c), "flows", (json_int_t)nb_params_nflows(&c->params),
			 "trials", (json_int_t)o->ntrials, "elapsed_s", (double)o->elapsed_ns / 1e9,
			 "trial_s", (double)o->trial_ns / 1e9, "host_bound_above",
			 rate_or_null(o->host_bound_above), "max_burst", isfinite(max_burst) ? max_burst : 0,
			 "interrupted", o->interrupted, "trial_limit", o->trial_limit);
}

static json_t *goal_entry(const struct nb_case *c, uint32_t rep, const struct nb_sweep_outcome *o,
			  uint32_t g, double max_burst)
{
	const struct nb_sweep_goal *goal = &o->goal[g];
	json_t *e = common(c, rep, o, max_burst);
	char sentence[768];
	nb_sweep_sentence(c, o, g, sentence, sizeof(sentence));
	double ach = goal->threshold ? achieved_at(o, goal->threshold) : NAN;
	json_object_set_new(e, "loss", json_real(goal->loss));
	json_object_set_new(e, "status", json_string(nb_sweep_status_name(goal->status)));
	json_object_set_new(e, "complete", json_boolean(goal->status != NB_SWEEP_INCOMPLETE));
	json_object_set_new(e, "threshold", rate_or_null(goal->threshold));
	json_object_set_new(e, "lowest_fail", rate_or_null(goal->lowest_fail));
	json_object_set_new(e, "bracket_lo", rate_or_null(goal->bracket_lo));
	json_object_set_new(e, "bracket_hi", rate_or_null(goal->bracket_hi));
	json_object_set_new(e, "goal_trials", json_integer(goal->trials));
	json_object_set_new(e, "target_rate", rate_or_null(goal->threshold));
	json_object_set_new(e, "achieved_rate", isfinite(ach) ? json_real(ach) : json_null());
	json_object_set_new(e, "sentence", json_string(sentence));
	return e;
}

static json_t *plain_entry(const struct nb_case *c, uint32_t rep, const struct nb_sweep_outcome *o,
			   double max_burst)
{
	json_t *e = common(c, rep, o, max_burst), *rates = json_array();
	char sentence[768];
	nb_sweep_sentence(c, o, UINT32_MAX, sentence, sizeof(sentence));
	for (size_t i = 0; i < o->ntrials; i++)
		json_array_append_new(rates, json_real((double)o->trials[i].offered));
	json_object_set_new(e, "complete", json_boolean(!o->interrupted));
	json_object_set_new(e, "rates", rates);
	json_object_set_new(e, "sentence", json_string(sentence));
	return e;
}

/* The existing {"sweeps": [...]} of path, or a new one. */
static json_t *load_doc(const char *path)
{
	json_t *doc = access(path, F_OK) == 0 ? json_load_file(path, 0, NULL) : NULL;
	if (!json_is_object(doc) || !json_is_array(json_object_get(doc, "sweeps"))) {
		json_decref(doc);
		doc = json_pack("{s:[]}", "sweeps");
	}
	return doc;
}

bool nb_sweep_json_append(const char *dir, const struct nb_case *c, uint32_t rep,
			  const struct nb_sweep_outcome *o, double max_burst, struct nb_error *err)
{
	char path[4200], tmp[4300];
	snprintf(path, sizeof(path), "%s/sweeps.json", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	json_t *doc = load_doc(path);
	if (!doc)
		return nb_error_set(err, "sweeps.json: out of memory");
	json_t *arr = json_object_get(doc, "sweeps");
	if (o->search)
		for (uint32_t g = 0; g < o->ngoals; g++)
			json_array_append_new(arr, goal_entry(c, rep, o, g, max_burst));
	else
		json_array_append_new(arr, plain_entry(c, rep, o, max_burst));
	int rc = json_dump_file(doc, tmp, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
	json_decref(doc);
	if (rc != 0 || rename(tmp, path) != 0) {
		int e = errno;
		unlink(tmp);
		return nb_error_set(err, "cannot write %s: %s", path, strerror(e));
	}
	return true;
}

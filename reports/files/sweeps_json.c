/* sweeps.json (see sweeps_json.h). */
#include "sweeps_json.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "afile.h"
#include "fmt.h"
#include "results.h"
#include "results_int.h"

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *common(const struct nb_sweep_result *e)
{
	return json_pack("{s:s, s:I, s:I, s:b, s:s, s:I, s:I, s:I, s:f, s:f, s:o, s:o, s:o, s:o, "
			      "s:o, s:f, s:b, s:b}",
			      "case_id", e->case_id, "rep", (json_int_t)e->rep,
			      "first_run_id", (json_int_t)e->first_run_id, "search", e->search,
			      "unit", e->unit, "flows", (json_int_t)e->flows, "trials", (json_int_t)e->trials,
			      "retries", (json_int_t)(isfinite(e->retries) ? e->retries : 0),
			      "elapsed_s", e->elapsed_s, "trial_s", e->trial_s,
			      "host_bound_above", real_or_null(e->host_bound_above),
			      "unreached", real_or_null(e->unreached),
			      "sender_max", real_or_null(e->sender_max),
			      "calibration_rate", real_or_null(e->calibration_rate),
			      "limit", e->limit ? json_string(e->limit) : json_null(),
			      "max_burst", isfinite(e->max_burst) ? e->max_burst : 0,
			      "interrupted", e->interrupted, "trial_limit", e->trial_limit);
}

/* The goal's latency at % of its rate: [{pct, run_id, offered_rate ..., p999_us, status}]. */
static json_t *latency_at(const struct nb_sweep_result *e)
{
	json_t *a = json_array();
	for (size_t i = 0; i < e->nlatency; i++) {
		const struct nb_sweep_latency_row *r = &e->latency[i];
		json_array_append_new(a, json_pack("{s:f, s:I, s:o, s:o, s:o, s:s, s:f, s:I, s:o, s:o, "
						   "s:o, s:o, s:s}", "pct", r->pct,
			"run_id", (json_int_t)r->run_id, "offered_rate", real_or_null(r->offered_rate),
			"achieved_rate", real_or_null(r->achieved_rate),
			"loss_pct", real_or_null(r->loss_pct), "probe_case_id", r->probe_case_id,
			"probe_rate", r->probe_rate, "samples", (json_int_t)r->samples,
			"p50_us", real_or_null(r->p50_us), "p90_us", real_or_null(r->p90_us),
			"p99_us", real_or_null(r->p99_us), "p999_us", real_or_null(r->p999_us),
			"status", r->status));
	}
	return a;
}

static json_t *goal_entry(const struct nb_sweep_result *e)
{
	json_t *o = common(e);
	json_object_set_new(o, "loss", json_real(e->loss_target));
	json_object_set_new(o, "status", json_string(e->status));
	json_object_set_new(o, "complete", json_boolean(e->complete));
	json_object_set_new(o, "threshold", real_or_null(e->threshold));
	json_object_set_new(o, "lowest_fail", real_or_null(e->lowest_fail));
	json_object_set_new(o, "bracket_lo", real_or_null(e->bracket_lo));
	json_object_set_new(o, "bracket_hi", real_or_null(e->bracket_hi));
	json_object_set_new(o, "goal_trials", json_integer(e->goal_trials));
	json_object_set_new(o, "target_rate", real_or_null(e->threshold));
	json_object_set_new(o, "achieved_rate", real_or_null(e->achieved_rate));
	json_object_set_new(o, "sentence", json_string(e->sentence));
	json_object_set_new(o, "goal", e->goal_name ? json_string(e->goal_name) : json_null());
	json_object_set_new(o, "exceed_ratio", real_or_null(e->exceed_ratio));
	json_object_set_new(o, "final_trial_s", real_or_null(e->final_trial_s));
	json_object_set_new(o, "duration_sum_s", real_or_null(e->duration_sum_s));
	json_object_set_new(o, "initial_trial_s", real_or_null(e->initial_trial_s));
	json_object_set_new(o, "relevant_lower_bound", real_or_null(e->lower_bound));
	json_object_set_new(o, "relevant_upper_bound", real_or_null(e->upper_bound));
	json_object_set_new(o, "conditional_throughput", real_or_null(e->conditional));
	if (e->nlatency)
		json_object_set_new(o, "latency_at", latency_at(e));
	return o;
}

static json_t *plain_entry(const struct nb_sweep_result *e)
{
	json_t *o = common(e), *rates = json_array();
	for (size_t i = 0; i < e->nrates; i++)
		json_array_append_new(rates, json_real(e->rates[i]));
	json_object_set_new(o, "complete", json_boolean(e->complete));
	json_object_set_new(o, "rates", rates);
	json_object_set_new(o, "sentence", json_string(e->sentence));
	return o;
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

bool nb_sweeps_json_append(const char *dir, const struct nb_sweep_result *e, size_t n,
			   struct nb_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/" NB_SWEEPS_JSON_FILE, dir);
	json_t *doc = load_doc(path);
	if (!doc)
		return nb_error_set(err, NB_SWEEPS_JSON_FILE ": out of memory");
	json_t *arr = json_object_get(doc, "sweeps");
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, e[i].search ? goal_entry(&e[i]) : plain_entry(&e[i]));
	bool ok = nb_afile_json(path, doc, JSON_INDENT(2) | JSON_REAL_PRECISION(NB_FMT_DIGITS), err);
	json_decref(doc);
	return ok;
}

bool nb_sweeps_json_drop(const char *dir, const char *case_id, uint32_t rep, struct nb_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/" NB_SWEEPS_JSON_FILE, dir);
	if (access(path, F_OK) != 0)
		return true;
	json_t *doc = load_doc(path);
	if (!doc)
		return nb_error_set(err, NB_SWEEPS_JSON_FILE ": out of memory");
	json_t *arr = json_object_get(doc, "sweeps");
	for (size_t i = json_array_size(arr); i-- > 0;) {
		json_t *o = json_array_get(arr, i);
		const char *id = json_string_value(json_object_get(o, "case_id"));
		if (id && strcmp(id, case_id) == 0 && json_integer_value(json_object_get(o, "rep")) == rep)
			json_array_remove(arr, i);
	}
	bool ok = nb_afile_json(path, doc, JSON_INDENT(2) | JSON_REAL_PRECISION(NB_FMT_DIGITS), err);
	json_decref(doc);
	return ok;
}

/* ---- reading ---------------------------------------------------------------------------- */

/* The run loop writes each search's outcome to sweeps.json; meta.json may carry the same list.
 * Either way the report finds it under meta "sweeps". */
void nb_sweeps_json_load(struct nb_results *res)
{
	if (!nb_results_has(res, NB_SWEEPS_JSON_FILE) ||
	    (res->meta.root && json_object_get(res->meta.root, "sweeps")))
		return;
	char path[4200];
	snprintf(path, sizeof(path), "%s/" NB_SWEEPS_JSON_FILE, res->dir);
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	json_t *list = json_object_get(doc, "sweeps");
	if (!json_is_array(list)) {
		char msg[256];
		snprintf(msg, sizeof(msg), NB_SWEEPS_JSON_FILE ":%d: %s", je.line,
			 doc ? "no \"sweeps\" list" : je.text);
		nb_results_note(res, msg);
	} else {
		if (!res->meta.root)
			res->meta.root = json_object();
		json_object_set(res->meta.root, "sweeps", list);
	}
	json_decref(doc);
}

static double jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static uint32_t ju32(json_t *o, const char *key)
{
	double v = jnum(o, key);
	return isfinite(v) && v >= 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
}

static const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s && *s ? s : NULL;
}

static void read_entry(json_t *o, struct nb_sweep_result *out)
{
	json_t *c = json_object_get(o, "complete");
	*out = (struct nb_sweep_result){
		.case_id = jstr(o, "case_id"), .rep = ju32(o, "rep"),
		.first_run_id = ju32(o, "first_run_id"),
		.search = json_is_true(json_object_get(o, "search")), .unit = jstr(o, "unit"),
		.flows = ju32(o, "flows"), .trials = jnum(o, "trials"), .elapsed_s = jnum(o, "elapsed_s"),
		.trial_s = jnum(o, "trial_s"), .host_bound_above = jnum(o, "host_bound_above"),
		.max_burst = jnum(o, "max_burst"), .unreached = jnum(o, "unreached"),
		.sender_max = jnum(o, "sender_max"), .calibration_rate = jnum(o, "calibration_rate"),
		.retries = jnum(o, "retries"), .limit = jstr(o, "limit"),
		.interrupted = json_is_true(json_object_get(o, "interrupted")),
		.trial_limit = json_is_true(json_object_get(o, "trial_limit")),
		.complete_known = json_is_boolean(c), .complete = json_is_true(c),
		.sentence = jstr(o, "sentence"), .loss_target = jnum(o, "loss"),
		.status = jstr(o, "status"), .threshold = jnum(o, "threshold"),
		.lowest_fail = jnum(o, "lowest_fail"), .bracket_lo = jnum(o, "bracket_lo"),
		.bracket_hi = jnum(o, "bracket_hi"), .goal_trials = ju32(o, "goal_trials"),
		.achieved_rate = jnum(o, "achieved_rate"), .goal_name = jstr(o, "goal"),
		.exceed_ratio = jnum(o, "exceed_ratio"), .final_trial_s = jnum(o, "final_trial_s"),
		.duration_sum_s = jnum(o, "duration_sum_s"), .initial_trial_s = jnum(o, "initial_trial_s"),
		.lower_bound = jnum(o, "relevant_lower_bound"),
		.upper_bound = jnum(o, "relevant_upper_bound"),
		.conditional = jnum(o, "conditional_throughput"),
	};
}

bool nb_sweeps_json_goal(const struct nb_results *res, const char *case_id, size_t nth,
			 struct nb_sweep_result *out)
{
	json_t *sweeps = res->meta.root ? json_object_get(res->meta.root, "sweeps") : NULL;
	size_t i;
	json_t *o;
	json_array_foreach(sweeps, i, o) {
		const char *id = json_string_value(json_object_get(o, "case_id"));
		if (!id || strcmp(id, case_id) != 0 || nth-- > 0)
			continue;
		read_entry(o, out);
		return true;
	}
	return false;
}

bool nb_sweeps_json_find(const struct nb_results *res, const char *case_id,
			 struct nb_sweep_result *out)
{
	return nb_sweeps_json_goal(res, case_id, 0, out);
}

size_t nb_sweeps_json_goals(const struct nb_results *res, const char *case_id,
			    struct nb_sweep_result *out, size_t max)
{
	struct nb_sweep_result e;
	size_t n = 0;
	uint32_t rep = 0;
	for (size_t i = 0; n < max && nb_sweeps_json_goal(res, case_id, i, &e); i++) {
		if (!e.search || !e.goal_name || (n && e.rep != rep))
			continue;
		rep = e.rep;
		out[n++] = e;
	}
	return n;
}

void nb_sweep_goal_metric(const struct nb_sweep_result *e, char *buf, size_t len)
{
	nb_sweep_goal_key(e->goal_name, buf, len);
	snprintf(buf + strlen(buf), len - strlen(buf), "_conditional_throughput");
}

void nb_sweep_goal_key(const char *goal_name, char *buf, size_t len)
{
	size_t at = 0;
	for (const char *p = goal_name ? goal_name : "goal"; *p && at + 4 < len; p++) {
		if (*p == '%')
			at += (size_t)snprintf(buf + at, len - at, "pct");
		else
			buf[at++] = *p == ' ' ? '_' : (char)tolower((unsigned char)*p);
	}
	buf[at < len ? at : len - 1] = '\0';
}

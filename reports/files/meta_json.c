/* meta.json (see meta_json.h). */
#include "meta_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "afile.h"
#include "fmt.h"
#include "nb_config.h"
#include "results_int.h"

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

static json_t *strings(const char *const *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* The labels as one object {"key": "value"}. */
static json_t *labels(const struct nb_meta *m)
{
	json_t *o = json_object();
	for (size_t i = 0; o && i < m->nlabels; i++)
		json_object_set_new(o, m->label_keys[i], json_string(m->label_values[i]));
	return o;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* [{"name": "local->HOST", "peer": ..., "clock_offset_us": ..., "control_rtt_us": ...}] */
static json_t *paths(const struct nb_meta *m)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < m->npaths; i++) {
		const struct nb_meta_path *p = &m->paths[i];
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o}", "name", or_empty(p->name),
						   "peer", or_empty(p->peer),
						   "clock_offset_us", num(p->clock_offset_us),
						   "control_rtt_us", num(p->control_rtt_us)));
	}
	return a;
}

bool nb_meta_json_write(const char *dir, const struct nb_meta *m, struct nb_error *err)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:I, s:I, s:I, s:s, "
			      "s:s, s:o, s:o, s:o}",
			      "nbrun_version", NB_VERSION, "command", or_empty(m->command),
			      "config_name", or_empty(m->config_name),
			      "config_sha256", or_empty(m->config_sha256), "started_utc", or_empty(m->started),
			      "finished_utc", or_empty(m->finished), "peer", or_empty(m->peer),
			      "order", or_empty(m->order), "complete", m->complete,
			      "runs_ok", (json_int_t)m->runs_ok, "runs_failed", (json_int_t)m->runs_failed,
			      "runs_interrupted", (json_int_t)m->runs_interrupted,
			      "stopped_by", or_empty(m->stopped), "resumed_utc", or_empty(m->resumed),
			      "sets", strings(m->sets, m->nsets), "filters", strings(m->filters, m->nfilters),
			      "labels", labels(m));
	if (o && m->npaths)
		json_object_set_new(o, "paths", paths(m));
	if (!o)
		return nb_error_set(err, NB_META_JSON_FILE ": cannot encode (not UTF-8?)");
	char path[4200];
	snprintf(path, sizeof(path), "%s/" NB_META_JSON_FILE, dir);
	bool ok = nb_afile_json(path, o, JSON_INDENT(2) | JSON_SORT_KEYS |
				 JSON_REAL_PRECISION(NB_FMT_DIGITS), err);
	json_decref(o);
	return ok;
}

static const char *jstr(json_t *root, const char *key)
{
	const char *s = json_string_value(json_object_get(root, key));
	return s && *s ? s : NULL;
}

static uint32_t ju32(json_t *root, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(root, key));
	return v > 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
}

/* A list of strings (the strings borrow from root); other items are skipped. */
static size_t jlist(json_t *root, const char *key, const char **out)
{
	size_t n = 0, i;
	json_t *v;
	json_array_foreach(json_object_get(root, key), i, v)
		if (json_is_string(v) && n < NB_META_LIST_MAX)
			out[n++] = json_string_value(v);
	return n;
}

/* The paths meta.json lists (the strings borrow from root). */
static void read_paths(json_t *root, struct nb_meta *m)
{
	size_t i;
	json_t *v;
	m->npaths = 0;
	json_array_foreach(json_object_get(root, "paths"), i, v) {
		if (!json_is_object(v) || m->npaths >= NB_META_PATHS_MAX)
			continue;
		json_t *off = json_object_get(v, "clock_offset_us"), *rtt = json_object_get(v, "control_rtt_us");
		m->paths[m->npaths++] = (struct nb_meta_path){
			.name = jstr(v, "name"), .peer = jstr(v, "peer"),
			.clock_offset_us = json_is_number(off) ? json_number_value(off) : NAN,
			.control_rtt_us = json_is_number(rtt) ? json_number_value(rtt) : NAN,
		};
	}
}

bool nb_meta_json_read(const char *dir, struct nb_meta *m, struct nb_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/" NB_META_JSON_FILE, dir);
	memset(m, 0, sizeof(*m));
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root || !json_is_object(root)) {
		nb_error_set(err, NB_META_JSON_FILE ":%d: %s", je.line, root ? "not an object" : je.text);
		json_decref(root);
		return false;
	}
	*m = (struct nb_meta){
		.root = root, .version = jstr(root, "nbrun_version"), .command = jstr(root, "command"),
		.config_name = jstr(root, "config_name"), .config_sha256 = jstr(root, "config_sha256"),
		.started = jstr(root, "started_utc"), .finished = jstr(root, "finished_utc"),
		.peer = jstr(root, "peer"), .order = jstr(root, "order"),
		.complete_known = json_is_boolean(json_object_get(root, "complete")),
		.complete = json_is_true(json_object_get(root, "complete")),
		.runs_ok = ju32(root, "runs_ok"), .runs_failed = ju32(root, "runs_failed"),
		.runs_interrupted = ju32(root, "runs_interrupted"),
		.stopped = jstr(root, "stopped_by"), .resumed = jstr(root, "resumed_utc"),
	};
	m->nsets = jlist(root, "sets", m->sets);
	m->nfilters = jlist(root, "filters", m->filters);
	const char *key;
	json_t *v;
	json_object_foreach(json_object_get(root, "labels"), key, v)
		if (json_is_string(v) && m->nlabels < NB_META_LIST_MAX) {
			m->label_keys[m->nlabels] = key;
			m->label_values[m->nlabels++] = json_string_value(v);
		}
	read_paths(root, m);
	return true;
}

void nb_meta_json_free(struct nb_meta *m)
{
	json_decref(m->root);
	memset(m, 0, sizeof(*m));
}

void nb_meta_json_load(struct nb_results *res)
{
	if (!nb_results_has(res, NB_META_JSON_FILE))
		return;
	struct nb_error err = { "" };
	if (!nb_meta_json_read(res->dir, &res->meta, &err))
		nb_results_note(res, err.msg);
}

/* The parts of a results folder beside the CSV tables: env.json, meta.json and the
 * latency histograms. Each is optional; a broken one becomes a problem note. */
#include "results.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void note(struct nb_results *res, const char *text)
{
	if (res->nproblems < sizeof(res->problems) / sizeof(res->problems[0]))
		snprintf(res->problems[res->nproblems++], sizeof(res->problems[0]), "%s", text);
}

static const char *jstr(json_t *root, const char *key)
{
	const char *s = json_string_value(json_object_get(root, key));
	return s && *s ? s : NULL;
}

static void load_meta(struct nb_results *res)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/meta.json", res->dir);
	if (access(path, F_OK) != 0)
		return;
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root || !json_is_object(root)) {
		char msg[256];
		snprintf(msg, sizeof(msg), "meta.json:%d: %s", je.line, root ? "not an object" : je.text);
		note(res, msg);
		json_decref(root);
		return;
	}
	struct nb_meta *m = &res->meta;
	m->root = root;
	m->version = jstr(root, "nbrun_version");
	m->command = jstr(root, "command");
	m->config_name = jstr(root, "config_name");
	m->config_sha256 = jstr(root, "config_sha256");
	m->started = jstr(root, "started_utc");
	m->finished = jstr(root, "finished_utc");
	m->peer = jstr(root, "peer");
	m->order = jstr(root, "order");
	json_t *c = json_object_get(root, "complete");
	m->complete_known = json_is_boolean(c);
	m->complete = json_is_true(c);
}

/* The run loop writes each search's outcome to sweeps.json ({"sweeps": [...]}); meta.json may
 * carry the same list. Either way the report finds it under meta "sweeps". */
static void load_sweeps(struct nb_results *res)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/sweeps.json", res->dir);
	if (access(path, F_OK) != 0 || (res->meta.root && json_object_get(res->meta.root, "sweeps")))
		return;
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	json_t *list = json_object_get(doc, "sweeps");
	if (!json_is_array(list)) {
		char msg[256];
		snprintf(msg, sizeof(msg), "sweeps.json:%d: %s", je.line, doc ? "no \"sweeps\" list" : je.text);
		note(res, msg);
	} else {
		if (!res->meta.root)
			res->meta.root = json_object();
		json_object_set(res->meta.root, "sweeps", list);
	}
	json_decref(doc);
}

static void load_env(struct nb_results *res)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/env.json", res->dir);
	if (access(path, F_OK) != 0)
		return;
	struct nb_error err = { "" };
	res->have_env = nb_env_json_read(path, &res->local, &res->peer, &err);
	if (!res->have_env)
		note(res, err.msg);
}

static uint64_t bucket_upper(size_t i)
{
	return i + 1 < NB_HIST_BUCKETS ? nb_hist_bucket_lower(i + 1) - 1 : NB_HIST_MAX_NS;
}

/* The file holds bucket counts only: sum, min and max come back from the buckets
 * (midpoints and bounds), within the histogram's own 1 % resolution. */
bool nb_hist_csv_read(const char *path, struct nb_hist *h, struct nb_error *err)
{
	struct nb_csv_table t;
	if (!nb_csv_read(path, &t, err))
		return false;
	nb_hist_init(h);
	int c_lo = nb_csv_col(&t, "bucket_lower_ns"), c_n = nb_csv_col(&t, "count");
	uint64_t count = 0, min = UINT64_MAX, max = 0;
	double sum = 0;
	for (size_t r = 0; r < t.nrows; r++) {
		double lo = nb_csv_num_cell(&t, r, c_lo), n = nb_csv_num_cell(&t, r, c_n);
		if (!(lo >= 0) || !(n > 0) || lo > (double)NB_HIST_MAX_NS)
			continue;
		size_t b = nb_hist_bucket_of((uint64_t)lo);
		uint64_t k = (uint64_t)n, blo = nb_hist_bucket_lower(b), bhi = bucket_upper(b);
		h->counts[b] += k;
		count += k;
		sum += (double)k * ((double)blo + (double)bhi) / 2.0;
		min = blo < min ? blo : min;
		max = bhi > max ? bhi : max;
	}
	nb_csv_table_free(&t);
	h->count = count;
	h->sum_ns = (uint64_t)sum;
	h->min_ns = min;
	h->max_ns = max;
	return true;
}

static bool load_hists(struct nb_results *res)
{
	for (size_t i = 0; i < res->nruns; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/latency/run-%" PRIu32 ".csv", res->dir,
			 res->runs[i].run_id);
		if (access(path, F_OK) != 0)
			continue;
		struct nb_hist *h = nb_hist_create();
		if (!h)
			return false;
		struct nb_error err = { "" };
		if (!nb_hist_csv_read(path, h, &err) || h->count == 0) {
			if (*err.msg)
				note(res, err.msg);
			nb_hist_destroy(h);
			continue;
		}
		res->runs[i].hist = h;
	}
	return true;
}

bool nb_results_load_extras(struct nb_results *res)
{
	load_meta(res);
	load_sweeps(res);
	load_env(res);
	return load_hists(res);
}

static double jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

bool nb_results_sweep_goal(const struct nb_results *res, const char *case_id, size_t nth,
			   struct nb_sweep_result *out)
{
	json_t *sweeps = res->meta.root ? json_object_get(res->meta.root, "sweeps") : NULL;
	size_t i;
	json_t *o;
	json_array_foreach(sweeps, i, o) {
		const char *id = json_string_value(json_object_get(o, "case_id"));
		if (!id || strcmp(id, case_id) != 0 || nth-- > 0)
			continue;
		json_t *c = json_object_get(o, "complete");
		*out = (struct nb_sweep_result){
			.loss_target = jnum(o, "loss"), .threshold = jnum(o, "threshold"),
			.lowest_fail = jnum(o, "lowest_fail"), .elapsed_s = jnum(o, "elapsed_s"),
			.trials = jnum(o, "trials"), .complete_known = json_is_boolean(c),
			.complete = json_is_true(c), .status = jstr(o, "status"),
			.host_bound_above = jnum(o, "host_bound_above"),
		};
		return true;
	}
	return false;
}

bool nb_results_sweep(const struct nb_results *res, const char *case_id, struct nb_sweep_result *out)
{
	return nb_results_sweep_goal(res, case_id, 0, out);
}

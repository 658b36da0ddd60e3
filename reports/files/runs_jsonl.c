/* runs.jsonl (see runs_jsonl.h). */
#include "runs_jsonl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"

struct nb_runs_jsonl {
	FILE *f;
	char path[4200];
	const struct nb_meta *meta;
};

struct nb_runs_jsonl *nb_runs_jsonl_open(const char *dir, const struct nb_meta *meta,
					 struct nb_error *err)
{
	struct nb_runs_jsonl *j = calloc(1, sizeof(*j));
	if (!j) {
		nb_error_set(err, NB_RUNS_JSONL_FILE ": out of memory");
		return NULL;
	}
	snprintf(j->path, sizeof(j->path), "%s/" NB_RUNS_JSONL_FILE, dir);
	j->meta = meta;
	if (!(j->f = fopen(j->path, "a"))) {
		nb_error_errno(err, errno, "cannot write %s", j->path);
		free(j);
		return NULL;
	}
	return j;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* "gro-local;littles-law" as ["gro-local", "littles-law"]. */
static json_t *flags(const char *s)
{
	json_t *a = json_array();
	while (a && s && *s) {
		size_t n = strcspn(s, ";");
		json_array_append_new(a, json_stringn(s, n));
		s += n + (s[n] == ';');
	}
	return a;
}

static json_t *labels(const struct nb_meta *m)
{
	json_t *o = json_object();
	for (size_t i = 0; o && m && i < m->nlabels; i++)
		json_object_set_new(o, m->label_keys[i], json_string(m->label_values[i]));
	return o;
}

static json_t *str(const char *s)
{
	return json_string(s ? s : "");
}

json_t *nb_runs_jsonl_record(const struct nb_run *r, const struct nb_meta *meta)
{
	json_t *o = json_pack("{s:I, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
			      "s:o, s:o, s:o, s:o}",
			      "run_id", (json_int_t)r->run_id, "case_id", str(r->case_id),
			      "test", str(r->test), "engine", str(r->engine), "protocol", str(r->protocol),
			      "rep", (json_int_t)r->rep, "kind", str(r->kind),
			      "offered_rate", num(r->offered_rate), "status", str(r->status),
			      "metric", str(r->metric), "value", num(r->value), "flags", flags(r->flags),
			      "error", str(r->error), "started_utc", str(r->started),
			      "config_name", str(meta ? meta->config_name : NULL),
			      "config_sha256", str(meta ? meta->config_sha256 : NULL),
			      "labels", labels(meta));
	for (size_t c = 0; o && c < NB_COL_COUNT; c++)
		json_object_set_new(o, nb_cols[c].name, num(r->m.v[c]));
	if (o)
		json_object_set_new(o, "path", str(r->path && *r->path ? r->path : NB_PATH_ALL));
	return o;
}

bool nb_runs_jsonl_put(FILE *f, const json_t *rec)
{
	char *line = rec ? json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER |
					  JSON_REAL_PRECISION(NB_FMT_DIGITS)) : NULL;
	bool ok = line && fprintf(f, "%s\n", line) > 0;
	free(line);
	return ok;
}

bool nb_runs_jsonl_write(struct nb_runs_jsonl *j, const struct nb_run *r, struct nb_error *err)
{
	json_t *rec = nb_runs_jsonl_record(r, j->meta);
	errno = 0;
	bool ok = nb_runs_jsonl_put(j->f, rec) && fflush(j->f) == 0;
	json_decref(rec);
	if (!ok)
		return errno ? nb_error_errno(err, errno, "cannot write %s", j->path)
			     : nb_error_set(err, "cannot write %s: a run that is not UTF-8", j->path);
	return true;
}

bool nb_runs_jsonl_sync(struct nb_runs_jsonl *j, struct nb_error *err)
{
	if (j && (fflush(j->f) != 0 || fsync(fileno(j->f)) != 0))
		return nb_error_errno(err, errno, "cannot write %s", j->path);
	return true;
}

void nb_runs_jsonl_close(struct nb_runs_jsonl *j)
{
	if (!j)
		return;
	fclose(j->f);
	free(j);
}

json_t *nb_runs_jsonl_read(const char *path, struct nb_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		nb_error_errno(err, errno, "cannot read %s", path);
		return NULL;
	}
	json_t *all = json_array();
	char *line = NULL;
	size_t cap = 0, no = 0;
	while (all && getline(&line, &cap, f) > 0) {
		json_error_t je;
		json_t *rec = json_loads(line, 0, &je);
		no++;
		if (!json_is_object(rec)) {
			nb_error_set(err, NB_RUNS_JSONL_FILE ":%zu: %s", no, rec ? "not an object" : je.text);
			json_decref(rec);
			json_decref(all);
			all = NULL;
			break;
		}
		json_array_append_new(all, rec);
	}
	free(line);
	fclose(f);
	return all;
}

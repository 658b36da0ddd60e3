/* env.json (see env_json.h). */
#include "env_json.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afile.h"
#include "results_int.h"

/* A fact's value: a string, {"unknown": reason}, or null for a host that lacks it. */
static json_t *fact_json(const struct nb_fact *x)
{
	if (!x)
		return json_null();
	return x->ok ? json_string(x->value) : json_pack("{s:s}", "unknown", x->value);
}

static json_t *facts_json(const struct nb_facts *f)
{
	json_t *o = json_object();
	for (size_t i = 0; o && i < f->n; i++) {
		const struct nb_fact *x = &f->v[i];
		json_t *g = json_object_get(o, x->group);
		if (!g && json_object_set_new(o, x->group, g = json_object()))
			goto fail;
		if (json_object_set_new(g, x->key, fact_json(x)))
			goto fail;
	}
	return o;
fail:
	json_decref(o);
	return NULL;
}

/* The differences' rows, into list; fail is set when one cannot be made. */
struct diff_out {
	json_t *list;
	const char *const *names;
	size_t n;
	bool fail;
};

static void diff_put(void *ctx, const struct nb_fact *x, const struct nb_fact *const *each)
{
	struct diff_out *d = ctx;
	json_t *row = json_object(), *vals = json_object();
	bool ok = row && vals && !json_object_set_new(row, "group", json_string(x->group)) &&
		  !json_object_set_new(row, "key", json_string(x->key));
	for (size_t i = 0; ok && i < d->n; i++)
		ok = !json_object_set_new(vals, d->names[i], fact_json(each[i]));
	ok = ok && !json_object_set_new(row, "values", json_incref(vals)) &&
	     !json_array_append_new(d->list, json_incref(row));
	json_decref(vals);
	json_decref(row);
	d->fail |= !ok;
}

/* Local, then each host whose name is new, into sets and names (room for n + 1); how many. */
static size_t unique_hosts(const struct nb_facts *local, const struct nb_env_host *hosts, size_t n,
			   const struct nb_facts **sets, const char **names)
{
	size_t m = 1;
	sets[0] = local;
	names[0] = NB_ENV_LOCAL;
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		for (size_t k = 1; k < m && !seen; k++)
			seen = strcmp(names[k], hosts[i].name) == 0;
		if (!seen) {
			sets[m] = hosts[i].facts;
			names[m++] = hosts[i].name;
		}
	}
	return m;
}

/* "hosts" (sets[1..m)) and "differences" (all m) into root. */
static bool hosts_json(json_t *root, const struct nb_facts **sets, const char **names, size_t m)
{
	json_t *h = json_object();
	struct diff_out d = { json_array(), names, m, false };
	for (size_t i = 1; h && i < m; i++)
		if (json_object_set_new(h, names[i], facts_json(sets[i])))
			d.fail = true;
	bool nomem = false;
	if (d.list)
		nb_facts_diff_hosts(sets, m, diff_put, &d, &nomem);
	bool ok = h && d.list && !d.fail && !nomem;
	ok = !json_object_set_new(root, "hosts", h) && ok;
	return !json_object_set_new(root, "differences", d.list) && ok;
}

static json_t *env_root(const struct nb_facts *local, const struct nb_env_host *hosts, size_t n)
{
	const struct nb_facts **sets = calloc(n + 1, sizeof(*sets));
	const char **names = calloc(n + 1, sizeof(*names));
	json_t *root = json_object();
	bool ok = sets && names && root && !json_object_set_new(root, "local", facts_json(local)) &&
		  !json_object_set_new(root, "peer", n ? facts_json(hosts[0].facts) : json_null());
	ok = ok && hosts_json(root, sets, names, unique_hosts(local, hosts, n, sets, names));
	free(sets);
	free(names);
	if (!ok)
		json_decref(root);
	return ok ? root : NULL;
}

bool nb_env_json_write_hosts(const char *path, const struct nb_facts *local,
			     const struct nb_env_host *hosts, size_t n, struct nb_error *err)
{
	json_t *root = env_root(local, hosts, n);
	if (!root)
		return nb_error_set(err, "%s: out of memory", path);
	bool ok = nb_afile_json(path, root, JSON_INDENT(2) | JSON_PRESERVE_ORDER, err);
	json_decref(root);
	return ok;
}

bool nb_env_json_write(const char *path, const struct nb_facts *local, const struct nb_facts *peer,
		       struct nb_error *err)
{
	struct nb_env_host h = { "peer", peer };
	return nb_env_json_write_hosts(path, local, &h, peer ? 1 : 0, err);
}

static bool json_fact(struct nb_facts *f, const char *group, const char *key, json_t *v,
		      const char *path, struct nb_error *err)
{
	json_t *why = json_is_object(v) ? json_object_get(v, "unknown") : NULL;
	bool ok;
	if (json_is_string(v))
		ok = nb_facts_set(f, group, key, "%s", json_string_value(v));
	else if (json_is_string(why))
		ok = nb_facts_unknown(f, group, key, "%s", json_string_value(why));
	else
		return nb_error_set(err, "%s: %s.%s: expected a string or {\"unknown\": reason}", path,
				    group, key);
	if (!ok)
		return nb_error_set(err, "%s: bad fact name %s.%s", path, group, key);
	return true;
}

static bool json_facts(struct nb_facts *f, json_t *o, const char *path, struct nb_error *err)
{
	const char *group, *key;
	json_t *g, *v;
	if (!json_is_object(o))
		return nb_error_set(err, "%s: expected an object of fact groups", path);
	json_object_foreach(o, group, g) {
		if (!json_is_object(g))
			return nb_error_set(err, "%s: group %s: expected an object", path, group);
		json_object_foreach(g, key, v)
			if (!json_fact(f, group, key, v, path, err))
				return false;
	}
	return true;
}

/* "hosts": NAME -> facts, in the file's order; errors name the host ("PATH: hosts.NAME: ..."). */
static bool json_hosts(struct nb_env_hosts *hosts, json_t *o, const char *path,
		       struct nb_error *err)
{
	const char *name;
	json_t *v;
	if (!o)
		return true;
	if (!json_is_object(o))
		return nb_error_set(err, "%s: \"hosts\": expected an object of hosts", path);
	size_t n = json_object_size(o) ? json_object_size(o) : 1;
	hosts->names = calloc(n, sizeof(*hosts->names));
	hosts->facts = calloc(n, sizeof(*hosts->facts));
	if (!hosts->names || !hosts->facts)
		return nb_error_set(err, "%s: out of memory", path);
	json_object_foreach(o, name, v) {
		char where[4400];
		size_t i = hosts->n++;
		nb_facts_init(&hosts->facts[i]);
		if (!(hosts->names[i] = strdup(name)))
			return nb_error_set(err, "%s: out of memory", path);
		snprintf(where, sizeof(where), "%s: hosts.%s", path, name);
		if (!json_facts(&hosts->facts[i], v, where, err))
			return false;
	}
	return true;
}

bool nb_env_json_read_hosts(const char *path, struct nb_facts *local, struct nb_facts *peer,
			    struct nb_env_hosts *hosts, struct nb_error *err)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root)
		return nb_error_set(err, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	json_t *p = json_object_get(root, "peer");
	bool ok = json_is_object(root) && json_facts(local, json_object_get(root, "local"), path, err);
	if (ok && p && !json_is_null(p))
		ok = json_facts(peer, p, path, err);
	if (ok && hosts)
		ok = json_hosts(hosts, json_object_get(root, "hosts"), path, err);
	if (!json_is_object(root))
		nb_error_set(err, "%s: expected {\"local\": ..., \"peer\": ...}", path);
	json_decref(root);
	return ok;
}

bool nb_env_json_read(const char *path, struct nb_facts *local, struct nb_facts *peer,
		      struct nb_error *err)
{
	return nb_env_json_read_hosts(path, local, peer, NULL, err);
}

void nb_env_hosts_free(struct nb_env_hosts *hosts)
{
	for (size_t i = 0; i < hosts->n; i++) {
		free(hosts->names[i]);
		nb_facts_free(&hosts->facts[i]);
	}
	free(hosts->names);
	free(hosts->facts);
	memset(hosts, 0, sizeof(*hosts));
}

void nb_env_json_load(struct nb_results *res)
{
	if (!nb_results_has(res, NB_ENV_JSON_FILE))
		return;
	char path[4200];
	snprintf(path, sizeof(path), "%s/" NB_ENV_JSON_FILE, res->dir);
	struct nb_error err = { "" };
	res->have_env = nb_env_json_read_hosts(path, &res->local, &res->peer, &res->hosts, &err);
	if (!res->have_env)
		nb_results_note(res, err.msg);
}

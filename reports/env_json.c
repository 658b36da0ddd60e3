/* env.json (see env_json.h). */
#include "env_json.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>

#include "afile.h"
#include "results_int.h"

static json_t *facts_json(const struct nb_facts *f)
{
	json_t *o = json_object();
	for (size_t i = 0; o && i < f->n; i++) {
		const struct nb_fact *x = &f->v[i];
		json_t *g = json_object_get(o, x->group);
		if (!g && json_object_set_new(o, x->group, g = json_object()))
			goto fail;
		json_t *v = x->ok ? json_string(x->value) : json_pack("{s:s}", "unknown", x->value);
		if (!v || json_object_set_new(g, x->key, v))
			goto fail;
	}
	return o;
fail:
	json_decref(o);
	return NULL;
}

bool nb_env_json_write(const char *path, const struct nb_facts *local, const struct nb_facts *peer,
		       struct nb_error *err)
{
	json_t *root = json_object();
	json_t *l = facts_json(local);
	json_t *p = peer ? facts_json(peer) : json_null();
	if (!root || !l || !p || json_object_set_new(root, "local", l) ||
	    json_object_set_new(root, "peer", p)) {
		json_decref(root);
		return nb_error_set(err, "%s: out of memory", path);
	}
	bool ok = nb_afile_json(path, root, JSON_INDENT(2) | JSON_PRESERVE_ORDER, err);
	json_decref(root);
	return ok;
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

bool nb_env_json_read(const char *path, struct nb_facts *local, struct nb_facts *peer,
		      struct nb_error *err)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root)
		return nb_error_set(err, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	json_t *p = json_object_get(root, "peer");
	bool ok = json_is_object(root) && json_facts(local, json_object_get(root, "local"), path, err);
	if (ok && p && !json_is_null(p))
		ok = json_facts(peer, p, path, err);
	if (!json_is_object(root))
		nb_error_set(err, "%s: expected {\"local\": ..., \"peer\": ...}", path);
	json_decref(root);
	return ok;
}

void nb_env_json_load(struct nb_results *res)
{
	if (!nb_results_has(res, NB_ENV_JSON_FILE))
		return;
	char path[4200];
	snprintf(path, sizeof(path), "%s/" NB_ENV_JSON_FILE, res->dir);
	struct nb_error err = { "" };
	res->have_env = nb_env_json_read(path, &res->local, &res->peer, &err);
	if (!res->have_env)
		nb_results_note(res, err.msg);
}

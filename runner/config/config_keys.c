/* The key table: every key of the language, where it may be written, whether
 * it means something to every engine (else to the engines whose traits list it),
 * and how its value lands in a struct nb_test: the structural keys (the axes too)
 * by a handler here, the parameter rows (engines/param_defs.h) by their kind
 * (config_params.c). Unknown keys get the nearest known one by edit distance. */
#include <stdio.h>
#include <string.h>

#include "config_int.h"
#include "param_defs.h"
#include "params.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

size_t nb_cfg_engine_names(const char **names, size_t max)
{
	const struct nb_engine *const *list = nb_engine_list();
	size_t n = 0;
	for (; list[n] && n < max; n++)
		names[n] = list[n]->name;
	return n;
}

static bool apply_engine(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	const char *names[NB_CFG_MAX_ENGINES];
	int e;
	if (!nb_cfg_enum(c, v, names, nb_cfg_engine_names(names, NB_CFG_MAX_ENGINES), &e))
		return false;
	t->engine = nb_engine_find(names[e]);
	snprintf(t->base.engine, sizeof(t->base.engine), "%s", names[e]);
	return true;
}

/* --- axes: a scalar or a non-empty list of distinct values ------------------------------ */

struct axis_one {
	bool (*parse)(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t, size_t i,
		      uint64_t *out);
};

static bool axis(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t,
		 struct nb_axis_u64 *ax, const struct axis_one *one)
{
	if (v->kind == NB_Y_MAP)
		return nb_yerror(c->err, v, "expected a value or a list, got a mapping");
	if (v->kind == NB_Y_SEQ && v->nkids == 0)
		return nb_yerror(c->err, v, "empty list (expected at least one value)");
	if (nb_cfg_nitems(v) > NB_AXIS_MAX)
		return nb_yerror(c->err, v, "%zu values (expected at most %d)", nb_cfg_nitems(v),
				 NB_AXIS_MAX);
	struct nb_axis_u64 tmp = { .n = 0 };
	for (size_t i = 0; i < nb_cfg_nitems(v); i++) {
		const struct nb_ynode *it = nb_cfg_item(v, i);
		uint64_t x;
		if (it->kind != NB_Y_SCALAR)
			return nb_yerror(c->err, it, "expected a value, got %s", nb_ynode_kind_name(it));
		if (!one->parse(c, it, t, i, &x))
			return false;
		for (size_t j = 0; j < tmp.n; j++)
			if (tmp.v[j] == x)
				return nb_yerror(c->err, it, "'%s' repeats a value of this list "
					      "(expected distinct values)", it->str);
		tmp.v[tmp.n++] = x;
	}
	*ax = tmp;
	return true;
}

static bool one_proto(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t, size_t i,
		      uint64_t *out)
{
	int e;
	if (!nb_cfg_enum(c, v, nb_proto_names, NB_PROTO_N, &e))
		return false;
	*out = (uint64_t)e;
	return true;
}

static bool one_dir(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t, size_t i,
		    uint64_t *out)
{
	int e;
	if (!nb_cfg_enum(c, v, nb_dir_names, NB_DIR_N, &e))
		return false;
	*out = (uint64_t)e;
	return true;
}

static bool one_size(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t, size_t i,
		     uint64_t *out)
{
	static const char what[] = "a size in bytes such as 1400, 64K or 1M";
	const char *why;
	uint64_t x;
	if (!nb_cfg_scalar(c, v, what))
		return false;
	if (!nb_units_size(v->str, &x, &why))
		return nb_cfg_size_error(c, v, "size", why, what);
	if (x < 1 || x > (64u << 20))
		return nb_yerror(c->err, v, "size %s is out of range (expected 1 byte to 64M)", v->str);
	*out = x;
	return true;
}

static bool one_streams(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t,
			size_t i, uint64_t *out)
{
	return nb_cfg_uint(c, v, 1, NB_MAX_FLOWS, out);
}

static bool one_rate(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t, size_t i,
		     uint64_t *out)
{
	bool pps;
	if (!nb_cfg_rate(c, v, t->engine, out, &pps))
		return false;
	if (pps && t->engine->traits.rate == NB_RATE_KIND_BITS)
		t->rate_pps_mask |= 1u << i;
	return true;
}

static const struct axis_one ax_proto = { one_proto }, ax_dir = { one_dir },
			     ax_size = { one_size }, ax_streams = { one_streams },
			     ax_rate = { one_rate };

static bool apply_protocol(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	return axis(c, v, t, &t->protocol, &ax_proto);
}

static bool apply_size(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	return axis(c, v, t, &t->size, &ax_size);
}

static bool apply_streams(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	return axis(c, v, t, &t->streams, &ax_streams);
}

static bool apply_rate(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	t->rate_pps_mask = 0;
	return axis(c, v, t, &t->rate, &ax_rate);
}

static bool apply_direction(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	return axis(c, v, t, &t->direction, &ax_dir);
}

static bool apply_request(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	return axis(c, v, t, &t->request, &ax_size);
}

static bool apply_response(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	return axis(c, v, t, &t->response, &ax_size);
}

/* --- scalars ---------------------------------------------------------------------------- */

static bool apply_duration(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	uint64_t ns;
	if (!nb_cfg_duration(c, v, &ns))
		return false;
	if (ns == 0)
		return nb_yerror(c->err, v, "duration must be positive (expected e.g. 10s)");
	t->timing.duration_ns = ns;
	return true;
}

static bool apply_warmup(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	return nb_cfg_duration(c, v, &t->timing.warmup_ns);
}

static bool apply_omit(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	return nb_cfg_duration(c, v, &t->timing.omit_ns);
}

static bool apply_cooldown(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	return nb_cfg_duration(c, v, &t->timing.cooldown_ns);
}

static bool apply_interval(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t)
{
	uint64_t ns;
	if (!nb_cfg_duration(c, v, &ns))
		return false;
	if (ns < 10000000ull)
		return nb_yerror(c->err, v, "interval '%s' is too short (expected at least 10ms)",
				 v->str);
	t->timing.interval_ns = ns;
	return true;
}

/* Applied in this order, so engine is known before anything that depends on it: the keys
 * before the parameters, the parameter rows (engines/param_defs.c, applied by their kind in
 * config_params.c), the keys after them, and last each engine's own parameter rows. COMMON keys
 * mean something to every engine; LISTED ones only to the engines whose traits.keys name them. */
#define COMMON true
#define LISTED false
/* A key with a handler of its own, as its row reads: struct nb_cfg_key without a parameter. */
struct key_def {
	const char *name, *alias;
	unsigned scope;
	bool common;
	bool (*apply)(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t);
};
static const struct key_def keys_before[] = {
	{ "name", NULL, NB_KS_TOP | NB_KS_TEST, COMMON, NULL },
	{ "description", NULL, NB_KS_TOP, COMMON, NULL },
	{ "labels", NULL, NB_KS_TOP, COMMON, NULL },
	{ "hosts", NULL, NB_KS_TOP, COMMON, NULL },
	{ "defaults", NULL, NB_KS_TOP, COMMON, NULL },
	{ "tests", NULL, NB_KS_TOP, COMMON, NULL },
	{ "order", NULL, NB_KS_TOP | NB_KS_DEFAULTS, COMMON, NULL },
	{ "seed", NULL, NB_KS_TOP | NB_KS_DEFAULTS, COMMON, NULL },
	{ "engine", NULL, NB_KS_DEFAULTS | NB_KS_TEST, COMMON, apply_engine },
	{ "protocol", NULL, NB_KS_DEFAULTS | NB_KS_TEST, COMMON, apply_protocol },
	{ "size", NULL, NB_KS_DEFAULTS | NB_KS_TEST, LISTED, apply_size },
	{ "streams", "flows", NB_KS_DEFAULTS | NB_KS_TEST, COMMON, apply_streams },
	{ "rate", NULL, NB_KS_DEFAULTS | NB_KS_TEST, LISTED, apply_rate },
	{ "direction", NULL, NB_KS_DEFAULTS | NB_KS_TEST, LISTED, apply_direction },
	{ "request", NULL, NB_KS_DEFAULTS | NB_KS_TEST, LISTED, apply_request },
	{ "response", NULL, NB_KS_DEFAULTS | NB_KS_TEST, LISTED, apply_response },
	{ "duration", NULL, NB_KS_DEFAULTS | NB_KS_TEST, COMMON, apply_duration },
	{ "warmup", NULL, NB_KS_DEFAULTS | NB_KS_TEST, COMMON, apply_warmup },
	{ "omit", NULL, NB_KS_DEFAULTS | NB_KS_TEST, COMMON, apply_omit },
	{ "cooldown", NULL, NB_KS_DEFAULTS | NB_KS_TEST, COMMON, apply_cooldown },
	{ "interval", NULL, NB_KS_DEFAULTS | NB_KS_TEST, COMMON, apply_interval },
	{ "repetitions", NULL, NB_KS_DEFAULTS | NB_KS_TEST, COMMON, nb_cfg_apply_reps },
	{ NULL, NULL, 0, false, NULL },
};
static const struct key_def keys_after[] = {
	{ "sweep", NULL, NB_KS_DEFAULTS | NB_KS_TEST, LISTED, nb_cfg_apply_sweep },
	{ "paths", NULL, NB_KS_DEFAULTS | NB_KS_TEST, COMMON, nb_cfg_apply_paths },
	{ "load", NULL, NB_KS_TEST, COMMON, NULL },     /* a working test's (config_working.c) */
	{ "probes", NULL, NB_KS_TEST, COMMON, NULL },
	{ "idle", NULL, NB_KS_DEFAULTS | NB_KS_TEST, COMMON, NULL },
	{ "after", NULL, NB_KS_DEFAULTS | NB_KS_TEST, COMMON, NULL },
	{ NULL, NULL, 0, false, NULL },
};
#undef COMMON
#undef LISTED

/* The whole table, built from the parts above on first use and again once an engine is
 * registered (a test's engine of its own); the config is read by one thread. */
static struct nb_cfg_key all_keys[NB_CFG_KEYS_MAX + 1];
static size_t all_engines = (size_t)-1;

static size_t add_keys(const struct key_def *from, size_t n)
{
	for (; from->name && n < NB_CFG_KEYS_MAX; from++)
		all_keys[n++] = (struct nb_cfg_key){ .name = from->name, .alias = from->alias,
			.scope = from->scope, .common = from->common, .apply = from->apply };
	return n;
}

/* A parameter row as a key (owner: the engine whose own row it is, else NULL). */
static size_t add_param(const struct nb_param_def *d, const struct nb_engine *owner, size_t n)
{
	if (n < NB_CFG_KEYS_MAX)
		all_keys[n++] = (struct nb_cfg_key){ .name = d->key, .alias = d->alias,
			.scope = NB_KS_DEFAULTS | NB_KS_TEST,
			.common = !owner && !(d->flags & NB_PF_LISTED), .param = d, .owner = owner };
	return n;
}

const struct nb_cfg_key *nb_cfg_keys(void)
{
	const struct nb_engine *const *list = nb_engine_list();
	size_t engines = 0, n = 0;
	while (list[engines])
		engines++;
	if (engines == all_engines)
		return all_keys;
	n = add_keys(keys_before, n);
	for (const struct nb_param_def *d = nb_param_defs; d->key; d++)
		n = add_param(d, NULL, n);
	n = add_keys(keys_after, n);
	for (size_t e = 0; e < engines; e++)
		for (const struct nb_param_def *d = list[e]->params; d && d->key; d++)
			n = add_param(d, list[e], n);
	all_keys[n] = (struct nb_cfg_key){ 0 };
	all_engines = engines;
	return all_keys;
}

bool nb_cfg_key_apply(struct nb_cfg_ctx *c, const struct nb_cfg_key *k, const struct nb_ynode *v,
		      struct nb_test *t)
{
	return k->param ? nb_cfg_apply_param(c, k->param, v, t) : k->apply(c, v, t);
}

bool nb_cfg_key_applies(const struct nb_cfg_key *k, const struct nb_engine *e)
{
	if (k->owner)
		return k->owner == e;
	return k->common || nb_engine_has_key(e, k->name);
}

const struct nb_cfg_key *nb_cfg_key_find_for(const char *name, const struct nb_engine *e)
{
	const struct nb_cfg_key *first = NULL;
	for (const struct nb_cfg_key *k = nb_cfg_keys(); k->name; k++) {
		if (strcmp(k->name, name) != 0 && !(k->alias && strcmp(k->alias, name) == 0))
			continue;
		if (!e || nb_cfg_key_applies(k, e))
			return k;
		first = first ? first : k;
	}
	return first;
}

const struct nb_cfg_key *nb_cfg_key_find(const char *name)
{
	return nb_cfg_key_find_for(name, NULL);
}

static const char *scope_name(unsigned scope)
{
	return scope == NB_KS_TOP ? "at the top level" : scope == NB_KS_DEFAULTS ? "in defaults"
										: "in a test";
}

static const char *scope_list(unsigned scope)
{
	switch (scope) {
	case NB_KS_TOP:
		return "at the top level";
	case NB_KS_TOP | NB_KS_DEFAULTS:
		return "at the top level or in defaults";
	case NB_KS_TOP | NB_KS_TEST:
		return "at the top level or in a test";
	default:
		return "in defaults or in a test";
	}
}

/* "rr, crr": the engines key k means something to, in registry order. */
static void engines_of(const struct nb_cfg_key *k, char *buf, size_t len)
{
	buf[0] = '\0';
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++)
		if (nb_cfg_key_applies(k, *e))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "",
				 (*e)->name);
}

/* The names people bring from iperf3 and netperf, and what nbrun calls them. */
static const struct {
	const char *names[4];
	const char *tool;        /* where the name comes from */
	const char *here;        /* what to write instead */
} tool_keys[] = {
	{ { "parallel", "P", "-P" }, "iperf3's -P/--parallel", "streams: N" },
	{ { "bandwidth", "b", "-b" }, "iperf3's -b/--bandwidth", "rate: 100M (per stream)" },
	{ { "reverse", "R", "-R" }, "iperf3's -R/--reverse", "direction: reverse" },
	{ { "bidir" }, "iperf3's --bidir", "direction: bidir" },
	{ { "length", "len", "l", "-l" }, "iperf3's -l/--length", "size: 1400" },
	{ { "time", "t", "-t" }, "iperf3's -t/--time", "duration: 10s" },
	{ { "udp", "u", "-u" }, "iperf3's -u/--udp", "protocol: udp" },
	{ { "O", "-O" }, "iperf3's -O/--omit", "omit: 2s" },
	{ { "w", "-w" }, "iperf3's -w/--window", "window: 4M" },
	{ { "C", "-C" }, "iperf3's -C/--congestion", "congestion: bbr" },
	{ { "affinity", "A", "-A" }, "iperf3's -A/--affinity", "cpus: 0-3" },
	{ { "send_size", "m", "-m" }, "netperf's -m (send size)", "size: 1400" },
	{ { "r", "-r" }, "netperf's -r (request,response)", "request: 32 and response: 128" },
	{ { "test_length", "test-length" }, "netperf's -l (test length)", "duration: 10s" },
};

/* "(iperf3's -P/--parallel is `streams: N` here)" when key is such a name. */
static bool tool_key(struct nb_cfg_ctx *c, const struct nb_ynode *key)
{
	for (size_t i = 0; i < N(tool_keys); i++)
		for (size_t k = 0; k < 4 && tool_keys[i].names[k]; k++)
			if (strcmp(key->str, tool_keys[i].names[k]) == 0)
				return nb_yerror(c->err, key, "unknown key '%s' (%s is '%s' in nbrun)",
						 key->str, tool_keys[i].tool, tool_keys[i].here);
	return true;
}

static bool unknown_key(struct nb_cfg_ctx *c, const struct nb_ynode *key, unsigned scope)
{
	if (!tool_key(c, key))
		return false;
	const char *cands[64];
	size_t n = 0;
	for (const struct nb_cfg_key *k = nb_cfg_keys(); k->name && n < 62; k++) {
		if (!(k->scope & scope))
			continue;
		cands[n++] = k->name;
		if (k->alias)
			cands[n++] = k->alias;
	}
	const char *near = nb_cfg_suggest(key->str, cands, n);
	if (near)
		return nb_yerror(c->err, key, "unknown key '%s' (did you mean '%s'?)", key->str, near);
	return nb_yerror(c->err, key, "unknown key '%s' %s (expected a key listed in docs/config.md)",
			 key->str, scope_name(scope));
}

static bool check_key(struct nb_cfg_ctx *c, const struct nb_ynode *map, const struct nb_ynode *key,
		      unsigned scope, const struct nb_engine *e)
{
	const struct nb_cfg_key *k = nb_cfg_key_find_for(key->str, scope == NB_KS_TEST ? e : NULL);
	if (!k)
		return unknown_key(c, key, scope);
	if (!(k->scope & scope))
		return nb_yerror(c->err, key, "'%s' is not allowed %s (expected it %s)", key->str,
				 scope_name(scope), scope_list(k->scope));
	if (scope == NB_KS_TEST && e && !nb_cfg_key_applies(k, e)) {
		char list[128];
		engines_of(k, list, sizeof(list));
		return nb_yerror(c->err, key, "'%s' does not apply to engine %s (expected with %s)",
				 key->str, e->name, list);
	}
	if (k->alias && nb_ymap_key(map, k->name) && nb_ymap_key(map, k->alias))
		return nb_yerror(c->err, nb_ymap_key(map, k->alias),
				 "'%s' and '%s' are the same key (expected only one of them)",
				 k->alias, k->name);
	return true;
}

bool nb_cfg_check_map(struct nb_cfg_ctx *c, const struct nb_ynode *map, unsigned scope,
		      const struct nb_engine *e)
{
	bool ok = true;
	for (size_t i = 0; i < map->nkids; i += 2)
		if (!check_key(c, map, map->kids[i], scope, e))
			ok = nb_cfg_note(c);
	return ok;
}

static const struct nb_ynode *get_either(const struct nb_ynode *map, const struct nb_cfg_key *k)
{
	const struct nb_ynode *v = nb_ymap_get(map, k->name);
	return v || !k->alias ? v : nb_ymap_get(map, k->alias);
}

const struct nb_ynode *nb_cfg_lookup(const struct nb_cfg_ctx *c, const struct nb_ynode *test,
				     const char *key)
{
	const struct nb_cfg_key *k = nb_cfg_key_find(key);
	if (!k)
		return NULL;
	for (size_t i = c->nsets; i-- > 0;) {
		const char *sk = c->sets[i].key;
		if (strcmp(sk, k->name) == 0 || (k->alias && strcmp(sk, k->alias) == 0))
			return c->sets[i].value;
	}
	const struct nb_ynode *v = get_either(test, k);
	return v ? v : get_either(c->defaults, k);
}

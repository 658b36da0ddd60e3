/* nbrun — a working test (docs/config.md, "Working conditions"): `load:` and `probes:` instead
 * of `engine:`. The load is read as a stream test made of the load's keys and the test's other
 * keys (duration, interval, paths ...); each probe as a test of its engine made of its own keys;
 * then the phases: `idle` before the load, `after` it, whole numbers of the interval, and each
 * probe's timing spanning all three. Every error points at its key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_int.h"
#include "config_yaml.h"

static const char *const working_keys[] = { "load", "probes", "idle", "after", NULL };

static bool is_working_key(const char *k)
{
	for (size_t i = 0; working_keys[i]; i++)
		if (strcmp(working_keys[i], k) == 0)
			return true;
	return false;
}

bool nb_cfg_is_working(const struct nb_ynode *node)
{
	return nb_ymap_get(node, "load") || nb_ymap_get(node, "probes");
}

void nb_cfg_working_free(struct nb_working *w)
{
	if (w)
		free(w->probes);
	free(w);
}

/* A mapping made on the fly: up to max pairs of nodes that belong to the tree (or to made). */
struct made_map {
	struct nb_ynode map;
	struct nb_ynode *kids[2 * 48];
	struct nb_ynode scalars[8];       /* nodes made here: name, engine, direction */
	char text[8][64];
	size_t nscalars;
};

static void made_init(struct made_map *m, const struct nb_ynode *at)
{
	memset(m, 0, sizeof(*m));
	m->map = (struct nb_ynode){ .kind = NB_Y_MAP, .line = at->line, .col = at->col,
				    .src = at->src, .kids = m->kids };
}

static struct nb_ynode *made_scalar(struct made_map *m, const struct nb_ynode *at, const char *s)
{
	struct nb_ynode *n = &m->scalars[m->nscalars];
	snprintf(m->text[m->nscalars], sizeof(m->text[0]), "%s", s);
	*n = (struct nb_ynode){ .kind = NB_Y_SCALAR, .line = at->line, .col = at->col,
				.src = at->src, .str = m->text[m->nscalars], .plain = true };
	m->nscalars++;
	return n;
}

static bool made_add(struct made_map *m, struct nb_ynode *k, struct nb_ynode *v)
{
	if (m->map.nkids + 2 > sizeof(m->kids) / sizeof(m->kids[0]))
		return false;
	m->kids[m->map.nkids++] = k;
	m->kids[m->map.nkids++] = v;
	return true;
}

/* A key of map as a key node made here (a scalar of its name at at's place). */
static struct nb_ynode *made_key(struct made_map *m, const struct nb_ynode *at, const char *name)
{
	return made_scalar(m, at, name);
}

/* The load's direction in a person's words: up (this host sends), down, both. */
static bool load_direction(struct nb_cfg_ctx *c, const struct nb_ynode *v, const char **dir)
{
	static const char *const words[][2] = { { "up", "forward" }, { "down", "reverse" },
						 { "both", "bidir" } };
	if (v->kind == NB_Y_SCALAR)
		for (size_t i = 0; i < 3; i++)
			if (strcmp(v->str, words[i][0]) == 0 || strcmp(v->str, words[i][1]) == 0) {
				*dir = words[i][1];
				return true;
			}
	return nb_yerror(c->err, v, "bad load direction '%s' (expected up, down or both)",
			 v->kind == NB_Y_SCALAR ? v->str : nb_ynode_kind_name(v));
}

/* The load as a stream test: its keys, then the test's other keys. */
static bool load_map(struct nb_cfg_ctx *c, const struct nb_ynode *node, const struct nb_ynode *load,
		     struct made_map *m)
{
	made_init(m, load);
	if (load->kind != NB_Y_MAP)
		return nb_yerror(c->err, load, "expected the load as a mapping (direction, streams, "
				 "protocol, congestion ...), got %s", nb_ynode_kind_name(load));
	for (size_t i = 0; i < load->nkids; i += 2) {
		struct nb_ynode *k = load->kids[i], *v = load->kids[i + 1];
		const char *dir = NULL;
		if (strcmp(k->str, "engine") == 0)
			return nb_yerror(c->err, k, "a load is a stream test (expected no engine: in load:)");
		if (strcmp(k->str, "direction") == 0) {
			if (!load_direction(c, v, &dir))
				return false;
			v = made_scalar(m, v, dir);
		}
		if (v->kind == NB_Y_SEQ)
			return nb_yerror(c->err, v, "'%s' of a load takes one value (expected no list: one "
					 "working case per test)", k->str);
		made_add(m, k, v);
	}
	for (size_t i = 0; i < node->nkids; i += 2)
		if (!is_working_key(node->kids[i]->str) && !nb_ymap_get(load, node->kids[i]->str) &&
		    !made_add(m, node->kids[i], node->kids[i + 1]))
			return nb_yerror(c->err, node, "too many keys in test");
	made_add(m, made_key(m, load, "engine"), made_scalar(m, load, "stream"));
	if (!nb_ymap_get(load, "direction")) /* flent's RRUL: both ways */
		made_add(m, made_key(m, load, "direction"), made_scalar(m, load, "bidir"));
	return true;
}

/* One probe as a test of its engine (named TEST.pN): its own keys only. */
static bool probe_map(struct nb_cfg_ctx *c, const char *name, const struct nb_ynode *p,
		      struct made_map *m)
{
	made_init(m, p);
	if (p->kind != NB_Y_MAP)
		return nb_yerror(c->err, p, "expected a probe (a mapping with engine and rate), got %s",
				 nb_ynode_kind_name(p));
	if (!nb_ymap_get(p, "engine"))
		return nb_yerror(c->err, p, "a probe without an engine (expected engine: latency, crr, "
				 "icmp or connect)");
	made_add(m, made_key(m, p, "name"), made_scalar(m, p, name));
	for (size_t k = 0; k < p->nkids; k += 2) {
		if (strcmp(p->kids[k]->str, "name") == 0)
			return nb_yerror(c->err, p->kids[k], "a probe is named after its test (expected "
					 "no name: in a probe)");
		if (p->kids[k + 1]->kind == NB_Y_SEQ)
			return nb_yerror(c->err, p->kids[k + 1], "'%s' of a probe takes one value "
					 "(expected no list)", p->kids[k]->str);
		made_add(m, p->kids[k], p->kids[k + 1]);
	}
	return true;
}

/* A probe's engine measures round trips at a rate: a closed loop would be a load of its own. */
static bool probe_fits(struct nb_cfg_ctx *c, const struct nb_ynode *p, const struct nb_test *t)
{
	const struct nb_engine *e = t->engine;
	if (!nb_engine_records_latency(e))
		return nb_yerror(c->err, nb_ymap_get(p, "engine"), "engine %s measures no round trips "
				 "(expected a probe engine: latency, crr, icmp or connect)", e->name);
	if (t->npaths)
		return nb_yerror(c->err, p, "a probe runs on its test's path (expected no paths: in a "
				 "probe)");
	if (nb_engine_closed_loop(e, t->rate.v[0]))
		return nb_yerror(c->err, p, "a probe of engine %s needs a rate > 0 (expected rate: such "
				 "as 10pps: a probe without one is a closed loop, a load of its own)",
				 e->name);
	return true;
}

/* idle and after: durations, whole numbers of the interval; idle at least one. */
static bool phase(struct nb_cfg_ctx *c, const struct nb_ynode *node, const char *key,
		  uint64_t def, uint64_t interval, bool need, uint64_t *out)
{
	const struct nb_ynode *v = nb_cfg_lookup(c, node, key);
	*out = def;
	if (v && !nb_cfg_duration(c, v, out))
		return false;
	const struct nb_ynode *at = v ? v : node;
	if (interval && *out % interval)
		return nb_yerror(c->err, at, "%s %gs is not a whole number of intervals of %gs "
				 "(expected the phases to start on a tick)", key, (double)*out / 1e9,
				 (double)interval / 1e9);
	if (need && *out > NB_WORKING_IDLE_MAX_NS)
		return nb_yerror(c->err, at, "%s %gs is too long (expected at most %gs: the load's agent "
				 "waits no longer for its START)", key, (double)*out / 1e9,
				 (double)NB_WORKING_IDLE_MAX_NS / 1e9);
	if (need && *out < interval)
		return nb_yerror(c->err, at, "%s %gs leaves no idle interval (expected at least one "
				 "interval of %gs: the idle phase is the baseline)", key,
				 (double)*out / 1e9, (double)interval / 1e9);
	return true;
}

/* A working case's paths: each from this host (its probes' clocks and histograms are this
 * host's: between two agents they would cross the control channel, as for every round-trip
 * engine), agent probes only on several paths (an agentless probe reaches one host by itself),
 * and its parts within a run's: a load per path and each probe on each. */
static bool paths_fit(struct nb_cfg_ctx *c, const struct nb_ynode *node, const struct nb_test *t,
		      const struct nb_working *w)
{
	const struct nb_ynode *v = nb_cfg_lookup(c, node, "paths");
	const struct nb_ynode *at = v ? v : node;
	for (uint32_t i = 0; i < t->npaths; i++)
		if (strcmp(t->paths[i].from, NB_HOST_LOCAL) != 0)
			return nb_yerror(c->err, v && v->kind == NB_Y_SEQ && i < v->nkids ? v->kids[i] : at,
					 "a working case measures its probes' round trips on this host: "
					 "its paths start at local, not at %s (expected from: local)",
					 t->paths[i].from);
	for (uint32_t i = 0; t->npaths > 1 && i < w->nprobes; i++)
		if (nb_engine_agentless(w->probes[i].engine))
			return nb_yerror(c->err, at, "probe %u (engine %s) reaches one host by itself, not "
					 "each path's agent (expected agent probes only, such as latency "
					 "or crr, on %u paths)", i + 1, w->probes[i].engine->name,
					 t->npaths);
	if ((size_t)t->npaths * (1 + w->nprobes) > NB_PATHS_MAX)
		return nb_yerror(c->err, at, "%u paths x (a load + %u probes) make more than %d parts "
				 "of one run (expected fewer paths or probes)", t->npaths, w->nprobes,
				 NB_PATHS_MAX);
	return true;
}

bool nb_cfg_working(struct nb_cfg_ctx *c, const struct nb_ynode *node, struct nb_test *t,
		    nb_cfg_resolve_fn resolve)
{
	const struct nb_ynode *load = nb_ymap_get(node, "load"), *probes = nb_ymap_get(node, "probes");
	if (nb_ymap_get(node, "engine"))
		return nb_yerror(c->err, nb_ymap_key(node, "engine"), "a test with load: and probes: "
				 "runs the engines they name (expected no engine:)") || nb_cfg_note(c);
	if (!load || !probes)
		return nb_yerror(c->err, node, "test '%s' has %s without %s (expected both: the load "
				 "and the probes beside it)", t->name, load ? "load:" : "probes:",
				 load ? "probes:" : "load:") || nb_cfg_note(c);
	if (probes->kind != NB_Y_SEQ || probes->nkids == 0 || probes->nkids > NB_PROBES_MAX)
		return nb_yerror(c->err, probes, "expected a list of 1 to %d probes, got %s",
				 NB_PROBES_MAX, probes->kind == NB_Y_SEQ ? "too many" :
				 nb_ynode_kind_name(probes)) || nb_cfg_note(c);
	struct made_map *m = malloc(sizeof(*m));
	struct nb_working *w = calloc(1, sizeof(*w));
	if (w)
		w->probes = calloc(probes->nkids, sizeof(*w->probes));
	if (!m || !w || !w->probes) {
		free(m);
		nb_cfg_working_free(w);
		return nb_error_set(c->err, "out of memory") || nb_cfg_note(c);
	}
	char name[sizeof(t->name)];
	memcpy(name, t->name, sizeof(name));
	bool ok = (load_map(c, node, load, m) || nb_cfg_note(c)) && resolve(c, &m->map, t);
	memcpy(t->name, name, sizeof(name));
	t->line = node->line;
	t->col = node->col;
	uint64_t interval = t->timing.interval_ns;
	if (ok && t->sweep.enabled)
		ok = nb_yerror(c->err, nb_ymap_key(node, "sweep") ? nb_ymap_key(node, "sweep") : node,
			       "a working case runs at one rate (expected no sweep: beside load:)") ||
		     nb_cfg_note(c);
	ok = ok && (phase(c, node, "idle", 5000000000ull, interval, true, &w->idle_ns) || nb_cfg_note(c));
	ok = ok && (phase(c, node, "after", 0, interval, false, &w->after_ns) || nb_cfg_note(c));
	for (size_t i = 0; ok && i < probes->nkids; i++) {
		struct nb_test *pt = &w->probes[i];
		const struct nb_ynode *p = probes->kids[i];
		snprintf(pt->name, sizeof(pt->name), "%.50s.p%u", t->name, (unsigned)(i + 1) % 10u);
		ok = (probe_map(c, pt->name, p, m) || nb_cfg_note(c)) && resolve(c, &m->map, pt) &&
		     (probe_fits(c, p, pt) || nb_cfg_note(c));
		pt->line = p->line;
		pt->col = p->col;
		pt->timing = t->timing; /* the probes' timeline spans every phase */
		pt->timing.duration_ns = w->idle_ns + t->timing.duration_ns + w->after_ns;
		pt->timing.omit_ns = pt->timing.cooldown_ns = 0;
		pt->reps = t->reps;
		w->nprobes++;
	}
	free(m);
	ok = ok && (paths_fit(c, node, t, w) || nb_cfg_note(c));
	if (!ok) {
		nb_cfg_working_free(w);
		return false;
	}
	t->working = w;
	return true;
}

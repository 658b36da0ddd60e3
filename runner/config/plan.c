/* Matrix expansion: every test's axes multiplied out into cases with stable
 * ids, checked for duplicates and by their engine, filtered, then put in run
 * order. An id has the same components for an engine whichever axes are
 * lists, so adding a value to a list never renames the other cases. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "param_defs.h"
#include "params.h"
#include "plan.h"
#include "units.h"

#define NAXES 7

static size_t test_ncases(const struct nb_test *t)
{
	const struct nb_axis_u64 *ax[NAXES] = { &t->protocol, &t->size, &t->streams, &t->rate,
						&t->direction, &t->request, &t->response };
	size_t n = 1;
	for (size_t i = 0; i < NAXES; i++)
		n *= ax[i]->n ? ax[i]->n : 1;
	return n;
}

/* The value of the engine's own parameter row key, or 0 when the engine has no such row. */
static int64_t own_value(const struct nb_case *c, const char *key)
{
	bool own;
	const struct nb_param_def *d;
	for (size_t i = 0; (d = nb_param_at(c->engine, i, &own)); i++)
		if (own && strcmp(d->key, key) == 0)
			return nb_param_get(d, &c->params);
	return 0;
}

/* The id's shape follows the engine: request/response sizes and flows; or one size, flows and
 * rate ("/pp" for a ping-pong); or (directional) size, streams, direction and rate. A stream's
 * self probes, when it runs them, end the id ("/self10": 10 per second per flow), so cases
 * that differ only there have ids of their own and a case without them keeps its id. */
static void case_id(struct nb_case *c, bool rate_pps)
{
	const struct nb_params *p = &c->params;
	const char *proto = nb_proto_name(p->proto);
	char s[32], q[24], r[24], tail[40] = "";
	nb_units_fmt_size(p->size, q, sizeof(q));
	if (nb_engine_has_key(c->engine, "port") && !p->port) /* a probe to its agent's port */
		snprintf(s, sizeof(s), "portagent");
	else if (nb_engine_has_key(c->engine, "port")) /* no payload (connect): the port names it */
		snprintf(s, sizeof(s), "port%u", (unsigned)p->port);
	else
		snprintf(s, sizeof(s), "s%s", q);
	if (c->sweep.enabled)
		snprintf(tail, sizeof(tail), "/%s", c->sweep.search ? "search" : "sweep");
	else if (p->rate && (rate_pps || c->engine->traits.rate != NB_RATE_KIND_BITS))
		snprintf(tail, sizeof(tail), "/r%spps", nb_units_fmt_si(p->rate, r, sizeof(r)));
	else if (p->rate)
		snprintf(tail, sizeof(tail), "/r%s", nb_units_fmt_si(p->rate, r, sizeof(r)));
	if (nb_engine_request_response(c->engine)) {
		nb_units_fmt_size(p->request, q, sizeof(q));
		nb_units_fmt_size(p->response, r, sizeof(r));
		snprintf(c->id, sizeof(c->id), "%s/%s/q%sr%s/f%u%s", c->test->name, proto, q, r,
			 p->streams, nb_engine_closed_loop(c->engine, p->rate) ? "" : tail);
	} else if (!c->engine->traits.directional) {
		snprintf(c->id, sizeof(c->id), "%s/%s/%s/f%u%s", c->test->name, proto, s, p->streams,
			 nb_engine_closed_loop(c->engine, p->rate) ? "/pp" : tail);
	} else {
		snprintf(c->id, sizeof(c->id), "%s/%s/%s/p%u/%s%s", c->test->name, proto, s,
			 p->streams, nb_dir_name(p->direction), tail);
	}
	int64_t self = p->proto == NB_PROTO_TCP ? own_value(c, "self") : 0;
	size_t n = strlen(c->id);
	if (self > 0 && n < sizeof(c->id))
		snprintf(c->id + n, sizeof(c->id) - n, "/self%lld", (long long)self);
}

/* One case from the axis positions idx (protocol, size, streams, rate, direction, req, resp). */
static void fill_case(const struct nb_test *t, const uint32_t *idx, struct nb_case *c)
{
	struct nb_params *p = &c->params;
	memset(c, 0, sizeof(*c));
	c->test = t;
	c->engine = t->engine;
	*p = t->base;
	p->proto = (enum nb_proto)t->protocol.v[idx[0]];
	p->size = t->size.n ? (uint32_t)t->size.v[idx[1]] : t->engine->traits.default_size[p->proto];
	p->streams = (uint32_t)t->streams.v[idx[2]];
	p->rate = t->rate.v[idx[3]];
	p->direction = (enum nb_dir)t->direction.v[idx[4]];
	p->request = (uint32_t)t->request.v[idx[5]];
	p->response = (uint32_t)t->response.v[idx[6]];
	bool pps = (t->rate_pps_mask >> idx[3]) & 1u;
	c->timing = t->timing;
	c->reps = t->reps;
	c->sweep = t->sweep;
	case_id(c, pps);
	if (pps)
		p->rate = p->rate * p->size * 8u; /* packets/s x payload bits = bit/s */
	if (c->sweep.enabled)
		p->rate = c->sweep.from;
}

bool nb_plan_probe_case(const struct nb_case *c, uint32_t i, struct nb_case *out)
{
	const struct nb_working *w = c->test->working;
	if (!w || i >= w->nprobes)
		return false;
	static const uint32_t first[NAXES] = { 0 };
	fill_case(&w->probes[i], first, out); /* a probe has one value per axis */
	out->index = c->index;
	return true;
}

bool nb_plan_probe_agent_port(const struct nb_case *probe)
{
	return nb_engine_agentless(probe->engine) && nb_engine_has_key(probe->engine, "port") &&
	       probe->params.port == 0;
}

/* Odometer over the axes, the last varying fastest. */
static void expand_test(const struct nb_test *t, struct nb_case *out, size_t *n)
{
	const struct nb_axis_u64 *ax[NAXES] = { &t->protocol, &t->size, &t->streams, &t->rate,
						&t->direction, &t->request, &t->response };
	uint32_t idx[NAXES] = { 0 };
	for (;;) {
		fill_case(t, idx, &out[*n]);
		out[*n].index = (uint32_t)*n;
		(*n)++;
		int k = NAXES - 1;
		while (k >= 0 && ++idx[k] >= (ax[k]->n ? ax[k]->n : 1))
			idx[k--] = 0;
		if (k < 0)
			return;
	}
}

static int by_id(const void *a, const void *b)
{
	const struct nb_case *x = *(const struct nb_case *const *)a;
	const struct nb_case *y = *(const struct nb_case *const *)b;
	int d = strcmp(x->id, y->id);
	return d ? d : (x->index > y->index) - (x->index < y->index);
}

static bool check_unique(const struct nb_config *cfg, const struct nb_plan *plan,
			 struct nb_error *err)
{
	const struct nb_case **v = malloc(plan->ncases * sizeof(*v));
	if (!v)
		return nb_error_set(err, "out of memory");
	for (size_t i = 0; i < plan->ncases; i++)
		v[i] = &plan->cases[i];
	qsort(v, plan->ncases, sizeof(*v), by_id);
	bool ok = true;
	for (size_t i = 1; i < plan->ncases && ok; i++) {
		if (strcmp(v[i - 1]->id, v[i]->id) != 0)
			continue;
		const struct nb_test *a = v[i - 1]->test, *b = v[i]->test;
		ok = nb_error_set(err, "%s:%u:%u: duplicate case id '%s' (tests '%s' at line %u and "
				  "'%s' at line %u; expected distinct values)", cfg->path, b->line,
				  b->col, v[i]->id, a->name, a->line, b->name, b->line);
	}
	free(v);
	return ok;
}

/* Each probe of working case c as its engine checks a test of its own, at the probe's line. A
 * probe of an engine with a port (connect) and none given reaches the case's agent's control
 * port, known once the agent is reached (nb_plan_probe_agent_port): any port passes here. */
static bool check_probes(const struct nb_config *cfg, const struct nb_case *c, struct nb_error *err)
{
	struct nb_case pc;
	for (uint32_t i = 0; nb_plan_probe_case(c, i, &pc); i++) {
		struct nb_error why = { { 0 } };
		if (nb_plan_probe_agent_port(&pc))
			pc.params.port = 1;
		if (pc.engine->validate && !pc.engine->validate(&pc.params, &why))
			return nb_error_set(err, "%s:%u:%u: probe %u of case %s: %s", cfg->path,
					    pc.test->line, pc.test->col, i + 1, c->id, why.msg);
	}
	return true;
}

static bool check_engines(const struct nb_config *cfg, const struct nb_plan *plan,
			  struct nb_error *err)
{
	for (size_t i = 0; i < plan->ncases; i++) {
		const struct nb_case *c = &plan->cases[i];
		const struct nb_engine *e = c->engine;
		struct nb_error why = { { 0 } };
		if (e->validate && !e->validate(&c->params, &why))
			return nb_error_set(err, "%s:%u:%u: case %s: %s", cfg->path, c->test->line,
					    c->test->col, c->id, why.msg);
		if (!check_probes(cfg, c, err))
			return false;
	}
	return true;
}

static bool matches(const char *id, const char *const *filters, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(filters[i], id, 0) == 0)
			return true;
	return n == 0;
}

static bool apply_filters(const struct nb_config *cfg, struct nb_plan *plan,
			  const char *const *filters, size_t nfilters, struct nb_error *err)
{
	size_t kept = 0, total = plan->ncases;
	for (size_t i = 0; i < plan->ncases; i++) {
		if (!matches(plan->cases[i].id, filters, nfilters))
			continue;
		plan->cases[kept] = plan->cases[i];
		plan->cases[kept].index = (uint32_t)kept;
		kept++;
	}
	plan->ncases = kept;
	if (kept == 0)
		return nb_error_set(err, "%s: no case matches --filter '%s'%s (expected a glob "
				    "matching some of the %zu case ids; see --dry-run)", cfg->path,
				    filters[0], nfilters > 1 ? " or the others" : "", total);
	return true;
}

static bool expand(const struct nb_config *cfg, struct nb_plan *plan, struct nb_error *err)
{
	size_t total = 0;
	for (size_t i = 0; i < cfg->ntests; i++) {
		total += test_ncases(&cfg->tests[i]);
		if (total > NB_PLAN_MAX_CASES)
			return nb_error_set(err, "%s:%u:%u: the matrix grows past %d cases at test '%s' "
					    "(expected fewer list values)", cfg->path,
					    cfg->tests[i].line, cfg->tests[i].col, NB_PLAN_MAX_CASES,
					    cfg->tests[i].name);
	}
	if (total == 0)
		return nb_error_set(err, "%s: no tests (expected at least one)", cfg->path);
	plan->cases = calloc(total, sizeof(*plan->cases));
	if (!plan->cases)
		return nb_error_set(err, "out of memory");
	for (size_t i = 0; i < cfg->ntests; i++)
		expand_test(&cfg->tests[i], plan->cases, &plan->ncases);
	return true;
}

uint32_t nb_case_slots(const struct nb_case *c)
{
	return c->reps.autorep ? c->reps.min : c->reps.count;
}

/* splitmix64: a tiny, well-mixed generator, the same on every platform (never rand()). */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Random order: shuffle the interleaved order (Fisher-Yates), then renumber each case's
 * repetitions in order of appearance so rep 0 always runs first. */
static bool shuffle(struct nb_plan *plan, uint64_t seed, struct nb_error *err)
{
	uint64_t st = seed;
	for (size_t i = plan->nslots; i > 1; i--) {
		size_t j = (size_t)(splitmix64(&st) % i);
		struct nb_slot tmp = plan->order[i - 1];
		plan->order[i - 1] = plan->order[j];
		plan->order[j] = tmp;
	}
	uint32_t *seen = calloc(plan->ncases, sizeof(*seen));
	if (!seen)
		return nb_error_set(err, "out of memory");
	for (size_t i = 0; i < plan->nslots; i++)
		plan->order[i].rep = seen[plan->order[i].case_index]++;
	free(seen);
	return true;
}

static bool make_order(const struct nb_config *cfg, struct nb_plan *plan, struct nb_error *err)
{
	size_t n = 0;
	uint32_t most = 0;
	for (size_t i = 0; i < plan->ncases; i++) {
		uint32_t s = nb_case_slots(&plan->cases[i]);
		n += s;
		most = s > most ? s : most;
	}
	plan->order = calloc(n, sizeof(*plan->order));
	if (!plan->order)
		return nb_error_set(err, "out of memory");
	for (size_t i = 0; cfg->order == NB_ORDER_SEQUENTIAL && i < plan->ncases; i++)
		for (uint32_t r = 0; r < nb_case_slots(&plan->cases[i]); r++)
			plan->order[plan->nslots++] = (struct nb_slot){ (uint32_t)i, r };
	for (uint32_t r = 0; cfg->order != NB_ORDER_SEQUENTIAL && r < most; r++)
		for (size_t i = 0; i < plan->ncases; i++)
			if (r < nb_case_slots(&plan->cases[i]))
				plan->order[plan->nslots++] = (struct nb_slot){ (uint32_t)i, r };
	return cfg->order != NB_ORDER_RANDOM || shuffle(plan, cfg->seed, err);
}

bool nb_plan_build(const struct nb_config *cfg, const char *const *filters, size_t nfilters,
		   struct nb_plan *plan, struct nb_error *err)
{
	memset(plan, 0, sizeof(*plan));
	bool ok = expand(cfg, plan, err) && check_unique(cfg, plan, err) &&
		  check_engines(cfg, plan, err) && apply_filters(cfg, plan, filters, nfilters, err) &&
		  make_order(cfg, plan, err);
	if (!ok)
		nb_plan_free(plan);
	return ok;
}

void nb_plan_free(struct nb_plan *plan)
{
	if (!plan)
		return;
	free(plan->cases);
	free(plan->order);
	memset(plan, 0, sizeof(*plan));
}

/* nbrun — the paths of a batch's cases: the peers a config's paths: need sessions to (before
 * the ends are reached), and the target each case runs on over the ends' sessions (see
 * batch_ends.h). */
#include "batch_ends.h"

#include <stdio.h>
#include <string.h>

/* The index of the ends' next session for host name not yet taken by this case; nends when
 * none is left. */
static size_t take_end(struct nb_ends *e, bool *taken, const char *name)
{
	for (size_t i = 0; i < e->nends; i++) {
		if (taken[i] || !e->end[i].peer || strcmp(e->end[i].peer, name) != 0)
			continue;
		taken[i] = true;
		return i;
	}
	return e->nends;
}

/* Session i of the ends for host name, not yet taken by this case; NULL when none is left. */
static struct nb_agent_target *take(struct nb_ends *e, bool *taken, const char *name)
{
	size_t i = take_end(e, taken, name);
	return i < e->nends ? &e->end[i].agent : NULL;
}

/* Path k of case c's test as a child of the composite: from local, the agent target of its
 * receiving host's next session; between two agents, a relay over both. */
static bool add_path(struct nb_ends *e, const struct nb_case *c, uint32_t k, bool *taken,
		     struct nb_error *err)
{
	const struct nb_path *tp = &c->test->paths[k];
	char name[200];
	snprintf(name, sizeof(name), "%s->%s", tp->from, tp->to);
	bool local = strcmp(tp->from, NB_HOST_LOCAL) == 0;
	struct nb_agent_target *src = local ? NULL : take(e, taken, tp->from);
	struct nb_agent_target *dst = take(e, taken, tp->to);
	if (!dst || (!local && !src))
		return nb_error_set(err, "case %s: path %s has no agent session", c->id, name);
	struct nb_run_target *kid = &dst->base;
	if (!local) {
		nb_relay_target_init(&e->relay[k], &src->client, &dst->client);
		kid = &e->relay[k].base;
	}
	return nb_paths_target_add(&e->paths, kid, name);
}

/* The ends a working case's loads run on, and their names: its paths: (each from local, the
 * config says), else every session (one: the case's one path, named by no name). */
static size_t working_ends(struct nb_ends *e, const struct nb_case *c, size_t *end,
			   char (*name)[200], struct nb_error *err)
{
	const struct nb_test *t = c->test;
	bool taken[NB_PATHS_MAX] = { false };
	for (uint32_t k = 0; k < t->npaths; k++) {
		if ((end[k] = take_end(e, taken, t->paths[k].to)) == e->nends)
			return nb_error_set(err, "case %s: path local->%s has no agent session", c->id,
					    t->paths[k].to), 0;
		snprintf(name[k], sizeof(name[k]), "local->%s", t->paths[k].to);
	}
	if (t->npaths)
		return t->npaths;
	for (size_t i = 0; i < e->nends; i++) {
		end[i] = i;
		snprintf(name[i], sizeof(name[i]), "%s", e->end[i].name);
	}
	return e->nends;
}

/* A working case: its load on each path's agent, each probe on a companion session of that
 * agent or, agentless, on the local target (toward the one host of a case of one path). */
static struct nb_run_target *working_target(struct nb_ends *e, const struct nb_case *c,
					    struct nb_error *err)
{
	const struct nb_working *w = c->test->working;
	size_t end[NB_PATHS_MAX];
	char name[NB_PATHS_MAX][200];
	size_t n = working_ends(e, c, end, name, err);
	if (!n)
		return NULL;
	nb_working_target_init(&e->working, w->nprobes);
	e->working.agent_port = nb_ends_control_port(e, end[0]);
	struct nb_case pc;
	for (uint32_t i = 0; nb_plan_probe_case(c, i, &pc); i++)
		if (nb_plan_probe_agent_port(&pc) && !e->working.agent_port)
			return nb_error_set(err, "case %s: probe %u (engine %s) has no port: and its agent "
					    "has no control port to connect to (it talks over ssh; "
					    "expected port: in the probe)", c->id, i + 1,
					    pc.engine->name), NULL;
	for (size_t p = 0; p < n; p++)
		nb_working_target_add_load(&e->working, &e->end[end[p]].agent.base, n > 1 ? name[p] : NULL);
	for (size_t p = 0; p < n; p++) {
		size_t mates = 0;
		for (uint32_t i = 0; i < w->nprobes; i++) {
			struct nb_agent_target *m = NULL;
			bool own = nb_engine_agentless(w->probes[i].engine);
			if (own && n > 1)
				return nb_error_set(err, "case %s: probe %u (engine %s) reaches one host by "
						    "itself: a working case on %zu paths takes agent probes "
						    "only", c->id, i + 1, w->probes[i].engine->name, n), NULL;
			if (!own && !(m = nb_ends_mate(e, end[p], mates++, err)))
				return NULL;
			if (!nb_working_target_add(&e->working, m ? &m->base : &e->local.base))
				return nb_error_set(err, "case %s: more than %d probe runs", c->id,
						    NB_WORKING_PROBES), NULL;
		}
	}
	return &e->working.base;
}

struct nb_run_target *nb_ends_target(struct nb_ends *e, const struct nb_case *c, struct nb_error *err)
{
	const struct nb_test *t = c->test;
	bool taken[NB_PATHS_MAX] = { false };
	if (t->working)
		return working_target(e, c, err);
	if (nb_engine_agentless(c->engine))
		return &e->local.base;
	if (!t->npaths && e->nends == 1)
		return &e->end[0].agent.base;
	nb_paths_target_init(&e->paths);
	for (size_t i = 0; !t->npaths && i < e->nends; i++)
		nb_paths_target_add(&e->paths, &e->end[i].agent.base, e->end[i].name);
	for (uint32_t k = 0; k < t->npaths; k++)
		if (!add_path(e, c, k, taken, err))
			return NULL;
	return &e->paths.base;
}

/* Add name `count` times to the batch's sessions (peers) unless there are that many already. */
static bool want_sessions(const char **peers, size_t *npeers, const char *name, size_t count)
{
	size_t have = 0;
	for (size_t i = 0; i < *npeers; i++)
		have += strcmp(peers[i], name) == 0;
	for (; have < count; have++) {
		if (*npeers >= NB_PATHS_MAX)
			return false;
		peers[(*npeers)++] = name;
	}
	return true;
}

/* How often test t uses host name at either end of its paths. */
static size_t uses(const struct nb_test *t, const char *name)
{
	size_t n = 0;
	for (uint32_t i = 0; i < t->npaths; i++)
		n += (strcmp(t->paths[i].from, name) == 0) + (strcmp(t->paths[i].to, name) == 0);
	return n;
}

/* A test without paths: in a config whose other tests name theirs. */
static bool test_named(const char *file, const struct nb_case *c, const struct nb_test *first,
		       struct nb_error *err)
{
	const struct nb_test *t = c->test;
	if (t->npaths || nb_engine_agentless(c->engine))
		return true;
	return nb_error_set(err, "%s:%u:%u: test '%s' names no paths: while test '%s' does: give "
			    "it paths: (or set them in defaults:)", file, t->line, t->col, t->name,
			    first->name);
}

bool nb_batch_config_peers(const struct nb_config *cfg, const struct nb_plan *plan,
			   const char **peers, size_t *npeers, struct nb_error *err)
{
	const struct nb_test *first = NULL;
	*npeers = 0;
	for (size_t c = 0; c < plan->ncases; c++)
		if (plan->cases[c].test->npaths && !first)
			first = plan->cases[c].test;
	if (!first)
		return true;
	for (size_t c = 0; c < plan->ncases; c++) {
		const struct nb_test *t = plan->cases[c].test;
		if (!test_named(cfg->path, &plan->cases[c], first, err))
			return false;
		for (uint32_t i = 0; i < t->npaths; i++) {
			const char *ends[2] = { t->paths[i].from, t->paths[i].to };
			for (int e = 0; e < 2; e++)
				if (strcmp(ends[e], NB_HOST_LOCAL) != 0 &&
				    !want_sessions(peers, npeers, ends[e], uses(t, ends[e])))
					return nb_error_set(err, "%s:%u:%u: test '%s': its paths need more "
							    "than %d agent sessions in one batch",
							    cfg->path, t->line, t->col, t->name,
							    NB_PATHS_MAX);
		}
	}
	return true;
}

/* nbrun — the paths of a batch (see batch.h): path 0 is the batch's own client, and a repeated
 * --peer adds one more control session per agent. Kept apart from batch.c: the paths named in
 * a config (hosts:, paths:) arrive here too. */
#include "batch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"

static void name_path(struct nb_batch_path *p, const char *peer)
{
	p->peer = peer;
	snprintf(p->name, sizeof(p->name), "local->%s", peer ? peer : "embedded");
}

/* Open path i's own session to peer: a name of the config's hosts: (hosts_reach.h), or
 * HOST[:PORT] of a running agent. */
static bool open_path(struct nb_batch *b, size_t i, const char *peer, struct nb_error *err)
{
	struct nb_batch_path *p = &b->paths[i];
	struct sockaddr_storage addr;
	socklen_t len;
	name_path(p, peer);
	p->client = &p->own;
	p->own.ctl.fd = -1;
	nb_facts_init(&p->own.peer_facts);
	const struct nb_host *h = nb_config_host(b->cfg, peer);
	if (h && (!nb_batch_reach(b, err) || !nb_reach_open(b->reach, h->name, &p->own, err)))
		return false;
	if (!h && (!nb_ctl_resolve(peer, NB_DEFAULT_CONTROL_PORT, &addr, &len, err) ||
		   !nb_client_open(&p->own, peer, &addr, len, b->o->secret, &b->waiting.w, err)))
		return false;
	p->own.interrupt = b->o->interrupt;
	return true;
}

enum nb_run_exit nb_batch_connect_paths(struct nb_batch *b, struct nb_error *err)
{
	name_path(&b->paths[0], b->peer);
	b->paths[0].client = &b->client;
	b->npaths = 1;
	size_t want = b->o->npeers > 1 ? b->o->npeers : 1;
	if (want > NB_PATHS_MAX)
		return nb_error_set(err, "%zu --peer: at most %d paths", want, NB_PATHS_MAX), NB_EXIT_USAGE;
	for (size_t i = 1; i < want; i++) {
		if (!open_path(b, i, b->o->peers[i], err))
			return b->paths[i].own.busy ? NB_EXIT_BUSY : NB_EXIT_PEER;
		b->npaths++;
	}
	for (size_t i = 0; i < b->npaths; i++) {
		struct nb_batch_path *p = &b->paths[i];
		struct nb_error cerr = { { 0 } };
		if (!nb_clock_measure(&p->client->ctl, NB_CLOCK_ROUNDS, &p->clock, &cerr))
			return nb_error_set(err, "path %s: clock exchange: %s", p->name, cerr.msg),
			       NB_EXIT_PEER;
	}
	return NB_EXIT_OK;
}

void nb_batch_close_paths(struct nb_batch *b)
{
	for (size_t i = 1; i < b->npaths; i++)
		nb_client_close(&b->paths[i].own);
	b->npaths = b->npaths ? 1 : 0;
}

void nb_batch_abort_paths(struct nb_batch *b)
{
	for (size_t i = 0; i < b->npaths; i++)
		atomic_store(&b->paths[i].client->abort, true);
}

void nb_batch_meta_paths(struct nb_batch *b)
{
	b->meta.npaths = 0;
	for (size_t i = 0; i < b->npaths && i < NB_META_PATHS_MAX; i++) {
		const struct nb_batch_path *p = &b->paths[i];
		b->meta.paths[b->meta.npaths++] = (struct nb_meta_path){
			.name = p->name, .peer = p->peer ? p->peer : NB_META_EMBEDDED_PEER,
			.clock_offset_us = p->clock.known ? (double)p->clock.offset_ns / 1e3 : NAN,
			.control_rtt_us = p->clock.known ? (double)p->clock.rtt_ns / 1e3 : NAN,
		};
	}
}

/* Session i of the batch for host name, not yet taken by this case; NULL when none is left. */
static struct nb_client *take(struct nb_batch *b, bool *taken, const char *name)
{
	for (size_t i = 0; i < b->npaths; i++) {
		if (taken[i] || !b->paths[i].peer || strcmp(b->paths[i].peer, name) != 0)
			continue;
		taken[i] = true;
		return b->paths[i].client;
	}
	return NULL;
}

bool nb_batch_case_paths(struct nb_batch *b, const struct nb_case *c, struct nb_error *err)
{
	const struct nb_test *t = c->test;
	bool taken[NB_PATHS_MAX] = { false };
	b->ncpaths = 0;
	b->cpaths_named = t->npaths > 0;
	for (size_t i = 0; !t->npaths && i < b->npaths; i++) {
		struct nb_case_path *p = &b->cpaths[b->ncpaths++];
		snprintf(p->name, sizeof(p->name), "%s", b->paths[i].name);
		p->src = NULL;
		p->dst = b->paths[i].client;
	}
	for (uint32_t k = 0; k < t->npaths; k++) {
		const struct nb_path *tp = &t->paths[k];
		struct nb_case_path *p = &b->cpaths[b->ncpaths++];
		snprintf(p->name, sizeof(p->name), "%s->%s", tp->from, tp->to);
		bool local = strcmp(tp->from, NB_HOST_LOCAL) == 0;
		p->src = local ? NULL : take(b, taken, tp->from);
		p->dst = take(b, taken, tp->to);
		if (!p->dst || (!local && !p->src))
			return nb_error_set(err, "case %s: path %s has no agent session", c->id, p->name);
	}
	return true;
}

bool nb_batch_multipath(const struct nb_batch *b)
{
	return b->ncpaths > 1 || b->cpaths_named;
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

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
	p->own.fd = -1;
	nb_facts_init(&p->own.peer_facts);
	const struct nb_host *h = nb_config_host(b->cfg, peer);
	if (h && (!nb_batch_reach(b, err) || !nb_reach_open(b->reach, h->name, &p->own, err)))
		return false;
	if (!h && (!nb_ctl_resolve(peer, NB_DEFAULT_CONTROL_PORT, &addr, &len, err) ||
		   !nb_client_open(&p->own, peer, &addr, len, b->o->secret, err)))
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
			return NB_EXIT_PEER;
		b->npaths++;
	}
	for (size_t i = 0; i < b->npaths; i++) {
		struct nb_batch_path *p = &b->paths[i];
		struct nb_error cerr = { { 0 } };
		if (!nb_clock_measure(p->client->fd, NB_CLOCK_ROUNDS, &p->clock, &cerr))
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

/* "local->A;local->B" of a test's paths, for messages. */
static void paths_text(const struct nb_test *t, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (uint32_t i = 0; i < t->npaths && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s->%s", i ? ";" : "",
					 t->paths[i].from, t->paths[i].to);
}

static bool same_targets(const struct nb_test *a, const struct nb_test *b)
{
	if (a->npaths != b->npaths)
		return false;
	for (uint32_t i = 0; i < a->npaths; i++)
		if (strcmp(a->paths[i].to, b->paths[i].to) != 0)
			return false;
	return true;
}

/* A test's paths, if this version runs them: from local, and the first test's set. */
static bool test_paths_ok(const char *file, const struct nb_test *t, const struct nb_test *first,
			  struct nb_error *err)
{
	char mine[600], theirs[600];
	paths_text(t, mine, sizeof(mine));
	for (uint32_t i = 0; i < t->npaths; i++)
		if (strcmp(t->paths[i].from, "local") != 0)
			return nb_error_set(err, "%s:%u:%u: test '%s': path %s->%s runs between two "
					    "remote hosts, which this version does not run yet (paths "
					    "from local only)", file, t->line, t->col, t->name,
					    t->paths[i].from, t->paths[i].to);
	if (first && !same_targets(t, first)) {
		paths_text(first, theirs, sizeof(theirs));
		return nb_error_set(err, "%s:%u:%u: test '%s': paths %s differ from test '%s' (%s): "
				    "this version runs every case of a batch on the same paths", file,
				    t->line, t->col, t->name, mine[0] ? mine : "(none)", first->name,
				    theirs);
	}
	return true;
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
	for (size_t c = 0; c < plan->ncases; c++)
		if (!test_paths_ok(cfg->path, plan->cases[c].test, first, err))
			return false;
	for (uint32_t i = 0; i < first->npaths; i++)
		peers[(*npeers)++] = first->paths[i].to;
	return true;
}

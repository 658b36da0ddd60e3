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

/* nbrun — a batch's ends (see batch_ends.h): its agents' sessions and the local target,
 * reached before any folder exists and closed at the batch's end. */
#include "batch_ends.h"

#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"

void nb_ends_init(struct nb_ends *e, const struct nb_config *cfg, const struct nb_plan *plan,
		  const struct nb_run_opts *o)
{
	memset(e, 0, sizeof(*e));
	e->cfg = cfg;
	e->o = o;
	e->peer = o->peer;
	for (size_t i = 0; i < NB_PATHS_MAX; i++)
		nb_agent_target_init(&e->end[i].agent);
	for (size_t i = 0; i < NB_WORKING_PROBES; i++)
		nb_agent_target_init(&e->mate[i]);
	for (size_t ci = 0; ci < plan->ncases; ci++) {
		const struct nb_working *w = plan->cases[ci].test->working;
		e->need_agent |= !nb_engine_agentless(plan->cases[ci].engine);
		for (uint32_t i = 0; w && i < w->nprobes && !e->own_probe; i++)
			if (nb_engine_agentless(w->probes[i].engine)) {
				e->own_probe = &plan->cases[ci];
				e->own_probe_i = i;
			}
	}
	/* the plan said to those who wait behind it; a --check's session is short, but unsized */
	nb_waiting_init(&e->waiting, o->check_only ? 0 : nb_plan_estimate_s(plan), o->queue_timeout_ms,
			o->verbosity, o->interrupt);
}

struct nb_client *nb_ends_client(struct nb_ends *e)
{
	return &e->end[0].agent.client;
}

uint16_t nb_ends_control_port(const struct nb_ends *e, size_t end)
{
	const char *peer = e->end[end].peer;
	const struct nb_host *h = peer ? nb_config_host(e->cfg, peer) : NULL;
	char host[256];
	uint16_t port = 0;
	struct nb_error err = { { 0 } };
	if (h)
		return h->ssh[0] ? 0 : h->port ? h->port : NB_DEFAULT_CONTROL_PORT;
	if (!peer)
		return e->local_agent ? nb_agent_port(e->local_agent) : 0;
	return nb_ctl_parse_peer(peer, NB_DEFAULT_CONTROL_PORT, host, sizeof(host), &port, &err) ?
	       port : 0;
}

bool nb_ends_reach(struct nb_ends *e, struct nb_error *err)
{
	struct nb_reach_opts ro = { .cfg = e->cfg, .secret = e->o->secret, .push = e->o->push,
				    .interrupt = e->o->interrupt, .verbosity = e->o->verbosity,
				    .wait = &e->waiting.w };
	if (!e->reach)
		e->reach = nb_reach_create(&ro);
	return e->reach || nb_error_set(err, "out of memory");
}

/* The embedded agent on loopback: its console stays quiet (the user's terminal is ours), and a
 * random secret only this process knows keeps other local users out of it. No limits. */
static bool start_local(struct nb_ends *e, char *name, size_t n, struct nb_error *err)
{
	nb_secret_random(&e->local_secret);
	struct nb_agent_opts ao = { .bind = "127.0.0.1", .port = 0, .idle_timeout_s = 3600,
				    .collect_facts = true, .verbosity = -1,
				    .secret = &e->local_secret };
	e->local_agent = nb_agent_create(&ao, err);
	if (!e->local_agent || !nb_agent_start_thread(e->local_agent, err))
		return false;
	snprintf(name, n, "127.0.0.1:%u", nb_agent_port(e->local_agent));
	return true;
}

/* Open session i to peer: a name of the config's hosts: (hosts_reach.h), HOST[:PORT] of a
 * running agent (with secret), or NULL: the embedded agent, started now. */
static bool open_end(struct nb_ends *e, size_t i, const char *peer, const struct nb_secret *secret,
		     struct nb_error *err)
{
	struct nb_end *p = &e->end[i];
	struct nb_client *c = &p->agent.client;
	struct sockaddr_storage addr;
	socklen_t len;
	char name[160];
	p->peer = peer;
	snprintf(p->name, sizeof(p->name), "local->%s", peer ? peer : "embedded");
	const struct nb_host *h = peer ? nb_config_host(e->cfg, peer) : NULL;
	if (h && (!nb_ends_reach(e, err) || !nb_reach_open(e->reach, h->name, c, err)))
		return false;
	if (!peer && !start_local(e, name, sizeof(name), err))
		return false;
	if (!h && (!nb_ctl_resolve(peer ? peer : name, NB_DEFAULT_CONTROL_PORT, &addr, &len, err) ||
		   !nb_client_open(c, peer ? peer : name, &addr, len,
				   peer ? secret : &e->local_secret, &e->waiting.w, err)))
		return false;
	c->interrupt = e->o->interrupt;
	return true;
}

/* Every session: path 0's, then each other --peer's; every agent's clock measured. */
static enum nb_run_exit open_ends(struct nb_ends *e, struct nb_error *err)
{
	size_t want = e->o->npeers > 1 ? e->o->npeers : 1;
	const struct nb_case *own = e->own_probe;
	if (want > 1 && own && !own->test->npaths) /* paths: are the config's to refuse */
		return nb_error_set(err, "case %s: probe %u (engine %s) reaches one host by itself, not "
				    "each of %zu --peer (expected agent probes only)", own->id,
				    e->own_probe_i + 1, own->test->working->probes[e->own_probe_i].engine->name,
				    want), NB_EXIT_USAGE;
	if (!open_end(e, 0, e->peer, e->o->secret, err))
		return nb_ends_client(e)->busy ? NB_EXIT_BUSY : NB_EXIT_PEER;
	e->nends = 1;
	const char *lo = nb_ends_client(e)->ifname;
	e->peer_local = strcmp(lo, "lo") == 0 || strncmp(lo, "veth", 4) == 0;
	if (want > NB_PATHS_MAX)
		return nb_error_set(err, "%zu --peer: at most %d paths", want, NB_PATHS_MAX), NB_EXIT_USAGE;

	for (; e->nends < want; e->nends++)
		if (!open_end(e, e->nends, e->o->peers[e->nends], e->o->secret, err))
			return e->end[e->nends].agent.client.busy ? NB_EXIT_BUSY : NB_EXIT_PEER;
	for (size_t i = 0; i < e->nends; i++) {
		struct nb_end *p = &e->end[i];
		struct nb_error cerr = { { 0 } };
		if (!nb_clock_measure(&p->agent.client.ctl, NB_CLOCK_ROUNDS, &p->clock, &cerr))
			return nb_error_set(err, "path %s: clock exchange: %s", p->name, cerr.msg),
			       NB_EXIT_PEER;
	}
	return NB_EXIT_OK;
}

enum nb_run_exit nb_ends_connect(struct nb_ends *e, struct nb_error *err)
{
	char host[256] = "127.0.0.1";
	uint16_t port;
	const struct nb_host *h = e->peer ? nb_config_host(e->cfg, e->peer) : NULL;
	const char *const *peers = e->o->npeers ? e->o->peers : &e->peer;
	for (size_t i = 0; i < (e->o->npeers ? e->o->npeers : e->peer != NULL); i++)
		if (!nb_reach_peer_name(e->cfg, peers[i], err)) /* a typo of a host of hosts: */
			return NB_EXIT_USAGE;
	if (h)
		snprintf(host, sizeof(host), "%s", h->address);
	else if (e->peer && !nb_ctl_parse_peer(e->peer, NB_DEFAULT_CONTROL_PORT, host, sizeof(host),
					       &port, err))
		return NB_EXIT_USAGE;
	if (!nb_local_target_open(&e->local, host, e->o->interrupt, err))
		return NB_EXIT_PEER;
	if (!e->need_agent) { /* no case needs an agent: open no control session */
		e->peer_local = strcmp(e->local.to.ifname, "lo") == 0;
		return NB_EXIT_OK;
	}
	return open_ends(e, err);
}

/* Open mate m beside end's session: through hosts: for a host of the config, else to the same
 * --peer address or the embedded agent, with a ticket the holder asks for. */
static bool open_mate(struct nb_ends *e, size_t end, struct nb_agent_target *m, struct nb_error *err)
{
	struct nb_client *holder = &e->end[end].agent.client, *c = &m->client;
	const char *peer = e->end[end].peer;
	if (peer && nb_config_host(e->cfg, peer))
		return nb_ends_reach(e, err) && nb_reach_companion(e->reach, peer, holder, c, err);
	char name[160];
	if (!peer)
		snprintf(name, sizeof(name), "127.0.0.1:%u", nb_agent_port(e->local_agent));
	struct sockaddr_storage addr;
	socklen_t len;
	uint8_t ticket[NB_COMPANION_TICKET_LEN];
	struct nb_client_wait w = { .companion = ticket, .interrupt = e->o->interrupt };
	bool ok = nb_client_companion_ticket(holder, ticket, err) &&
		  nb_ctl_resolve(peer ? peer : name, NB_DEFAULT_CONTROL_PORT, &addr, &len, err) &&
		  nb_client_open(c, peer ? peer : name, &addr, len,
				 peer ? e->o->secret : &e->local_secret, &w, err);
	sodium_memzero(ticket, sizeof(ticket));
	return ok;
}

struct nb_agent_target *nb_ends_mate(struct nb_ends *e, size_t end, size_t i, struct nb_error *err)
{
	size_t have = 0;
	for (size_t k = 0; k < e->nmates; k++)
		if (e->mate_end[k] == end && have++ == i)
			return &e->mate[k];
	for (; have <= i; have++) {
		if (e->nmates >= NB_WORKING_PROBES)
			return nb_error_set(err, "more than %d probe sessions in one batch",
					    NB_WORKING_PROBES), NULL;
		struct nb_agent_target *m = &e->mate[e->nmates];
		if (!open_mate(e, end, m, err)) {
			nb_agent_target_init(m);
			return NULL;
		}
		m->client.interrupt = e->o->interrupt;
		e->mate_end[e->nmates++] = end;
	}
	return &e->mate[e->nmates - 1];
}

void nb_ends_close(struct nb_ends *e)
{
	for (size_t i = 0; i < e->nmates; i++) /* before their holder's */
		nb_target_close(&e->mate[i].base);
	e->nmates = 0;
	for (size_t i = 1; i <= NB_PATHS_MAX; i++) /* path 0's last */
		nb_target_close(&e->end[i % NB_PATHS_MAX].agent.base);
	e->nends = 0;
	nb_reach_destroy(e->reach); /* after the BYE: ends the agents started over ssh */
	e->reach = NULL;
	nb_agent_destroy(e->local_agent);
	e->local_agent = NULL;
	sodium_memzero(&e->local_secret, sizeof(e->local_secret));
}

void nb_ends_meta_paths(const struct nb_ends *e, struct nb_meta *meta)
{
	meta->npaths = 0;
	for (size_t i = 0; i < e->nends && i < NB_META_PATHS_MAX; i++) {
		const struct nb_end *p = &e->end[i];
		meta->paths[meta->npaths++] = (struct nb_meta_path){
			.name = p->name, .peer = p->peer ? p->peer : NB_META_EMBEDDED_PEER,
			.clock_offset_us = p->clock.known ? (double)p->clock.offset_ns / 1e3 : NAN,
			.control_rtt_us = p->clock.known ? (double)p->clock.rtt_ns / 1e3 : NAN,
		};
	}
}

/* nbrun — reaching the hosts of `hosts:` for a batch (issue 17): for each host name a plan
 * uses, a connected, authenticated control session (struct nb_client) — its agent started
 * over ssh first (sshlaunch.h, with a fresh random secret per host and batch) or already
 * running at its address: and port: (with its secret_file:, else --secret-file's) — and at
 * the end of the batch every agent this batch started is ended.
 *
 * An agent started over ssh serves one session, over ssh's own stdin and stdout (`serve
 * --stdio`): each opening of an ssh host starts an agent of its own (a host at both ends of
 * two paths of a case has two sessions), while an address host, whose agent serves one
 * session at a time, is opened once per batch. */
#ifndef NB_HOSTS_REACH_H
#define NB_HOSTS_REACH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "auth.h"
#include "client.h"
#include "config.h"
#include "plan.h"

struct nb_reach_opts {
	const struct nb_config *cfg;     /* its hosts: */
	const struct nb_secret *secret;  /* --secret-file's, for address hosts without their own */
	bool push;                       /* copy this binary to each ssh host before starting it */
	const atomic_bool *interrupt;    /* a signal: stop waiting for an agent to start */
	int verbosity;                   /* >= 1: say each agent started */
	const struct nb_client_wait *wait; /* how to wait for a busy agent (NULL: not at all) */
};

struct nb_reach;

/** A reach for o's hosts (nothing is started yet); NULL when out of memory. */
struct nb_reach *nb_reach_create(const struct nb_reach_opts *o);
/** Open c to host name: start its agent over ssh when it has ssh: (the session then runs on
 *  ssh's stream), else connect to address: and port:; shake hands.
 *  False with err "host NAME: ..." (ssh's or the agent's own words); nothing of it is left
 *  running then. An address host is opened once per reach, an ssh host up to NB_PATHS_MAX
 *  times (an agent each). */
bool nb_reach_open(struct nb_reach *r, const char *name, struct nb_client *c, struct nb_error *err);
/** Open c beside holder, a session already open to host name: a companion of it (proto.h
 *  COMPANION, a ticket holder asks for) at an address host, an agent of its own at an ssh host
 *  (each serves one session). False with err "host NAME: ...". */
bool nb_reach_companion(struct nb_reach *r, const char *name, struct nb_client *holder,
			struct nb_client *c, struct nb_error *err);
/** End every agent r started (close the clients first: their BYE ends a session cleanly) and
 *  free r; NULL is a no-op. */
void nb_reach_destroy(struct nb_reach *r);
/** Whether peer (a --peer) may be tried as an address: false with err "unknown host 'vmbb'
 *  (did you mean 'vmb'?)" when it names no host of cfg's hosts:, looks like a typo of one, and
 *  does not resolve (bad input, not an unreachable peer). True for anything else: its own
 *  errors come when it is reached. */
bool nb_reach_peer_name(const struct nb_config *cfg, const char *peer, struct nb_error *err);
/** The names of hosts the plan's paths use, then peer when it is a host of cfg, each once
 *  (local never); returns how many (at most max). */
size_t nb_reach_plan_hosts(const struct nb_config *cfg, const struct nb_plan *plan,
			   const char *peer, const char **names, size_t max);

#endif

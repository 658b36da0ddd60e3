/* nbrun — a batch's ends: every far end its cases run against, opened before any folder
 * exists and closed at its end. They are targets (target.h): an agent target per control
 * session — path 0 is --peer's agent, a hosts: host's (over ssh or at its address) or the
 * embedded one; a repeated --peer or a config's paths: add one per session — and the local
 * target that agentless cases go to (the peer's host, or 127.0.0.1). For the case about to
 * run, nb_ends_target says which target runs it: the local one, one agent target, or a
 * composite over its paths (each an agent target, or a relay between two of them). */
#ifndef NB_BATCH_ENDS_H
#define NB_BATCH_ENDS_H

#include <stdbool.h>
#include <stddef.h>

#include "agent.h"
#include "clock.h"
#include "config.h"
#include "hosts_reach.h"
#include "meta_json.h"
#include "plan.h"
#include "run.h"
#include "target.h"
#include "waiting.h"

/** One agent session of the batch: an end of its cases' paths (a host a case uses twice, e.g.
 *  receiving from two senders, has a session per use: a session runs one test at a time). */
struct nb_end {
	char name[200];              /* "local->HOST[:PORT]" */
	const char *peer;            /* HOST[:PORT] or a hosts: name (NULL: the embedded agent) */
	struct nb_agent_target agent;
	struct nb_clock clock;       /* its agent's clock offset and control round trip */
};

struct nb_ends {
	const struct nb_config *cfg;
	const struct nb_run_opts *o;
	const char *peer;            /* o->peer, or for a resume the peer meta.json names */
	bool need_agent;             /* some case's engine needs an agent (else no control session) */
	const struct nb_case *own_probe; /* a working case with an agentless probe (NULL: none) */
	uint32_t own_probe_i;        /* which of its probes */
	bool peer_local;             /* loopback path: GRO artefacts possible */
	struct nb_agent *local_agent;
	struct nb_secret local_secret; /* the embedded agent's: no other local user can take it */
	struct nb_reach *reach;      /* --peer NAME of hosts:, or --check over hosts: (hosts_reach.h) */
	struct nb_waiting waiting;   /* how its sessions wait for a busy agent (waiting.h) */
	struct nb_local_target local;/* agentless cases */
	struct nb_end end[NB_PATHS_MAX];
	size_t nends;                /* sessions open (0: no case needs an agent, or not yet) */
	/* the case now running (nb_ends_target) */
	struct nb_relay_target relay[NB_PATHS_MAX];
	struct nb_paths_target paths;
	/* a working case's probes beside its load: companion sessions of each path's agent
	 * (proto.h COMPANION; an ssh host's: an agent of their own), opened as its cases first need
	 * them, and the composite over them */
	struct nb_agent_target mate[NB_WORKING_PROBES];
	size_t mate_end[NB_WORKING_PROBES]; /* the end each is a companion of */
	size_t nmates;
	struct nb_working_target working;
};

/** Zero e for cfg, plan and o (nothing opened). */
void nb_ends_init(struct nb_ends *e, const struct nb_config *cfg, const struct nb_plan *plan,
		  const struct nb_run_opts *o);
/** Reach every end: the local target, and when a case needs an agent, path 0's agent
 *  (e->peer, or an embedded one) and every other --peer's, each agent's clock measured.
 *  NB_EXIT_USAGE for a malformed peer, NB_EXIT_PEER when one cannot be reached or refuses
 *  (err names it), NB_EXIT_BUSY when one stayed busy with other batches (--queue-timeout). */
enum nb_run_exit nb_ends_connect(struct nb_ends *e, struct nb_error *err);
/** Make e->reach for the config's hosts on first use; false when out of memory. */
bool nb_ends_reach(struct nb_ends *e, struct nb_error *err);
/** Companion session i of end's agent (opened on first use, closed with the ends; at an ssh
 *  host an agent of its own); NULL with err when it cannot be had. */
struct nb_agent_target *nb_ends_mate(struct nb_ends *e, size_t end, size_t i, struct nb_error *err);
/** The session of path 0 (--peer's or the embedded agent's). */
struct nb_client *nb_ends_client(struct nb_ends *e);
/** The control port of end's agent, as its session reached it: a hosts: host's port (0 for an
 *  ssh host: its agent talks over ssh), --peer's (7575 by default), the embedded agent's. */
uint16_t nb_ends_control_port(const struct nb_ends *e, size_t end);
/** Say BYE to every agent, end those started over ssh and the embedded one. */
void nb_ends_close(struct nb_ends *e);
/** The sessions into meta (names, peers, clocks). */
void nb_ends_meta_paths(const struct nb_ends *e, struct nb_meta *meta);
/** The target case c runs on (batch_paths.c): the local target for an agentless engine; else
 *  over its test's paths: (each use of a host takes the next of its sessions), or without
 *  them local -> every session (repeated --peer): one agent target, or a composite over
 *  several paths or a path between two agents. NULL with err when a path has no session. */
struct nb_run_target *nb_ends_target(struct nb_ends *e, const struct nb_case *c, struct nb_error *err);

#endif

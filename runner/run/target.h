/* nbrun — one way to run a case: a run target (`struct nb_run_target`; `struct nb_target` is
 * the wire's data address, proto.h). The run loop and the sweeps hand a case's SETUP to the
 * case's target with one call, `t->impl->run(t, &run, &res, err)`, whatever is at the far
 * end. Each kind of target is a struct of its own that embeds `struct nb_run_target` and fills it
 * with its `static const struct nb_run_target_impl`; what kind a target is, is its impl pointer
 * (`t->impl == &paths_target_impl`), never a flag (wlroots' backends, backend/multi).
 *
 * The kinds:
 *   agent  (target_agent.c)  one control session: this host sends or receives, the agent is the
 *                            other end (nb_client_test)
 *   relay  (target_agent.c)  two agents' sessions: one sends, the other receives, this host
 *                            only drives them (nb_client_test_relay)
 *   local  (target_local.c)  no agent: the flows of an agentless engine reach their target by
 *                            themselves (nb_solo_test)
 *   paths  (target_paths.c)  a composite over several targets that is itself a target: its
 *                            children start together (pathsync.h), their intervals and results
 *                            are summed, and each child's own result comes back as a part
 * The batch's ends (batch_ends.h) own the sessions and say which target a case runs on. */
#ifndef NB_TARGET_H
#define NB_TARGET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "client.h"
#include "config.h"
#include "pathsync.h"
#include "plan.h"
#include "solo.h"
#include "working.h"

struct nb_run_target;

/** Where a target hands each measured interval, as it comes (a composite's children call it
 *  from their threads, one at a time). */
struct nb_case_sink {
	void *ctx;
	/** Interval k (1-based) of one path: path NULL when the run has one path, else the path's
	 *  name (a composite's child). */
	void (*interval)(void *ctx, const char *path, uint32_t k, const struct nb_span *span,
			 const struct nb_hist *hist);
	/** Interval k's sum over every path of a composite (m: the sum over its paths' rows). */
	void (*sum)(void *ctx, uint32_t k, const struct nb_metrics *m);
	/** Interval k of a part that is a case of its own (a working case's probe: its case pc and
	 *  SETUP psu, named path); NULL: not written. */
	void (*part)(void *ctx, const struct nb_case *pc, const struct nb_msg_setup *psu,
		     const char *path, uint32_t k, const struct nb_span *span,
		     const struct nb_hist *hist);
};

/** One path's own part of a run on a composite: its name, outcome and result (the caller frees
 *  res). */
struct nb_target_part {
	const char *path;
	enum nb_outcome o;
	struct nb_test_result res;
	const struct nb_case *c;          /* a part that is a case of its own (a working case's
					     probe); NULL: the run's case */
};

/** How many probe runs one working case has at most: each of its probes on each of its paths
 *  (the config holds a case to this, with its loads, in the NB_PATHS_MAX parts of a run). */
#define NB_WORKING_PROBES NB_PATHS_MAX

/** A working case's numbers over one run (target_working.c; docs/design.md, "Latency under
 *  working conditions"): each probe's phases, the load's throughput and fairness, RPM. */
struct nb_working_out {
	bool done;                        /* filled (the run measured) */
	uint32_t nprobes;
	struct {
		const struct nb_case *c;
		const char *path;             /* the path it ran on (NULL: the case has one) */
		struct nb_hist_summary phase[NB_PHASES];
		double tm_ns[NB_PHASES];      /* trimmed means (95 %) */
		struct nb_probe_phases pp;    /* idle against loaded */
		struct nb_hist *hist[NB_PHASES]; /* the phases' histograms (owned: the caller frees
						   them, nb_working_out_free) */
	} probe[NB_WORKING_PROBES];
	bool has_self;                    /* the load ran self probes (stream_self.h) */
	struct {                          /* their round trips (ramp and loaded phases only) */
		struct nb_hist_summary phase[NB_PHASES];
		double tm_ns[NB_PHASES];
	} self;
	double up_bps, down_bps, jain;
	char congestion[32];
	struct nb_rpm rpm, idle_rpm;
};

/** One run asked of a target. */
struct nb_target_run {
	const struct nb_case *c;
	const struct nb_msg_setup *su;
	const struct nb_case_sink *sink;
	const char *path;                 /* the name sink calls give this run (NULL: none) */
	struct nb_pathsync *group;        /* NULL: alone; else the runs that start and stop with
					     this one (a composite's children) */
	struct nb_target_part *parts;     /* a composite: each path's own part goes here (at most
					     NB_PATHS_MAX; NULL: not wanted) */
	size_t nparts;                    /* set by run: how many parts it filled */
	uint64_t start_after_ns;          /* START this long after the group's common start (a
					     working case's load; an agent target only) */
	struct nb_working_out *working;   /* a working case's numbers go here (NULL: not wanted) */
};

/** What --check asks of a target: does its far end have what the plan needs. */
struct nb_target_check {
	const struct nb_plan *plan;
	const struct nb_msg_check *need;
	const char *host;                 /* the hosts: name it was opened as (NULL: --peer's or the
					     embedded agent, which run every case without paths:) */
	const char *who;                  /* how its lines on stderr name it ("peer HOST:PORT") */
};

struct nb_run_target_impl {
	const char *kind;                 /* "agent", "relay", "local", "paths" */
	bool burst_run_id;                /* every test takes a run id of its own, even a sweep's
					     calibration burst (an agent that sends on a grant
					     takes each run id once) */
	/** Ask the far end for what chk->plan needs; one line per problem on stderr (naming
	 *  chk->who), and how many. err when it could not be asked. NULL: nothing to ask. */
	size_t (*check)(struct nb_run_target *t, const struct nb_target_check *chk, struct nb_error *err);
	/** Run r->su; NB_OUT_PEER_LOST when the far end was lost (err says why). */
	enum nb_outcome (*run)(struct nb_run_target *t, struct nb_target_run *r,
			       struct nb_test_result *res, struct nb_error *err);
	/** Stop the run in progress as soon as it can (a results file could not be written);
	 *  callable from any thread. */
	void (*abort)(struct nb_run_target *t);
	/** Say goodbye to the far end; safe twice. NULL: nothing to close. */
	void (*close)(struct nb_run_target *t);
};

struct nb_run_target {
	const struct nb_run_target_impl *impl;
	const char *peer;                 /* who answers at the far end, for messages ("?": no one) */
	uint32_t npaths;                  /* how many paths its runs add up (1 but a composite's) */
};

/** --check of t (nothing to ask: 0). */
size_t nb_target_check(struct nb_run_target *t, const struct nb_target_check *chk,
		       struct nb_error *err);
/** Close t (safe on NULL and twice). */
void nb_target_close(struct nb_run_target *t);

/** An agent target: one control session (its client, opened by the batch's ends). */
struct nb_agent_target {
	struct nb_run_target base;
	struct nb_client client;
};
/** Make t a target over its own client (fd -1: not open yet). */
void nb_agent_target_init(struct nb_agent_target *t);
/** Its --check: the agent asked with one CHECK, its limits held against its cases, the data
 *  path to it proven with a PROBE per protocol this host sends it (target_check.c). */
size_t nb_agent_target_check(struct nb_run_target *t, const struct nb_target_check *chk,
			     struct nb_error *err);

/** A relay target: a path between two agents (src sends, dst receives), over their sessions. */
struct nb_relay_target {
	struct nb_run_target base;
	struct nb_client *src, *dst;
};
void nb_relay_target_init(struct nb_relay_target *t, struct nb_client *src, struct nb_client *dst);

/** A local target: where an agentless test goes (the port comes from the case's params). */
struct nb_local_target {
	struct nb_run_target base;
	struct nb_solo_target to;
};
/** Its --check: what this host has of what chk->need asks (target_check.c). */
size_t nb_local_target_check(struct nb_run_target *t, const struct nb_target_check *chk,
			     struct nb_error *err);
/** Make t the local target toward host (a name or address; its port is not theirs), the
 *  local interface toward it found for the interface counters. */
bool nb_local_target_open(struct nb_local_target *t, const char *host,
			  const atomic_bool *interrupt, struct nb_error *err);

/** A working case's composite (target_working.c): its load on each of its paths (a stream test
 *  on an agent target per path: one, or each path of `paths:` / each --peer) and each probe on
 *  each path (an agent target of its own — a companion session of that path's agent — or the
 *  local target for an agentless engine, on one path only), all started together, the loads
 *  after the idle phase. Its children are not its own. */
struct nb_working_target {
	struct nb_run_target base;
	struct nb_run_target *load[NB_PATHS_MAX];
	char lname[NB_PATHS_MAX][200];            /* each load's path, as its rows name it */
	uint32_t nloads;
	struct nb_run_target *probe[NB_WORKING_PROBES]; /* path p's probe i at p * per + i */
	uint32_t nprobes;                         /* probe runs: per x nloads */
	uint32_t per;                             /* the case's probes (on each path) */
	uint16_t agent_port;                      /* the load's agent's control port: a connect
						     probe's without port: (docs/config.md) */
	struct nb_case pc[NB_WORKING_PROBES];     /* the probes' cases and SETUPs of the run now */
	struct nb_msg_setup psu[NB_WORKING_PROBES];
	char name[NB_WORKING_PROBES][16];         /* "probe1" ... */
};
/** Make t the composite of no load and no probe yet, for a case of per probes. */
void nb_working_target_init(struct nb_working_target *t, uint32_t per);
/** Add the load's next path (named name, as a paths composite names its paths; NULL: the one
 *  path of the case); false when t has NB_PATHS_MAX already. */
bool nb_working_target_add_load(struct nb_working_target *t, struct nb_run_target *load,
				const char *name);
/** Add a probe's target (each path's probes after that path's load, in the case's order);
 *  false when t has NB_WORKING_PROBES already. */
bool nb_working_target_add(struct nb_working_target *t, struct nb_run_target *probe);

/** A composite over several targets (its children, not its own: closing it closes none). */
struct nb_paths_target {
	struct nb_run_target base;
	struct nb_run_target *kid[NB_PATHS_MAX];
	char name[NB_PATHS_MAX][200];     /* each child's path, as its rows name it */
};
/** Make t an empty composite. */
void nb_paths_target_init(struct nb_paths_target *t);
/** Add child kid as the path named name; false when t has NB_PATHS_MAX already. */
bool nb_paths_target_add(struct nb_paths_target *t, struct nb_run_target *kid, const char *name);

#endif

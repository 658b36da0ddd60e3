/* nbrun — flows over threads (neper's -T threads -F flows): one thread drives several flows,
 * each as non-blocking steps over one epoll set (level-triggered, a batch per step).
 *
 * A thread per flow at each end makes 4 TCP streams 8 busy threads; on a 2-core host they fight
 * for the cores and lose to a tool that multiplexes its streams in one thread per end. So an
 * engine that can run a flow as steps (its table's `steps`) lets the harness run `threads`
 * threads per end (default: min(flows, the CPUs the engine may use: the `cpus` list, else the
 * process's affinity)), thread t driving a contiguous block of the flows. Where threads = flows
 * the harness runs each flow's blocking body on its own thread, as before.
 *
 * A step is one batch: what one send call, one receive call or a few of them move. Each step
 * says what the flow waits for next (struct nb_flow_wants): readiness of its socket, a time, or
 * both; the loop sleeps until the first of them over all its flows, with an absolute deadline
 * at ns resolution (epoll_pwait2). Each flow keeps its own counters, epochs and pacer: a paced
 * flow's schedule is its own (pace.h), and a wake-up for another flow never sends early.
 *
 * The thread's CPU time is its first flow's (cpu_ns); its other flows count none, so the sum
 * over flows is the threads' and the busiest "flow" is the busiest thread. A thread that drives
 * flows of both roles (bidir with an odd split) counts under its first flow's role.
 */
#ifndef NB_FLOWLOOP_H
#define NB_FLOWLOOP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

#define NB_FLOWLOOP_SLICE_NS 100000000ull /* every flow is stepped at least this often */

/** What a flow waits for before its next step. */
struct nb_flow_wants {
	uint32_t events;        /* EPOLLIN / EPOLLOUT on f->fd; 0 = none */
	uint64_t at_ns;         /* step at this CLOCK_MONOTONIC time (at or before now: at once);
				   0 = no time */
};

/** A flow as non-blocking steps (an engine's table: steps). Its running state is f->run. */
struct nb_flow_steps {
	/** Optional (NULL = every case): whether a case with p runs as steps; false: a thread per
	 *  flow runs its blocking body (a data path the steps do not cover, such as another
	 *  datapath of the same engine). */
	bool (*covers)(const struct nb_params *p);
	/** Set up the flow's running state (on the thread that drives it) and say what it waits
	 *  for; false with f->err set (nothing to close). */
	bool (*open)(struct nb_flow *f, struct nb_flow_wants *w);
	/** One batch, never blocking: events are what fired on f->fd (0: its time came, or the
	 *  slice: every flow is stepped at least every NB_FLOWLOOP_SLICE_NS, so it sees
	 *  nb_flow_quiet). Updates w; returns 1 to go on, 0 when the flow is done, -1 with f->err. */
	int (*step)(struct nb_flow *f, uint32_t events, uint64_t now_ns, struct nb_flow_wants *w);
	/** Free the running state (after open succeeded). */
	void (*close)(struct nb_flow *f);
	/** Optional (NULL: f->fd): the descriptor the loop watches for the flow, asked once after
	 *  open. A flow with no socket of its own for its life (crr: a connection per
	 *  transaction, and a listener every server flow shares) gives its own epoll set, over
	 *  what it waits on at the moment; events then mean that set has something ready. */
	int (*fd)(struct nb_flow *f);
};

/** The CPUs the engine may use: the `cpus` list's length, else the process's affinity (≥ 1). */
uint32_t nb_flow_cpus(const struct nb_params *p);
/** Threads one end runs for nflows flows of e: nflows without steps (or steps that do not
 *  cover p); else `threads` (0: the CPUs, nb_flow_cpus), at most nflows, at least 1. */
uint32_t nb_flow_threads(const struct nb_engine *e, const struct nb_params *p, uint32_t nflows);
/** Flows [*lo, *hi) of thread t of nthreads over nflows: contiguous blocks, sizes differing by
 *  one at most. */
void nb_flow_block(uint32_t t, uint32_t nthreads, uint32_t nflows, uint32_t *lo, uint32_t *hi);
/** Drive the n flows with ops until every one is done or stop is set (the calling thread's
 *  body); each flow's error in its f->err. */
void nb_flowloop_run(const struct nb_flow_steps *ops, struct nb_flow *flows, uint32_t n,
		     const atomic_bool *stop);

#endif

/* nbrun — what a finished run's own readings hold against it (docs/engines.md, "When a run is
 * not a result").
 *
 * A stall of the measuring process. Each end reads its counters at its ticks, every `interval`
 * after its baseline (timeline.h). A tick that comes late means that end's process did not run:
 * stopped (SIGSTOP), starved on a loaded host, swapped out. Its threads neither sent nor read
 * meanwhile, so the interval measured the process, not the network, and the ticks it owed
 * then fire back to back (sub-millisecond "intervals"). A tick later than NB_STALL_FRACTION of
 * the interval, and at least NB_STALL_MIN_NS (a loaded scheduler's wake-up delay is no stall),
 * marks the run; the latest such tick is named, with its gap to the reading before it. Whether
 * the measurement stalled with it is told by the end's engine threads: on a loaded host the
 * reading thread alone may wake late while the flows go on (their CPU time keeps its pace, the
 * counts are exact over the rows' real lengths: flagged, still a result); a stopped process
 * stops them too (less than NB_STALL_PACE of their pace before: the run is no result).
 *
 * Counters no honest pair of ends can show. Every cumulative counter only grows (the live gap
 * count of a UDP receiver excepted, and a TCP receiver's bytes once past the window, when its
 * estimate of what waits out of order gives way to the in-order count exactly: tcprx.h): one
 * that goes back is never taken as a wrap. TCP: what a
 * flow's receiver got over the whole flow never exceeds what its sender put on the wire
 * (tcpi_bytes_sent, retransmissions included), both read after the drain, plus what its socket
 * may still have held at its last reading (NB_INFLIGHT_SLACK, or twice `window`); so the
 * window's received bytes are at most the window's sent plus what the sender sent outside it
 * (what was in flight at the window's edges). A receiver that counted nothing while its sender sent is
 * suspect too. UDP: of the datagrams a row counts sent, the receiver counts the distinct ones
 * it got (epochs), never more. And a UDP run whose receivers got no datagram measured no path
 * at all, whether what was sent was lost or the kernel refused every send: nothing received.
 */
#ifndef NB_RUNCHECK_H
#define NB_RUNCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "metrics.h"
#include "session.h"
#include "timeline.h"

#define NB_STALL_FRACTION 0.05            /* a tick later than this share of interval ... */
#define NB_STALL_MIN_NS 50000000ull       /* ... and than 50 ms is late */
#define NB_INFLIGHT_SLACK (64ull << 20)   /* what a TCP socket may hold unsent or in flight */
#define NB_STALL_PACE 0.5                 /* engine threads below this share of their CPU pace
					     over a late tick's gap stalled with it */

/** What the run side found against a run that measured (NB_OUT_OK); "" = nothing. */
struct nb_run_verdict {
	char stall[256];        /* "the client's tick 3 came 1.49 s late, 2.49 s after tick 2 ..." */
	double stall_gap_s;     /* that tick's gap to the reading before it (0 = no late tick) */
	bool stalled;           /* the engine threads stalled with a late tick: no result */
	char suspect[320];      /* the first impossible counter, with both numbers */
	char nothing[192];      /* UDP: nothing of what was sent arrived */
};

/** The evidence gathered while a run's readings come in: end 0 is the L side (this host, or
 *  the sending agent of a path between two agents), end 1 the P side (the receiving agent). */
struct nb_runcheck {
	const char *who[2];                /* "client", "agent" ... as the sentences name the ends */
	struct nb_snapshot *last[2];       /* each end's latest reading (its counters) */
	uint32_t last_k[2];
	bool seen[2];                      /* the end has had a reading */
	uint64_t late_ns, gap_ns;          /* the latest tick past the tolerance, and its gap */
	uint32_t late_tick;
	int late_end;
	bool late_ran;                     /* its end's engine threads kept their pace */
	bool stalled;                      /* some late tick's did not */
	char suspect[320];
};

/** Ready rc for a run whose ends are named who0 and who1; false when out of memory. */
bool nb_runcheck_init(struct nb_runcheck *rc, const char *who0, const char *who1);
/** Free what init allocated; a zeroed rc is fine. */
void nb_runcheck_free(struct nb_runcheck *rc);
/** End e's reading s of tick k, stamped on a clock on which that end's timeline started at
 *  start_ns (this host: tl->t0; an agent's stamps count from its START: 0). */
void nb_runcheck_reading(struct nb_runcheck *rc, const struct nb_timeline *tl, int end,
			 uint64_t start_ns, uint32_t k, const struct nb_snapshot *s);
/** The identities of the run's result m over span (directional engines: each flow's sender and
 *  receiver), the ends' readings after the drain lend and pend (pend NULL: no agent). */
void nb_runcheck_result(struct nb_runcheck *rc, const struct nb_engine *e, const struct nb_params *p,
			const struct nb_span *span, const struct nb_snapshot *lend,
			const struct nb_snapshot *pend, const struct nb_metrics *m);
/** What was found, into v. */
void nb_runcheck_verdict(const struct nb_runcheck *rc, const struct nb_timeline *tl,
			 const struct nb_metrics *m, const struct nb_params *p,
			 const struct nb_engine *e, struct nb_run_verdict *v);
/** Every finding of v against its run, the worst first, into out ("suspect counters: ...;
 *  nothing received: ...; timeline stall: ..."); out is left alone when v holds nothing. */
void nb_run_verdict_text(const struct nb_run_verdict *v, char *out, size_t n);
/** Whether v holds anything against its run (a late tick whose threads kept their pace does
 *  not: it is a note). */
bool nb_run_verdict_any(const struct nb_run_verdict *v);
/** A part's stall into the verdict v of the run it is part of (a path of several, a probe of a
 *  working case), named ("path to HOST: the agent's tick 3 ..."): the part's stands when it
 *  stalled and v did not, or both alike and its gap is the longer. */
void nb_run_verdict_take_stall(struct nb_run_verdict *v, const struct nb_run_verdict *part,
			       const char *name);

#endif

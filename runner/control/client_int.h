/* nbrun — one run's readings on the client's side, shared by client.c (this host is the
 * sending end: its own session's readings are L) and client_relay.c (a path between two agents:
 * the sending agent's INTERVAL frames are L). P are the receiving agent's. Interval k pairs
 * both ends' readings at ticks k - 1 and k and at those + lag (timeline.h). */
#ifndef NB_CLIENT_INT_H
#define NB_CLIENT_INT_H

#include "client.h"
#include "lossstats.h"
#include "runcheck.h"
#include "session.h"
#include "timeline.h"

#define NB_PAIRS_SETUP_MS 20000  /* an agent waits 10 s for data connections, then says why */
/* How long after the end the agent's counters may still be on the way: over a control path that
 * loses a third of its segments (UDP far above a shared bottleneck), TCP's retransmission
 * back-off alone reaches 6 s after five losses in a row. */
#define NB_PAIRS_SLACK_NS (15ull * 1000000000ull)
#define NB_PAIRS_RESULT_MS 15000

struct nb_pairs {
	struct nb_client *c;          /* the receiving agent's session */
	const struct nb_engine *e;    /* the engine of su->params.engine */
	const struct nb_msg_setup *su;
	const struct nb_test_sink *sink;
	struct nb_session *s;         /* this host's end (client.c), or NULL */
	struct nb_pathsync *group;    /* the other paths of the case (pathsync.h), or NULL */
	uint64_t start_after_ns;      /* START this long after the group's common start (a working
					 case's load, after its idle phase); it then leaves the group */
	bool left;                    /* it left the group already */
	struct nb_timeline tl;
	uint64_t t0;
	bool with_hist;
	bool with_lag;                /* the flows' schedule lag (nb_case_records_lag) */
	uint32_t first_kept;          /* j: the run's result spans ticks j .. K */
	uint32_t lag;                 /* interval k settles at tick k + lag (timeline.h) */
	uint32_t nslots;              /* K + lag + 1 */
	struct nb_snapshot **L, **P;  /* by tick index, 0 .. K + lag; freed once no longer needed */
	uint32_t next_pair;           /* next interval k to emit */
	struct nb_hist *scratch;
	struct nb_runcheck rc;        /* the evidence against the run (runcheck.h): L is end 0 */
	struct nb_error *err;
	struct nb_lossstats pre;      /* this host's drop counters before START (ok 0: none) */
};

/** Ready t for su (lag, slots); false with out->error set when su has no measured window or
 *  memory ran out. t's c, su, sink, group, err are the caller's, set before. */
bool nb_pairs_init(struct nb_pairs *t, struct nb_test_result *out);
/** Free the readings, the scratch histogram and t->s. */
void nb_pairs_free(struct nb_pairs *t);
/** The last reading: tick K + lag, taken right after the drain. */
uint32_t nb_pairs_last(const struct nb_pairs *t);
/** The run's timeline from t0 on (the common start). */
void nb_pairs_timeline(struct nb_pairs *t, uint64_t t0);
/** Emit every interval whose readings, and those that settled it, are in at both ends. */
void nb_pairs_emit(struct nb_pairs *t);
/** Both ends' last ticks are in. */
bool nb_pairs_closed(const struct nb_pairs *t);
/** NB_OUT_PEER_LOST, with err naming the peer, the case and why. */
enum nb_outcome nb_pairs_lost(struct nb_pairs *t, const struct nb_client *who, const char *why);
/** out->error: "agent: TEXT", the agent's text sanitised. */
void nb_pairs_agent_text(struct nb_test_result *out, const char *text);
/** One frame of who during the run: INTERVAL into side (L or P), ERROR fails the case. */
enum nb_outcome nb_pairs_frame(struct nb_pairs *t, const struct nb_client *who,
			       struct nb_snapshot **side, struct nb_msg *m, struct nb_test_result *out);
/** The run's result over its kept window into out->m (and out->hist); its loss budget the whole
 *  test's, from each end's RESULT (lres, pres: their loss blocks hold the reading before START;
 *  lres NULL: this host's end, t->pre) to its last reading. */
void nb_pairs_result(struct nb_pairs *t, struct nb_test_result *out, const struct nb_snapshot *lres,
		     const struct nb_snapshot *pres);
/** SETUP su to who, then its READY (the port into *port) or ERROR (the case fails). */
enum nb_outcome nb_pairs_setup(struct nb_pairs *t, struct nb_client *who,
			       const struct nb_msg_setup *su, uint16_t *port, struct nb_test_result *out);
/** who's readings after its drain into side, then its RESULT (in *m, the caller frees). */
enum nb_outcome nb_pairs_await_result(struct nb_pairs *t, struct nb_client *who,
				      struct nb_snapshot **side, struct nb_msg *m,
				      struct nb_test_result *out);
/** Stop who's run early: STOP, then whatever it sends up to its RESULT or ERROR;
 *  NB_OUT_INTERRUPTED, or NB_OUT_PEER_LOST when it does not answer. */
enum nb_outcome nb_pairs_stop_end(struct nb_pairs *t, struct nb_client *who);
/** The run's final readings into out: this end's last reading (L) and the receiving agent's
 *  RESULT snapshot; result is freed. Then what the readings hold against the run (out->verdict). */
void nb_pairs_finals(struct nb_pairs *t, struct nb_msg *result, struct nb_test_result *out);
/** Whether the caller or a signal asked the run to stop. */
bool nb_pairs_stop_asked(const struct nb_client *c);

#endif

/* nbrun — a scheduled sender's clock: when request k is due, when to wake for it, and how far
 * behind its schedule it left (icmp, latency under load, connect at a rate).
 *
 * Request k of a flow is due at t0 + k / rate, exactly, and its round trip counts from that due
 * time (no coordinated omission). So two things about the sender itself end up in every sample
 * and are kept apart here:
 *  - the timer's own lateness: a timed wake-up in a VM ends tens of microseconds late. The
 *    sleep before a send therefore ends early by twice the timer's measured lateness (a moving
 *    average of how late earlier timed sleeps ended, a preempted one counted at max_late_ns),
 *    at least min_early_ns, and the sender polls the rest (nb_sched_wake_at);
 *  - what remains, the schedule lag: send time minus due time of every request, recorded into
 *    the flow's lag histogram (nb_flow_lag). A sender the scheduler held back, or one catching
 *    up a backlog, shows there, and the report says when it is of the latency's own scale.
 */
#ifndef NB_SCHEDULE_H
#define NB_SCHEDULE_H

#include <stdint.h>

#include "engine.h"

/** A sender's measure of its timer; min_early_ns and max_late_ns are the engine's choice. */
struct nb_sched_timer {
	uint64_t late_ns;       /* moving average (1/8) of how late a timed sleep ended */
	uint64_t min_early_ns;  /* a sleep before a send ends at least this early */
	uint64_t max_late_ns;   /* a sleep later than this was preempted: counted as this */
};

/** Due time of request k at rate requests/s from t0 (ns): t0 + k / rate, exact for any rate. */
uint64_t nb_sched_due(uint64_t t0, uint64_t k, uint64_t rate);
/** How long before a due time a sleep ends: 2 x late_ns, at least min_early_ns (and so at most
 *  2 x max_late_ns, or min_early_ns when that is larger). */
uint64_t nb_sched_early(const struct nb_sched_timer *t);
/** When a sleep before due should end: due - early, or now when that has passed (poll: it is
 *  due or nearly). */
uint64_t nb_sched_wake_at(const struct nb_sched_timer *t, uint64_t now, uint64_t due);
/** Learn from a timed sleep asked for asked_ns that took slept_ns (one that ended early, on a
 *  reply or a signal, says nothing of the timer: do not call this for it). */
void nb_sched_learn(struct nb_sched_timer *t, uint64_t asked_ns, uint64_t slept_ns);

/** Wait for due: sleep (a slice at a time, to see the flow's stop) until the timer's early
 *  stretch before it, learning how late each timed sleep ended, then poll the clock (connect
 *  and crr at a rate). */
void nb_sched_wait(const struct nb_flow *f, struct nb_sched_timer *tm, uint64_t due);

/** Record that a request due at due_ns left at sent_ns (single writer: the flow's thread). */
static inline void nb_flow_lag(struct nb_flow *f, uint64_t due_ns, uint64_t sent_ns)
{
	if (f->lag_hist)
		nb_hist_record(f->lag_hist, sent_ns > due_ns ? sent_ns - due_ns : 0);
}

#endif

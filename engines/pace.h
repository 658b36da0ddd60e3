/* nbrun — the pacer: a send schedule with a small bounded burst and bounded catch-up.
 *
 * iperf3 paces by comparing the average rate since start with the target, so
 * after any stall it sends at line rate until the average recovers: bursts a
 * bottleneck queue sees as loss. Here packet k has a send time on a fixed
 * schedule (t0 + k / rate); the sender sleeps until just before it (then
 * spins: timer wake-ups on a VM are tens of microseconds late). A wake-up that
 * comes late finds several packets due; at most `burst` leave back to back and
 * the rest of the debt is paid at twice the target rate, so a stall never
 * turns into a line-rate burst and the long-run rate still meets the target.
 * Debt older than NB_PACE_MAX_DEBT_NS is forgiven (the sender was late: busy,
 * descheduled or pushed back, and the achieved rate says so); the send times
 * forgiven are counted, so a short run can say it was the sender that fell
 * behind. The largest burst actually sent is reported.
 */
#ifndef NB_PACE_H
#define NB_PACE_H

#include <stdbool.h>
#include <stdint.h>

#define NB_PACE_MAX_DEBT_NS 10000000ull /* 10 ms */

/* The rate is a fraction, num / den packets per second: a bit rate paces datagrams of size bytes
 * as num = bits/s, den = 8 * size, with no rounding to whole packets per second (50 kbit/s of
 * 1400 B datagrams is 4.46 datagrams/s, not 5). */
struct nb_pacer {
	uint64_t interval_ns;   /* whole ns between packets at the target rate (0 = unpaced) */
	uint64_t next_ns;       /* scheduled send time of the next packet */
	uint64_t gate_ns;       /* while paying debt: no release before this time */
	uint32_t burst;         /* most packets released at once */
	uint32_t max_run;       /* most packets released at once so far (the largest burst) */
	uint64_t forgiven;      /* send times dropped from the schedule as forgiven debt, so far */
	uint64_t frac_num, frac_den, frac_acc; /* exact: interval = frac_den / frac_num ns, remainder carried */
};

/** Start a pacer for num / den packets per second (num 0 = unpaced; den ≥ 1, den ≤ 2^24 so that
 *  1e9 · den fits), first send at now_ns. */
void nb_pacer_init(struct nb_pacer *p, uint64_t num, uint64_t den, uint32_t burst, uint64_t now_ns);
/** The rule alone, at time now_ns (no clock, no sleep): how many packets may leave now (≤ max,
 *  max ≥ 1; max when unpaced), or 0 and in *wait_ns how long until one may. Moves the schedule
 *  past forgiven debt and sets the gate; the caller then reports what it sent (nb_pacer_sent). */
uint32_t nb_pacer_due(struct nb_pacer *p, uint64_t now_ns, uint32_t max, uint64_t *wait_ns);
/** nb_pacer_due on the clock: sleeps (then spins the last 50 us) until packets are due.
 *  Returns 0 only when stop became true while waiting. */
uint32_t nb_pacer_wait(struct nb_pacer *p, uint32_t max, const _Atomic bool *stop);
/** Record that n packets were sent (advances the schedule by n send times). */
void nb_pacer_sent(struct nb_pacer *p, uint32_t n);

#endif

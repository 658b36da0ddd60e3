/* nbrun — the pacer: a send schedule with a small bounded burst and bounded catch-up.
 *
 * iperf3 paces by comparing the average rate since start with the target, so
 * after any stall it sends at line rate until the average recovers: bursts a
 * bottleneck queue sees as loss. Here packet k has a send time on a fixed
 * schedule (t0 + k / rate). A wake-up that comes late finds several packets
 * due; at most `burst` leave back to back and the rest of the debt is paid at
 * twice the target rate, so a stall never turns into a line-rate burst and the
 * long-run rate still meets the target. Debt older than NB_PACE_MAX_DEBT_NS is
 * forgiven (the sender was late: busy, descheduled or pushed back, and the
 * achieved rate says so); the send times forgiven are counted, so a short run
 * can say it was the sender that fell behind. The largest burst actually sent
 * is reported.
 *
 * Sleeping, not spinning. Spinning until each send time is accurate but takes a
 * core from the host being measured. So the sender wakes once per *batch*: the
 * number of packets that fall in NB_PACE_WAKE_NS at the target rate, at most
 * half the burst, leaving the other half as slack. It sleeps (absolute deadline,
 * 1 ns timer slack) until the batch's last packet is due and sends the batch in
 * one call: a packet never leaves before its send time. A wake-up late by less
 * than the slack ((burst - batch) packets' worth of time) still sends at most
 * `burst` packets at once, so it needs no spinning at all. The pacer measures
 * how late its timed wake-ups come (a moving average, `lead_ns`); only the part
 * of that lateness the slack cannot absorb is spent spinning before a deadline,
 * plus NB_PACE_SPIN_NS when a deadline is that close anyway. On a quiet host
 * the pacer spins a few microseconds per batch; on a loaded VM with slow timers
 * and a high rate it spins more, since the burst bound leaves it no choice.
 */
#ifndef NB_PACE_H
#define NB_PACE_H

#include <stdbool.h>
#include <stdint.h>

#define NB_PACE_MAX_DEBT_NS 10000000ull /* 10 ms */
#define NB_PACE_WAKE_NS 50000ull        /* a batch is at most this much of the schedule */
#define NB_PACE_SPIN_NS 4000ull         /* a deadline this close is spun to, not slept to */
#define NB_PACE_MAX_LEAD_NS 200000ull   /* wake-up lateness counted at most this much */

/* The rate is a fraction, num / den packets per second: a bit rate paces datagrams of size bytes
 * as num = bits/s, den = 8 * size, with no rounding to whole packets per second (50 kbit/s of
 * 1400 B datagrams is 4.46 datagrams/s, not 5). */
struct nb_pacer {
	uint64_t interval_ns;   /* whole ns between packets at the target rate (0 = unpaced) */
	uint64_t next_ns;       /* scheduled send time of the next packet */
	uint64_t gate_ns;       /* while paying debt: no release before this time */
	uint32_t burst;         /* most packets released at once */
	uint32_t batch;         /* packets one wake-up waits for (1 .. burst / 2, at least 1) */
	uint32_t max_run;       /* most packets released at once so far (the largest burst) */
	uint64_t forgiven;      /* send times dropped from the schedule as forgiven debt, so far */
	uint64_t lead_ns;       /* moving average of how late a timed wake-up comes */
	uint64_t frac_num, frac_den, frac_acc; /* exact: interval = frac_den / frac_num ns, remainder carried */
};

/** Start a pacer for num / den packets per second (num 0 = unpaced; den ≥ 1, den ≤ 2^24 so that
 *  1e9 · den fits), first send at now_ns; the batch follows from the rate and the burst. */
void nb_pacer_init(struct nb_pacer *p, uint64_t num, uint64_t den, uint32_t burst, uint64_t now_ns);
/** The rule alone, at time now_ns (no clock, no sleep): how many packets may leave now (≤ max,
 *  max ≥ 1; max when unpaced), or 0 and in *wait_ns how long until a batch may. Moves the
 *  schedule past forgiven debt and sets the gate; the caller then reports what it sent
 *  (nb_pacer_sent). */
uint32_t nb_pacer_due(struct nb_pacer *p, uint64_t now_ns, uint32_t max, uint64_t *wait_ns);
/** Of a wait of wait_ns, how long to sleep in the kernel (the rest is spun); 0 = spin it all. */
uint64_t nb_pacer_sleep_ns(const struct nb_pacer *p, uint64_t wait_ns);
/** Record that a timed sleep ended late_ns after its deadline (adapts the lead). */
void nb_pacer_woke(struct nb_pacer *p, uint64_t late_ns);
/** nb_pacer_due on the clock: sleeps (spinning only as nb_pacer_sleep_ns says) until packets
 *  are due. Returns 0 only when stop became true while waiting. */
uint32_t nb_pacer_wait(struct nb_pacer *p, uint32_t max, const _Atomic bool *stop);
/** Record that n packets were sent (advances the schedule by n send times). */
void nb_pacer_sent(struct nb_pacer *p, uint32_t n);

#endif

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
 * The burst is a time, not a count (the `burst` key, NB_PACE_BURST_DEFAULT_NS): at most the
 * packets due within that time of the first leave together (nb_pace_burst_of), one at least.
 * The sender sleeps with an absolute deadline (clock_nanosleep TIMER_ABSTIME on the schedule
 * itself, 1 ns timer slack) until a *batch* is due, its last packet's send time, and sends it: a
 * packet never leaves before its send time, and a release larger than one send call takes the
 * next calls at once, with no sleep between. A wake-up costs the same whatever it sends, so the
 * batch is as large as the burst allows once the timer's lateness is provided for: a wake-up
 * late by L finds ⌊L / interval⌋ more packets due, so the batch leaves that many of the burst
 * as slack (nb_pace_batch_of, from the measured lateness `lead_ns`, a moving average), and a
 * wake-up that late still sends at most `burst` (nb_pace_slack_ns): no spinning at all, and a
 * wake-up per batch, fewer than one per (burst - lateness) of time. Only when the timer's
 * lateness is more than the burst's time does the batch shrink to one packet and the pacer stop
 * sleeping that much earlier and spin the rest (nb_pace_spin_ns: the rule alone). With the
 * default burst a timer tens of microseconds late never spins; a burst asked for below the
 * timer's lateness costs a core, and that is what it asks for.
 */
#ifndef NB_PACE_H
#define NB_PACE_H

#include <stdbool.h>
#include <stdint.h>

#define NB_PACE_MAX_DEBT_NS 10000000ull /* 10 ms */
#define NB_PACE_BURST_DEFAULT_NS 250000ull /* the burst key's default: measured, docs/engines.md */
#define NB_PACE_BURST_MAX_NS NB_PACE_MAX_DEBT_NS /* no more is ever owed at once */
#define NB_PACE_BURST_MAX 1048576u      /* most packets a burst holds, whatever the rate */
#define NB_PACE_MAX_LEAD_NS 200000ull   /* wake-up lateness counted at most this much */

/* The rate is a fraction, num / den packets per second: a bit rate paces datagrams of size bytes
 * as num = bits/s, den = 8 * size, with no rounding to whole packets per second (50 kbit/s of
 * 1400 B datagrams is 4.46 datagrams/s, not 5). */
struct nb_pacer {
	uint64_t interval_ns;   /* whole ns between packets at the target rate (0 = unpaced) */
	uint64_t next_ns;       /* scheduled send time of the next packet */
	uint64_t gate_ns;       /* while paying debt: no release before this time */
	uint32_t burst;         /* most packets released at once: those due within burst_ns, >= 1 */
	uint32_t batch;         /* packets one wake-up waits for: the burst less the lateness */
	uint32_t run_left;      /* of the last release, packets not yet sent (it spans send calls) */
	uint32_t max_run;       /* most packets released at once so far (the largest burst) */
	uint64_t slack_ns;      /* a wake-up at most this late still finds at most burst due */
	uint64_t forgiven;      /* send times dropped from the schedule as forgiven debt, so far */
	uint64_t lag_due_ns;    /* the last release's oldest packet: its send time ... */
	uint64_t lag_at_ns;     /* ... and when it was released (its schedule lag is the difference) */
	bool lag_new;           /* a release not yet taken by the caller's lag record */
	uint64_t lead_ns;       /* moving average of how late a timed wake-up comes */
	uint64_t frac_num, frac_den, frac_acc; /* exact: interval = frac_den / frac_num ns, remainder carried */
};

/** The rule alone: the packets a burst of burst_ns holds at interval_ns between packets, those
 *  due within burst_ns of the first: ⌊burst_ns / interval⌋ + 1, at most NB_PACE_BURST_MAX
 *  (interval 0, faster than 1e9/s: the most). */
uint32_t nb_pace_burst_of(uint64_t burst_ns, uint64_t interval_ns);
/** The rule alone: the packets one wake-up waits for, the most (1 .. burst) whose slack covers a
 *  timer lateness_ns late: burst + 1 - ⌈(lateness + 1) / interval⌉. */
uint32_t nb_pace_batch_of(uint32_t burst, uint64_t interval_ns, uint64_t lateness_ns);
/** The rule alone: how late a wake-up for a batch of batch packets (of a burst of burst) may come
 *  and still find at most burst due: (burst - batch + 1) intervals, less 1 ns. */
uint64_t nb_pace_slack_ns(uint32_t burst, uint32_t batch, uint64_t interval_ns);
/** The rule alone: how long before a deadline to stop sleeping and spin, for a timer that wakes
 *  lateness_ns late: the lateness the slack cannot absorb, 0 (sleep it all) when it fits. */
uint64_t nb_pace_spin_ns(uint64_t slack_ns, uint64_t lateness_ns);
/** Start a pacer for num / den packets per second (num 0 = unpaced; den ≥ 1, den ≤ 2^24 so that
 *  1e9 · den fits) with bursts of burst_ns of its schedule, first send at now_ns; the burst in
 *  packets follows from the rate, the batch and the slack from it and the lateness (none yet). */
void nb_pacer_init(struct nb_pacer *p, uint64_t num, uint64_t den, uint64_t burst_ns,
		   uint64_t now_ns);
/** The rule alone, at time now_ns (no clock, no sleep): how many packets may leave now (≤ max,
 *  max ≥ 1; max when unpaced), or 0 and in *wait_ns how long until a batch may. Moves the
 *  schedule past forgiven debt and sets the gate; a release of more than max leaves the rest
 *  due at the next call. The caller then reports what it sent (nb_pacer_sent). */
uint32_t nb_pacer_due(struct nb_pacer *p, uint64_t now_ns, uint32_t max, uint64_t *wait_ns);
/** Of a wait of wait_ns, how long to sleep in the kernel (the rest is spun, nb_pace_spin_ns of
 *  the measured lateness); 0 = spin it all. */
uint64_t nb_pacer_sleep_ns(const struct nb_pacer *p, uint64_t wait_ns);
/** Record that a timed sleep ended late_ns after its deadline (adapts the lead, nb_pacer_set_lead). */
void nb_pacer_woke(struct nb_pacer *p, uint64_t late_ns);
/** Take lead_ns as the timer's lateness: the batch and the slack follow (nb_pace_batch_of). */
void nb_pacer_set_lead(struct nb_pacer *p, uint64_t lead_ns);
/** nb_pacer_due on the clock: sleeps (spinning only as nb_pacer_sleep_ns says) until packets
 *  are due. Returns 0 only when stop became true while waiting. */
uint32_t nb_pacer_wait(struct nb_pacer *p, uint32_t max, const _Atomic bool *stop);
/** Record that n packets were sent (advances the schedule by n send times, and the release). */
void nb_pacer_sent(struct nb_pacer *p, uint32_t n);

#endif

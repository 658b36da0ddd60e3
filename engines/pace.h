/* nbrun — the pacer: a token bucket with a small bounded burst.
 *
 * iperf3 paces by comparing the average rate since start with the target, so
 * after any stall it sends at line rate until the average recovers: bursts a
 * bottleneck queue sees as loss. Here each packet has a send time on a fixed
 * schedule (t0 + k / rate); the sender sleeps until just before the next send
 * time and may send at most `burst` packets late ones at once, after which the
 * schedule is moved forward (credit is lost, not hoarded). The largest burst
 * actually sent is reported, so a result shows how smooth the offered load was.
 */
#ifndef NB_PACE_H
#define NB_PACE_H

#include <stdbool.h>
#include <stdint.h>

struct nb_pacer {
	uint64_t interval_ns;   /* ns between packets at the target rate (0 = unpaced) */
	uint64_t next_ns;       /* send time of the next packet */
	uint32_t burst;         /* most packets sent back to back */
	uint32_t max_run;       /* most packets released at once so far (the largest burst) */
	uint64_t frac_num, frac_den, frac_acc; /* exact rate: interval = den/num ns with remainder */
};

/** Start a pacer for `per_second` packets per second (0 = unpaced), first send at now_ns. */
void nb_pacer_init(struct nb_pacer *p, uint64_t per_second, uint32_t burst, uint64_t now_ns);
/** How many packets may be sent now (≤ max); sleeps until the next send time when none may.
 *  Returns 0 only when stop became true while sleeping. */
uint32_t nb_pacer_wait(struct nb_pacer *p, uint32_t max, const _Atomic bool *stop);
/** Record that n packets were sent (advances the schedule by n send times). */
void nb_pacer_sent(struct nb_pacer *p, uint32_t n);

#endif

/* nbrun — token-bucket pacer with a bounded burst, woken once per batch (see pace.h for why):
 * the rules in nb_pacer_due and nb_pacer_sleep_ns, the clock and the sleep in nb_pacer_wait. */
#include "pace.h"

#include <stdatomic.h>
#include <time.h>

#include "io.h"
#include "sock.h"

/* Packets per wake-up: NB_PACE_WAKE_NS of the schedule, at most half the burst, at least 1. */
static uint32_t batch_of(uint64_t interval_ns, uint32_t burst)
{
	uint64_t b = interval_ns ? NB_PACE_WAKE_NS / interval_ns : burst;
	uint32_t most = burst / 2 ? burst / 2 : 1;
	return b < 1 ? 1 : b > most ? most : (uint32_t)b;
}

void nb_pacer_init(struct nb_pacer *p, uint64_t num, uint64_t den, uint32_t burst, uint64_t now_ns)
{
	*p = (struct nb_pacer){ .next_ns = now_ns, .burst = burst ? burst : 1, .batch = 1 };
	if (num == 0)
		return;
	p->frac_num = num;
	p->frac_den = 1000000000ull * (den ? den : 1);
	p->interval_ns = p->frac_den / num;
	p->batch = batch_of(p->interval_ns, p->burst);
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / 1000000000ull),
			       .tv_nsec = (long)(t_ns % 1000000000ull) };
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Packets due at now (the pacer is past its batch's time and its gate); sets the gate when debt
 * remains. */
static uint32_t release(struct nb_pacer *p, uint64_t now, uint32_t max)
{
	uint64_t late = now - p->next_ns;
	if (late > NB_PACE_MAX_DEBT_NS) {
		if (p->interval_ns)
			p->forgiven += (late - NB_PACE_MAX_DEBT_NS) / p->interval_ns;
		p->next_ns = now - NB_PACE_MAX_DEBT_NS;
		late = NB_PACE_MAX_DEBT_NS;
	}
	uint64_t due = 1 + (p->interval_ns ? late / p->interval_ns : p->burst); /* > 1e9/s: a burst */
	uint32_t n = (uint32_t)(due < p->burst ? due : p->burst);
	if (n > max)
		n = max;
	/* What is still owed after these leaves at twice the target rate. */
	p->gate_ns = due > n ? now + n * p->interval_ns / 2 : 0;
	if (n > p->max_run)
		p->max_run = n;
	return n;
}

uint32_t nb_pacer_due(struct nb_pacer *p, uint64_t now_ns, uint32_t max, uint64_t *wait_ns)
{
	*wait_ns = 0;
	if (p->frac_num == 0)
		return max;
	/* A batch waits for its last packet's send time: none leaves early. */
	uint64_t at = p->next_ns + (uint64_t)(p->batch - 1) * p->interval_ns;
	if (p->gate_ns > at)
		at = p->gate_ns;
	if (now_ns < at) {
		*wait_ns = at - now_ns;
		return 0;
	}
	return release(p, now_ns, max);
}

uint64_t nb_pacer_sleep_ns(const struct nb_pacer *p, uint64_t wait_ns)
{
	/* A wake-up this late still finds at most `burst` packets due. */
	uint64_t slack = (uint64_t)(p->burst - p->batch) * p->interval_ns;
	uint64_t early = p->lead_ns > slack ? p->lead_ns - slack : 0;
	if (wait_ns <= early + NB_PACE_SPIN_NS)
		return 0;
	return wait_ns - early;
}

void nb_pacer_woke(struct nb_pacer *p, uint64_t late_ns)
{
	if (late_ns > NB_PACE_MAX_LEAD_NS)
		late_ns = NB_PACE_MAX_LEAD_NS; /* a preempted sleep says little about the timer */
	p->lead_ns = (uint64_t)((int64_t)p->lead_ns + ((int64_t)late_ns - (int64_t)p->lead_ns) / 8);
}

uint32_t nb_pacer_wait(struct nb_pacer *p, uint32_t max, const _Atomic bool *stop)
{
	if (p->frac_num == 0)
		return max; /* unpaced: not even a clock read */
	for (;;) {
		if (atomic_load_explicit(stop, memory_order_relaxed))
			return 0;
		uint64_t now = nb_now_ns(), wait;
		uint32_t n = nb_pacer_due(p, now, max, &wait);
		if (n)
			return n;
		uint64_t slice = nb_pacer_sleep_ns(p, wait);
		if (slice == 0) {
			nb_io_spin_pause();
			continue;
		}
		if (slice > 100000000ull)
			slice = 100000000ull; /* re-check stop at least every 100 ms */
		sleep_until(now + slice);
		uint64_t woke = nb_now_ns();
		nb_pacer_woke(p, woke > now + slice ? woke - now - slice : 0);
	}
}

void nb_pacer_sent(struct nb_pacer *p, uint32_t n)
{
	if (p->frac_num == 0)
		return;
	/* Advance by n exact intervals: 1e9 · den / num, carrying the remainder so the
	 * long-run rate is exact even when the interval is not a whole number of ns. */
	for (uint32_t i = 0; i < n; i++) {
		p->frac_acc += p->frac_den % p->frac_num;
		uint64_t step = p->interval_ns + p->frac_acc / p->frac_num;
		p->frac_acc %= p->frac_num;
		p->next_ns += step;
	}
}

/* nbrun — token-bucket pacer with a bounded burst (see pace.h for why): the rule in
 * nb_pacer_due, the clock and the sleep in nb_pacer_wait. */
#include "pace.h"

#include <stdatomic.h>
#include <time.h>

#include "sock.h"

/* Sleep in the kernel until this close to the send time, then spin: a timer
 * wake-up on a VM is late by tens of microseconds, which would turn into a
 * burst at high rates. */
#define SPIN_NS 50000ull

void nb_pacer_init(struct nb_pacer *p, uint64_t num, uint64_t den, uint32_t burst, uint64_t now_ns)
{
	*p = (struct nb_pacer){ .next_ns = now_ns, .burst = burst ? burst : 1 };
	if (num == 0)
		return;
	p->frac_num = num;
	p->frac_den = 1000000000ull * (den ? den : 1);
	p->interval_ns = p->frac_den / num;
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / 1000000000ull),
			       .tv_nsec = (long)(t_ns % 1000000000ull) };
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Packets due at now (the pacer is past its schedule and its gate); sets the gate when debt remains. */
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
	uint64_t at = p->next_ns > p->gate_ns ? p->next_ns : p->gate_ns;
	if (now_ns < at) {
		*wait_ns = at - now_ns;
		return 0;
	}
	return release(p, now_ns, max);
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
		if (wait > SPIN_NS) {
			uint64_t slice = wait - SPIN_NS;
			if (slice > 100000000ull)
				slice = 100000000ull; /* re-check stop at least every 100 ms */
			sleep_until(now + slice);
		}
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

/* nbrun — token-bucket pacer with a bounded burst (see pace.h for why). */
#include "pace.h"

#include <stdatomic.h>
#include <time.h>

#include "sock.h"

/* Sleep in the kernel until this close to the send time, then spin: a timer
 * wake-up on a VM is late by tens of microseconds, which would turn into a
 * burst at high rates. */
#define SPIN_NS 50000ull

void nb_pacer_init(struct nb_pacer *p, uint64_t per_second, uint32_t burst, uint64_t now_ns)
{
	*p = (struct nb_pacer){ .next_ns = now_ns, .burst = burst ? burst : 1 };
	if (per_second == 0)
		return;
	p->frac_num = per_second;
	p->frac_den = 1000000000ull;
	p->interval_ns = p->frac_den / per_second;
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / 1000000000ull),
			       .tv_nsec = (long)(t_ns % 1000000000ull) };
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

uint32_t nb_pacer_wait(struct nb_pacer *p, uint32_t max, const _Atomic bool *stop)
{
	if (p->frac_num == 0)
		return max;
	for (;;) {
		if (atomic_load_explicit(stop, memory_order_relaxed))
			return 0;
		uint64_t now = nb_now_ns();
		if (now >= p->next_ns) {
			/* Packets due by now, at most the burst; older credit is dropped. */
			uint64_t late = now - p->next_ns;
			uint64_t due = 1 + (p->interval_ns ? late / p->interval_ns : p->burst);
			if (due > p->burst) {
				due = p->burst;
				p->next_ns = now - (p->burst - 1) * p->interval_ns;
			}
			uint32_t n = (uint32_t)(due < max ? due : max);
			if (n > p->max_run)
				p->max_run = n;
			return n;
		}
		uint64_t wait = p->next_ns - now;
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
	/* Advance by n exact intervals: 1e9 / rate, carrying the remainder so the
	 * long-run rate is exact even when 1e9 is not a multiple of the rate. */
	for (uint32_t i = 0; i < n; i++) {
		p->frac_acc += p->frac_den % p->frac_num;
		uint64_t step = p->interval_ns + p->frac_acc / p->frac_num;
		p->frac_acc %= p->frac_num;
		p->next_ns += step;
	}
}

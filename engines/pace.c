/* nbrun — token-bucket pacer with a burst of bounded time, woken once per batch (see pace.h for
 * why): the rules in nb_pace_*, nb_pacer_due and nb_pacer_sleep_ns, the clock and the sleep in
 * nb_pacer_wait. */
#include "pace.h"

#include <stdatomic.h>
#include <time.h>

#include "io.h"
#include "sock.h"

uint32_t nb_pace_burst_of(uint64_t burst_ns, uint64_t interval_ns)
{
	uint64_t n = interval_ns ? burst_ns / interval_ns + 1 : NB_PACE_BURST_MAX;
	return n > NB_PACE_BURST_MAX ? NB_PACE_BURST_MAX : (uint32_t)n;
}

uint32_t nb_pace_batch_of(uint32_t burst, uint64_t interval_ns, uint64_t lateness_ns)
{
	if (interval_ns == 0)
		return burst;
	/* Late by L, a wake-up finds ⌊L / interval⌋ more due than its batch: leave that many. */
	uint64_t room = (lateness_ns + interval_ns) / interval_ns; /* ⌈(L + 1) / interval⌉ */
	return room >= burst ? 1 : (uint32_t)(burst + 1 - room);
}

uint64_t nb_pace_slack_ns(uint32_t burst, uint32_t batch, uint64_t interval_ns)
{
	/* Late by L, a wake-up finds batch + ⌊L / interval⌋ due: at most burst while L is less than
	 * (burst - batch + 1) intervals. */
	uint64_t room = burst >= batch ? (uint64_t)(burst - batch) + 1 : 0;
	return room && interval_ns ? room * interval_ns - 1 : 0;
}

uint64_t nb_pace_spin_ns(uint64_t slack_ns, uint64_t lateness_ns)
{
	return lateness_ns > slack_ns ? lateness_ns - slack_ns : 0;
}

void nb_pacer_init(struct nb_pacer *p, uint64_t num, uint64_t den, uint64_t burst_ns,
		   uint64_t now_ns)
{
	*p = (struct nb_pacer){ .next_ns = now_ns, .burst = 1, .batch = 1 };
	if (num == 0)
		return;
	p->frac_num = num;
	p->frac_den = 1000000000ull * (den ? den : 1);
	p->interval_ns = p->frac_den / num;
	p->burst = nb_pace_burst_of(burst_ns, p->interval_ns);
	p->batch = nb_pace_batch_of(p->burst, p->interval_ns, 0);
	p->slack_ns = nb_pace_slack_ns(p->burst, p->batch, p->interval_ns);
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / 1000000000ull),
			       .tv_nsec = (long)(t_ns % 1000000000ull) };
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Packets due at now (the pacer is past its batch's time and its gate), at most the burst; sets
 * the gate when debt remains. What max leaves of the release goes at the next calls. */
static uint32_t release(struct nb_pacer *p, uint64_t now, uint32_t max)
{
	uint64_t late = now - p->next_ns;
	p->lag_due_ns = p->next_ns; /* how far behind its schedule, forgiven debt included */
	p->lag_at_ns = now;
	p->lag_new = true;
	if (late > NB_PACE_MAX_DEBT_NS) {
		if (p->interval_ns)
			p->forgiven += (late - NB_PACE_MAX_DEBT_NS) / p->interval_ns;
		p->next_ns = now - NB_PACE_MAX_DEBT_NS;
		late = NB_PACE_MAX_DEBT_NS;
	}
	uint64_t due = 1 + (p->interval_ns ? late / p->interval_ns : p->burst); /* > 1e9/s: a burst */
	uint32_t n = (uint32_t)(due < p->burst ? due : p->burst);
	/* What is still owed after these leaves at twice the target rate. */
	p->gate_ns = due > n ? now + n * p->interval_ns / 2 : 0;
	if (n > p->max_run)
		p->max_run = n;
	p->run_left = n;
	return n < max ? n : max;
}

uint32_t nb_pacer_due(struct nb_pacer *p, uint64_t now_ns, uint32_t max, uint64_t *wait_ns)
{
	*wait_ns = 0;
	if (p->frac_num == 0)
		return max;
	if (p->run_left) /* the rest of a release: due already */
		return p->run_left < max ? p->run_left : max;
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
	uint64_t spin = nb_pace_spin_ns(p->slack_ns, p->lead_ns);
	return wait_ns > spin ? wait_ns - spin : 0;
}

void nb_pacer_woke(struct nb_pacer *p, uint64_t late_ns)
{
	if (late_ns > NB_PACE_MAX_LEAD_NS)
		late_ns = NB_PACE_MAX_LEAD_NS; /* a preempted sleep says little about the timer */
	nb_pacer_set_lead(p, (uint64_t)((int64_t)p->lead_ns + ((int64_t)late_ns - (int64_t)p->lead_ns) / 8));
}

void nb_pacer_set_lead(struct nb_pacer *p, uint64_t lead_ns)
{
	p->lead_ns = lead_ns;
	if (p->frac_num == 0)
		return;
	p->batch = nb_pace_batch_of(p->burst, p->interval_ns, lead_ns);
	p->slack_ns = nb_pace_slack_ns(p->burst, p->batch, p->interval_ns);
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
			nb_io_spin_pause(); /* the burst is shorter than the timer's lateness */
			continue;
		}
		if (slice > 100000000ull)
			slice = 100000000ull; /* re-check stop at least every 100 ms */
		/* The deadline is the schedule's own (the batch's time, less what is spun), absolute:
		 * the time spent between the clock read and the sleep is not added to it. */
		uint64_t deadline = now + slice;
		sleep_until(deadline);
		uint64_t woke = nb_now_ns();
		nb_pacer_woke(p, woke > deadline ? woke - deadline : 0);
	}
}

void nb_pacer_sent(struct nb_pacer *p, uint32_t n)
{
	if (p->frac_num == 0)
		return;
	p->run_left = n < p->run_left ? p->run_left - n : 0;
	/* Advance by n exact intervals: 1e9 · den / num, carrying the remainder so the
	 * long-run rate is exact even when the interval is not a whole number of ns. */
	for (uint32_t i = 0; i < n; i++) {
		p->frac_acc += p->frac_den % p->frac_num;
		uint64_t step = p->interval_ns + p->frac_acc / p->frac_num;
		p->frac_acc %= p->frac_num;
		p->next_ns += step;
	}
}

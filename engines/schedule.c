/* nbrun — a scheduled sender's clock (see schedule.h). */
#include "schedule.h"

#include <time.h>

#include "io.h"
#include "sock.h"

uint64_t nb_sched_due(uint64_t t0, uint64_t k, uint64_t rate)
{
	return t0 + k / rate * 1000000000ull + k % rate * 1000000000ull / rate;
}

uint64_t nb_sched_early(const struct nb_sched_timer *t)
{
	uint64_t e = 2 * t->late_ns;
	return e > t->min_early_ns ? e : t->min_early_ns;
}

uint64_t nb_sched_wake_at(const struct nb_sched_timer *t, uint64_t now, uint64_t due)
{
	uint64_t early = nb_sched_early(t);
	return due > now + early ? due - early : now;
}

void nb_sched_learn(struct nb_sched_timer *t, uint64_t asked_ns, uint64_t slept_ns)
{
	uint64_t late = slept_ns > asked_ns ? slept_ns - asked_ns : 0;
	if (late > t->max_late_ns)
		late = t->max_late_ns;
	t->late_ns = (uint64_t)((int64_t)t->late_ns + ((int64_t)late - (int64_t)t->late_ns) / 8);
}

void nb_sched_wait(const struct nb_flow *f, struct nb_sched_timer *tm, uint64_t due)
{
	uint64_t now;
	while (!nb_flow_quiet(f) && (now = nb_now_ns()) < due) {
		uint64_t wake = nb_sched_wake_at(tm, now, due), slice = NB_IO_SLICE_MS * 1000000ull;
		if (wake <= now) {
			nb_io_spin_pause();
			continue;
		}
		uint64_t ns = wake - now < slice ? wake - now : slice;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ns };
		if (nanosleep(&ts, NULL) == 0)
			nb_sched_learn(tm, ns, nb_now_ns() - now);
	}
}

/* A scheduled sender's clock (engines/schedule.h) as pure rules: due times exact for any rate,
 * when a sleep before a send ends, and what a timed sleep teaches about the timer. No clock is
 * read here: every case gives its own instants. */
#include <criterion/criterion.h>

#include "schedule.h"

#define US 1000ull

Test(schedule, due_times_are_exact_for_any_rate)
{
	static const struct { uint64_t k, rate, due; } t[] = {
		{ 0, 200, 1000 },
		{ 1, 200, 1000 + 5000000 },
		{ 3, 3, 1000 + 1000000000 },
		{ 2, 3, 1000 + 666666666 },          /* floor of 2/3 s, never rounded up */
		{ 1000003, 1000000, 1000 + 1000003000 },
		{ 7, 7000000, 1000 + 1000 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(nb_sched_due(1000, t[i].k, t[i].rate), t[i].due, "k %llu at %llu/s",
			     (unsigned long long)t[i].k, (unsigned long long)t[i].rate);
}

/* The sleep before a send ends 2 x the timer's lateness early (at least the floor); closer to
 * the due time than that, the sender polls (wakes now). */
Test(schedule, a_sleep_ends_twice_the_timers_lateness_before_the_send)
{
	static const struct { uint64_t late, min_early, now, due, wake; const char *why; } t[] = {
		{ 0, 60 * US, 0, 1000 * US, 940 * US, "unmeasured timer: the floor" },
		{ 50 * US, 60 * US, 0, 1000 * US, 900 * US, "2 x 50 us above the floor" },
		{ 20 * US, 60 * US, 0, 1000 * US, 940 * US, "2 x 20 us below the floor" },
		{ 50 * US, 0, 0, 1000 * US, 900 * US, "no floor" },
		{ 0, 0, 0, 1000 * US, 1000 * US, "a punctual timer sleeps to the due time" },
		{ 50 * US, 60 * US, 950 * US, 1000 * US, 950 * US, "inside the early stretch: poll" },
		{ 50 * US, 60 * US, 900 * US, 1000 * US, 900 * US, "exactly early before it: poll" },
		{ 50 * US, 60 * US, 2000 * US, 1000 * US, 2000 * US, "already late: send now" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct nb_sched_timer tm = { .late_ns = t[i].late, .min_early_ns = t[i].min_early,
					     .max_late_ns = 200 * US };
		cr_expect_eq(nb_sched_wake_at(&tm, t[i].now, t[i].due), t[i].wake, "%s: wake %llu",
			     t[i].why, (unsigned long long)nb_sched_wake_at(&tm, t[i].now, t[i].due));
	}
}

/* What a timed sleep teaches: its lateness into a 1/8 moving average; an early end counts as
 * punctual; a preempted sleep counts at most max_late (so the early stretch stays bounded). */
Test(schedule, the_timer_learns_its_lateness_and_bounds_a_preempted_sleep)
{
	static const struct { uint64_t late, asked, slept, after; const char *why; } t[] = {
		{ 0, 1000 * US, 1080 * US, 10 * US, "80 us late: an eighth of it" },
		{ 80 * US, 1000 * US, 1080 * US, 80 * US, "as late as the average: unchanged" },
		{ 80 * US, 1000 * US, 1000 * US, 70 * US, "punctual: down by an eighth" },
		{ 80 * US, 1000 * US, 990 * US, 70 * US, "ended early: counted punctual" },
		{ 0, 1000 * US, 51000 * US, 25 * US, "preempted 50 ms: counted as 200 us" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct nb_sched_timer tm = { .late_ns = t[i].late, .min_early_ns = 60 * US,
					     .max_late_ns = 200 * US };
		nb_sched_learn(&tm, t[i].asked, t[i].slept);
		cr_expect_eq(tm.late_ns, t[i].after, "%s: %llu", t[i].why,
			     (unsigned long long)tm.late_ns);
	}
	struct nb_sched_timer tm = { .late_ns = 0, .min_early_ns = 60 * US, .max_late_ns = 200 * US };
	for (int i = 0; i < 200; i++)
		nb_sched_learn(&tm, 1000 * US, 1000 * 1000 * US);
	cr_expect_leq(nb_sched_early(&tm), 400 * US, "however often preempted, at most 2 x max_late");
}

/* Every request's send time minus its due time into the flow's lag histogram; early counts 0. */
Test(schedule, the_lag_of_each_request_is_recorded)
{
	struct nb_flow f = { .lag_hist = nb_hist_create() };
	cr_assert_not_null(f.lag_hist);
	nb_flow_lag(&f, 1000, 1000);
	nb_flow_lag(&f, 1000, 651000);
	nb_flow_lag(&f, 5000, 4000);
	struct nb_hist_summary s;
	nb_hist_summarize(f.lag_hist, &s);
	cr_expect_eq(s.count, 3);
	cr_expect_eq(s.max_ns, 650000);
	cr_expect_eq(s.min_ns, 0);
	nb_hist_destroy(f.lag_hist);
	struct nb_flow none = { 0 };
	nb_flow_lag(&none, 0, 1); /* a flow without a lag histogram records nothing, and survives */
}

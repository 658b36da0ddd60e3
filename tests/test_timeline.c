/* The run timeline both ends follow: event order and times, cut last tick, omit baseline. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "timeline.h"

#define S 1000000000ull
#define MS 1000000ull

struct ev {
	enum nb_tl_event e;
	uint64_t at;     /* ns after t0 */
	uint32_t tick;
};

/* Drain a timeline by jumping to each next event; returns how many events were written. */
static size_t run(struct nb_timeline *tl, struct ev *out, size_t max)
{
	size_t n = 0;
	uint64_t next;
	while ((next = nb_timeline_next(tl)) != UINT64_MAX && n < max) {
		uint32_t tick = 99;
		enum nb_tl_event e = nb_timeline_take(tl, next, &tick);
		cr_assert_neq(e, NB_TL_NONE, "an event due at its own time fires");
		out[n++] = (struct ev){ e, next - tl->t0, e == NB_TL_MEASURE || e == NB_TL_END ? 0 : tick };
	}
	return n;
}

Test(timeline, warmup_then_baseline_then_ticks_with_the_last_one_cut_at_the_duration)
{
	struct nb_timeline tl;
	nb_timeline_init(&tl, 1000, 2 * S, 0, 2500 * MS, S);
	struct ev ev[16];
	size_t n = run(&tl, ev, 16);
	const struct ev want[] = {
		{ NB_TL_BASELINE, 2 * S, 0 }, { NB_TL_MEASURE, 2 * S, 0 }, { NB_TL_TICK, 3 * S, 1 },
		{ NB_TL_TICK, 4 * S, 2 }, { NB_TL_TICK, 4500 * MS, 3 }, { NB_TL_END, 4500 * MS, 0 },
	};
	cr_assert_eq(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(ev[i].e, want[i].e, "event %zu", i);
		cr_assert_eq(ev[i].at, want[i].at, "event %zu at %llu", i, (unsigned long long)ev[i].at);
		cr_assert_eq(ev[i].tick, want[i].tick, "event %zu", i);
	}
	cr_assert_eq(tl.nticks, 3);
}

Test(timeline, the_measure_phase_starts_when_omit_ends_even_between_ticks)
{
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, 0, 1500 * MS, 3 * S, S);
	struct ev ev[16];
	size_t n = run(&tl, ev, 16);
	cr_assert_eq(n, 6);
	cr_assert_eq(ev[1].e, NB_TL_TICK);
	cr_assert_eq(ev[1].at, S);
	cr_assert_eq(ev[2].e, NB_TL_MEASURE);
	cr_assert_eq(ev[2].at, 1500 * MS);
	cr_assert_eq(ev[3].e, NB_TL_TICK);
	cr_assert_eq(nb_timeline_first_kept(&tl), 2, "the result starts at the first tick after omit");
}

Test(timeline, omit_on_a_tick_starts_the_measure_phase_before_that_tick)
{
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, 0, 2 * S, 4 * S, S);
	struct ev ev[16];
	size_t n = run(&tl, ev, 16);
	cr_assert_eq(n, 7); /* baseline, tick 1, measure, ticks 2-4, end */
	cr_assert_eq(ev[2].e, NB_TL_MEASURE);
	cr_assert_eq(ev[2].at, 2 * S);
	cr_assert_eq(ev[3].e, NB_TL_TICK);
	cr_assert_eq(ev[3].at, 2 * S);
	cr_assert_eq(ev[3].tick, 2);
	cr_assert_eq(nb_timeline_first_kept(&tl), 2);
}

Test(timeline, nothing_fires_early_and_a_late_poll_catches_up_in_order)
{
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, S, 0, 2 * S, S);
	uint32_t tick = 7;
	cr_assert_eq(nb_timeline_take(&tl, S - 1, &tick), NB_TL_NONE);
	cr_assert_eq(tick, 7, "no event leaves the tick alone");
	enum nb_tl_event seen[8];
	size_t n = 0;
	enum nb_tl_event e;
	while ((e = nb_timeline_take(&tl, 10 * S, &tick)) != NB_TL_NONE && n < 8)
		seen[n++] = e;
	const enum nb_tl_event want[] = { NB_TL_BASELINE, NB_TL_MEASURE, NB_TL_TICK, NB_TL_TICK, NB_TL_END };
	cr_assert_eq(n, 5);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(seen[i], want[i], "event %zu", i);
	cr_assert_eq(nb_timeline_next(&tl), UINT64_MAX);
}

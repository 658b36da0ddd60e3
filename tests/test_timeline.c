/* The run timeline both ends follow: tick order and times, cut last tick, omit baseline. */
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
		out[n++] = (struct ev){ e, next - tl->t0, tick };
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
		{ NB_TL_BASELINE, 2 * S, 0 }, { NB_TL_TICK, 3 * S, 1 }, { NB_TL_TICK, 4 * S, 2 },
		{ NB_TL_TICK, 4500 * MS, 3 },
	};
	cr_assert_eq(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(ev[i].e, want[i].e, "event %zu", i);
		cr_assert_eq(ev[i].at, want[i].at, "event %zu at %llu", i, (unsigned long long)ev[i].at);
		cr_assert_eq(ev[i].tick, want[i].tick, "event %zu", i);
	}
	cr_assert_eq(tl.nticks, 3);
}

/* Nobody stops at the last tick: the senders stop once both ends closed it (the runner). */
Test(timeline, the_last_tick_ends_the_timeline)
{
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, 0, 0, 3 * S, S);
	struct ev ev[16];
	cr_assert_eq(run(&tl, ev, 16), 4, "baseline and ticks 1-3, no other event");
	cr_assert_eq(nb_timeline_next(&tl), UINT64_MAX);
}

/* An interval stays open at the receiver for as many ticks as the drain lasts (500 ms of UDP in
 * flight), at least one, at most what the epoch slots hold. */
Test(timeline, the_settle_lag_spans_the_drain)
{
	static const struct { uint64_t interval, drain; uint32_t lag; } cases[] = {
		{ S, 500 * MS, 1 }, { 100 * MS, 500 * MS, 5 }, { 300 * MS, 500 * MS, 2 },
		{ S, 0, 1 }, { 10 * MS, 500 * MS, 50 }, { 10 * MS, 60 * S, NB_EPOCH_LAG_MAX },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_timeline tl;
		nb_timeline_init(&tl, 0, 0, 0, 100 * S, cases[i].interval);
		cr_expect_eq(nb_timeline_settle_lag(&tl, cases[i].drain), cases[i].lag, "case %zu", i);
	}
}

Test(timeline, the_result_starts_at_the_tick_where_omit_ends)
{
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, 0, 2 * S, 4 * S, S);
	cr_assert_eq(nb_timeline_first_kept(&tl), 2);
	nb_timeline_init(&tl, 0, 0, 0, 4 * S, S);
	cr_assert_eq(nb_timeline_first_kept(&tl), 0, "no omit: from the baseline");
}

Test(timeline, nothing_fires_early_and_a_late_poll_catches_up_in_order)
{
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, S, 0, 2 * S, S);
	uint32_t tick = 7;
	cr_assert_eq(nb_timeline_take(&tl, S - 1, &tick), NB_TL_NONE);
	cr_assert_eq(tick, 7, "no event leaves the tick alone");
	enum nb_tl_event seen[8];
	uint32_t ticks[8];
	size_t n = 0;
	enum nb_tl_event e;
	while (n < 8 && (e = nb_timeline_take(&tl, 10 * S, &tick)) != NB_TL_NONE) {
		ticks[n] = tick;
		seen[n++] = e;
	}
	const enum nb_tl_event want[] = { NB_TL_BASELINE, NB_TL_TICK, NB_TL_TICK };
	cr_assert_eq(n, 3);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(seen[i], want[i], "event %zu", i);
		cr_assert_eq(ticks[i], i, "event %zu", i);
	}
	cr_assert_eq(nb_timeline_next(&tl), UINT64_MAX);
}

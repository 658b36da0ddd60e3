/* A log line per event at first, then a count (ratelog.h): the first `burst` events of a window
 * are said in full, the rest counted and said once the window is over, never lost. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "ratelog.h"

/* Events at the given times (ms); what was said in full, and the counts the summaries said. */
struct step {
	uint64_t at;
	bool event;        /* an event (else only a look whether a summary is due) */
	bool say;          /* event: said in full */
	uint32_t summary;  /* look: the count a summary says (0: none due) */
};

static void play(const struct step *s, size_t n)
{
	struct nb_ratelog r;
	nb_ratelog_init(&r, 2, 1000);
	for (size_t i = 0; i < n; i++) {
		uint32_t held = 0;
		uint64_t window = 0;
		if (s[i].event) {
			cr_expect_eq(nb_ratelog_event(&r, s[i].at), s[i].say, "step %zu", i);
			continue;
		}
		bool due = nb_ratelog_due(&r, s[i].at, &held, &window);
		cr_expect_eq(due, s[i].summary > 0, "step %zu", i);
		cr_expect_eq(held, s[i].summary, "step %zu", i);
		cr_expect_eq(window, due ? 1000u : 0u, "step %zu", i);
	}
	nb_ratelog_finish(&r);
}

Test(ratelog, the_first_of_a_window_are_said_the_rest_counted_and_said_once_it_is_over)
{
	const struct step s[] = {
		{ 10, true, true, 0 }, { 20, true, true, 0 }, { 30, true, false, 0 },
		{ 40, true, false, 0 }, { 500, false, false, 0 },  /* the window is not over */
		{ 1010, false, false, 2 },                          /* over: the two counted */
		{ 1020, false, false, 0 },                          /* said once */
		{ 1100, true, true, 0 },                            /* a new window says again */
	};
	play(s, sizeof(s) / sizeof(s[0]));
}

Test(ratelog, a_window_with_nothing_counted_says_no_summary)
{
	const struct step s[] = {
		{ 10, true, true, 0 }, { 2000, false, false, 0 }, { 2010, true, true, 0 },
		{ 2020, true, true, 0 }, { 5000, false, false, 0 },
	};
	play(s, sizeof(s) / sizeof(s[0]));
}

Test(ratelog, at_the_end_any_count_is_said)
{
	const struct step s[] = {
		{ 10, true, true, 0 }, { 11, true, true, 0 }, { 12, true, false, 0 },
		{ UINT64_MAX, false, false, 1 }, { UINT64_MAX, false, false, 0 },
	};
	play(s, sizeof(s) / sizeof(s[0]));
}

/* unit: the line of clients waiting for the agent's session (queue.h) — first come first
 * served, bounded (in all, and per host without a secret), a client that leaves frees its
 * place at once, nobody is admitted while a session runs, and the wait each is told. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <string.h>

#include "client.h"
#include "queue.h"

static struct sockaddr_storage host(const char *ip)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	struct sockaddr_in *a = (struct sockaddr_in *)&ss;
	a->sin_family = AF_INET;
	cr_assert_eq(inet_pton(AF_INET, ip, &a->sin_addr), 1);
	return ss;
}

static uint64_t join(struct nb_queue *q, uint64_t plan_ms, const char *ip)
{
	struct sockaddr_storage p = host(ip);
	uint64_t t = 0;
	cr_assert_eq(nb_queue_join(q, plan_ms, &p, -1, &t), NB_QUEUE_JOINED, "%s", ip);
	return t;
}

Test(queue, the_first_client_takes_the_session_at_once_and_the_next_waits)
{
	struct nb_queue q;
	nb_queue_init(&q, 4, 0);
	cr_assert(nb_queue_take(&q, 60000, 0));
	cr_assert_not(nb_queue_take(&q, 1000, 1), "a second client takes nothing while one runs");
	uint64_t b = join(&q, 1000, "10.0.0.2");
	cr_assert_eq(nb_queue_position(&q, b), 1);
	cr_assert_not(nb_queue_admit(&q, b, 10), "first in line, but the session runs");
	nb_queue_end(&q);
	cr_assert_not(nb_queue_take(&q, 1000, 11), "someone waits: a newcomer does not jump the line");
	cr_assert(nb_queue_admit(&q, b, 12));
	cr_assert_eq(nb_queue_position(&q, b), 0, "admitted: out of the line");
	cr_assert(q.running);
}

Test(queue, first_come_first_served)
{
	struct nb_queue q;
	nb_queue_init(&q, 8, 0);
	cr_assert(nb_queue_take(&q, 0, 0));
	uint64_t t[4];
	for (int i = 0; i < 4; i++)
		t[i] = join(&q, 0, "10.0.0.9");
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(nb_queue_position(&q, t[i]), 1);
		for (int j = i + 1; j < 4; j++)
			cr_assert_not(nb_queue_admit(&q, t[j], 0), "%d before %d", j, i);
		nb_queue_end(&q);
		for (int j = i + 1; j < 4; j++)
			cr_assert_not(nb_queue_admit(&q, t[j], 0), "%d before %d", j, i);
		cr_assert(nb_queue_admit(&q, t[i], 0), "%d in its turn", i);
	}
	cr_assert_eq(q.n, 0);
}

Test(queue, the_line_is_bounded_and_a_place_freed_is_taken_again)
{
	struct nb_queue q;
	nb_queue_init(&q, 2, 0);
	struct sockaddr_storage p = host("10.0.0.3");
	uint64_t t;
	cr_assert(nb_queue_take(&q, 0, 0));
	uint64_t a = join(&q, 0, "10.0.0.1");
	join(&q, 0, "10.0.0.2");
	cr_assert_eq(nb_queue_join(&q, 0, &p, -1, &t), NB_QUEUE_FULL);
	nb_queue_leave(&q, a);
	cr_assert_eq(nb_queue_join(&q, 0, &p, -1, &t), NB_QUEUE_JOINED);
	cr_assert_eq(nb_queue_position(&q, t), 2);
}

Test(queue, no_queue_at_all_with_max_zero)
{
	struct nb_queue q;
	nb_queue_init(&q, 0, 0);
	struct sockaddr_storage p = host("10.0.0.3");
	uint64_t t;
	cr_assert(nb_queue_take(&q, 0, 0));
	cr_assert_eq(nb_queue_join(&q, 0, &p, -1, &t), NB_QUEUE_FULL);
}

Test(queue, more_than_the_ceiling_is_the_ceiling)
{
	struct nb_queue q;
	nb_queue_init(&q, 1000, 0);
	cr_assert_eq(q.max, NB_QUEUE_PLACES_MAX);
}

Test(queue, a_client_that_leaves_frees_its_place_and_those_behind_move_up)
{
	struct nb_queue q;
	nb_queue_init(&q, 4, 0);
	cr_assert(nb_queue_take(&q, 0, 0));
	uint64_t a = join(&q, 0, "10.0.0.1"), b = join(&q, 0, "10.0.0.2"), c = join(&q, 0, "10.0.0.3");
	nb_queue_leave(&q, a);
	cr_assert_eq(nb_queue_position(&q, a), 0);
	cr_assert_eq(nb_queue_position(&q, b), 1, "the second is now first, not second");
	cr_assert_eq(nb_queue_position(&q, c), 2);
	nb_queue_leave(&q, a); /* twice: nothing more happens */
	cr_assert_eq(q.n, 2);
	nb_queue_leave(&q, c); /* the last one */
	cr_assert_eq(nb_queue_position(&q, b), 1);
	nb_queue_end(&q);
	cr_assert_not(nb_queue_admit(&q, a, 0), "gone: never admitted");
	cr_assert(nb_queue_admit(&q, b, 0));
}

Test(queue, without_a_secret_one_host_holds_at_most_its_share)
{
	struct nb_queue q;
	nb_queue_init(&q, 8, 2);
	struct sockaddr_storage p = host("127.0.0.1"), other = host("127.0.0.2");
	uint64_t t;
	cr_assert(nb_queue_take(&q, 0, 0));
	uint64_t first = join(&q, 0, "127.0.0.1");
	join(&q, 0, "127.0.0.1");
	cr_assert_eq(nb_queue_join(&q, 0, &p, -1, &t), NB_QUEUE_HOST_FULL);
	cr_assert_eq(nb_queue_join(&q, 0, &other, -1, &t), NB_QUEUE_JOINED, "another host still may");
	nb_queue_leave(&q, first);
	cr_assert_eq(nb_queue_join(&q, 0, &p, -1, &t), NB_QUEUE_JOINED, "its place was freed");
}

Test(queue, the_wait_is_what_the_running_batch_has_left_plus_the_plans_ahead)
{
	struct nb_queue q;
	nb_queue_init(&q, 4, 0);
	cr_assert(nb_queue_take(&q, 180000, 1000)); /* a 3 min batch, begun at t = 1 s */
	uint64_t a = join(&q, 60000, "10.0.0.1"), b = join(&q, 30000, "10.0.0.2");
	uint64_t c = join(&q, 0, "10.0.0.3"), d = join(&q, 5000, "10.0.0.4");
	cr_assert_eq(nb_queue_wait_ms(&q, a, 61000), 120000, "2 of its 3 min left");
	cr_assert_eq(nb_queue_wait_ms(&q, b, 61000), 180000, "and the 1 min batch ahead");
	cr_assert_eq(nb_queue_wait_ms(&q, c, 61000), 210000);
	cr_assert_eq(nb_queue_wait_ms(&q, d, 61000), NB_QUEUE_UNKNOWN, "one ahead did not say");
	cr_assert_eq(nb_queue_wait_ms(&q, a, 181000), NB_QUEUE_UNKNOWN,
		     "past its plan: nobody can tell when it ends");
	nb_queue_leave(&q, c);
	cr_assert_eq(nb_queue_wait_ms(&q, d, 61000), 210000, "the unsized one left");
	nb_queue_end(&q);
	cr_assert_eq(nb_queue_wait_ms(&q, b, 200000), 60000, "nothing runs: the plans ahead");
	cr_assert(nb_queue_admit(&q, a, 200000));
	cr_assert_eq(nb_queue_wait_ms(&q, b, 230000), 30000, "a's plan, dated from its start");
}

Test(queue, a_running_batch_that_did_not_say_its_plan_leaves_the_wait_unknown)
{
	struct nb_queue q;
	nb_queue_init(&q, 4, 0);
	cr_assert(nb_queue_take(&q, 0, 0));
	uint64_t a = join(&q, 60000, "10.0.0.1");
	cr_assert_eq(nb_queue_wait_ms(&q, a, 10), NB_QUEUE_UNKNOWN);
	cr_assert_eq(nb_queue_wait_ms(&q, a + 100, 10), NB_QUEUE_UNKNOWN, "not in line");
}

Test(queue, places_are_said_as_people_say_them)
{
	const char *want[] = { "th", "st", "nd", "rd", "th", "th" };
	for (uint32_t i = 0; i < 6; i++)
		cr_assert_str_eq(nb_queue_ordinal(i), want[i], "%u", i);
	cr_assert_str_eq(nb_queue_ordinal(11), "th");
	cr_assert_str_eq(nb_queue_ordinal(12), "th");
	cr_assert_str_eq(nb_queue_ordinal(13), "th");
	cr_assert_str_eq(nb_queue_ordinal(21), "st");
	cr_assert_str_eq(nb_queue_ordinal(22), "nd");
	cr_assert_str_eq(nb_queue_ordinal(112), "th");
}

Test(queue, a_waiting_runner_is_told_its_place_and_a_rounded_wait)
{
	struct { uint32_t pos; uint64_t ms; const char *want; } cases[] = {
		{ 2, 150000, "2nd in line, about 3 min" },
		{ 1, 41000, "1st in line, about 45 s" },
		{ 1, 400, "1st in line, about 5 s" },
		{ 3, 4800000, "3rd in line, about 1 h 20 min" },
		{ 1, 64000, "1st in line, about 1 min" },
		{ 1, 3590000, "1st in line, about 1 h" },
		{ 11, NB_QUEUE_UNKNOWN, "11th in line, wait unknown" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char s[96];
		nb_client_wait_str(cases[i].pos, cases[i].ms, s, sizeof(s));
		cr_assert_str_eq(s, cases[i].want);
	}
}

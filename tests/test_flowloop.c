/* Flows over threads, the rules alone (flowloop.h): how flows are split over threads, how many
 * threads a case gets, and several flows' pacers sharing one thread's wake-ups on a simulated
 * clock (no sleep, no timing: exact numbers). */
#include <criterion/criterion.h>

#include "engines.h"
#include "flowloop.h"
#include "pace.h"

Test(flowloop, blocks_cover_every_flow_once_in_order_and_differ_by_one_at_most)
{
	for (uint32_t n = 1; n <= 20; n++)
		for (uint32_t t = 1; t <= n; t++) {
			uint32_t next = 0, small = UINT32_MAX, big = 0;
			for (uint32_t k = 0; k < t; k++) {
				uint32_t lo, hi;
				nb_flow_block(k, t, n, &lo, &hi);
				cr_assert_eq(lo, next, "%u flows over %u: thread %u starts at %u", n, t, k, lo);
				cr_assert_gt(hi, lo, "%u flows over %u: thread %u has a flow", n, t, k);
				next = hi;
				small = hi - lo < small ? hi - lo : small;
				big = hi - lo > big ? hi - lo : big;
			}
			cr_assert_eq(next, n);
			cr_assert_leq(big - small, 1);
		}
	uint32_t lo, hi;
	nb_flow_block(1, 2, 4, &lo, &hi); /* bidir, 2 streams: the reverse flows on thread 1 */
	cr_assert(lo == 2 && hi == 4);
}

Test(flowloop, threads_are_the_flows_at_most_the_cpus_or_what_the_case_says)
{
	struct nb_params p = { .ncpus = 3, .cpus = { 0, 1, 2 } };
	cr_assert_eq(nb_flow_threads(&nb_engine_stream, &p, 8), 3, "the cpus list: 3");
	cr_assert_eq(nb_flow_threads(&nb_engine_stream, &p, 2), 2, "never more than the flows");
	p.threads = 5;
	cr_assert_eq(nb_flow_threads(&nb_engine_pps, &p, 8), 5, "threads: 5");
	cr_assert_eq(nb_flow_threads(&nb_engine_pps, &p, 4), 4, "threads above the flows: one each");
	cr_assert_eq(nb_flow_threads(&nb_engine_icmp, &p, 8), 8, "no steps: a thread per flow");
	cr_assert_eq(nb_flow_threads(&nb_engine_rr, &p, 8), 5, "rr waiting blocked: steps");
	cr_assert_eq(nb_flow_threads(&nb_engine_crr, &p, 8), 5, "crr waiting blocked: steps");
	p.wait = NB_WAIT_SPIN;
	cr_assert_eq(nb_flow_threads(&nb_engine_rr, &p, 8), 8, "rr spinning: a thread per flow");
	cr_assert_eq(nb_flow_threads(&nb_engine_crr, &p, 8), 8, "crr spinning: a thread per flow");
	struct nb_params unpinned = { 0 };
	cr_assert_eq(nb_flow_threads(&nb_engine_stream, &unpinned, 256), nb_flow_cpus(&unpinned));
	cr_assert_geq(nb_flow_cpus(&unpinned), 1);
}

/* Three paced flows on one thread, its timer late by `late` on every timed wake-up: the thread
 * wakes at the earliest time any flow asked for (as nb_flowloop_run does) and steps the flows
 * whose time came. Each flow sends its own schedule exactly: after 1 s, what was due (the
 * schedule's send times up to then), less at most one batch; none leaves before its send time;
 * no release exceeds the flow's burst. */
Test(flowloop, paced_flows_sharing_a_thread_each_keep_their_own_schedule)
{
	enum { N = 3 };
	const uint64_t t0 = 1000000000ull, end = t0 + 1000000000ull, late = 30000;
	const uint64_t bits[N] = { 1000000000ull, 100000000ull, 10000000ull }, den = 8ull * 1400;
	struct nb_pacer p[N];
	uint64_t at[N], sent[N] = { 0 };
	bool timed[N];
	for (int i = 0; i < N; i++) {
		nb_pacer_init(&p[i], bits[i], den, 250000, t0);
		at[i] = t0;
		timed[i] = false;
	}
	uint64_t now = t0;
	while (now < end) {
		for (int i = 0; i < N; i++) {
			if (at[i] > now)
				continue;
			if (timed[i])
				nb_pacer_woke(&p[i], now - at[i]);
			uint64_t wait;
			uint32_t n = nb_pacer_due(&p[i], now, 46, &wait);
			if (n) {
				cr_assert_leq(p[i].next_ns + (uint64_t)(n - 1) * p[i].interval_ns, now,
					      "flow %d: none leaves before its send time", i);
				cr_assert_leq(n, p[i].burst, "flow %d", i);
				nb_pacer_sent(&p[i], n);
				sent[i] += n;
				at[i] = now, timed[i] = false; /* step again at once */
			} else {
				uint64_t sleep = nb_pacer_sleep_ns(&p[i], wait);
				at[i] = now + sleep, timed[i] = sleep > 0;
			}
		}
		uint64_t next = UINT64_MAX;
		bool timer = false;
		for (int i = 0; i < N; i++)
			if (at[i] < next)
				next = at[i], timer = timed[i];
		now = next > now ? next + (timer ? late : 0) : now;
	}
	for (int i = 0; i < N; i++) {
		/* send times in [t0, end]: 1 + (end - t0) / interval, the interval exact as a fraction */
		uint64_t due = 1 + (uint64_t)((double)(end - t0) * (double)bits[i] / (double)den / 1e9);
		cr_assert_leq(sent[i], due, "flow %d: sent %llu of %llu due", i,
			      (unsigned long long)sent[i], (unsigned long long)due);
		cr_assert_geq(sent[i] + p[i].burst, due, "flow %d: sent %llu of %llu due (burst %u)", i,
			      (unsigned long long)sent[i], (unsigned long long)due, p[i].burst);
		cr_assert_leq(p[i].max_run, p[i].burst, "flow %d", i);
		cr_assert_eq(p[i].forgiven, 0, "flow %d: never late enough to forgive", i);
	}
}

static bool covers_tcp_only(const struct nb_params *p)
{
	return p->proto == NB_PROTO_TCP;
}

static bool no_open(struct nb_flow *f, struct nb_flow_wants *w)
{
	(void)f, (void)w;
	return false;
}

Test(flowloop, steps_that_do_not_cover_a_case_leave_it_a_thread_per_flow)
{
	static const struct nb_flow_steps steps = { .covers = covers_tcp_only, .open = no_open };
	struct nb_engine e = { .name = "t", .steps = &steps };
	struct nb_params p = { .proto = NB_PROTO_TCP, .threads = 2 };
	cr_assert_eq(nb_flow_threads(&e, &p, 8), 2);
	p.proto = NB_PROTO_UDP;
	cr_assert_eq(nb_flow_threads(&e, &p, 8), 8, "not covered: a thread per flow");
}

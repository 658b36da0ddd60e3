/* A TCP receiver's arrived bytes (engines/tcprx.h): bytes that waited out of order behind a
 * loss when a window began are not counted in it again when the loss is repaired (issue 21:
 * 64 streams through a shaper read above the wire's ceiling). */
#include <criterion/criterion.h>

#include "tcprx.h"

#define MSS 1448u

static struct nb_tcprx st;

static void setup(void)
{
	st = (struct nb_tcprx){ 0 };
}

TestSuite(tcprx, .init = setup);

Test(tcprx, without_reordering_the_count_is_the_in_order_bytes_even_with_short_segments)
{
	cr_assert_eq(nb_tcprx_arrived(&st, 1000, 10, MSS, 0), 1000);
	/* 100 segments of 100 bytes: data_segs_in x MSS would say 144 800 */
	cr_assert_eq(nb_tcprx_arrived(&st, 11000, 110, MSS, 0), 11000);
	cr_assert_eq(nb_tcprx_arrived(&st, 11000 + 50 * MSS, 160, MSS, 0), 11000 + 50 * MSS);
}

Test(tcprx, segments_behind_a_hole_count_when_they_arrive_not_when_the_hole_fills)
{
	cr_assert_eq(nb_tcprx_arrived(&st, 0, 0, MSS, 0), 0);
	/* tick 1: segment 0 lost, 99 arrive out of order: nothing in order yet */
	cr_assert_eq(nb_tcprx_arrived(&st, 0, 99, MSS, 99), 99ull * MSS);
	/* tick 2 (the window starts here): the retransmission fills the hole, 100 more arrive in
	 * order. In order: 200 segments; arrived since tick 1: 101 segments. */
	uint64_t t2 = nb_tcprx_arrived(&st, 200ull * MSS, 200, MSS, 99);
	cr_assert_eq(t2, 200ull * MSS);
	/* tick 3: 100 more, in order */
	uint64_t t3 = nb_tcprx_arrived(&st, 300ull * MSS, 300, MSS, 99);
	cr_assert_eq(t3 - t2, 100ull * MSS, "the window counts what arrived in it: %llu",
		     (unsigned long long)(t3 - t2));
}

Test(tcprx, the_count_never_goes_back_when_an_estimate_is_forgotten)
{
	nb_tcprx_arrived(&st, 0, 0, MSS, 0);
	uint64_t a = nb_tcprx_arrived(&st, 0, 10, MSS, 10);    /* 10 wait behind a hole */
	cr_assert_eq(a, 10ull * MSS);
	/* the sender stalls (a retransmission time-out): nothing arrives, nothing out of order */
	cr_assert_eq(nb_tcprx_arrived(&st, 0, 10, MSS, 10), a);
	/* the hole fills: 11 segments in order; the count holds until the in-order bytes pass it */
	cr_assert_eq(nb_tcprx_arrived(&st, 11ull * MSS, 11, MSS, 10), 11ull * MSS);
}

Test(tcprx, the_kernels_32_bit_counters_wrap)
{
	nb_tcprx_arrived(&st, 5000000000ull, 0xfffffff0u, MSS, 0xfffffffeu);
	uint64_t a = nb_tcprx_arrived(&st, 5000000000ull, 0x10u, MSS, 0x20u); /* 32 segs, 34 ooo */
	cr_assert_eq(a, 5000000000ull + 32ull * MSS);
}

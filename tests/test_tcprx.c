/* A TCP receiver's arrived bytes (engines/tcprx.h): bytes that waited out of order behind a
 * loss when a window began are not counted in it again when the loss is repaired (issue 21:
 * 64 streams through a shaper read above the wire's ceiling), and without reordering the count
 * is the kernel's in-order count exactly. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "tcprx.h"

#define MSS 1448u
#define LOTS UINT64_MAX

static struct nb_tcprx st;

static void setup(void)
{
	st = (struct nb_tcprx){ 0 };
}

TestSuite(tcprx, .init = setup);

static uint64_t reading(uint64_t bytes, uint32_t segs, uint32_t ooo, uint64_t rmem)
{
	struct nb_tcprx_reading r = { bytes, segs, MSS, ooo, rmem };
	return nb_tcprx_arrived(&st, &r);
}

Test(tcprx, without_reordering_the_count_is_the_in_order_bytes_even_with_short_segments)
{
	cr_assert_eq(reading(1000, 10, 0, LOTS), 1000);
	/* 100 segments of 100 bytes: data_segs_in x MSS would say 144 800 */
	cr_assert_eq(reading(11000, 110, 0, LOTS), 11000);
	cr_assert_eq(reading(11000 + 50 * MSS, 160, 0, LOTS), 11000 + 50 * MSS);
}

Test(tcprx, segments_behind_a_hole_count_when_they_arrive_not_when_the_hole_fills)
{
	cr_assert_eq(reading(0, 0, 0, LOTS), 0);
	/* tick 1: segment 0 lost, 99 arrive out of order: nothing in order yet */
	cr_assert_eq(reading(0, 99, 99, LOTS), 99ull * MSS);
	/* tick 2 (the window starts here): the retransmission fills the hole, 100 more arrive in
	 * order. In order: 200 segments; arrived since tick 1: 101 segments. */
	uint64_t t2 = reading(200ull * MSS, 200, 99, LOTS);
	cr_assert_eq(t2, 200ull * MSS);
	uint64_t t3 = reading(300ull * MSS, 300, 99, LOTS); /* tick 3: 100 more, in order */
	cr_assert_eq(t3 - t2, 100ull * MSS, "the window counts what arrived in it: %llu",
		     (unsigned long long)(t3 - t2));
}

Test(tcprx, the_count_never_goes_back_and_holds_until_in_order_bytes_pass_it)
{
	reading(0, 0, 0, LOTS);
	uint64_t a = reading(0, 10, 10, LOTS); /* 10 wait behind a hole */
	cr_assert_eq(a, 10ull * MSS);
	/* the sender stalls (a retransmission time-out): nothing arrives */
	cr_assert_eq(reading(0, 10, 10, LOTS), a);
	/* the hole fills: 11 segments in order, the 10 that waited among them */
	cr_assert_eq(reading(11ull * MSS, 11, 10, LOTS), 11ull * MSS);
}

Test(tcprx, what_waits_is_never_more_than_the_memory_the_socket_holds)
{
	reading(0, 0, 0, LOTS);
	/* 100 segments out of order, but the socket holds only 20 000 bytes of received data */
	cr_assert_eq(reading(0, 100, 100, 20000), 20000);
	/* the hole fills and everything is read: the count holds until in order passes it */
	cr_assert_eq(reading(15000, 101, 100, 0), 20000);
	cr_assert_eq(reading(30000, 111, 100, 0), 30000);
}

Test(tcprx, segments_are_counted_at_the_flows_own_size_once_it_is_measured)
{
	reading(0, 0, 0, LOTS);
	cr_assert_eq(reading(100000, 100, 0, LOTS), 100000); /* a clean reading: 1000 B/segment */
	/* a loss: 50 segments arrive behind it, as 1000-byte ones, not MSS */
	cr_assert_eq(reading(100000, 150, 7, LOTS), 150000);
	cr_assert_eq(reading(151000, 151, 7, LOTS), 151000);
}

Test(tcprx, the_kernels_32_bit_counters_wrap)
{
	reading(5000000000ull, 0xfffffff0u, 0xfffffffeu, LOTS);
	uint64_t a = reading(5000000000ull, 0x10u, 0x20u, LOTS); /* 32 segments, 34 out of order */
	cr_assert_eq(a, 5000000000ull + 32ull * MSS);
}

Test(tcprx, once_settled_the_whole_flow_counts_the_in_order_bytes_exactly)
{
	reading(0, 0, 0, LOTS);
	reading(0, 10, 10, LOTS); /* an estimate: 10 segments wait */
	cr_assert_eq(nb_tcprx_settled(&st, 9ull * MSS), 9ull * MSS, "only 9 were real");
}

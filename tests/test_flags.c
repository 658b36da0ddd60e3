/* A row's data-path facts (runner/run/flags.c) from both ends' final gauges: which pacing kept
 * the rate, and with the pacer of user space the burst it was given, beside gso= and gro=. The
 * kernel's pacing (fq, TCP's) has no burst of ours, and an unpaced run names neither. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "flags.h"
#include "kpace.h"
#include "pps_xdp.h"
#include "udpgso.h"

/* A run whose sender (the local end's flow 0) paced as how with GSO gso, its receiver (the
 * peer's) GRO gro; the flags of a case with a burst of burst_us. */
static const char *flags_of(enum nb_pacing how, enum nb_gso gso, enum nb_gro gro, uint32_t burst_us)
{
	static struct nb_snapshot l, p;
	static char out[256];
	l = (struct nb_snapshot){ .nflows = 1 };
	p = (struct nb_snapshot){ .nflows = 1 };
	l.flow[0].g[NB_G_PACING] = how;
	l.flow[0].g[NB_G_GSO] = gso;
	p.flow[0].g[NB_G_GRO] = gro;
	struct nb_test_result res = { .lfinal = &l, .pfinal = &p };
	struct nb_params params = { .burst_us = burst_us };
	out[0] = '\0';
	nb_flags_data_path(&res, &params, out, sizeof(out));
	return out;
}

Test(flags, a_user_paced_row_says_its_pacing_and_its_burst)
{
	static const struct {
		enum nb_pacing how;
		enum nb_gso gso;
		enum nb_gro gro;
		uint32_t burst_us;
		const char *want;
	} t[] = {
		{ NB_PACING_USER, NB_GSO_ON, NB_GRO_OFF, 1000, "pacing=user;burst=1ms;gso=on;gro=off" },
		{ NB_PACING_USER, NB_GSO_OFF, NB_GRO_OFF, 250, "pacing=user;burst=250us;gso=off;gro=off" },
		{ NB_PACING_USER, NB_GSO_ON, NB_GRO_OFF, 1500, "pacing=user;burst=1500us;gso=on;gro=off" },
		{ NB_PACING_USER, NB_GSO_ON, NB_GRO_OFF, 0, "pacing=user;burst=0us;gso=on;gro=off" },
		{ NB_PACING_USER, NB_GSO_ON, NB_GRO_OFF, 10000, "pacing=user;burst=10ms;gso=on;gro=off" },
		/* the kernel's pacing: no burst of ours to state */
		{ NB_PACING_FQ, NB_GSO_ON, NB_GRO_OFF, 1000, "pacing=fq;gso=on;gro=off" },
		{ NB_PACING_TCP, NB_GSO_NONE, NB_GRO_NONE, 1000, "pacing=tcp" },
		/* unpaced: neither */
		{ NB_PACING_NONE, NB_GSO_ON, NB_GRO_ON, 1000, "gso=on;gro=on" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_str_eq(flags_of(t[i].how, t[i].gso, t[i].gro, t[i].burst_us), t[i].want,
				 "case %zu", i);
}

/* The facts follow what is already in the list, after a ';'. */
Test(flags, the_facts_are_appended_to_the_notes_before_them)
{
	struct nb_snapshot l = { .nflows = 1 };
	l.flow[0].g[NB_G_PACING] = NB_PACING_USER;
	struct nb_test_result res = { .lfinal = &l };
	struct nb_params params = { .burst_us = 500 };
	char out[64] = "gro-local";
	nb_flags_data_path(&res, &params, out, sizeof(out));
	cr_expect_str_eq(out, "gro-local;pacing=user;burst=500us");
}

/* pps on the xdp datapath (pps_xdp.h): the weaker mode of both ends' flows (copy if any end
 * copies, generic if the receiving end's program runs there), the most queues an end has, and
 * every queue that carried frames, at either end. */
Test(flags, an_xdp_row_says_the_weakest_mode_its_queues_and_the_queues_used)
{
	static struct nb_snapshot l, p;
	l = (struct nb_snapshot){ .nflows = 2 };
	p = (struct nb_snapshot){ .nflows = 2 };
	uint64_t q2 = 2u << 8, q4 = 4u << 8;
	l.flow[0].g[NB_G_XDP] = NB_XDP_G_ON | q2 | 1ull << 16;            /* zero-copy sender, queue 0 */
	l.flow[1].g[NB_G_XDP] = NB_XDP_G_ON | q2 | 1ull << 17;            /* and queue 1 */
	p.flow[0].g[NB_G_XDP] = NB_XDP_G_ON | NB_XDP_G_DRIVER | q4 | 1ull << 19; /* its receiver */
	p.flow[1].g[NB_G_XDP] = NB_XDP_G_ON | NB_XDP_G_DRIVER | q4 | 1ull << 19;
	struct nb_test_result res = { .lfinal = &l, .pfinal = &p };
	struct nb_params params = { 0 };
	char out[256] = "";
	nb_flags_data_path(&res, &params, out, sizeof(out));
	cr_expect_str_eq(out, "xdp=zerocopy;xdp_attach=driver;xdp_queues=4;xdp_used=0,1,3");
	p.flow[1].g[NB_G_XDP] |= NB_XDP_G_COPY | NB_XDP_G_GENERIC;
	out[0] = '\0';
	nb_flags_data_path(&res, &params, out, sizeof(out));
	cr_expect_str_eq(out, "xdp=copy;xdp_attach=generic;xdp_queues=4;xdp_used=0,1,3");
	l = (struct nb_snapshot){ .nflows = 1 };
	p = (struct nb_snapshot){ .nflows = 1 };
	out[0] = '\0';
	nb_flags_data_path(&res, &params, out, sizeof(out));
	cr_expect_str_eq(out, "", "the socket datapath names no xdp fact");
}

/* The whole run of a UDP pps or stream case (docs/reports.md): what every sending flow of
 * either end put on the wire, what every receiving flow took and its own drops, from the last
 * readings; nothing for another engine, TCP, or a run without the peer's last reading. */
Test(flags, a_udp_row_states_its_whole_run_counts_from_both_ends)
{
	static struct nb_snapshot l, p;
	l = (struct nb_snapshot){ .nflows = 2 };
	p = (struct nb_snapshot){ .nflows = 2 };
	l.flow[0].sends = l.flow[1].sends = true; /* forward: the local end sends */
	l.flow[0].c[NB_C_TX_PACKETS] = 1000;
	l.flow[1].c[NB_C_TX_PACKETS] = 2000;
	l.flow[0].c[NB_C_RX_PACKETS] = 7; /* a sender's receive count is not the run's */
	p.flow[0].c[NB_C_RX_PACKETS] = 990;
	p.flow[1].c[NB_C_RX_PACKETS] = 1995;
	p.flow[0].c[NB_C_RCVBUF_DROPS] = 4;
	p.flow[1].c[NB_C_RCVBUF_DROPS] = 1;
	struct nb_test_result res = { .lfinal = &l, .pfinal = &p };
	struct nb_params params = { .proto = NB_PROTO_UDP };
	char out[256] = "";
	nb_flags_totals(&res, &nb_engine_pps, &params, out, sizeof(out));
	cr_expect_str_eq(out, "tx_total=3000;rx_total=2985;rcvbuf_drops_total=5");
	out[0] = '\0';
	nb_flags_totals(&res, &nb_engine_stream, &params, out, sizeof(out));
	cr_expect_str_eq(out, "tx_total=3000;rx_total=2985;rcvbuf_drops_total=5");
	params.proto = NB_PROTO_TCP;
	out[0] = '\0';
	nb_flags_totals(&res, &nb_engine_stream, &params, out, sizeof(out));
	cr_expect_str_eq(out, "", "TCP has no datagram count");
	params.proto = NB_PROTO_UDP;
	nb_flags_totals(&res, &nb_engine_rr, &params, out, sizeof(out));
	cr_expect_str_eq(out, "", "rr counts transactions");
	res.pfinal = NULL;
	nb_flags_totals(&res, &nb_engine_pps, &params, out, sizeof(out));
	cr_expect_str_eq(out, "", "without the peer's last reading, no whole-run count");
}

/* One reader thread per queue (pps_xdp.h): the row counts the flows whose thread read queues. */
Test(flags, an_xdp_row_says_how_many_threads_read_the_queues)
{
	static struct nb_snapshot l, p;
	l = (struct nb_snapshot){ .nflows = 2 };
	p = (struct nb_snapshot){ .nflows = 2 };
	uint64_t q2 = 2u << 8;
	l.flow[0].g[NB_G_XDP] = NB_XDP_G_ON | q2 | 1ull << 16;
	l.flow[1].g[NB_G_XDP] = NB_XDP_G_ON | q2 | 1ull << 17;
	p.flow[0].g[NB_G_XDP] = NB_XDP_G_ON | NB_XDP_G_COPY | NB_XDP_G_DRIVER | NB_XDP_G_READER | q2 | 1ull << 16;
	p.flow[1].g[NB_G_XDP] = NB_XDP_G_ON | NB_XDP_G_COPY | NB_XDP_G_DRIVER | NB_XDP_G_READER | q2 | 3ull << 16;
	struct nb_test_result res = { .lfinal = &l, .pfinal = &p };
	struct nb_params params = { 0 };
	char out[256] = "";
	nb_flags_data_path(&res, &params, out, sizeof(out));
	cr_expect_str_eq(out, "xdp=copy;xdp_attach=driver;xdp_queues=2;xdp_used=0,1;xdp_rx_threads=2");
	p.flow[1].g[NB_G_XDP] &= ~(uint64_t)NB_XDP_G_READER; /* one queue: one thread reads it */
	out[0] = '\0';
	nb_flags_data_path(&res, &params, out, sizeof(out));
	cr_expect_str_eq(out, "xdp=copy;xdp_attach=driver;xdp_queues=2;xdp_used=0,1;xdp_rx_threads=1");
}

/* The metric columns from two ends' snapshots written by hand: the busiest single flow thread
 * and steal (issue 12), each direction of a bidir case in its own columns, and the interface
 * rates in sar's 1024-byte kB (issue 21). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "engines.h"
#include "metrics.h"
#include "params.h"

#define S_NS 1000000000ull

static struct nb_snapshot *snaps[4];

static void setup(void)
{
	for (int i = 0; i < 4; i++) {
		snaps[i] = nb_snapshot_create(false);
		cr_assert_not_null(snaps[i]);
	}
}

static void teardown(void)
{
	for (int i = 0; i < 4; i++)
		nb_snapshot_destroy(snaps[i]);
}

TestSuite(metrics, .init = setup, .fini = teardown);

/* A one-second span on both ends with nflows flows; the flow sends as the client/agent side. */
static struct nb_span span(const struct nb_params *p)
{
	uint32_t n = nb_params_nflows(p);
	for (int i = 0; i < 4; i++) {
		snaps[i]->t_ns = (i % 2) ? 2 * S_NS : S_NS;
		snaps[i]->nflows = n;
		for (uint32_t f = 0; f < n; f++) {
			bool cs = nb_params_client_sends(p, f);
			snaps[i]->flow[f].sends = i < 2 ? cs : !cs;
		}
	}
	/* each end's next reading is the same one: the receivers settled at the tick itself */
	return (struct nb_span){ snaps[0], snaps[1], snaps[2], snaps[3],
				 snaps[0], snaps[1], snaps[2], snaps[3], 0 };
}

static struct nb_params udp(enum nb_dir dir, uint32_t streams, uint64_t rate)
{
	struct nb_params p = { .engine = "stream", .proto = NB_PROTO_UDP, .direction = dir,
			       .size = 1400, .streams = streams, .rate = rate, .tos = -1 };
	return p;
}

Test(metrics, the_busiest_thread_of_each_role_is_not_the_sum_of_threads)
{
	struct nb_params p = udp(NB_DIR_FORWARD, 2, 0);
	struct nb_span s = span(&p);
	snaps[1]->flow[0].cpu_ns = S_NS / 2; /* client senders: 50 % each, 100 % summed */
	snaps[1]->flow[1].cpu_ns = S_NS / 2;
	snaps[1]->engine_cpu_ns = S_NS;
	snaps[3]->flow[0].cpu_ns = 9 * S_NS / 10; /* agent receivers: 90 % and 20 % */
	snaps[3]->flow[1].cpu_ns = S_NS / 5;
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect_float_eq(m.v[NB_COL_CPU_LOCAL_PCT], 100, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_CPU_LOCAL_TX_THREAD_PCT], 50, 1e-9);
	cr_expect(isnan(m.v[NB_COL_CPU_LOCAL_RX_THREAD_PCT]), "the client has no receiving thread");
	cr_expect_float_eq(m.v[NB_COL_CPU_PEER_RX_THREAD_PCT], 90, 1e-9);
	cr_expect(isnan(m.v[NB_COL_CPU_PEER_TX_THREAD_PCT]));
}

Test(metrics, steal_is_reported_apart_from_busy)
{
	struct nb_params p = udp(NB_DIR_FORWARD, 1, 0);
	struct nb_span s = span(&p);
	snaps[0]->host_total_ticks = 1000;
	snaps[1]->host_total_ticks = 1200; /* 200 ticks: 100 busy, 50 steal, 50 idle */
	snaps[1]->host_busy_ticks = 100;
	snaps[1]->host_steal_ticks = 50;
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect_float_eq(m.v[NB_COL_HOST_CPU_LOCAL_PCT], 50, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_HOST_STEAL_LOCAL_PCT], 25, 1e-9);
}

Test(metrics, interface_kB_are_sars_1024_bytes)
{
	struct nb_params p = udp(NB_DIR_FORWARD, 1, 0);
	struct nb_span s = span(&p);
	snaps[0]->has_if = snaps[1]->has_if = true;
	snaps[1]->if_stats[2] = 1024 * 1000; /* rx bytes in one second */
	snaps[1]->if_stats[3] = 2048;
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect_float_eq(m.v[NB_COL_IF_LOCAL_RXKB_S], 1000, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_IF_LOCAL_TXKB_S], 2, 1e-9);
}

/* UDP bidir at 100 Mbit/s each way: the agent's sender held to half its target. */
Test(metrics, bidir_gives_each_direction_its_own_columns)
{
	struct nb_params p = udp(NB_DIR_BIDIR, 1, 100000000);
	p.size = 1250;
	struct nb_span s = span(&p);
	/* flow 0: client -> agent, 12.5 MB in 1 s; flow 1: agent -> client, 6.25 MB (UDP counts
	 * the datagrams each sender sent in its interval and which of them arrived) */
	snaps[1]->flow[0].c[NB_C_TX_SETTLED] = 10000;
	snaps[3]->flow[0].c[NB_C_RX_SETTLED] = 10000;
	snaps[3]->flow[1].c[NB_C_TX_SETTLED] = 5000;
	snaps[1]->flow[1].c[NB_C_RX_SETTLED] = 5000;
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect_float_eq(m.v[NB_COL_RX_BPS], 150e6, 1, "the sum stays the headline");
	cr_expect_float_eq(m.v[NB_COL_FWD_RX_BPS], 100e6, 1);
	cr_expect_float_eq(m.v[NB_COL_REV_RX_BPS], 50e6, 1);
	cr_expect_float_eq(m.v[NB_COL_FWD_TARGET_RATE], 100e6, 1);
	cr_expect_float_eq(m.v[NB_COL_REV_TARGET_RATE], 100e6, 1);
	cr_expect_float_eq(m.v[NB_COL_REV_ACHIEVED_RATE], 50e6, 1);
	cr_expect_float_eq(m.v[NB_COL_TARGET_RATE], 200e6, 1);
	struct nb_metrics f;
	struct nb_params fwd = udp(NB_DIR_FORWARD, 1, 100000000);
	nb_metrics_span(&nb_engine_stream, &fwd, &s, -1, NULL, &f);
	cr_expect(isnan(f.v[NB_COL_FWD_RX_BPS]), "only bidir has per-direction columns");
}

Test(metrics, bidir_loss_is_per_direction)
{
	struct nb_params p = udp(NB_DIR_BIDIR, 1, 100000000);
	struct nb_span s = span(&p);
	snaps[1]->flow[0].c[NB_C_TX_SETTLED] = 1000; /* forward: no loss */
	snaps[3]->flow[0].c[NB_C_RX_SETTLED] = 1000;
	snaps[3]->flow[1].c[NB_C_TX_SETTLED] = 1000; /* reverse: 250 lost */
	snaps[1]->flow[1].c[NB_C_RX_SETTLED] = 750;
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect_float_eq(m.v[NB_COL_LOST], 250, 0);
	cr_expect_float_eq(m.v[NB_COL_LOSS_PCT], 12.5, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_FWD_LOST], 0, 0);
	cr_expect_float_eq(m.v[NB_COL_FWD_LOSS_PCT], 0, 0);
	cr_expect_float_eq(m.v[NB_COL_REV_LOST], 250, 0);
	cr_expect_float_eq(m.v[NB_COL_REV_LOSS_PCT], 25, 1e-9);
}

/* 2001 latency samples: p99.9 is resolvable (2001 · 0.001 ≥ 1), p99.99 is not (it would be the
 * maximum printed as a percentile), so the row leaves it empty (issue 12). */
Test(metrics, a_percentile_the_samples_cannot_resolve_is_left_empty)
{
	struct nb_params p = { .engine = "latency", .proto = NB_PROTO_UDP, .size = 64, .streams = 1,
			       .tos = -1 };
	struct nb_span s = span(&p);
	struct nb_hist *h = nb_hist_create();
	cr_assert_not_null(h);
	for (int i = 1; i <= 2001; i++)
		nb_hist_record(h, (uint64_t)i * 1000);
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_latency, &p, &s, -1, h, &m);
	nb_hist_destroy(h);
	cr_expect(isfinite(m.v[NB_COL_LAT_P999_US]));
	cr_expect(m.v[NB_COL_LAT_P999_US] > 1900 && m.v[NB_COL_LAT_P999_US] < 2001.5);
	cr_expect(isnan(m.v[NB_COL_LAT_P9999_US]));
	cr_expect_float_eq(m.v[NB_COL_LAT_MAX_US], 2001, 1.0);
	cr_expect(m.v[NB_COL_LAT_P50_US] > 990 && m.v[NB_COL_LAT_P50_US] < 1012);
}

/* Issue 12 item 1: a span of no time has no rate; it is never written as a rate of 0. */
Test(metrics, a_span_of_no_time_gives_no_rate_not_zero)
{
	struct nb_params p = udp(NB_DIR_FORWARD, 1, 0);
	struct nb_span s = span(&p);
	for (int i = 0; i < 4; i++)
		snaps[i]->t_ns = S_NS;
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect(isnan(m.v[NB_COL_RX_BPS]), "rx_bps %g", m.v[NB_COL_RX_BPS]);
	cr_expect(isnan(m.v[NB_COL_TX_BPS]), "tx_bps %g", m.v[NB_COL_TX_BPS]);
	cr_expect(isnan(m.v[NB_COL_RX_PPS]));
	p.proto = NB_PROTO_TCP;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect(isnan(m.v[NB_COL_RX_BPS]), "TCP rx_bps %g", m.v[NB_COL_RX_BPS]);
}

/* The CPU cost of the headline (issue 13): 100 Mbit/s received in a second in which the client's
 * engine threads used half a core and the agent's a quarter: 200 Mbit and 400 Mbit per
 * CPU-second. A latency headline (lower is better) has no such cost. */
Test(metrics, the_headline_per_cpu_second_of_each_end)
{
	struct nb_params p = udp(NB_DIR_FORWARD, 1, 0);
	p.size = 1250;
	struct nb_span s = span(&p);
	snaps[1]->flow[0].c[NB_C_TX_SETTLED] = 10000;
	snaps[3]->flow[0].c[NB_C_RX_SETTLED] = 10000;
	snaps[1]->engine_cpu_ns = 500000000ull;
	snaps[3]->engine_cpu_ns = 250000000ull;
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_assert_float_eq(m.v[NB_COL_RX_BPS], 100e6, 1);
	cr_expect_float_eq(m.v[NB_COL_CPU_LOCAL_PCT], 50, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_LOCAL_PER_CPU_S], 200e6, 1);
	cr_expect_float_eq(m.v[NB_COL_PEER_PER_CPU_S], 400e6, 1);
	struct nb_params q = { .engine = "latency", .proto = NB_PROTO_UDP, .size = 64, .streams = 1,
			       .tos = -1 };
	nb_metrics_span(&nb_engine_latency, &q, &s, -1, NULL, &m);
	cr_expect(isnan(m.v[NB_COL_LOCAL_PER_CPU_S]), "latency has no cost per unit");
}

/* Issue 28 item 6: jitter is a difference between datagrams; with fewer than two received it
 * was never measured: empty, not 0 µs. */
Test(metrics, jitter_of_fewer_than_two_datagrams_is_empty_not_zero)
{
	struct nb_params p = udp(NB_DIR_FORWARD, 2, 0);
	struct nb_span s = span(&p);
	snaps[1]->flow[0].c[NB_C_TX_SETTLED] = snaps[1]->flow[1].c[NB_C_TX_SETTLED] = 500;
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect_float_eq(m.v[NB_COL_RX_PACKETS], 0, 1e-9);
	cr_expect(isnan(m.v[NB_COL_JITTER_US]), "nothing received, jitter %g", m.v[NB_COL_JITTER_US]);
	snaps[3]->flow[0].c[NB_C_RX_PACKETS] = 1; /* one datagram: no difference yet */
	snaps[3]->flow[1].c[NB_C_RX_PACKETS] = 40;
	snaps[3]->flow[1].g[NB_G_JITTER_NS] = 7000;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect_float_eq(m.v[NB_COL_JITTER_US], 7, 1e-9, "only the receiver with two or more counts");
}

/* Issue 28 item 1: the catch-up ticks after a stall fire back to back; an "interval" under a
 * millisecond says nothing of a rate (34 Mbit/s in 0.34 ms with nothing sent). */
Test(metrics, a_sub_millisecond_span_gives_no_rate)
{
	struct nb_params p = udp(NB_DIR_FORWARD, 1, 0);
	p.proto = NB_PROTO_TCP;
	struct nb_span s = span(&p);
	snaps[1]->t_ns = snaps[3]->t_ns = S_NS + 340000; /* 0.34 ms */
	snaps[3]->flow[0].c[NB_C_RX_BYTES] = 1450;
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect(isnan(m.v[NB_COL_RX_BPS]), "rx_bps %g", m.v[NB_COL_RX_BPS]);
	cr_expect_float_eq(m.v[NB_COL_RX_BYTES], 1450, 1e-9, "the counts stay");
	cr_expect_float_eq(m.v[NB_COL_DURATION_S], 0.00034, 1e-12, "its real length stays");
}

/* A catch-up interval lasts a few milliseconds after a stall (18.6 Gbit/s over 2 ms of what
 * queued meanwhile): shorter than half its length on the schedule, it has counts, no rate. */
Test(metrics, a_catch_up_interval_gives_no_rate)
{
	struct nb_params p = udp(NB_DIR_FORWARD, 1, 0);
	p.proto = NB_PROTO_TCP;
	struct nb_span s = span(&p);
	snaps[1]->t_ns = snaps[3]->t_ns = S_NS + 2000000; /* 2 ms */
	snaps[3]->flow[0].c[NB_C_RX_BYTES] = 4755952;
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect(isfinite(m.v[NB_COL_RX_BPS]), "with no schedule to compare, 2 ms has a rate");
	struct nb_timeline tl;
	nb_timeline_init(&tl, 0, 0, 0, 2500000000ull, S_NS);
	s.min_s = nb_metrics_catch_up_s(&tl, 2);
	cr_expect_float_eq(s.min_s, 0.5, 1e-12);
	cr_expect_float_eq(nb_metrics_catch_up_s(&tl, 3), 0.25, 1e-12, "the last, cut at duration");
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect(isnan(m.v[NB_COL_RX_BPS]), "rx_bps %g", m.v[NB_COL_RX_BPS]);
	cr_expect_float_eq(m.v[NB_COL_RX_BYTES], 4755952, 1e-9);
}

/* Issue 28 item 9: a cumulative counter that went back is no wrap to 1.8e19 bytes. */
Test(metrics, a_counter_that_goes_back_gives_no_number)
{
	struct nb_params p = udp(NB_DIR_FORWARD, 1, 0);
	p.proto = NB_PROTO_TCP;
	struct nb_span s = span(&p);
	snaps[2]->flow[0].c[NB_C_RX_BYTES] = 5000000;
	snaps[3]->flow[0].c[NB_C_RX_BYTES] = 4000000;
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect(isnan(m.v[NB_COL_RX_BYTES]), "rx_bytes %g", m.v[NB_COL_RX_BYTES]);
	cr_expect(isnan(m.v[NB_COL_RX_BPS]), "rx_bps %g", m.v[NB_COL_RX_BPS]);
}

/* Issue 28 item 3: a scheduled sender's lag is its own pair of columns, p99 and max. */
Test(metrics, the_schedule_lag_columns_come_from_the_lag_histograms)
{
	struct nb_snapshot *a = nb_snapshot_create(true), *b = nb_snapshot_create(true);
	cr_assert(a && b && a->lag && b->lag);
	for (int i = 0; i < 10; i++)
		nb_hist_record(a->lag, 5000); /* before the span: not in it */
	nb_hist_copy(b->lag, a->lag);
	for (int i = 0; i < 199; i++)
		nb_hist_record(b->lag, 10000);
	nb_hist_record(b->lag, 650000000ull);
	struct nb_metrics m;
	nb_metrics_clear(&m);
	nb_metrics_sched_lag(a, b, &m);
	cr_expect_float_eq(m.v[NB_COL_SCHED_LAG_MAX_US], 650000, 650000 * 0.008);
	cr_expect_float_eq(m.v[NB_COL_SCHED_LAG_P99_US], 10, 0.1);
	nb_metrics_clear(&m);
	nb_hist_copy(b->lag, a->lag);
	nb_hist_record(b->lag, 40000);
	nb_metrics_sched_lag(a, b, &m);
	cr_expect(isnan(m.v[NB_COL_SCHED_LAG_P99_US]), "a p99 of one send is its max by another name");
	cr_expect_float_eq(m.v[NB_COL_SCHED_LAG_MAX_US], 40, 0.4);
	nb_snapshot_destroy(a);
	nb_snapshot_destroy(b);
}

/* The loss budget (issue 36): a forward UDP case that lost 100 datagrams; the client (sender)
 * saw 30 qdisc drops of which 20 came back as ENOBUFS, 5 tx drops; the agent (receiver) 7
 * interface drops, 3 IP discards, 12 UDP errors of which 10 were its buffer's, which the socket
 * counted itself (rcvbuf_drops 10). */
static void loss(struct nb_snapshot *s, int i, uint64_t v)
{
	s->has_loss = true;
	s->loss_ok = (1u << NB_L_COUNT) - 1;
	s->loss[i] = v;
}

Test(metrics, the_loss_budget_leaves_to_the_path_what_no_end_counted)
{
	struct nb_params p = udp(NB_DIR_FORWARD, 1, 0);
	struct nb_span s = span(&p);
	snaps[1]->flow[0].c[NB_C_TX_SETTLED] = 1000;
	snaps[3]->flow[0].c[NB_C_RX_SETTLED] = 900;
	snaps[1]->flow[0].c[NB_C_SND_ERRS] = 20;
	snaps[3]->flow[0].c[NB_C_RCVBUF_DROPS] = 10;
	for (int i = 0; i < 4; i++)
		loss(snaps[i], NB_L_QDISC_DROPS, 0);
	loss(snaps[1], NB_L_QDISC_DROPS, 30);
	loss(snaps[1], NB_L_IF_TX_DROPPED, 5);
	loss(snaps[1], NB_L_IF_RX_DROPPED, 1000); /* the sender's rx side: not its part */
	loss(snaps[3], NB_L_IF_RX_DROPPED, 4);
	loss(snaps[3], NB_L_IF_RX_MISSED, 3);
	loss(snaps[3], NB_L_IP_IN_DROPS, 3);
	loss(snaps[3], NB_L_UDP_IN_ERRORS, 12);
	loss(snaps[3], NB_L_UDP_RCVBUF, 10);
	struct nb_metrics m;
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_assert_float_eq(m.v[NB_COL_LOST], 100, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_LB_TX_QDISC], 30, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_LB_TX_IF], 5, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_LB_RX_IF], 7, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_LB_RX_IP], 3, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_LB_RX_UDP], 2, 1e-9, "InErrors less the buffer's");
	/* 100 - (30 - 20 silent at the qdisc) - 5 - 7 - 3 - 2 - 10 (the socket) */
	cr_expect_float_eq(m.v[NB_COL_LB_PATH], 63, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_LB_EXCESS], 0, 1e-9);

	loss(snaps[3], NB_L_IP_IN_DROPS, 500); /* someone else's traffic moved the host counter */
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect(isnan(m.v[NB_COL_LB_PATH]), "a noisy budget has no path figure");
	cr_expect_float_eq(m.v[NB_COL_LB_EXCESS], 434, 1e-9, "by how much the parts exceed the loss");

	snaps[2]->loss_ok &= ~(1u << NB_L_IP_IN_DROPS); /* an end that could not read one */
	nb_metrics_span(&nb_engine_stream, &p, &s, -1, NULL, &m);
	cr_expect(isnan(m.v[NB_COL_LB_RX_IP]) && isnan(m.v[NB_COL_LB_PATH]) &&
		  isnan(m.v[NB_COL_LB_EXCESS]), "an unknown part: no path, not noisy either");

	struct nb_params tcp = p;
	tcp.proto = NB_PROTO_TCP;
	nb_metrics_span(&nb_engine_stream, &tcp, &s, -1, NULL, &m);
	cr_expect(isnan(m.v[NB_COL_LB_TX_QDISC]), "no budget where nothing counts loss");
}

/* The run's budget is the whole test's: each end's host counters from its reading before START
 * (snaps[0] the client's, snaps[2] the agent's) to its last after the drain (snaps[1], [3]),
 * against every datagram the flows counted by then, whatever the window held. A forward case:
 * 1200 sent (40 refused, each one the qdisc's drop), 1000 distinct received (1010 less 10
 * duplicates), 150 of the 200 lost in the receiver's socket buffer, 50 on the path. */
Test(metrics, the_runs_loss_budget_is_the_whole_tests_and_adds_up)
{
	struct nb_params p = udp(NB_DIR_FORWARD, 1, 0);
	(void)span(&p);
	struct nb_metrics m;
	nb_metrics_clear(&m);
	m.v[NB_COL_LOST] = 7; /* the window's: not what the run's budget covers */
	snaps[1]->flow[0].c[NB_C_TX_PACKETS] = 1200;
	snaps[1]->flow[0].c[NB_C_SND_ERRS] = 40;
	snaps[3]->flow[0].c[NB_C_RX_PACKETS] = 1010;
	snaps[3]->flow[0].c[NB_C_DUP] = 10;
	snaps[3]->flow[0].c[NB_C_RCVBUF_DROPS] = 150;
	for (int i = 0; i < 4; i++)
		loss(snaps[i], NB_L_QDISC_DROPS, i == 1 ? 540 : 500);
	loss(snaps[2], NB_L_UDP_IN_ERRORS, 9);
	loss(snaps[3], NB_L_UDP_IN_ERRORS, 159);
	loss(snaps[3], NB_L_UDP_RCVBUF, 150);
	struct nb_lossstats lpre = nb_metrics_loss_of(snaps[0]), ppre = nb_metrics_loss_of(snaps[2]);
	nb_metrics_loss_budget_run(&nb_engine_stream, &p, &lpre, snaps[1], &ppre, snaps[3], &m);
	cr_expect_float_eq(m.v[NB_COL_LB_SENT], 1200, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_LB_LOST], 200, 1e-9, "sent less the distinct received");
	cr_expect_float_eq(m.v[NB_COL_LB_SND_ERRS], 40, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_LB_RCVBUF], 150, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_LB_TX_QDISC], 40, 1e-9, "the sender's growth since START");
	cr_expect_float_eq(m.v[NB_COL_LB_RX_UDP], 0, 1e-9, "InErrors less the buffer's");
	cr_expect_float_eq(m.v[NB_COL_LB_PATH], 50, 1e-9);
	cr_expect_float_eq(m.v[NB_COL_LB_EXCESS], 0, 1e-9);

	struct nb_lossstats none = { 0 };
	nb_metrics_loss_budget_run(&nb_engine_stream, &p, &lpre, snaps[1], &none, snaps[3], &m);
	cr_expect(isnan(m.v[NB_COL_LB_PATH]) && isnan(m.v[NB_COL_LB_EXCESS]) &&
		  m.v[NB_COL_LB_LOST] == 200, "an end without a reading before START: no path figure");
}

/* net suite: flows over threads (flowloop.h) end to end through the agent and the client on
 * loopback: N flows driven by T threads per end keep every flow's own exact counts, for T < N
 * and T = N, TCP and UDP (stream), pps, rr, crr and latency. No timing: counts, identities and
 * which threads ran. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "engine.h"
#include "engines.h"
#include "flowloop.h"
#include "hist.h"
#include "nbt_pair.h"
#include "nbt_stream.h"

TestSuite(flowthreads, .init = nbt_stream_open, .fini = nbt_stream_close, .timeout = 120);

/* The flows whose CPU clock ran: one per thread (a thread's time is its first flow's). */
static uint32_t threads_seen(const struct nb_snapshot *s)
{
	uint32_t n = 0;
	for (uint32_t f = 0; f < s->nflows; f++)
		n += s->flow[f].cpu_ns > 0;
	return n;
}

static void assert_threads(const struct nbt_capture *cap, uint32_t threads)
{
	cr_assert_eq(threads_seen(&cap->l), threads, "client: %u threads ran", threads_seen(&cap->l));
	cr_assert_eq(threads_seen(&cap->p), threads, "agent: %u threads ran", threads_seen(&cap->p));
	for (uint32_t t = 0; t < threads; t++) {
		uint32_t lo, hi;
		nb_flow_block(t, threads, cap->l.nflows, &lo, &hi);
		cr_assert_gt(cap->l.flow[lo].cpu_ns, 0, "thread %u's time is its first flow's (%u)", t, lo);
	}
}

/* TCP: every flow carries its own bytes, the receiver's never more than its sender's, and the
 * window's bytes (the run's row) are at most the flows'. */
static void tcp_over(uint32_t streams, uint32_t threads)
{
	struct nb_msg_setup su = nbt_stream_setup(NB_PROTO_TCP, NB_DIR_FORWARD, streams, 65536, 0);
	su.params.threads = threads;
	struct nbt_capture cap;
	struct nb_test_result res;
	cr_assert_eq(nbt_stream_run(&su, &cap, &res), NB_OUT_OK, "%s", res.error);
	cr_assert_eq(cap.l.nflows, streams);
	uint64_t rx = 0;
	for (uint32_t f = 0; f < streams; f++) {
		const struct nb_flow_snap *snd = &cap.l.flow[f], *rcv = &cap.p.flow[f];
		cr_assert_gt(rcv->c[NB_C_RX_BYTES], 0, "flow %u received", f);
		cr_assert_leq(rcv->c[NB_C_RX_BYTES], snd->c[NB_C_TX_BYTES], "flow %u", f);
		cr_assert_eq(snd->c[NB_C_RX_BYTES], 0, "flow %u: its sender received nothing", f);
		rx += rcv->c[NB_C_RX_BYTES];
	}
	cr_assert_gt(res.m.v[NB_COL_RX_BYTES], 0);
	cr_assert_leq(res.m.v[NB_COL_RX_BYTES], (double)rx, "the window holds at most the flows' bytes");
	assert_threads(&cap, threads);
}

Test(flowthreads, four_tcp_streams_over_two_threads_keep_their_own_bytes)
{
	tcp_over(4, 2);
}

Test(flowthreads, four_tcp_streams_over_four_threads_keep_their_own_bytes)
{
	tcp_over(4, 4);
}

/* UDP, paced far below loopback's capacity: per flow, what was sent is what was received plus
 * what was lost, exactly (after the drain), and every row holds lost = tx - rx. */
static void udp_over(const char *engine, enum nb_dir dir, uint32_t streams, uint32_t threads,
		     uint64_t rate)
{
	struct nb_msg_setup su = nbt_stream_setup(NB_PROTO_UDP, dir, streams, 1000, rate);
	snprintf(su.params.engine, sizeof(su.params.engine), "%s", engine);
	su.params.threads = threads;
	su.params.burst_us = 250;
	struct nbt_capture cap;
	struct nb_test_result res;
	cr_assert_eq(nbt_stream_run(&su, &cap, &res), NB_OUT_OK, "%s", res.error);
	uint32_t nflows = cap.l.nflows;
	cr_assert_eq(nflows, dir == NB_DIR_BIDIR ? 2 * streams : streams);
	for (uint32_t f = 0; f < nflows; f++) {
		const struct nb_flow_snap *snd = cap.l.flow[f].sends ? &cap.l.flow[f] : &cap.p.flow[f];
		const struct nb_flow_snap *rcv = cap.l.flow[f].sends ? &cap.p.flow[f] : &cap.l.flow[f];
		cr_assert_gt(snd->c[NB_C_TX_PACKETS], 0, "flow %u sent", f);
		cr_assert_eq(snd->c[NB_C_TX_PACKETS], rcv->c[NB_C_RX_PACKETS] + rcv->c[NB_C_LOST],
			     "flow %u: tx %llu = rx %llu + lost %llu", f,
			     (unsigned long long)snd->c[NB_C_TX_PACKETS],
			     (unsigned long long)rcv->c[NB_C_RX_PACKETS],
			     (unsigned long long)rcv->c[NB_C_LOST]);
		cr_assert_eq(rcv->c[NB_C_DUP] + rcv->c[NB_C_FOREIGN] + rcv->c[NB_C_LATE], 0, "flow %u", f);
		cr_assert_leq(rcv->c[NB_C_RX_SETTLED], snd->c[NB_C_TX_SETTLED], "flow %u", f);
	}
	nbt_stream_assert_udp_rows(&cap, &res);
	assert_threads(&cap, threads);
}

Test(flowthreads, four_paced_udp_streams_over_two_threads_count_every_datagram)
{
	udp_over("stream", NB_DIR_FORWARD, 4, 2, 8000000);
}

Test(flowthreads, four_paced_udp_streams_over_four_threads_count_every_datagram)
{
	udp_over("stream", NB_DIR_FORWARD, 4, 4, 8000000);
}

Test(flowthreads, bidir_pps_flows_over_two_threads_count_every_datagram)
{
	udp_over("pps", NB_DIR_BIDIR, 2, 2, 2000);
}

Test(flowthreads, three_pps_flows_over_one_thread_count_every_datagram)
{
	udp_over("pps", NB_DIR_FORWARD, 3, 1, 3000);
}

/* rr (wait: block): every flow has its own transactions, the server's count within one of the
 * client's (one in flight per flow), UDP's unanswered ones counted as timeouts. */
/* A request/response case of engine (32/128 bytes) with flows over threads, run to its end. */
static void transactions_run(const char *engine, enum nb_proto proto, uint32_t flows,
			     uint32_t threads, struct nbt_capture *cap)
{
	struct nb_msg_setup su = nbt_stream_setup(proto, NB_DIR_FORWARD, flows, 0, 0);
	snprintf(su.params.engine, sizeof(su.params.engine), "%s", engine);
	su.params.request = 32;
	su.params.response = 128;
	su.params.timeout_ms = proto == NB_PROTO_UDP ? 1000 : 0;
	su.params.threads = threads;
	struct nb_test_result res;
	cr_assert_eq(nbt_stream_run(&su, cap, &res), NB_OUT_OK, "%s", res.error);
	cr_assert_eq(cap->l.nflows, flows);
}

static void rr_over(enum nb_proto proto, uint32_t flows, uint32_t threads)
{
	struct nbt_capture cap;
	transactions_run("rr", proto, flows, threads, &cap);
	for (uint32_t f = 0; f < flows; f++) {
		uint64_t cli = cap.l.flow[f].c[NB_C_TRANSACTIONS], srv = cap.p.flow[f].c[NB_C_TRANSACTIONS];
		uint64_t lost = cap.l.flow[f].c[NB_C_TIMEOUTS];
		cr_assert_gt(cli, 0, "flow %u: transactions", f);
		cr_assert(srv >= cli && srv <= cli + lost + 1, "flow %u: client %llu (timeouts %llu), "
			  "server %llu", f, (unsigned long long)cli, (unsigned long long)lost,
			  (unsigned long long)srv);
		uint64_t sent = cap.l.flow[f].c[NB_C_TX_PACKETS];
		cr_assert(sent >= cli + lost && sent <= cli + lost + 1,
			  "flow %u: %llu requests: one per transaction or timeout, one in flight", f,
			  (unsigned long long)sent);
	}
	assert_threads(&cap, threads);
}

Test(flowthreads, four_tcp_rr_flows_over_two_threads_keep_their_own_transactions)
{
	rr_over(NB_PROTO_TCP, 4, 2);
}

Test(flowthreads, four_udp_rr_flows_over_two_threads_keep_their_own_transactions)
{
	rr_over(NB_PROTO_UDP, 4, 2);
}

/* crr (wait: block): a connection per transaction, so each flow's connects are its
 * transactions, exactly (a transaction in flight at the stop is finished first); the server's
 * flows take connections off one listener, each whichever comes, so only their sum is the
 * clients': at least it, at most one more per flow (the answer in flight). */
static void crr_over(uint32_t flows, uint32_t threads)
{
	struct nbt_capture cap;
	transactions_run("crr", NB_PROTO_TCP, flows, threads, &cap);
	uint64_t cli = 0, srv = 0;
	for (uint32_t f = 0; f < flows; f++) {
		const struct nb_flow_snap *c = &cap.l.flow[f];
		cr_assert_gt(c->c[NB_C_TRANSACTIONS], 0, "flow %u: transactions", f);
		cr_assert_eq(c->c[NB_C_CONNECTS], c->c[NB_C_TRANSACTIONS],
			     "flow %u: %llu connects for %llu transactions", f,
			     (unsigned long long)c->c[NB_C_CONNECTS],
			     (unsigned long long)c->c[NB_C_TRANSACTIONS]);
		cr_assert_gt(c->c[NB_C_CONNECT_NS], 0, "flow %u: its connects took time", f);
		cr_assert_eq(c->c[NB_C_TX_PACKETS], c->c[NB_C_TRANSACTIONS], "flow %u: a request each", f);
		cli += c->c[NB_C_TRANSACTIONS];
		srv += cap.p.flow[f].c[NB_C_TRANSACTIONS];
	}
	cr_assert(srv >= cli && srv <= cli + flows, "clients %llu, server %llu transactions",
		  (unsigned long long)cli, (unsigned long long)srv);
	assert_threads(&cap, threads);
}

Test(flowthreads, four_crr_flows_over_two_threads_connect_once_per_transaction)
{
	crr_over(4, 2);
}

/* latency (wait: block), through both sessions in this process: every message a flow sent is
 * answered or timed out, exactly (the stop comes timeout_ms after the quiesce), and the round
 * trips recorded are the answers. rate 0: ping-pong; else under load at rate messages/s. */
static void latency_over(enum nb_proto proto, uint64_t rate, uint32_t flows, uint32_t threads)
{
	struct nb_params p = nbt_params("latency", proto);
	p.streams = flows;
	p.rate = rate;
	p.threads = threads;
	struct nbt_pair pr;
	nbt_pair_start(&pr, &nb_engine_latency, &p);
	nbt_sleep_ms(1000);
	struct nb_snapshot *cs = nb_snapshot_create(true), *ss = nb_snapshot_create(false);
	nbt_pair_stop(&pr, cs, ss); /* asserts that no flow failed */
	cr_assert_eq(cs->nflows, flows);
	for (uint32_t f = 0; f < flows; f++) {
		const uint64_t *c = cs->flow[f].c;
		cr_assert_gt(c[NB_C_TRANSACTIONS], 0, "flow %u: answers", f);
		cr_assert_eq(c[NB_C_TX_PACKETS], c[NB_C_TRANSACTIONS] + c[NB_C_TIMEOUTS],
			     "flow %u: sent %llu = answered %llu + timeouts %llu", f,
			     (unsigned long long)c[NB_C_TX_PACKETS],
			     (unsigned long long)c[NB_C_TRANSACTIONS],
			     (unsigned long long)c[NB_C_TIMEOUTS]);
	}
	cr_assert_eq(atomic_load(&cs->hist->count), nbt_sum(cs, NB_C_TRANSACTIONS),
		     "a round trip per answer");
	cr_assert_eq(threads_seen(cs), threads, "client: %u threads ran", threads_seen(cs));
	cr_assert_eq(threads_seen(ss), threads, "server: %u threads ran", threads_seen(ss));
	nb_snapshot_destroy(cs);
	nb_snapshot_destroy(ss);
}

Test(flowthreads, four_udp_latency_flows_under_load_over_two_threads_answer_or_time_out)
{
	latency_over(NB_PROTO_UDP, 2000, 4, 2);
}

Test(flowthreads, four_tcp_ping_pong_flows_over_two_threads_answer_every_message)
{
	latency_over(NB_PROTO_TCP, 0, 4, 2);
}

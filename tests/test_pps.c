/* The pps engine through the session harness on 127.0.0.1, both sides in this process:
 * paced runs lose nothing, unpaced loss is exactly what the receive buffer dropped,
 * directions move packets the right way, flows count apart, ENOBUFS is counted. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "engines.h"
#include "params.h"
#include "session.h"
#include "udpseq.h"
#include "nbt_pair.h"

struct pair {
	struct nb_params p;
	struct nbt_pair np;          /* the two sessions, connected */
	struct nb_session *srv, *cli;
	struct nb_snapshot *s, *c;   /* final counters of server and client, after stop */
	struct nb_snapshot *ms, *mc; /* both at the tick that closed the measured epoch (1) */
};

#define sleep_ms nbt_sleep_ms

static struct nb_params params(uint32_t streams, enum nb_dir dir, uint64_t rate)
{
	return (struct nb_params){ .engine = "pps", .proto = NB_PROTO_UDP, .direction = dir,
				   .size = 64, .streams = streams, .rate = rate, .tos = -1 };
}

static void pair_open(struct pair *pr)
{
	nbt_pair_open(&pr->np, &nb_engine_pps, &pr->p);
	pr->srv = pr->np.srv;
	pr->cli = pr->np.cli;
}

static void tick(struct pair *pr, uint32_t epoch)
{
	nb_session_tick(pr->srv, epoch);
	nb_session_tick(pr->cli, epoch);
}

/* Warm up (epoch 0), measure (epoch 1), go on sending (epoch 2), stop sending, let the
 * receivers drain, settle epochs 0 and 1 (tick 3), stop; keep the counters at the tick that
 * closed epoch 1 and the final ones. */
static void pair_run(struct pair *pr, unsigned measure_ms)
{
	struct nb_error err = { "" };
	/* Receivers first and given a head start, so the first datagrams find their buffers
	 * sized (by the receiver thread, when the harness does not call prepare_socket). */
	bool client_first = pr->p.direction == NB_DIR_REVERSE;
	cr_assert(nb_session_start(client_first ? pr->cli : pr->srv, &err), "%s", err.msg);
	sleep_ms(100);
	cr_assert(nb_session_start(client_first ? pr->srv : pr->cli, &err), "%s", err.msg);
	sleep_ms(300);
	tick(pr, 1);
	sleep_ms(measure_ms);
	tick(pr, 2);
	pr->ms = nb_snapshot_create(false);
	pr->mc = nb_snapshot_create(false);
	nb_session_snapshot(pr->srv, pr->ms);
	nb_session_snapshot(pr->cli, pr->mc);
	sleep_ms(100);
	nb_session_quiesce(pr->cli);
	nb_session_quiesce(pr->srv);
	sleep_ms(300);
	tick(pr, 3);
	cr_assert(nb_session_stop(pr->cli, &err), "%s", err.msg);
	cr_assert(nb_session_stop(pr->srv, &err), "%s", err.msg);
	pr->s = nb_snapshot_create(false);
	pr->c = nb_snapshot_create(false);
	nb_session_snapshot(pr->srv, pr->s);
	nb_session_snapshot(pr->cli, pr->c);
}

/* The sender's datagrams of epochs 0 and 1 on flow i, settled at the tick that closed 1. */
static uint64_t sent_by_tick2(const struct pair *pr, uint32_t i)
{
	return (nb_params_client_sends(&pr->p, i) ? pr->mc : pr->ms)->flow[i].c[NB_C_TX_SETTLED];
}

static void pair_close(struct pair *pr)
{
	nb_snapshot_destroy(pr->s);
	nb_snapshot_destroy(pr->c);
	nb_snapshot_destroy(pr->ms);
	nb_snapshot_destroy(pr->mc);
	nb_session_destroy(pr->cli);
	nb_session_destroy(pr->srv);
}

/* The sending and the receiving side's counters of flow i. */
static const struct nb_flow_snap *tx_side(const struct pair *pr, uint32_t i)
{
	return nb_params_client_sends(&pr->p, i) ? &pr->c->flow[i] : &pr->s->flow[i];
}

static const struct nb_flow_snap *rx_side(const struct pair *pr, uint32_t i)
{
	return nb_params_client_sends(&pr->p, i) ? &pr->s->flow[i] : &pr->c->flow[i];
}

/* Every datagram sent on flow i arrived exactly once, in order, and only one way; the only
 * datagrams allowed missing are those the receiver's own socket buffer dropped (counted), and
 * the receiver settled exactly the datagrams of epochs 0 and 1 that arrived. */
static void assert_flow_accounted(const struct pair *pr, uint32_t i)
{
	const struct nb_flow_snap *t = tx_side(pr, i), *r = rx_side(pr, i);
	cr_assert(t->sends && !r->sends, "flow %u: exactly one side sends", i);
	uint64_t tx = t->c[NB_C_TX_PACKETS], rx = r->c[NB_C_RX_PACKETS];
	uint64_t drops = r->c[NB_C_RCVBUF_DROPS];
	cr_expect_gt(tx, 0, "flow %u sent nothing", i);
	cr_expect_eq(rx + drops, tx, "flow %u: rx %llu + rcvbuf drops %llu != tx %llu", i,
		     (unsigned long long)rx, (unsigned long long)drops, (unsigned long long)tx);
	cr_expect_eq(r->c[NB_C_LOST], drops, "flow %u: lost %llu, drops %llu", i,
		     (unsigned long long)r->c[NB_C_LOST], (unsigned long long)drops);
	cr_expect_eq(r->c[NB_C_RX_BYTES], (uint64_t)pr->p.size * rx, "flow %u: bytes", i);
	cr_expect_eq(t->c[NB_C_TX_BYTES], (uint64_t)pr->p.size * tx, "flow %u: bytes", i);
	uint64_t settled = r->c[NB_C_RX_SETTLED], sent = sent_by_tick2(pr, i);
	cr_expect_gt(sent, 0, "flow %u: nothing measured", i);
	cr_expect_leq(settled, sent, "flow %u: settled %llu of %llu sent", i,
		      (unsigned long long)settled, (unsigned long long)sent);
	cr_expect_leq(sent - settled, drops, "flow %u: settled %llu of %llu sent, %llu dropped", i,
		      (unsigned long long)settled, (unsigned long long)sent, (unsigned long long)drops);
	cr_expect_eq(r->c[NB_C_LATE], 0, "flow %u: late", i);
	cr_expect_eq(r->c[NB_C_DUP], 0, "flow %u: dup", i);
	cr_expect_eq(r->c[NB_C_REORDER], 0, "flow %u: reorder", i);
	cr_expect_eq(t->c[NB_C_RX_PACKETS], 0, "flow %u: the sender received", i);
	cr_expect_eq(r->c[NB_C_TX_PACKETS], 0, "flow %u: the receiver sent", i);
}

/* As above, and not one datagram missing. */
static void assert_flow_lossless(const struct pair *pr, uint32_t i)
{
	assert_flow_accounted(pr, i);
	cr_expect_eq(rx_side(pr, i)->c[NB_C_RCVBUF_DROPS], 0, "flow %u: rcvbuf drops", i);
}

Test(pps, paced_well_below_capacity_delivers_every_datagram, .timeout = 30)
{
	struct pair pr = { .p = params(1, NB_DIR_FORWARD, 20000) };
	pair_open(&pr);
	uint64_t t0 = (uint64_t)time(NULL);
	pair_run(&pr, 2000);
	uint64_t secs = (uint64_t)time(NULL) - t0 + 1;
	assert_flow_lossless(&pr, 0);
	/* The pacer never runs ahead of its schedule: an upper bound, not a speed target. */
	cr_expect_leq(tx_side(&pr, 0)->c[NB_C_TX_PACKETS], 20000 * secs + 4);
	/* 20 kpps x 100 us = 2, raised to the minimum bucket of 4. */
	cr_expect_leq(tx_side(&pr, 0)->g[NB_G_MAX_BURST], 4);
	pair_close(&pr);
}

/* Unpaced, a 4 KiB receive buffer overflows. On loopback that is the only place a datagram
 * can vanish, so the socket buffer's own drop count must explain every missing datagram;
 * the sequence accounting sees all of them except any after the last one received. */
Test(pps, unpaced_loss_is_exactly_what_the_receive_buffer_dropped, .timeout = 30)
{
	struct pair pr = { .p = params(1, NB_DIR_FORWARD, 0) };
	pr.p.window = 2048;
	pair_open(&pr);
	pair_run(&pr, 1000);
	const struct nb_flow_snap *t = tx_side(&pr, 0), *r = rx_side(&pr, 0);
	uint64_t tx = t->c[NB_C_TX_PACKETS], rx = r->c[NB_C_RX_PACKETS];
	cr_assert_leq(rx, tx);
	cr_expect_gt(r->c[NB_C_RCVBUF_DROPS], 0, "a 4 KiB buffer never overflowed?");
	cr_expect_eq(r->c[NB_C_DUP], 0);
	cr_expect_eq(tx - rx, r->c[NB_C_RCVBUF_DROPS], "tx %llu rx %llu", (unsigned long long)tx,
		     (unsigned long long)rx);
	cr_expect_leq(r->c[NB_C_LOST], tx - rx);
	uint64_t sent = sent_by_tick2(&pr, 0), settled = r->c[NB_C_RX_SETTLED];
	cr_expect_leq(settled, sent);
	cr_expect_leq(sent - settled, r->c[NB_C_LOST], "what epochs 0-1 lost are gaps too");
	cr_expect_eq(r->c[NB_C_RX_BYTES], 64 * rx);
	pair_close(&pr);
}

Test(pps, reverse_sends_from_the_server, .timeout = 30)
{
	struct pair pr = { .p = params(2, NB_DIR_REVERSE, 20000) };
	pair_open(&pr);
	pair_run(&pr, 1000);
	cr_assert_eq(pr.c->nflows, 2);
	for (uint32_t i = 0; i < 2; i++) {
		cr_expect(pr.s->flow[i].sends && !pr.c->flow[i].sends);
		assert_flow_lossless(&pr, i);
	}
	pair_close(&pr);
}

Test(pps, bidir_sends_both_ways_on_separate_flows, .timeout = 30)
{
	struct pair pr = { .p = params(2, NB_DIR_BIDIR, 20000) };
	pair_open(&pr);
	pair_run(&pr, 1000);
	cr_assert_eq(pr.c->nflows, 4);
	/* One side's senders start before the other side's receivers: a warm-up datagram
	 * may meet a default-sized socket buffer, and then it must be counted as dropped. */
	for (uint32_t i = 0; i < 4; i++) {
		cr_expect_eq(pr.c->flow[i].sends, i < 2, "flow %u", i);
		assert_flow_accounted(&pr, i);
	}
	pair_close(&pr);
}

/* Flows paced at the same rate for the same time would count alike; a datagram that landed on
 * the wrong flow's socket shows as a sequence gap or a duplicate there. */
Test(pps, each_flow_counts_its_own_datagrams, .timeout = 30)
{
	struct pair pr = { .p = params(4, NB_DIR_FORWARD, 5000) };
	pair_open(&pr);
	pair_run(&pr, 1000);
	cr_assert_eq(pr.s->nflows, 4);
	uint64_t total_tx = 0, total_rx = 0;
	for (uint32_t i = 0; i < 4; i++) {
		assert_flow_lossless(&pr, i);
		total_tx += tx_side(&pr, i)->c[NB_C_TX_PACKETS];
		total_rx += rx_side(&pr, i)->c[NB_C_RX_PACKETS];
	}
	cr_expect_eq(total_rx, total_tx);
	pair_close(&pr);
}

Test(pps, larger_datagrams_and_small_batches_count_bytes_exactly, .timeout = 30)
{
	struct pair pr = { .p = params(1, NB_DIR_FORWARD, 10000) };
	pr.p.size = 1000;
	pr.p.batch = 3;
	pair_open(&pr);
	pair_run(&pr, 500);
	const struct nb_flow_snap *t = tx_side(&pr, 0), *r = rx_side(&pr, 0);
	cr_expect_gt(t->c[NB_C_TX_PACKETS], 0);
	assert_flow_lossless(&pr, 0);
	cr_expect_eq(r->c[NB_C_RX_BYTES], 1000 * t->c[NB_C_TX_PACKETS]);
	cr_expect_leq(t->g[NB_G_MAX_BURST], 3);
	pair_close(&pr);
}

/* GSO hands the kernel many datagrams in one buffer; the receiver (with GRO) must still count
 * each one with its own sequence number. */
Test(pps, gso_datagrams_are_counted_one_by_one, .timeout = 30)
{
	struct pair pr = { .p = params(1, NB_DIR_FORWARD, 20000) };
	pr.p.gso = true;
	pair_open(&pr);
	pair_run(&pr, 1000);
	assert_flow_lossless(&pr, 0);
	pair_close(&pr);
}

/* ---- ENOBUFS: a tbf qdisc on lo in a network namespace of our own ---- */

static uint64_t snmp_udp(const char *field)
{
	FILE *fp = fopen("/proc/net/snmp", "r");
	cr_assert_not_null(fp);
	char names[1024], values[1024];
	uint64_t v = UINT64_MAX;
	while (fgets(names, sizeof(names), fp) && fgets(values, sizeof(values), fp)) {
		if (strncmp(names, "Udp:", 4) != 0)
			continue;
		char *sn, *sv;
		char *n = strtok_r(names, " \n", &sn), *x = strtok_r(values, " \n", &sv);
		for (; n && x; n = strtok_r(NULL, " \n", &sn), x = strtok_r(NULL, " \n", &sv))
			if (strcmp(n, field) == 0)
				v = strtoull(x, NULL, 10);
	}
	fclose(fp);
	cr_assert_neq(v, UINT64_MAX, "Udp %s not in /proc/net/snmp", field);
	return v;
}

/* The queue holds ~30 datagrams: an unpaced sender overruns it, and every datagram the qdisc
 * refused must be a send error (the kernel's own SndbufErrors agrees), never a loss. */
Test(pps, enobufs_is_counted_as_a_send_error_not_as_loss, .timeout = 30)
{
	if (!nbt_private_lo("tc qdisc add dev lo root tbf rate 20mbit burst 4000 limit 3000"))
		cr_skip_test("needs root, a network namespace and tc tbf");
	uint64_t before = snmp_udp("SndbufErrors");
	struct pair pr = { .p = params(1, NB_DIR_FORWARD, 0) };
	pair_open(&pr);
	pair_run(&pr, 1000);
	uint64_t kernel = snmp_udp("SndbufErrors") - before;
	const struct nb_flow_snap *t = tx_side(&pr, 0), *r = rx_side(&pr, 0);
	cr_expect_gt(t->c[NB_C_SND_ERRS], 0);
	cr_expect_eq(t->c[NB_C_SND_ERRS], kernel, "ours %llu, kernel's SndbufErrors %llu",
		     (unsigned long long)t->c[NB_C_SND_ERRS], (unsigned long long)kernel);
	cr_expect_eq(r->c[NB_C_RX_PACKETS], t->c[NB_C_TX_PACKETS]);
	cr_expect_eq(r->c[NB_C_LOST], 0);
	cr_expect_eq(r->c[NB_C_RX_SETTLED], sent_by_tick2(&pr, 0));
	pair_close(&pr);
}

/* ---- validate ---- */

static const struct {
	const char *what;
	enum nb_proto proto;
	uint32_t size, batch;
	bool gso;
	bool ok;
	const char *msg;
} validate_cases[] = {
	{ "64 B UDP", NB_PROTO_UDP, 64, 0, false, true, NULL },
	{ "TCP", NB_PROTO_TCP, 64, 0, false, false, "UDP only" },
	{ "smaller than the header", NB_PROTO_UDP, NB_DGRAM_HDR - 1, 0, false, false, "size" },
	{ "exactly the header", NB_PROTO_UDP, NB_DGRAM_HDR, 0, false, true, NULL },
	{ "largest UDP payload", NB_PROTO_UDP, 65507, 0, false, true, NULL },
	{ "beyond UDP", NB_PROTO_UDP, 65508, 0, false, false, "size" },
	{ "batch 1024", NB_PROTO_UDP, 64, 1024, false, true, NULL },
	{ "batch 1025", NB_PROTO_UDP, 64, 1025, false, false, "batch" },
	{ "gso default segments", NB_PROTO_UDP, 1400, 0, true, true, NULL },
	{ "gso 64 x 1000 B", NB_PROTO_UDP, 1000, 64, true, true, NULL },
	{ "gso 64 x 1024 B", NB_PROTO_UDP, 1024, 64, true, false, "exceeds 65507" },
	{ "gso 65 segments", NB_PROTO_UDP, 64, 65, true, false, "segments" },
};

Test(pps, validate_accepts_and_refuses_with_a_reason)
{
	for (size_t i = 0; i < sizeof(validate_cases) / sizeof(validate_cases[0]); i++) {
		struct nb_params p = params(1, NB_DIR_FORWARD, 0);
		p.proto = validate_cases[i].proto;
		p.size = validate_cases[i].size;
		p.batch = validate_cases[i].batch;
		p.gso = validate_cases[i].gso;
		struct nb_error err = { "sentinel" };
		bool ok = nb_engine_pps.validate(&p, &err);
		cr_expect_eq(ok, validate_cases[i].ok, "%s: %s", validate_cases[i].what, err.msg);
		if (validate_cases[i].msg)
			cr_expect_not_null(strstr(err.msg, validate_cases[i].msg), "%s: %s",
					   validate_cases[i].what, err.msg);
		else
			cr_expect_str_eq(err.msg, "sentinel", "%s", validate_cases[i].what);
	}
}

Test(pps, is_registered_by_name)
{
	cr_assert_eq(nb_engine_find("pps"), &nb_engine_pps);
}

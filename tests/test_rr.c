/* The rr and crr engines on 127.0.0.1, both sides in this process: transaction
 * counts agree between client and server, Little's law holds, a UDP request the
 * server drops times out and the flow goes on, a late UDP reply is never taken
 * for a newer one, and TCP_CRR runs 10 s without one connect failure. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engines.h"
#include "nbt_pair.h"
#include "sock.h"

/* ---- counts match ---- */

struct rr_case {
	const char *name;
	enum nb_proto proto;
	enum nb_wait wait;
};

static void counts_match(const struct rr_case *c)
{
	struct nb_params p = nbt_params("rr", c->proto);
	p.streams = 3;
	p.wait = c->wait;
	struct nbt_pair pr;
	nbt_pair_start(&pr, &nb_engine_rr, &p);
	nbt_sleep_ms(800);
	struct nb_snapshot *cs = nb_snapshot_create(true), *ss = nb_snapshot_create(false);
	nbt_pair_stop(&pr, cs, ss);
	for (uint32_t i = 0; i < 3; i++) {
		const uint64_t *cc = cs->flow[i].c, *sc = ss->flow[i].c;
		cr_assert_gt(cc[NB_C_TRANSACTIONS], 0, "%s flow %u ran nothing", c->name, i);
		/* The client stopped asking first and waited for its last answer. A UDP
		 * timeout is a lost request (the server never saw it) or a lost answer. */
		uint64_t ct = cc[NB_C_TRANSACTIONS], st = sc[NB_C_TRANSACTIONS];
		cr_assert(st >= ct && st <= ct + cc[NB_C_TIMEOUTS],
			  "%s flow %u: server %llu, client %llu + %llu timeouts", c->name, i,
			  (unsigned long long)st, (unsigned long long)ct,
			  (unsigned long long)cc[NB_C_TIMEOUTS]);
		if (c->proto == NB_PROTO_TCP)
			cr_assert_eq(cc[NB_C_TIMEOUTS], 0);
		cr_assert_eq(cc[NB_C_TX_BYTES], cc[NB_C_TX_PACKETS] * p.request);
		cr_assert_leq(sc[NB_C_RX_BYTES], cc[NB_C_TX_BYTES]);
		cr_assert_leq(cc[NB_C_RX_BYTES], sc[NB_C_TX_BYTES]);
		if (c->proto == NB_PROTO_TCP)
			cr_assert_eq(sc[NB_C_RX_BYTES], cc[NB_C_TX_BYTES]);
	}
	/* Every transaction's RTT is in the histogram, and none else. */
	cr_assert_eq(atomic_load(&cs->hist->count), nbt_sum(cs, NB_C_TRANSACTIONS));
	nb_snapshot_destroy(cs);
	nb_snapshot_destroy(ss);
}

Test(rr, counts_match_between_client_and_server)
{
	static const struct rr_case cases[] = {
		{ "TCP_RR block", NB_PROTO_TCP, NB_WAIT_BLOCK },
		{ "TCP_RR spin", NB_PROTO_TCP, NB_WAIT_SPIN },
		{ "TCP_RR busy-poll", NB_PROTO_TCP, NB_WAIT_BUSY_POLL },
		{ "UDP_RR block", NB_PROTO_UDP, NB_WAIT_BLOCK },
		{ "UDP_RR spin", NB_PROTO_UDP, NB_WAIT_SPIN },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		counts_match(&cases[i]);
}

/* ---- Little's law ---- */

Test(rr, mean_rtt_is_flows_over_tps)
{
	struct nb_params p = nbt_params("rr", NB_PROTO_TCP);
	p.streams = 4;
	struct nbt_pair pr;
	nbt_pair_start(&pr, &nb_engine_rr, &p);
	nbt_sleep_ms(200);
	struct nb_snapshot *a = nb_snapshot_create(true), *b = nb_snapshot_create(true);
	nb_session_snapshot(pr.cli, a);
	nbt_sleep_ms(1500);
	nb_session_snapshot(pr.cli, b);
	struct nb_hist *d = nb_hist_create();
	nb_hist_diff(d, b->hist, a->hist);
	struct nb_hist_summary s;
	nb_hist_summarize(d, &s);
	double tps = (double)(nbt_sum(b, NB_C_TRANSACTIONS) - nbt_sum(a, NB_C_TRANSACTIONS)) /
		     ((double)(b->t_ns - a->t_ns) / 1e9);
	double little = 4.0 / tps * 1e9;
	cr_assert_gt(s.count, 0);
	cr_assert_leq(fabs(s.mean_ns / little - 1.0), 0.10, "mean RTT %.0f ns, N/TPS %.0f ns",
		      s.mean_ns, little);
	struct nb_snapshot *cs = nb_snapshot_create(false), *ss = nb_snapshot_create(false);
	nbt_pair_stop(&pr, cs, ss);
	nb_hist_destroy(d);
	nb_snapshot_destroy(a);
	nb_snapshot_destroy(b);
	nb_snapshot_destroy(cs);
	nb_snapshot_destroy(ss);
}

/* ---- UDP_RR against a server built here ---- */

/* Answers every request with its sequence number, except request number `drop`
 * (dropped when hold_ms == 0, answered hold_ms later otherwise). */
struct lossy_server {
	int fd;
	uint32_t drop, hold_ms, response;
	atomic_bool stop;
	atomic_uint requests, answers;
	atomic_uint late_at; /* requests seen when the held answer went out (0 = not yet) */
	pthread_t th;
};

static void lossy_answer(struct lossy_server *s, const unsigned char *req, struct sockaddr *to,
			 socklen_t tl)
{
	unsigned char resp[256] = { 0 };
	memcpy(resp, req, 4);
	if (sendto(s->fd, resp, s->response, 0, to, tl) == (ssize_t)s->response)
		atomic_fetch_add(&s->answers, 1);
}

static void *lossy_main(void *arg)
{
	struct lossy_server *s = arg;
	unsigned char held[4], req[256];
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	uint64_t held_until = 0;
	while (!atomic_load(&s->stop)) {
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		if (held_until && nb_now_ns() >= held_until) {
			lossy_answer(s, held, (struct sockaddr *)&from, fl);
			atomic_store(&s->late_at, atomic_load(&s->requests));
			held_until = 0;
		}
		if (poll(&pfd, 1, 5) <= 0)
			continue;
		fl = sizeof(from);
		if (recvfrom(s->fd, req, sizeof(req), 0, (struct sockaddr *)&from, &fl) < 4)
			continue;
		unsigned n = atomic_fetch_add(&s->requests, 1) + 1;
		if (n != s->drop)
			lossy_answer(s, req, (struct sockaddr *)&from, fl);
		else if (s->hold_ms) {
			memcpy(held, req, 4);
			held_until = nb_now_ns() + s->hold_ms * 1000000ull;
		}
	}
	return NULL;
}

static uint16_t lossy_start(struct lossy_server *s, uint32_t drop, uint32_t hold_ms)
{
	memset(s, 0, sizeof(*s));
	uint16_t port;
	s->fd = nbt_bind_lo(SOCK_DGRAM, &port);
	s->drop = drop;
	s->hold_ms = hold_ms;
	s->response = 128;
	cr_assert_eq(pthread_create(&s->th, NULL, lossy_main, s), 0);
	return port;
}

static void lossy_stop(struct lossy_server *s)
{
	atomic_store(&s->stop, true);
	pthread_join(s->th, NULL);
	close(s->fd);
}

static bool lossy_done(struct lossy_server *s, unsigned n)
{
	unsigned req = atomic_load(&s->requests), late = atomic_load(&s->late_at);
	return req >= n && (s->hold_ms == 0 || (late && req >= late + n));
}

/* Run a UDP_RR client against s until it has made `n` requests, and n more after
 * the held answer went out (10 s at most). */
static int run_udp_client(struct nbt_solo *c, struct lossy_server *s, uint16_t port, unsigned n)
{
	struct nb_params p = nbt_params("rr", NB_PROTO_UDP);
	p.timeout_ms = 100;
	nbt_solo_start(c, &nb_engine_rr, &p, nbt_connect_lo(SOCK_DGRAM, port));
	for (int i = 0; i < 1000 && !lossy_done(s, n); i++)
		nbt_sleep_ms(10);
	int rc = nbt_solo_stop(c);
	lossy_stop(s);
	return rc;
}

Test(rr, udp_dropped_request_times_out_and_the_flow_goes_on)
{
	struct lossy_server s;
	struct nbt_solo c;
	uint16_t port = lossy_start(&s, 5, 0);
	cr_assert_eq(run_udp_client(&c, &s, port, 50), 0, "%s", c.f.err.msg);
	uint64_t tr = atomic_load(&c.f.c[NB_C_TRANSACTIONS]);
	cr_assert_eq(atomic_load(&c.f.c[NB_C_TIMEOUTS]), 1);
	cr_assert_geq(atomic_load(&s.requests), 50);
	/* Every answer the server sent was taken, but maybe the one in flight at the stop. */
	cr_assert_leq(atomic_load(&s.answers) - tr, 1, "answers %u, transactions %llu",
		      atomic_load(&s.answers), (unsigned long long)tr);
	cr_assert_eq(atomic_load(&c.f.hist->count), tr);
	nb_hist_destroy(c.f.hist);
}

Test(rr, udp_late_reply_is_not_taken_for_a_newer_request)
{
	struct lossy_server s;
	struct nbt_solo c;
	uint16_t port = lossy_start(&s, 5, 300); /* request 5 answered 300 ms late (timeout 100) */
	cr_assert_eq(run_udp_client(&c, &s, port, 200), 0, "%s", c.f.err.msg);
	uint64_t tr = atomic_load(&c.f.c[NB_C_TRANSACTIONS]);
	uint64_t rx = atomic_load(&c.f.c[NB_C_RX_PACKETS]);
	cr_assert_eq(atomic_load(&c.f.c[NB_C_TIMEOUTS]), 1);
	cr_assert_gt(atomic_load(&s.late_at), 0, "the held answer went out during the run");
	/* The late answer arrived (rx counts it) and was dropped: one more answer than transactions. */
	cr_assert_eq(rx, tr + 1, "rx %llu, transactions %llu", (unsigned long long)rx,
		     (unsigned long long)tr);
	cr_assert_leq(atomic_load(&s.answers) - tr, 2);
	/* No RTT near the 300 ms hold was recorded: nothing waited that long for its own answer. */
	cr_assert_lt(atomic_load(&c.f.hist->max_ns), 100000000ull + 50000000ull);
	nb_hist_destroy(c.f.hist);
}

/* ---- TCP_CRR ---- */

/* Sockets in TIME_WAIT (state 06) on local or remote port `port`, from /proc/net/tcp. */
static unsigned time_wait_on(uint16_t port)
{
	FILE *f = fopen("/proc/net/tcp", "r");
	cr_assert_not_null(f);
	char line[512];
	unsigned n = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned lp, rp, st;
		if (sscanf(line, " %*u: %*x:%x %*x:%x %x", &lp, &rp, &st) == 3 && st == 0x06 &&
		    (lp == port || rp == port))
			n++;
	}
	fclose(f);
	return n;
}

Test(crr, ten_seconds_at_full_speed_without_a_connect_failure)
{
	struct nb_params p = nbt_params("crr", NB_PROTO_TCP);
	p.streams = 2;
	struct nbt_pair pr;
	nbt_pair_start(&pr, &nb_engine_crr, &p);
	/* The listener's port may be one an earlier test's client used, its connection still in
	 * TIME_WAIT: what counts is that ten seconds of crr add none. */
	uint16_t port = pr.port;
	unsigned tw_before = time_wait_on(port);
	nbt_sleep_ms(10000);
	struct nb_snapshot *cs = nb_snapshot_create(true), *ss = nb_snapshot_create(false);
	nbt_pair_stop(&pr, cs, ss); /* asserts that no flow failed */
	uint64_t tr = nbt_sum(cs, NB_C_TRANSACTIONS);
	cr_log_info("TCP_CRR: %llu connections in 10 s (%u ephemeral ports)", (unsigned long long)tr,
		    60999 - 32768 + 1);
	cr_assert_gt(tr, 0);
	cr_assert_eq(nbt_sum(cs, NB_C_CONNECTS), tr);
	cr_assert_eq(nbt_sum(ss, NB_C_TRANSACTIONS), tr);
	cr_assert_gt(nbt_sum(cs, NB_C_CONNECT_NS), 0);
	cr_assert_eq(atomic_load(&cs->hist->count), tr);
	unsigned tw_after = time_wait_on(port);
	cr_assert_leq(tw_after, tw_before, "the RST close leaves no TIME_WAIT (%u before, %u after)",
		      tw_before, tw_after);
	nb_snapshot_destroy(cs);
	nb_snapshot_destroy(ss);
}

Test(crr, rejects_udp)
{
	struct nb_params p = nbt_params("crr", NB_PROTO_UDP);
	struct nb_error err = { "" };
	cr_assert_not(nb_engine_crr.validate(&p, &err));
	cr_assert_str_eq(err.msg, "crr runs over TCP only (connect per transaction)");
}

Test(rr, udp_sizes_must_hold_the_sequence_number)
{
	struct nb_params p = nbt_params("rr", NB_PROTO_UDP);
	p.request = 3;
	struct nb_error err = { "" };
	cr_assert_not(nb_engine_rr.validate(&p, &err));
	cr_assert(strstr(err.msg, "4-byte sequence number"), "%s", err.msg);
	p.request = 4;
	cr_assert(nb_engine_rr.validate(&p, &err), "%s", err.msg);
}

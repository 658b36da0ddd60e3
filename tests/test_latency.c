/* The latency engine on 127.0.0.1: a server that stalls 50 ms once shows the
 * stall in the tail under load (RTT from the scheduled send time: no
 * coordinated omission), while ping-pong lets only one message wait; UDP
 * losses time out and the flow goes on; both sides' counts agree through the
 * session harness; the under-load schedule sends exactly rate x time. */
#include <criterion/criterion.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engines.h"
#include "nbt_pair.h"
#include "sock.h"

#define MS 1000000ull

/* An echo server that sleeps stall_ms once, after it has echoed `stall_after`
 * messages, and drops message number `drop` (UDP; 0 = none). */
struct echo_server {
	int type, lfd, fd;
	uint32_t size, stall_after, drop, stall_ms;
	atomic_bool stop;
	atomic_uint echoed;
	pthread_t th;
};

static bool echo_wait(struct echo_server *s, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	while (!atomic_load(&s->stop))
		if (poll(&pfd, 1, 10) > 0)
			return true;
	return false;
}

/* One read's worth: echo it and count whole messages; false when the peer is gone. */
static bool echo_once(struct echo_server *s, uint64_t *bytes, bool *stalled)
{
	unsigned char buf[65536];
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	ssize_t n = recvfrom(s->fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
	if (n <= 0)
		return false;
	*bytes += (uint64_t)n;
	unsigned msgs = s->type == SOCK_DGRAM ? 1 : (unsigned)(*bytes / s->size);
	*bytes = s->type == SOCK_DGRAM ? 0 : *bytes % s->size;
	unsigned before = atomic_fetch_add(&s->echoed, msgs);
	if (s->type == SOCK_DGRAM && before + 1 == s->drop)
		return true;
	if (!*stalled && before + msgs > s->stall_after) {
		*stalled = true;
		nbt_sleep_ms(s->stall_ms);
	}
	if (s->type == SOCK_DGRAM)
		return sendto(s->fd, buf, (size_t)n, 0, (struct sockaddr *)&from, fl) == n;
	return send(s->fd, buf, (size_t)n, MSG_NOSIGNAL) == n;
}

static void *echo_main(void *arg)
{
	struct echo_server *s = arg;
	s->fd = s->lfd;
	if (s->type == SOCK_STREAM) {
		if (!echo_wait(s, s->lfd))
			return NULL;
		s->fd = accept(s->lfd, NULL, NULL);
	}
	uint64_t bytes = 0;
	bool stalled = false;
	while (echo_wait(s, s->fd) && echo_once(s, &bytes, &stalled))
		;
	return NULL;
}

static uint16_t echo_start(struct echo_server *s, int type, uint32_t size, uint32_t stall_after,
			   uint32_t drop, uint32_t stall_ms)
{
	memset(s, 0, sizeof(*s));
	uint16_t port;
	s->type = type;
	s->size = size;
	s->stall_after = stall_after;
	s->drop = drop;
	s->stall_ms = stall_ms;
	s->fd = -1;
	s->lfd = nbt_bind_lo(type, &port);
	cr_assert_eq(pthread_create(&s->th, NULL, echo_main, s), 0);
	return port;
}

static void echo_stop(struct echo_server *s)
{
	atomic_store(&s->stop, true);
	pthread_join(s->th, NULL);
	if (s->fd >= 0 && s->fd != s->lfd)
		close(s->fd);
	close(s->lfd);
}

/* Run the latency client (rate 0 = ping-pong) against an echo server until it
 * has echoed n messages (10 s at most); fill the client's summary. */
static void run_against(struct echo_server *s, int type, uint64_t rate, uint32_t stall_after,
			uint32_t drop, unsigned n, struct nbt_solo *c, struct nb_hist_summary *sum)
{
	uint16_t port = echo_start(s, type, 64, stall_after, drop, 50);
	struct nb_params p = nbt_params("latency", type == SOCK_DGRAM ? NB_PROTO_UDP : NB_PROTO_TCP);
	p.rate = rate;
	p.timeout_ms = 1000;
	nbt_solo_start(c, &nb_engine_latency, &p, nbt_connect_lo(type, port));
	for (int i = 0; i < 1000 && atomic_load(&s->echoed) < n; i++)
		nbt_sleep_ms(10);
	int rc = nbt_solo_stop(c);
	echo_stop(s);
	cr_assert_eq(rc, 0, "%s", c->f.err.msg);
	nb_hist_summarize(c->f.hist, sum);
	nb_hist_destroy(c->f.hist);
	cr_assert_geq(atomic_load(&s->echoed), n);
}

static void stall_shows_under_load(int type)
{
	struct echo_server s;
	struct nbt_solo c;
	struct nb_hist_summary sum;
	run_against(&s, type, 1000, 300, 0, 1500, &c, &sum);
	/* ~50 messages were due during the stall; ~10 of them waited 40 ms or more. */
	cr_assert_geq(sum.max_ns, 40 * MS, "max %llu ns", (unsigned long long)sum.max_ns);
	cr_assert_geq(sum.p999_ns, 40 * MS, "p99.9 %llu ns", (unsigned long long)sum.p999_ns);
	cr_assert_geq(sum.p99_ns, 10 * MS, "p99 %llu ns", (unsigned long long)sum.p99_ns);
	cr_assert_eq(atomic_load(&c.f.c[NB_C_TIMEOUTS]), 0);
}

Test(latency, tcp_under_load_shows_a_server_stall_in_the_tail)
{
	stall_shows_under_load(SOCK_STREAM);
}

Test(latency, udp_under_load_shows_a_server_stall_in_the_tail)
{
	stall_shows_under_load(SOCK_DGRAM);
}

Test(latency, ping_pong_lets_only_one_message_wait_for_a_stall)
{
	struct echo_server s;
	struct nbt_solo c;
	struct nb_hist_summary sum;
	run_against(&s, SOCK_STREAM, 0, 1000, 0, 5000, &c, &sum);
	cr_assert_geq(sum.count, 4999);
	cr_assert_geq(sum.max_ns, 40 * MS, "the stalled message: max %llu ns",
		      (unsigned long long)sum.max_ns);
	cr_assert_lt(sum.p999_ns, 40 * MS, "p99.9 %llu ns", (unsigned long long)sum.p999_ns);
}

Test(latency, udp_ping_pong_loss_times_out_and_goes_on)
{
	struct echo_server s;
	struct nbt_solo c;
	struct nb_hist_summary sum;
	run_against(&s, SOCK_DGRAM, 0, UINT32_MAX, 5, 50, &c, &sum);
	cr_assert_eq(atomic_load(&c.f.c[NB_C_TIMEOUTS]), 1);
	cr_assert_geq(sum.count, 48);
	cr_assert_lt(sum.max_ns, 1000 * MS, "the lost message is not an RTT");
}

Test(latency, udp_under_load_loss_times_out)
{
	struct echo_server s;
	struct nbt_solo c;
	struct nb_hist_summary sum;
	run_against(&s, SOCK_DGRAM, 2000, UINT32_MAX, 100, 3000, &c, &sum);
	/* Message 100 was dropped; every message sent was answered or timed out by the stop. */
	uint64_t sent = atomic_load(&c.f.c[NB_C_TX_PACKETS]);
	uint64_t timeouts = atomic_load(&c.f.c[NB_C_TIMEOUTS]);
	cr_assert_geq(timeouts, 1);
	cr_assert_eq(sum.count + timeouts, sent, "answered %llu + timeouts %llu, sent %llu",
		     (unsigned long long)sum.count, (unsigned long long)timeouts,
		     (unsigned long long)sent);
	cr_assert_leq(sum.count, atomic_load(&s.echoed) - 1);
	cr_assert_eq(sum.count, atomic_load(&c.f.c[NB_C_TRANSACTIONS]));
}

/* ---- the run's window by due time (issue 12 item 3) ---- */

/* A UDP client at 1000 msg/s whose window is the 500 messages due in [start + 200 ms,
 * start + 700 ms); the server stops for stall_ms after its 300th echo, across the window's end.
 * The client is told to stop at the window's end and drains timeout_ms (nbt_solo_stop). */
static void window_across_a_stall(uint32_t stall_ms, uint32_t timeout_ms, struct nbt_solo *c)
{
	struct echo_server s;
	uint16_t port = echo_start(&s, SOCK_DGRAM, 64, 300, 0, stall_ms);
	struct nb_params p = nbt_params("latency", NB_PROTO_UDP);
	p.rate = 1000;
	p.timeout_ms = timeout_ms;
	/* Both ends hold the stall's backlog (400 messages) without a drop. */
	int big = 8 << 20, fd = nbt_connect_lo(SOCK_DGRAM, port);
	cr_assert_eq(setsockopt(s.lfd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)), 0);
	cr_assert_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)), 0);
	uint64_t t = nb_now_ns();
	nbt_solo_start_window(c, &nb_engine_latency, &p, fd, t + 200 * MS, t + 700 * MS);
	nbt_sleep_ms(700);
	int rc = nbt_solo_stop(c);
	echo_stop(&s);
	cr_assert_eq(rc, 0, "%s", c->f.err.msg);
	/* The window is 500 periods long and the schedule is exact: 500 messages are due in it
	 * however late each went out (the flow starts well inside the 200 ms before it). */
	cr_assert_eq(atomic_load(&c->f.c[NB_C_WIN_SENT]), 500);
}

/* 200 messages waited up to 300 ms and vanished from the window's result: every message due in
 * the window is answered after the drain, and the one the server held across the stall (due
 * inside the window) waited at least the stall. */
Test(latency, a_stall_across_the_window_end_keeps_its_slow_answers)
{
	struct nbt_solo c;
	window_across_a_stall(600, 1000, &c);
	uint64_t answered = atomic_load(&c.f.c[NB_C_WIN_ANSWERED]);
	cr_expect_eq(answered, 500, "answered %llu of 500", (unsigned long long)answered);
	cr_expect_eq(atomic_load(&c.win->count), answered);
	cr_expect_geq(atomic_load(&c.win->max_ns), 600 * MS, "max %llu ns",
		      (unsigned long long)atomic_load(&c.win->max_ns));
	nb_hist_destroy(c.win);
	nb_hist_destroy(c.f.hist);
}

/* A server that stops answering for longer than timeout_ms: what never came back is not dropped
 * from the window, it is the window's timeouts (sent - answered, nb_metrics_window), and no
 * answer later than timeout_ms is an RTT. */
Test(latency, what_never_came_back_in_the_window_counts_as_timeouts)
{
	struct nbt_solo c;
	window_across_a_stall(2500, 500, &c);
	uint64_t answered = atomic_load(&c.f.c[NB_C_WIN_ANSWERED]);
	cr_expect_lt(answered, 500, "the messages due in the stall timed out");
	cr_expect_eq(atomic_load(&c.win->count), answered);
	cr_expect_lt(atomic_load(&c.win->max_ns), 500 * MS);
	nb_hist_destroy(c.win);
	nb_hist_destroy(c.f.hist);
}

/* ---- through the session harness ---- */

struct lat_case {
	const char *name;
	enum nb_proto proto;
	uint64_t rate;
	enum nb_wait wait;
};

static void harness_counts(const struct lat_case *lc)
{
	struct nb_params p = nbt_params("latency", lc->proto);
	p.streams = 2;
	p.rate = lc->rate;
	p.wait = lc->wait;
	struct nbt_pair pr;
	nbt_pair_start(&pr, &nb_engine_latency, &p);
	nbt_sleep_ms(200);
	struct nb_snapshot *a = nb_snapshot_create(false), *b = nb_snapshot_create(false);
	nb_session_snapshot(pr.cli, a);
	nbt_sleep_ms(1000);
	nb_session_snapshot(pr.cli, b);
	if (lc->rate) {
		/* The schedule is exact: rate x time messages went out, however late each was
		 * (the margin is for a client descheduled at one of the two snapshots). */
		double want = (double)lc->rate * 2 * (double)(b->t_ns - a->t_ns) / 1e9;
		double sent = (double)(nbt_sum(b, NB_C_TX_PACKETS) - nbt_sum(a, NB_C_TX_PACKETS));
		cr_assert_leq(fabs(sent / want - 1), 0.15, "%s: sent %.0f, scheduled %.0f", lc->name,
			      sent, want);
	}
	struct nb_snapshot *cs = nb_snapshot_create(true), *ss = nb_snapshot_create(false);
	nbt_pair_stop(&pr, cs, ss);
	uint64_t ct = nbt_sum(cs, NB_C_TRANSACTIONS), st = nbt_sum(ss, NB_C_TRANSACTIONS);
	cr_assert_gt(ct, 0, "%s", lc->name);
	uint64_t to = nbt_sum(cs, NB_C_TIMEOUTS);
	/* TCP loses nothing; a UDP timeout is a lost message or a lost echo. */
	cr_assert(st >= ct && st <= ct + to, "%s: server %llu, client %llu + %llu timeouts",
		  lc->name, (unsigned long long)st, (unsigned long long)ct, (unsigned long long)to);
	if (lc->proto == NB_PROTO_TCP)
		cr_assert_eq(st, ct, "%s", lc->name);
	cr_assert_eq(atomic_load(&cs->hist->count), ct);
	cr_assert_gt(atomic_load(&cs->hist->min_ns), 0);
	nb_snapshot_destroy(a);
	nb_snapshot_destroy(b);
	nb_snapshot_destroy(cs);
	nb_snapshot_destroy(ss);
}

Test(latency, counts_match_through_the_harness)
{
	static const struct lat_case cases[] = {
		{ "TCP ping-pong block", NB_PROTO_TCP, 0, NB_WAIT_BLOCK },
		{ "TCP ping-pong spin", NB_PROTO_TCP, 0, NB_WAIT_SPIN },
		{ "UDP ping-pong busy-poll", NB_PROTO_UDP, 0, NB_WAIT_BUSY_POLL },
		{ "TCP 5000/s block", NB_PROTO_TCP, 5000, NB_WAIT_BLOCK },
		{ "UDP 5000/s block", NB_PROTO_UDP, 5000, NB_WAIT_BLOCK },
		{ "UDP 5000/s spin", NB_PROTO_UDP, 5000, NB_WAIT_SPIN },
		{ "TCP 5000/s busy-poll", NB_PROTO_TCP, 5000, NB_WAIT_BUSY_POLL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		harness_counts(&cases[i]);
}

Test(latency, rejects_a_size_without_room_for_the_header)
{
	struct nb_params p = nbt_params("latency", NB_PROTO_UDP);
	p.size = 23;
	struct nb_error err = { "" };
	cr_assert_not(nb_engine_latency.validate(&p, &err));
	cr_assert_str_eq(err.msg, "size must be 24..65507 bytes (the header takes 24)");
}

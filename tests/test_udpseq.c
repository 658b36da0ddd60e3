/* The UDP receiver's accounting: a duplicate too old to tell from a late datagram never lowers
 * lost (issue 12 item 4), each datagram's receive time is the kernel's stamp of that
 * datagram, not one time per receive call (issue 12 item 5), and a datagram without the flow's
 * cookie or beyond the sender's reach is foreign and touches nothing else (issue 29 item 3). */
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dhello.h"
#include "sock.h"
#include "udpflow.h"
#include "udpseq.h"

static struct nb_flow flow;
static struct nb_params params;
static struct nb_seqrx rx;

static void setup(void)
{
	memset(&flow, 0, sizeof(flow));
	params = (struct nb_params){ .engine = "stream", .proto = NB_PROTO_UDP, .size = 64 };
	for (int i = 0; i < NB_KEY_LEN; i++)
		params.key[i] = (unsigned char)i;
	flow.p = &params;
	flow.index = 2;
	flow.lag = 1;
	flow.fd = -1;
	nb_seqrx_init(&rx, &flow);
}

TestSuite(udpseq, .init = setup);
TestSuite(udpflow, .init = setup);

/* A datagram of seq as flow 2's sender writes it (cookie: the flow's, or another). */
static bool take(uint64_t seq, uint64_t cookie, uint64_t at_ns)
{
	unsigned char buf[64];
	nb_dgram_put(buf, seq, 1000 + seq, cookie, 0);
	return nb_seqrx_account(&rx, &flow, buf, sizeof(buf), at_ns);
}

static void arrive(uint64_t seq)
{
	cr_assert(take(seq, nb_dgram_cookie(params.key, 2), rx.last_ns + 1000));
}

static uint64_t count(enum nb_counter c)
{
	return atomic_load(&flow.c[c]);
}

Test(udpseq, a_duplicate_more_than_the_reorder_window_late_is_late_and_leaves_lost_alone)
{
	for (uint64_t s = 0; s <= NB_SEQ_WINDOW + 904; s++)
		arrive(s);
	arrive(0);    /* 5000 behind: a duplicate, or a very late first copy; nobody can tell */
	arrive(10);
	cr_expect_eq(count(NB_C_LOST), 0, "lost %lld", (long long)count(NB_C_LOST));
	cr_expect_eq(count(NB_C_LATE), 2);
	cr_expect_eq(count(NB_C_DUP), 0);
	cr_expect_eq(count(NB_C_REORDER), 0);
	cr_expect_eq(count(NB_C_RX_PACKETS), NB_SEQ_WINDOW + 907);
}

Test(udpseq, inside_the_window_a_gap_is_taken_back_and_a_duplicate_is_a_duplicate)
{
	arrive(0);
	arrive(2);
	cr_expect_eq(count(NB_C_LOST), 1, "1 is missing (so far)");
	arrive(1);
	cr_expect_eq(count(NB_C_LOST), 0, "1 came late: a reorder, not a loss");
	cr_expect_eq(count(NB_C_REORDER), 1);
	arrive(2);
	cr_expect_eq(count(NB_C_DUP), 1);
	cr_expect_eq(count(NB_C_LOST), 0);
	cr_expect_eq(count(NB_C_LATE), 0);
}

Test(udpseq, a_datagram_without_the_flows_cookie_is_foreign_and_counts_nothing_else)
{
	arrive(0);
	uint64_t other_flow = nb_dgram_cookie(params.key, 3), other_run;
	unsigned char k[NB_KEY_LEN] = { 9 };
	other_run = nb_dgram_cookie(k, 2);
	cr_expect_not(take(1u << 30, other_flow, rx.last_ns + 1000), "another flow's cookie");
	cr_expect_not(take(1u << 30, other_run, rx.last_ns + 1000), "another run's");
	cr_expect_not(take(5, 0, rx.last_ns + 1000), "none");
	unsigned char shorter[NB_DGRAM_HDR - 1] = { 0 };
	cr_expect_not(nb_seqrx_account(&rx, &flow, shorter, sizeof(shorter), rx.last_ns + 1000));
	cr_expect_eq(count(NB_C_FOREIGN), 4);
	cr_expect_eq(count(NB_C_RX_PACKETS), 1);
	cr_expect_eq(count(NB_C_LOST), 0);
	cr_expect_eq(count(NB_C_LATE), 0);
	arrive(1);
	cr_expect_eq(count(NB_C_LOST), 0, "the sequence goes on where the real datagrams left it");
}

Test(udpseq, a_sequence_beyond_what_the_rate_can_reach_is_foreign)
{
	nb_seqrx_set_rate(&rx, 1000.0); /* 1000 datagrams/s */
	uint64_t cookie = nb_dgram_cookie(params.key, 2), t = rx.last_ns;
	cr_expect(take(0, cookie, t + 1000));
	/* 1 s later the sender can be 1000 ahead; twice that, 100 ms more and the window pass */
	cr_expect(take(2000, cookie, t + 1000000000ull), "a burst of loss the rate allows");
	cr_expect_eq(count(NB_C_LOST), 1999);
	cr_expect_not(take(2000 + 2 * 1000 + 100 + NB_SEQ_WINDOW + 10, cookie, t + 1000001000ull),
		      "a jump no sender at 1000/s could make in a microsecond");
	cr_expect_not(take(UINT64_MAX / 2, cookie, t + 1000002000ull));
	cr_expect_eq(count(NB_C_FOREIGN), 2);
	cr_expect_eq(count(NB_C_LOST), 1999, "refused jumps count no loss");
	cr_expect(take(2001, cookie, t + 1000003000ull));
	cr_expect_eq(count(NB_C_LOST), 1999);
}

Test(udpseq, a_late_data_hello_of_the_run_is_neither_counted_nor_foreign)
{
	unsigned char b[NB_DHELLO_LEN];
	nb_dhello_put(b, &(struct nb_dhello){ .kind = NB_DH_ACK, .flow = 2 }, params.key);
	cr_expect_not(nb_seqrx_account(&rx, &flow, b, sizeof(b), rx.last_ns + 1000));
	cr_expect_eq(count(NB_C_FOREIGN), 0);
	cr_expect_eq(count(NB_C_RX_PACKETS), 0);
	unsigned char other[NB_KEY_LEN] = { 7 };
	nb_dhello_put(b, &(struct nb_dhello){ .kind = NB_DH_ACK, .flow = 2 }, other);
	cr_expect_not(nb_seqrx_account(&rx, &flow, b, sizeof(b), rx.last_ns + 1000));
	cr_expect_eq(count(NB_C_FOREIGN), 1, "another run's hello is foreign");
}

/* A control message holding one SCM_TIMESTAMPNS. */
struct stamp_cmsg {
	struct msghdr h;
	union {
		struct cmsghdr align;
		unsigned char buf[CMSG_SPACE(sizeof(struct timespec))];
	} u;
};

static void put_stamp(struct stamp_cmsg *m, struct timespec ts)
{
	memset(m, 0, sizeof(*m));
	m->h.msg_control = m->u.buf;
	m->h.msg_controllen = sizeof(m->u.buf);
	struct cmsghdr *c = CMSG_FIRSTHDR(&m->h);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_TIMESTAMPNS;
	c->cmsg_len = CMSG_LEN(sizeof(ts));
	memcpy(CMSG_DATA(c), &ts, sizeof(ts));
}

Test(udpflow, the_kernels_stamp_is_moved_to_the_monotonic_clock)
{
	struct stamp_cmsg m;
	put_stamp(&m, (struct timespec){ .tv_sec = 100, .tv_nsec = 5 });
	cr_expect_eq(nb_udprx_stamp(&m.h, 40000000000ll, 7), 60000000005ull);
	struct msghdr none = { 0 };
	cr_expect_eq(nb_udprx_stamp(&none, 40000000000ll, 7), 7, "no stamp: the fallback");
}

/* Two datagrams sent 5 ms apart and taken by one recvmmsg: each has its own kernel stamp, 5 ms
 * or more apart and inside the time the test spanned (one time per call would give 0). */
/* The kernel turns receive stamping on through deferred work (net_enable_timestamp): until that
 * has run, a datagram is stamped when it is read, not when it arrived. Send probes until one is
 * stamped at its arrival, 2 ms before it is read (at most 200 tries). */
static void prime_stamps(struct nb_udprx *r, int rfd, int sfd, const struct sockaddr_in *a,
			 socklen_t al)
{
	struct timespec gap = { 0, 2000000 };
	for (int i = 0; i < 200; i++) {
		cr_assert_eq(sendto(sfd, "p", 1, 0, (const struct sockaddr *)a, al), 1);
		nanosleep(&gap, NULL);
		r->msg[0].msg_hdr.msg_controllen = r->ctllen;
		uint64_t before = nb_now_ns();
		cr_assert_eq(recvmmsg(rfd, r->msg, 1, 0, NULL), 1);
		int64_t off = (int64_t)nb_udprx_stamp(&r->msg[0].msg_hdr, 0, 0) - (int64_t)before;
		struct timespec rt, mt;
		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_MONOTONIC, &mt);
		off -= (int64_t)(rt.tv_sec - mt.tv_sec) * 1000000000 + (rt.tv_nsec - mt.tv_nsec);
		if (off < -1000000) /* stamped at least 1 ms before the read: at its arrival */
			return;
	}
	cr_assert_fail("the kernel never stamped a datagram at its arrival");
}

Test(udpflow, datagrams_taken_by_one_receive_call_keep_their_own_receive_times)
{
	uint16_t port;
	int rfd = socket(AF_INET, SOCK_DGRAM, 0), sfd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	cr_assert_eq(bind(rfd, (struct sockaddr *)&a, al), 0);
	cr_assert_eq(getsockname(rfd, (struct sockaddr *)&a, &al), 0);
	port = ntohs(a.sin_port);
	cr_assert_gt(port, 0);
	struct nb_udprx r = { 0 };
	flow.fd = rfd;
	cr_assert(nb_udprx_init(&r, &flow, 8, 64, 0), "%s", flow.err.msg);
	prime_stamps(&r, rfd, sfd, &a, al);
	uint64_t t0 = nb_now_ns();
	cr_assert_eq(sendto(sfd, "a", 1, 0, (struct sockaddr *)&a, al), 1);
	struct timespec gap = { 0, 5000000 };
	nanosleep(&gap, NULL);
	cr_assert_eq(sendto(sfd, "b", 1, 0, (struct sockaddr *)&a, al), 1);
	nanosleep(&gap, NULL);
	for (uint32_t i = 0; i < r.nmsg; i++)
		r.msg[i].msg_hdr.msg_controllen = r.ctllen;
	cr_assert_eq(recvmmsg(rfd, r.msg, r.nmsg, MSG_WAITFORONE, NULL), 2);
	uint64_t t1 = nb_now_ns();
	uint64_t sa = nb_udprx_stamp(&r.msg[0].msg_hdr, 0, 0), sb = nb_udprx_stamp(&r.msg[1].msg_hdr, 0, 0);
	cr_expect_geq(sb - sa, 5000000, "stamps %llu and %llu ns", (unsigned long long)sa,
		      (unsigned long long)sb);
	cr_expect_leq(sb - sa, t1 - t0);
	nb_udprx_free(&r);
	close(sfd);
	close(rfd);
}

/* GSO and GRO of the UDP flows (udpgso.h): a GSO buffer carries each datagram with its own
 * header and consecutive sequence numbers, a refused send keeps them; a GRO buffer splits into
 * its datagrams (a short last one too), each accounted, and only the first enters the jitter. */
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "udpgso.h"
#include "udpseq.h"

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

static struct nb_flow flow;
static struct nb_params params;
static atomic_bool stop, quiesce;
static _Atomic uint32_t epoch;

static void setup(void)
{
	memset(&flow, 0, sizeof(flow));
	params = (struct nb_params){ .engine = "stream", .proto = NB_PROTO_UDP, .size = 100, .tos = -1 };
	atomic_store(&epoch, 3);
	flow.p = &params;
	flow.stop = &stop;
	flow.quiesce = &quiesce;
	flow.epoch = &epoch;
	flow.lag = 1;
	flow.fd = socket(AF_INET, SOCK_DGRAM, 0); /* IP_RECVERR needs a socket; nothing is sent */
	cr_assert_geq(flow.fd, 0);
}

static void teardown(void)
{
	close(flow.fd);
}

TestSuite(udpgso, .init = setup, .fini = teardown);

static uint64_t be(const unsigned char *b, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

/* The send call under test: keeps a copy of what it was handed, or refuses it once. */
static unsigned char sent[NB_UDP_MAX_PAYLOAD];
static uint32_t sent_n;
static int refusals;

static int capture(struct nb_udptx *t, uint32_t n)
{
	if (refusals > 0) {
		refusals--;
		errno = ENOBUFS;
		return -1;
	}
	memcpy(sent, t->hdr, (size_t)n * t->stride);
	sent_n = n;
	return (int)n;
}

static void assert_headers(uint64_t first, uint32_t n)
{
	cr_assert_eq(sent_n, n);
	for (uint32_t i = 0; i < n; i++) {
		const unsigned char *h = sent + (size_t)i * params.size;
		cr_expect_eq(be(h, 8), first + i, "segment %u: sequence %llu", i,
			     (unsigned long long)be(h, 8));
		cr_expect_eq(be(h + 16, 4), NB_DGRAM_MAGIC, "segment %u", i);
		cr_expect_eq(be(h + 20, 4), 3, "segment %u: the epoch it was sent in", i);
		if (i)
			cr_expect_geq(be(h + 8, 8), be(h - params.size + 8, 8), "its own send stamp");
	}
}

static void start(struct nb_udpgso_tx *t, uint32_t per_call)
{
	cr_assert(nb_udpgso_tx_init(t, &flow, per_call, true), "%s", flow.err.msg);
	cr_assert_eq(flow.g[NB_G_GSO], NB_GSO_ON);
	t->tx.send = capture;
	cr_assert(nb_udptx_start(&t->tx, 0, 1, 0), "%s", flow.err.msg); /* unpaced */
}

Test(udpgso, a_gso_buffer_carries_each_datagram_with_its_own_consecutive_header)
{
	struct nb_udpgso_tx t;
	start(&t, 8);
	cr_assert_eq(nb_udptx_step(&t.tx), 1);
	assert_headers(0, 8);
	cr_assert_eq(nb_udptx_step(&t.tx), 1);
	assert_headers(8, 8);
	cr_expect_eq(flow.c[NB_C_TX_PACKETS], 16);
	cr_expect_eq(flow.c[NB_C_TX_BYTES], 1600);
	nb_udpgso_tx_free(&t);
}

Test(udpgso, a_refused_gso_send_keeps_its_sequence_numbers_for_the_next)
{
	struct nb_udpgso_tx t;
	start(&t, 4);
	refusals = 1;
	cr_assert_eq(nb_udptx_step(&t.tx), 1);
	cr_expect_eq(flow.c[NB_C_SND_ERRS], 1, "refused once: a send error");
	cr_expect_eq(flow.c[NB_C_TX_PACKETS], 0, "nothing left");
	cr_assert_eq(nb_udptx_step(&t.tx), 1);
	assert_headers(0, 4);
	nb_udpgso_tx_free(&t);
}

Test(udpgso, gso_is_off_when_not_asked_for_or_when_one_datagram_fills_a_send)
{
	struct nb_udpgso_tx t;
	cr_assert(nb_udpgso_tx_init(&t, &flow, 16, false));
	cr_expect_eq(flow.g[NB_G_GSO], NB_GSO_OFF);
	cr_expect_null(t.tx.send, "sendmmsg");
	nb_udpgso_tx_free(&t);
	params.size = 40000;
	cr_assert(nb_udpgso_tx_init(&t, &flow, 16, true));
	cr_expect_eq(flow.g[NB_G_GSO], NB_GSO_OFF, "16 x 40000 B do not fit in one send");
	nb_udpgso_tx_free(&t);
}

Test(udpgso, segments_per_send_are_at_most_64_and_65507_bytes)
{
	static const struct { uint32_t size, segs; } cases[] = {
		{ 24, 64 }, { 1000, 64 }, { 1024, 63 }, { 1400, 46 }, { 32753, 2 }, { 32754, 1 },
		{ 65507, 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(nb_udpgso_segs(cases[i].size), cases[i].segs, "%u B: %u segments",
			     cases[i].size, nb_udpgso_segs(cases[i].size));
}

/* ---- GRO ---- */

/* One received message as recvmmsg leaves it: datagrams of seq first.. with the given lengths
 * back to back, sent at 1000 ns apart from send0_ns; seg > 0 adds the UDP_GRO message. */
struct gro_msg {
	unsigned char buf[NB_GRO_BUF];
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct mmsghdr msg;
	struct iovec iov;
	struct nb_udprx r;
};

static struct gro_msg m;

static void gro_fill(const uint64_t *seqs, const size_t *lens, size_t n, int seg, uint64_t send0_ns)
{
	size_t off = 0;
	memset(&m.msg, 0, sizeof(m.msg));
	for (size_t i = 0; i < n; off += lens[i], i++)
		nb_dgram_put(m.buf + off, seqs[i], send0_ns + 1000 * i, 3);
	m.iov = (struct iovec){ m.buf, sizeof(m.buf) };
	m.msg.msg_hdr.msg_iov = &m.iov;
	m.msg.msg_hdr.msg_iovlen = 1;
	m.msg.msg_len = (unsigned)off;
	if (seg > 0) {
		m.msg.msg_hdr.msg_control = m.ctl.b;
		m.msg.msg_hdr.msg_controllen = sizeof(m.ctl.b);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m.msg.msg_hdr);
		*c = (struct cmsghdr){ .cmsg_len = CMSG_LEN(sizeof(int)), .cmsg_level = SOL_UDP,
				       .cmsg_type = UDP_GRO };
		memcpy(CMSG_DATA(c), &seg, sizeof(seg));
	}
	m.r.f = &flow;
	m.r.msg = &m.msg;
	m.r.iov = &m.iov;
}

static void gro_receive(const uint64_t *seqs, const size_t *lens, size_t n, int seg,
			uint64_t send0_ns, uint64_t recv_ns)
{
	gro_fill(seqs, lens, n, seg, send0_ns);
	nb_udpgso_account(&m.r, 0, recv_ns);
}

Test(udpgso, a_coalesced_buffer_splits_into_its_datagrams_and_a_short_last_one)
{
	nb_seqrx_init(&m.r.seq);
	const uint64_t seqs[] = { 0, 1, 2, 3 };
	const size_t lens[] = { 100, 100, 100, 60 };
	gro_receive(seqs, lens, 4, 100, 1000, 50000);
	cr_expect_eq(flow.c[NB_C_RX_PACKETS], 4);
	cr_expect_eq(flow.c[NB_C_RX_BYTES], 360);
	cr_expect_eq(flow.c[NB_C_LOST], 0);
	cr_expect_eq(flow.c[NB_C_DUP], 0);
	cr_expect_eq(flow.c[NB_C_REORDER], 0);
}

Test(udpgso, a_gap_or_a_repeat_inside_a_coalesced_buffer_counts_as_without_gro)
{
	nb_seqrx_init(&m.r.seq);
	const uint64_t seqs[] = { 0, 1, 3, 3, 2 };
	const size_t lens[] = { 100, 100, 100, 100, 100 };
	gro_receive(seqs, lens, 5, 100, 1000, 50000);
	cr_expect_eq(flow.c[NB_C_RX_PACKETS], 5);
	cr_expect_eq(flow.c[NB_C_DUP], 1, "3 twice");
	cr_expect_eq(flow.c[NB_C_REORDER], 1, "2 after 3");
	cr_expect_eq(flow.c[NB_C_LOST], 0, "2 came: nothing missing");
}

Test(udpgso, a_buffer_without_a_gro_message_is_one_datagram)
{
	nb_seqrx_init(&m.r.seq);
	const uint64_t seqs[] = { 0 };
	const size_t lens[] = { 300 };
	gro_receive(seqs, lens, 1, 0, 1000, 50000);
	cr_expect_eq(flow.c[NB_C_RX_PACKETS], 1);
	cr_expect_eq(flow.c[NB_C_RX_BYTES], 300);
}

/* Two buffers of four: the heads' transit times differ by 160 ns, the datagrams inside a buffer
 * (sent 1000 ns apart, one kernel stamp) would add 1000 ns each: jitter is 160 / 16 = 10 ns. */
Test(udpgso, only_the_first_datagram_of_a_coalesced_buffer_enters_the_jitter)
{
	nb_seqrx_init(&m.r.seq);
	const uint64_t a[] = { 0, 1, 2, 3 }, b[] = { 4, 5, 6, 7 };
	const size_t lens[] = { 100, 100, 100, 100 };
	gro_receive(a, lens, 4, 100, 1000, 50000);
	gro_receive(b, lens, 4, 100, 101000, 150160);
	cr_expect_eq(flow.c[NB_C_RX_PACKETS], 8);
	cr_expect_eq(flow.g[NB_G_JITTER_NS], 10, "jitter %llu ns",
		     (unsigned long long)flow.g[NB_G_JITTER_NS]);
}

/* Control connection I/O over a socket pair: a frame that has begun must be whole within
 * NB_CTL_FRAME_MS however long the caller is willing to wait for the next message (an idle
 * session waits minutes), and the handshake's reads end by their deadline. Once sealed, every
 * frame opens only as it was sent, in its place in the stream: a frame changed, replayed,
 * dropped, injected in clear or sealed under another session fails, and so does all after it. */
#include <criterion/criterion.h>
#include <sodium.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctl.h"
#include "proto.h"

static int pair[2];
static struct nb_ctl rx;

static void open_pair(void)
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
	nb_ctl_init(&rx, pair[0]);
}

static void close_pair(void)
{
	close(pair[0]);
	close(pair[1]);
}

TestSuite(ctl, .init = open_pair, .fini = close_pair, .timeout = 30);

Test(ctl, a_half_sent_frame_ends_the_wait_after_the_frame_deadline_not_the_idle_timeout)
{
	const unsigned char half[] = { 0, 0, 0, 40, 0, NB_MSG_SETUP, 0, 0 }; /* 40 bytes promised, 2 sent */
	cr_assert_eq(write(pair[1], half, sizeof(half)), (ssize_t)sizeof(half));
	struct nb_msg m;
	struct nb_error err = { { 0 } };
	uint64_t t0 = nb_ctl_now_ms();
	cr_assert_eq(nb_ctl_recv(&rx, &m, 600000, &err), -1, "a 10-minute idle wait");
	cr_assert_str_eq(err.msg, "control connection: partial frame");
	cr_assert_geq(nb_ctl_now_ms() - t0, NB_CTL_FRAME_MS - 100, "the frame had its 5 s");
}

Test(ctl, nothing_by_the_handshake_deadline_is_nothing)
{
	struct nb_msg m;
	struct nb_error err = { { 0 } };
	cr_assert_eq(nb_ctl_recv_by(&rx, &m, nb_ctl_now_ms() + 50, 4096, &err), 0);
}

Test(ctl, a_frame_half_sent_by_the_handshake_deadline_is_refused_then)
{
	const unsigned char half[] = { 0, 0, 0, 40, 0, NB_MSG_HELLO };
	cr_assert_eq(write(pair[1], half, sizeof(half)), (ssize_t)sizeof(half));
	struct nb_msg m;
	struct nb_error err = { { 0 } };
	cr_assert_eq(nb_ctl_recv_by(&rx, &m, nb_ctl_now_ms() + 200, 4096, &err), -1);
	cr_assert_str_eq(err.msg, "control connection: partial frame");
}

Test(ctl, a_handshake_frame_longer_than_allowed_is_refused_before_it_is_read)
{
	const unsigned char big[] = { 0, 0x10, 0, 0, 0, NB_MSG_HELLO }; /* 1 MiB promised */
	cr_assert_eq(write(pair[1], big, sizeof(big)), (ssize_t)sizeof(big));
	struct nb_msg m;
	struct nb_error err = { { 0 } };
	cr_assert_eq(nb_ctl_recv_by(&rx, &m, nb_ctl_now_ms() + 2000, 4096, &err), -1);
	cr_assert_not_null(strstr(err.msg, "above 4096"), "%s", err.msg);
}

/* ---- sealed frames ---- */

static unsigned char session_key[NB_KEY_LEN];

/* The agent's end seals on pair[1]; the client's end (rx, pair[0]) opens. */
static struct nb_ctl seal_pair(void)
{
	struct nb_ctl tx;
	cr_assert(sodium_init() >= 0);
	randombytes_buf(session_key, sizeof(session_key));
	nb_ctl_init(&tx, pair[1]);
	nb_ctl_seal(&tx, session_key, NB_ROLE_AGENT);
	nb_ctl_seal(&rx, session_key, NB_ROLE_CLIENT);
	return tx;
}

/* What tx puts on the wire for one READY with port, captured off pair[0] (n bytes into b). */
static size_t wire_of(struct nb_ctl *tx, uint16_t port, uint8_t *b, size_t cap)
{
	struct nb_msg m = { .type = NB_MSG_READY, .u.ready.port = port };
	struct nb_error err = { { 0 } };
	cr_assert(nb_ctl_send(tx, &m, 1000, &err), "%s", err.msg);
	ssize_t n = recv(pair[0], b, cap, 0);
	cr_assert_gt(n, 0);
	return (size_t)n;
}

static void put(const uint8_t *b, size_t n)
{
	cr_assert_eq(write(pair[1], b, n), (ssize_t)n);
}

/* rx's next message: READY's port, or -1 with err. */
static int next_port(struct nb_error *err)
{
	struct nb_msg m;
	int r = nb_ctl_recv(&rx, &m, 1000, err);
	return r == 1 && m.type == NB_MSG_READY ? m.u.ready.port : -1;
}

Test(ctl, sealed_frames_open_in_order_both_ways)
{
	struct nb_ctl tx = seal_pair();
	struct nb_msg m = { .type = NB_MSG_READY, .u.ready.port = 7601 };
	struct nb_error err = { { 0 } };
	for (int i = 0; i < 3; i++) {
		m.u.ready.port = (uint16_t)(7601 + i);
		cr_assert(nb_ctl_send(&tx, &m, 1000, &err));
		cr_assert_eq(next_port(&err), 7601 + i, "%s", err.msg);
	}
	m.u.ready.port = 9;
	cr_assert(nb_ctl_send(&rx, &m, 1000, &err), "the client's direction has its own key");
	struct nb_msg got;
	cr_assert_eq(nb_ctl_recv(&tx, &got, 1000, &err), 1, "%s", err.msg);
	cr_assert_eq(got.u.ready.port, 9);
}

Test(ctl, a_sealed_frame_is_its_body_and_a_16_byte_tag)
{
	struct nb_ctl tx = seal_pair();
	uint8_t b[256];
	size_t n = wire_of(&tx, 7601, b, sizeof(b));
	cr_assert_eq(n, 4 + 4 + NB_CTL_TAG_LEN, "prefix, type and port, tag");
	cr_assert_eq(b[3], 4 + NB_CTL_TAG_LEN, "the prefix counts the tag");
	cr_assert_neq(b[5], NB_MSG_READY, "the type is not in clear");
}

Test(ctl, one_flipped_bit_fails_that_frame_and_every_frame_after_it)
{
	uint8_t b[256], good[256];
	struct nb_error err = { { 0 } };
	/* every byte after the prefix (another length is another case, below) */
	for (size_t at = 4; at < 4 + 4 + NB_CTL_TAG_LEN; at++) {
		struct nb_ctl tx = seal_pair();
		size_t n = wire_of(&tx, 7601, b, sizeof(b));
		b[at] ^= 0x01;
		put(b, n);
		cr_assert_eq(next_port(&err), -1, "byte %zu flipped", at);
		cr_assert_str_eq(err.msg, NB_CTL_ALTERED);
		cr_assert(rx.altered);
		size_t m = wire_of(&tx, 7602, good, sizeof(good));
		put(good, m);
		cr_assert_eq(next_port(&err), -1, "a good frame after it is not read either");
		cr_assert_str_eq(err.msg, NB_CTL_ALTERED);
		close_pair();
		open_pair(); /* a fresh connection for the next byte (and for .fini) */
	}
}

Test(ctl, a_shorter_length_prefix_fails_as_altered)
{
	struct nb_ctl tx = seal_pair();
	uint8_t b[256];
	struct nb_error err = { { 0 } };
	size_t n = wire_of(&tx, 7601, b, sizeof(b));
	b[3] -= 1; /* one byte less: the rest of the frame is the next one's beginning */
	put(b, n - 1);
	cr_assert_eq(next_port(&err), -1);
	cr_assert_str_eq(err.msg, NB_CTL_ALTERED);
}

Test(ctl, a_replayed_frame_fails)
{
	struct nb_ctl tx = seal_pair();
	uint8_t b[256];
	struct nb_error err = { { 0 } };
	size_t n = wire_of(&tx, 7601, b, sizeof(b));
	put(b, n);
	cr_assert_eq(next_port(&err), 7601, "%s", err.msg);
	put(b, n);
	cr_assert_eq(next_port(&err), -1, "the same frame again");
	cr_assert_str_eq(err.msg, NB_CTL_ALTERED);
}

Test(ctl, a_dropped_frame_fails_the_next)
{
	struct nb_ctl tx = seal_pair();
	uint8_t first[256], second[256];
	struct nb_error err = { { 0 } };
	(void)wire_of(&tx, 7601, first, sizeof(first));
	size_t n = wire_of(&tx, 7602, second, sizeof(second));
	put(second, n);
	cr_assert_eq(next_port(&err), -1, "the second frame without the first");
	cr_assert_str_eq(err.msg, NB_CTL_ALTERED);
}

Test(ctl, a_frame_in_clear_after_the_handshake_fails)
{
	(void)seal_pair();
	struct nb_ctl plain;
	struct nb_error err = { { 0 } };
	nb_ctl_init(&plain, pair[1]);
	struct nb_msg m = { .type = NB_MSG_READY, .u.ready.port = 7601 };
	struct nb_msg pad = { .type = NB_MSG_ERROR, .u.error = { .code = NB_ERR_BUSY,
								  .text = "long enough to look sealed" } };
	cr_assert(nb_ctl_send(&plain, &pad, 1000, &err));
	cr_assert_eq(next_port(&err), -1, "an injected frame");
	cr_assert_str_eq(err.msg, NB_CTL_ALTERED);
	cr_assert(nb_ctl_send(&plain, &m, 1000, &err));
}

Test(ctl, a_frame_sealed_under_another_session_fails)
{
	(void)seal_pair();
	struct nb_ctl other;
	unsigned char k[NB_KEY_LEN];
	randombytes_buf(k, sizeof(k));
	nb_ctl_init(&other, pair[1]);
	nb_ctl_seal(&other, k, NB_ROLE_AGENT);
	struct nb_msg m = { .type = NB_MSG_READY, .u.ready.port = 7601 };
	struct nb_error err = { { 0 } };
	cr_assert(nb_ctl_send(&other, &m, 1000, &err));
	cr_assert_eq(next_port(&err), -1);
	cr_assert_str_eq(err.msg, NB_CTL_ALTERED);
}

Test(ctl, a_frame_sealed_for_the_other_direction_fails)
{
	struct nb_ctl tx = seal_pair();
	struct nb_ctl mirror;
	nb_ctl_init(&mirror, pair[1]);
	nb_ctl_seal(&mirror, session_key, NB_ROLE_CLIENT); /* the client's own key, reflected */
	struct nb_msg m = { .type = NB_MSG_READY, .u.ready.port = 7601 };
	struct nb_error err = { { 0 } };
	cr_assert(nb_ctl_send(&mirror, &m, 1000, &err));
	cr_assert_eq(next_port(&err), -1, "a reflected frame");
	(void)tx;
}

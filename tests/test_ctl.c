/* Control connection I/O over a socket pair: a frame that has begun must be whole within
 * NB_CTL_FRAME_MS however long the caller is willing to wait for the next message (an idle
 * session waits minutes), and the handshake's reads end by their deadline. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctl.h"
#include "proto.h"

static int pair[2];

static void open_pair(void)
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
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
	cr_assert_eq(nb_ctl_recv(pair[0], &m, 600000, &err), -1, "a 10-minute idle wait");
	cr_assert_str_eq(err.msg, "control connection: partial frame");
	cr_assert_geq(nb_ctl_now_ms() - t0, NB_CTL_FRAME_MS - 100, "the frame had its 5 s");
}

Test(ctl, nothing_by_the_handshake_deadline_is_nothing)
{
	struct nb_msg m;
	struct nb_error err = { { 0 } };
	cr_assert_eq(nb_ctl_recv_by(pair[0], &m, nb_ctl_now_ms() + 50, 4096, &err), 0);
}

Test(ctl, a_frame_half_sent_by_the_handshake_deadline_is_refused_then)
{
	const unsigned char half[] = { 0, 0, 0, 40, 0, NB_MSG_HELLO };
	cr_assert_eq(write(pair[1], half, sizeof(half)), (ssize_t)sizeof(half));
	struct nb_msg m;
	struct nb_error err = { { 0 } };
	cr_assert_eq(nb_ctl_recv_by(pair[0], &m, nb_ctl_now_ms() + 200, 4096, &err), -1);
	cr_assert_str_eq(err.msg, "control connection: partial frame");
}

Test(ctl, a_handshake_frame_longer_than_allowed_is_refused_before_it_is_read)
{
	const unsigned char big[] = { 0, 0x10, 0, 0, 0, NB_MSG_HELLO }; /* 1 MiB promised */
	cr_assert_eq(write(pair[1], big, sizeof(big)), (ssize_t)sizeof(big));
	struct nb_msg m;
	struct nb_error err = { { 0 } };
	cr_assert_eq(nb_ctl_recv_by(pair[0], &m, nb_ctl_now_ms() + 2000, 4096, &err), -1);
	cr_assert_not_null(strstr(err.msg, "above 4096"), "%s", err.msg);
}

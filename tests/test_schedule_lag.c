/* Every scheduled sender records its schedule lag (issue 28 items 2 and 3), on 127.0.0.1 through
 * the session harness: each request a connect or latency flow sends at a rate has its send time
 * minus due time in the lag histogram (one sample per request, whatever the machine's speed), and
 * a closed loop (rate 0) has no schedule and records none. No timing is asserted: what counts is
 * that the lateness of every request is measured. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engines.h"
#include "nbt_pair.h"

/* The lag histogram's samples and the requests sent, over a connect run of ms milliseconds at
 * rate attempts/s to a listener on 127.0.0.1 (the kernel completes the handshakes). */
static void connect_run(uint64_t rate, unsigned ms, uint64_t *lagged, uint64_t *attempts,
			uint64_t *connected, uint64_t *timed)
{
	uint16_t port;
	int lfd = nbt_bind_lo(SOCK_STREAM, &port);
	struct nb_params p = nbt_params("connect", NB_PROTO_TCP);
	p.rate = rate;
	p.port = port;
	struct sockaddr_in lo = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct nb_error err = { "" };
	struct nb_session *s = nb_session_connect(&nb_engine_connect, &p, (struct sockaddr *)&lo,
						  sizeof(lo), port, 0, &err);
	cr_assert_not_null(s, "%s", err.msg);
	cr_assert(nb_session_start(s, &err), "%s", err.msg);
	nbt_sleep_ms(ms);
	nb_session_quiesce(s);
	cr_assert(nb_session_stop(s, &err), "%s", err.msg);
	struct nb_snapshot *snap = nb_snapshot_create(true);
	cr_assert_not_null(snap);
	nb_session_snapshot(s, snap);
	*lagged = snap->lag->count;
	*attempts = nbt_sum(snap, NB_C_TX_PACKETS);
	*connected = nbt_sum(snap, NB_C_TRANSACTIONS);
	*timed = snap->hist->count;
	nb_snapshot_destroy(snap);
	nb_session_destroy(s);
	close(lfd);
}

Test(schedule_lag, every_paced_connect_attempt_has_its_lag_recorded)
{
	uint64_t lagged, attempts, connected, timed;
	connect_run(200, 400, &lagged, &attempts, &connected, &timed);
	cr_assert_gt(attempts, 10, "%llu attempts", (unsigned long long)attempts);
	cr_expect_eq(lagged, attempts, "%llu lag samples of %llu attempts", (unsigned long long)lagged,
		     (unsigned long long)attempts);
	cr_expect_eq(timed, connected);
}

Test(schedule_lag, back_to_back_connects_have_no_schedule_and_no_lag)
{
	uint64_t lagged, attempts, connected, timed;
	connect_run(0, 200, &lagged, &attempts, &connected, &timed);
	cr_assert_gt(attempts, 10);
	cr_expect_eq(lagged, 0);
	cr_expect_eq(timed, connected);
}

Test(schedule_lag, every_message_under_load_has_its_lag_recorded)
{
	struct nb_params p = nbt_params("latency", NB_PROTO_UDP);
	p.size = 32;
	p.rate = 2000;
	struct nbt_pair pr;
	nbt_pair_start(&pr, &nb_engine_latency, &p);
	nbt_sleep_ms(300);
	struct nb_snapshot *cli = nb_snapshot_create(true), *srv = nb_snapshot_create(false);
	cr_assert(cli && srv);
	nbt_pair_stop(&pr, cli, srv);
	uint64_t sent = nbt_sum(cli, NB_C_TX_PACKETS);
	cr_assert_gt(sent, 100);
	cr_expect_eq(cli->lag->count, sent, "%llu lag samples of %llu messages",
		     (unsigned long long)cli->lag->count, (unsigned long long)sent);
	nb_snapshot_destroy(cli);
	nb_snapshot_destroy(srv);
}

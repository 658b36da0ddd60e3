/* net suite: a session that never ends by itself, on loopback (issue 29 item 6): a run whose
 * STOP does not come keeps its senders going a few seconds past its end at most, and a client
 * that sends nothing but clock exchanges does not hold the one session slot past the idle
 * timeout. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "client.h"
#include "ctl.h"
#include "nbt_agent.h"
#include "proto.h"
#include "session.h"

TestSuite(agent_session, .timeout = 60);

Test(agent_session, senders_stop_a_few_seconds_after_the_run_when_no_stop_comes, .timeout = 60)
{
	struct nb_client c;
	struct nb_error err = { { 0 } };
	struct nb_agent *a = nbt_agent_session(&(struct nb_agent_opts){ 0 }, NULL, &c);
	struct nb_msg_setup su = nbt_small_test(1);
	su.duration_ns = 1000000000ull;
	su.params.proto = NB_PROTO_UDP; /* no send queue to drain: what is sent is what was paced */
	su.params.direction = NB_DIR_REVERSE;
	su.params.rate = 4000000ull; /* 0.5 MB/s from the agent */
	struct nb_msg m = { .type = NB_MSG_SETUP, .u.setup = su };
	cr_assert(nb_ctl_send(&c.ctl, &m, 2000, &err), "%s", err.msg);
	cr_assert_eq(nb_ctl_recv(&c.ctl, &m, 5000, &err), 1, "%s", err.msg);
	cr_assert_eq(m.type, NB_MSG_READY, "%s", m.u.error.text);
	nb_auth_run_key(c.session_key, 1, su.params.key);
	struct nb_session *s = nb_session_connect(nb_engine_find("stream"), &su.params,
						  (struct sockaddr *)&c.addr, c.addr_len, m.u.ready.port,
						  5000, &err);
	cr_assert_not_null(s, "%s", err.msg);
	cr_assert(nb_session_start(s, &err), "%s", err.msg);
	struct nb_msg start_msg = { .type = NB_MSG_START };
	cr_assert(nb_ctl_send(&c.ctl, &start_msg, 2000, &err), "%s", err.msg);
	usleep(20000000); /* START, and then no STOP for 20 s: an injected or abandoned session */
	struct nb_snapshot *snap = nb_snapshot_create(false);
	nb_session_snapshot(s, snap);
	uint64_t got = snap->flow[0].c[NB_C_RX_BYTES];
	nb_snapshot_destroy(snap);
	/* 1 s of run and the few seconds' grace at 0.5 MB/s, and 2 s to spare: not 20 s of it */
	cr_expect_leq(got, (1 + NB_AGENT_SENDER_GRACE_S + 2) * 500000ull, "%llu bytes in 20 s",
		      (unsigned long long)got);
	cr_expect_geq(got, 400000ull, "the run itself was sent (%llu bytes)", (unsigned long long)got);
	nb_session_destroy(s);
	nb_client_close(&c);
	nb_agent_destroy(a);
}

Test(agent_session, clock_exchanges_alone_do_not_hold_the_session_past_its_idle_timeout, .timeout = 60)
{
	struct nb_client c;
	struct nb_error err = { { 0 } };
	struct nb_agent *a = nbt_agent_session(&(struct nb_agent_opts){ .idle_timeout_s = 2 }, NULL, &c);
	bool closed = false;
	int sent = 0;
	for (; sent < 40 && !closed; sent++) { /* 12 s of TIME every 300 ms */
		struct nb_msg m = { .type = NB_MSG_TIME, .u.time.t1 = 1 };
		if (!nb_ctl_send(&c.ctl, &m, 1000, &err))
			break;
		int r = nb_ctl_recv(&c.ctl, &m, 2000, &err);
		closed = r != 1 || (m.type == NB_MSG_ERROR && strstr(m.u.error.text, "idle"));
		usleep(300000);
	}
	cr_expect(closed, "the agent closed the session (%d TIME messages)", sent);
	cr_expect_lt(sent, 40);
	nb_client_close(&c);
	nb_agent_destroy(a);
}

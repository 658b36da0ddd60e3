/* A path between two agents (issue 17): SETUP's end, target and grant on the wire, the grant's
 * seal, and the targets an agent refuses to send to. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "auth.h"
#include "ctl.h"
#include "proto.h"

static struct nb_msg_setup connect_setup(void)
{
	struct nb_msg_setup s = { .run_id = 9, .duration_ns = 1000000000ull,
				  .interval_ns = 500000000ull, .end = NB_END_CONNECT,
				  .target = { .family = 4, .addr = { 10, 0, 0, 11 }, .port = 7601 } };
	snprintf(s.case_id, sizeof(s.case_id), "relay");
	snprintf(s.params.engine, sizeof(s.params.engine), "stream");
	s.params.streams = 1;
	s.params.tos = -1;
	for (int i = 0; i < NB_GRANT_LEN; i++)
		s.grant[i] = (uint8_t)(i * 7 + 1);
	return s;
}

/* Encode m and decode it again: the decoder's verdict (err: its reason). */
static bool round_trip(struct nb_msg *m, struct nb_msg *out, struct nb_error *err)
{
	struct nb_buf b = { 0 };
	cr_assert(nb_msg_encode(m, &b, err), "%s", err->msg);
	bool ok = nb_msg_decode(b.p + 4, b.len - 4, out, err);
	nb_buf_free(&b);
	return ok;
}

Test(grant, a_connecting_setup_carries_its_target_and_grant_exactly)
{
	struct nb_msg m = { .type = NB_MSG_SETUP, .u.setup = connect_setup() }, out;
	struct nb_error err = { { 0 } };
	cr_assert(round_trip(&m, &out, &err), "%s", err.msg);
	cr_assert_eq(out.u.setup.end, NB_END_CONNECT);
	cr_assert_eq(out.u.setup.any_source, 0);
	cr_assert_eq(out.u.setup.target.family, 4);
	cr_assert_eq(out.u.setup.target.port, 7601);
	cr_assert_eq(memcmp(out.u.setup.target.addr, m.u.setup.target.addr, 16), 0);
	cr_assert_eq(memcmp(out.u.setup.grant, m.u.setup.grant, NB_GRANT_LEN), 0);
}

Test(grant, a_listening_setup_says_whether_it_takes_data_from_any_host)
{
	struct nb_msg m = { .type = NB_MSG_SETUP, .u.setup = connect_setup() }, out;
	struct nb_error err = { { 0 } };
	m.u.setup.end = NB_END_LISTEN;
	m.u.setup.any_source = 1;
	m.u.setup.target = (struct nb_target){ 0 };
	memset(m.u.setup.grant, 0, sizeof(m.u.setup.grant));
	cr_assert(round_trip(&m, &out, &err), "%s", err.msg);
	cr_assert_eq(out.u.setup.end, NB_END_LISTEN);
	cr_assert_eq(out.u.setup.any_source, 1);
}

Test(grant, setups_whose_end_and_target_disagree_are_rejected)
{
	struct nb_msg out;
	const char *bad[] = { "connect without an address", "connect without a port",
			      "connect that takes data", "listen with a target",
			      "listen with a grant" };
	for (int i = 0; i < 5; i++) {
		struct nb_msg m = { .type = NB_MSG_SETUP, .u.setup = connect_setup() };
		struct nb_msg_setup *s = &m.u.setup;
		if (i == 0)
			s->target.family = 0;
		if (i == 1)
			s->target.port = 0;
		if (i == 2)
			s->any_source = 1;
		if (i == 3)
			s->end = NB_END_LISTEN;
		if (i == 4) {
			s->end = NB_END_LISTEN;
			s->target = (struct nb_target){ 0 };
		}
		struct nb_error err = { { 0 } };
		cr_expect_not(round_trip(&m, &out, &err), "%s was accepted", bad[i]);
		cr_expect(strstr(err.msg, "bad frame"), "%s: %s", bad[i], err.msg);
	}
}

Test(grant, only_the_same_session_run_and_target_open_a_sealed_key)
{
	unsigned char session[NB_KEY_LEN], other[NB_KEY_LEN], key[NB_KEY_LEN];
	unsigned char sealed[NB_GRANT_LEN], opened[NB_KEY_LEN];
	struct nb_target to = { .family = 4, .addr = { 10, 0, 0, 11 }, .port = 7601 }, elsewhere = to;
	for (int i = 0; i < NB_KEY_LEN; i++) {
		session[i] = (unsigned char)i;
		other[i] = (unsigned char)(i + 1);
		key[i] = (unsigned char)(200 - i);
	}
	nb_auth_grant_seal(session, 5, &to, key, sealed);
	cr_assert_null(memmem(sealed, sizeof(sealed), key, 8), "the key does not cross in the clear");
	cr_assert(nb_auth_grant_open(session, 5, &to, sealed, opened), "its session opens it");
	cr_assert_eq(memcmp(opened, key, NB_KEY_LEN), 0, "for its run and target");
	cr_assert_not(nb_auth_grant_open(session, 6, &to, sealed, opened), "not for another run");
	cr_assert_not(nb_auth_grant_open(other, 5, &to, sealed, opened), "nor in another session");
	elsewhere.port = 7602;
	cr_assert_not(nb_auth_grant_open(session, 5, &elsewhere, sealed, opened), "nor another port");
	elsewhere = to;
	elsewhere.addr[3] = 12;
	cr_assert_not(nb_auth_grant_open(session, 5, &elsewhere, sealed, opened), "nor another host");
	static const unsigned char zero[NB_KEY_LEN];
	cr_assert_eq(memcmp(opened, zero, NB_KEY_LEN), 0, "a refused grant leaves no key");
	sealed[NB_GRANT_LEN - 1] ^= 1;
	cr_assert_not(nb_auth_grant_open(session, 5, &to, sealed, opened), "nor a changed grant");
}

static bool target_for(const char *text, int family, bool local_ok)
{
	struct nb_target t = { .family = (uint8_t)(family == AF_INET ? 4 : 6), .port = 7601 };
	cr_assert_eq(inet_pton(family, text, t.addr), 1);
	struct sockaddr_storage a;
	socklen_t len;
	struct nb_error err = { { 0 } };
	bool ok = nb_ctl_target_get(&t, local_ok, &a, &len, &err);
	if (ok) {
		cr_assert_eq(a.ss_family, family);
		cr_assert_eq(ntohs(((struct sockaddr_in *)&a)->sin_port), 7601);
	}
	return ok;
}

/* For a runner on the agent's own loopback (local_ok) and for one elsewhere. */
static bool target_ok(const char *text, int family)
{
	return target_for(text, family, true);
}

static bool target_ok_off_loopback(const char *text, int family)
{
	return target_for(text, family, false);
}

Test(grant, an_agent_sends_to_one_host_never_to_nobody_or_everybody)
{
	cr_expect(target_ok("127.0.0.2", AF_INET));
	cr_expect(target_ok("10.0.1.13", AF_INET));
	cr_expect(target_ok("::1", AF_INET6));
	cr_expect_not(target_ok("0.0.0.0", AF_INET));
	cr_expect_not(target_ok("0.1.2.3", AF_INET));
	cr_expect_not(target_ok("224.0.0.1", AF_INET));
	cr_expect_not(target_ok("240.0.0.1", AF_INET));
	cr_expect_not(target_ok("255.255.255.255", AF_INET));
	cr_expect_not(target_ok("::", AF_INET6));
	cr_expect_not(target_ok("ff02::1", AF_INET6));
	cr_expect_not(target_ok("::ffff:224.0.0.1", AF_INET6));
}

Test(grant, a_runner_elsewhere_names_no_loopback_or_link_local_target)
{
	cr_expect(target_ok_off_loopback("10.0.1.13", AF_INET));
	cr_expect(target_ok_off_loopback("2001:db8::7", AF_INET6));
	const char *v4[] = { "127.0.0.1", "127.9.9.9", "169.254.169.254", "169.254.0.1" };
	const char *v6[] = { "::1", "fe80::1", "febf::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254" };
	for (size_t i = 0; i < sizeof(v4) / sizeof(v4[0]); i++) {
		cr_expect_not(target_ok_off_loopback(v4[i], AF_INET), "%s", v4[i]);
		cr_expect(target_ok(v4[i], AF_INET), "%s for a runner on loopback", v4[i]);
	}
	for (size_t i = 0; i < sizeof(v6) / sizeof(v6[0]); i++)
		cr_expect_not(target_ok_off_loopback(v6[i], AF_INET6), "%s", v6[i]);
	cr_expect(target_ok_off_loopback("fec0::1", AF_INET6), "fec0::/10 is not link-local");
}

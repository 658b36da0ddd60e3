/* The control handshake over a socket pair: both ends' verdicts for each combination of
 * secrets, the session key they agree on, and the secret file's rules. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"
#include "ctl.h"
#include "fixture_util.h"
#include "nb_config.h"
#include "proto.h"

struct agent_end {
	struct nb_ctl ctl;
	const struct nb_secret *secret;
	enum nb_auth_verdict verdict;
	struct nb_auth auth;
	struct nb_error err;
};

static void *agent_main(void *arg)
{
	struct agent_end *a = arg;
	a->verdict = nb_auth_agent(&a->ctl, a->secret, nb_ctl_now_ms() + 2000, &a->auth, &a->err);
	return NULL;
}

/* Run both ends, the client's control connection left in *cc (sealed when it succeeded, its
 * socket open: the caller closes both ends); the client's result, the agent's in *a. */
static bool shake_open(const struct nb_secret *client, const struct nb_secret *agent,
		       struct agent_end *a, struct nb_ctl *cc, struct nb_auth *c_auth,
		       struct nb_error *c_err)
{
	int sv[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	*a = (struct agent_end){ .secret = agent };
	nb_ctl_init(&a->ctl, sv[1]);
	nb_ctl_init(cc, sv[0]);
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, agent_main, a), 0);
	bool ok = nb_auth_client(cc, client, 2000, "test-agent", c_auth, c_err);
	if (!ok)
		shutdown(sv[0], SHUT_RDWR); /* a refusing client hangs up, as nb_client_open does */
	pthread_join(th, NULL);
	return ok;
}

/* The same, both ends closed. */
static bool shake(const struct nb_secret *client, const struct nb_secret *agent, struct agent_end *a,
		  struct nb_auth *c_auth, struct nb_error *c_err)
{
	struct nb_ctl cc;
	bool ok = shake_open(client, agent, a, &cc, c_auth, c_err);
	close(cc.fd);
	close(a->ctl.fd);
	return ok;
}

static struct nb_secret secret_of(const char *text)
{
	char path[4096];
	cr_assert(nbt_tmpfile("secret", "", text, path, sizeof(path)));
	chmod(path, 0600);
	struct nb_secret s;
	struct nb_error err = { { 0 } };
	cr_assert(nb_secret_load(path, &s, &err), "%s", err.msg);
	unlink(path);
	return s;
}

Test(auth, the_same_secret_on_both_ends_gives_both_the_same_session_key)
{
	struct nb_secret s = secret_of("correct horse battery staple\n");
	struct agent_end a;
	struct nb_auth c;
	struct nb_error err = { { 0 } };
	cr_assert(shake(&s, &s, &a, &c, &err), "%s", err.msg);
	cr_assert_eq(a.verdict, NB_AUTH_OK, "%s", a.err.msg);
	cr_assert_arr_eq(c.session_key, a.auth.session_key, NB_KEY_LEN);
	struct agent_end a2;
	struct nb_auth c2;
	cr_assert(shake(&s, &s, &a2, &c2, &err), "%s", err.msg);
	cr_assert_arr_neq(c.session_key, c2.session_key, NB_KEY_LEN, "fresh nonces, a fresh key");
}

Test(auth, a_wrong_secret_is_refused_on_both_ends_with_one_line_each)
{
	struct nb_secret mine = secret_of("correct horse battery staple"),
			 theirs = secret_of("incorrect horse battery staple");
	struct agent_end a;
	struct nb_auth c;
	struct nb_error err = { { 0 } };
	cr_assert_not(shake(&mine, &theirs, &a, &c, &err));
	cr_assert_str_eq(err.msg, "peer test-agent: authentication failed: the client's secret is not "
			 "this agent's (--secret-file)");
	cr_assert_eq(a.verdict, NB_AUTH_REFUSED);
	cr_assert_not_null(strstr(a.err.msg, "authentication failed"), "%s", a.err.msg);
}

Test(auth, a_missing_client_secret_is_refused)
{
	struct nb_secret theirs = secret_of("correct horse battery staple");
	struct agent_end a;
	struct nb_auth c;
	struct nb_error err = { { 0 } };
	cr_assert_not(shake(NULL, &theirs, &a, &c, &err));
	cr_assert_str_eq(err.msg, "peer test-agent requires a shared secret: give --secret-file FILE "
			 "(or NBRUN_SECRET_FILE) with the agent's secret");
	cr_assert_eq(a.verdict, NB_AUTH_REFUSED);
	cr_assert_not_null(strstr(a.err.msg, "requires a shared secret"), "%s", a.err.msg);
}

Test(auth, a_client_with_a_secret_refuses_an_agent_without_one)
{
	struct nb_secret mine = secret_of("correct horse battery staple");
	struct agent_end a;
	struct nb_auth c;
	struct nb_error err = { { 0 } };
	cr_assert_not(shake(&mine, NULL, &a, &c, &err));
	cr_assert_not_null(strstr(err.msg, "has no shared secret"), "%s", err.msg);
	cr_assert_neq(a.verdict, NB_AUTH_OK);
}

Test(auth, no_secret_on_either_end_is_a_session_nobody_proved)
{
	struct agent_end a;
	struct nb_auth c;
	struct nb_error err = { { 0 } };
	cr_assert(shake(NULL, NULL, &a, &c, &err), "%s", err.msg);
	cr_assert_eq(a.verdict, NB_AUTH_OK);
	cr_assert_arr_eq(c.session_key, a.auth.session_key, NB_KEY_LEN);
}

/* A client of protocol `proto` speaking by hand to an agent holding `agent` on a thread: its
 * HELLO, the agent's HELLO into *their_hello, AUTH under `mine`, and the agent's answer into
 * *answer. */
static void speak_as(uint16_t proto, const struct nb_secret *mine, const struct nb_secret *agent,
		     struct nb_msg_hello *their_hello, struct nb_msg *answer, struct agent_end *a)
{
	int sv[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	*a = (struct agent_end){ .secret = agent };
	nb_ctl_init(&a->ctl, sv[1]);
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, agent_main, a), 0);
	struct nb_ctl c;
	nb_ctl_init(&c, sv[0]);
	struct nb_msg m = { .type = NB_MSG_HELLO };
	m.u.hello = (struct nb_msg_hello){ .proto_version = proto, .version = "9.9.9",
					   .auth = NB_AUTH_MAC, .nonce = { 1, 2, 3 } };
	struct nb_error err = { { 0 } };
	cr_assert(nb_ctl_send(&c, &m, 1000, &err), "%s", err.msg);
	struct nb_msg theirs;
	cr_assert_eq(nb_ctl_recv(&c, &theirs, 1000, &err), 1, "%s", err.msg);
	cr_assert_eq(theirs.type, NB_MSG_HELLO);
	*their_hello = theirs.u.hello;
	struct nb_msg auth = { .type = NB_MSG_AUTH };
	nb_auth_proof(mine, NB_ROLE_CLIENT, m.u.hello.nonce, theirs.u.hello.nonce, auth.u.auth.mac);
	cr_assert(nb_ctl_send(&c, &auth, 1000, &err), "%s", err.msg);
	cr_assert_eq(nb_ctl_recv(&c, answer, 1000, &err), 1, "%s", err.msg);
	pthread_join(th, NULL);
	close(sv[0]);
	close(sv[1]);
}

Test(auth, an_agent_with_a_secret_says_no_version_in_its_hello)
{
	struct nb_secret s = secret_of("correct horse battery staple");
	struct nb_msg_hello h;
	struct nb_msg answer;
	struct agent_end a;
	speak_as(NB_PROTO_VERSION, &s, &s, &h, &answer, &a);
	cr_assert_eq(h.proto_version, 0);
	cr_assert_str_eq(h.version, "");
	cr_assert_eq(h.auth, NB_AUTH_MAC);
	cr_assert_eq(answer.type, NB_MSG_AUTH, "and its proof once the client proved the secret");
	cr_assert_eq(a.verdict, NB_AUTH_OK, "%s", a.err.msg);
}

Test(auth, a_client_of_another_version_that_proved_the_secret_is_told_both_versions)
{
	struct nb_secret s = secret_of("correct horse battery staple");
	struct nb_msg_hello h;
	struct nb_msg answer;
	struct agent_end a;
	speak_as(NB_PROTO_VERSION + 1, &s, &s, &h, &answer, &a);
	cr_assert_eq(answer.type, NB_MSG_ERROR);
	cr_assert_eq(answer.u.error.code, NB_ERR_VERSION);
	char want[200];
	snprintf(want, sizeof(want), "agent nbrun %s speaks v%d, client nbrun 9.9.9 speaks v%d",
		 NB_VERSION, NB_PROTO_VERSION, NB_PROTO_VERSION + 1);
	cr_assert_not_null(strstr(answer.u.error.text, want), "%s", answer.u.error.text);
	cr_assert_eq(a.verdict, NB_AUTH_REFUSED);
}

Test(auth, a_client_of_another_version_without_the_secret_learns_no_version)
{
	struct nb_secret s = secret_of("correct horse battery staple"),
			 wrong = secret_of("incorrect horse battery staple");
	struct nb_msg_hello h;
	struct nb_msg answer;
	struct agent_end a;
	speak_as(NB_PROTO_VERSION + 1, &wrong, &s, &h, &answer, &a);
	cr_assert_eq(answer.type, NB_MSG_ERROR);
	cr_assert_eq(answer.u.error.code, NB_ERR_AUTH);
	cr_assert_null(strstr(answer.u.error.text, NB_VERSION), "%s", answer.u.error.text);
	char ours[16];
	snprintf(ours, sizeof(ours), "v%d", NB_PROTO_VERSION);
	cr_assert_null(strstr(answer.u.error.text, ours), "%s", answer.u.error.text);
}

Test(auth, both_ends_are_sealed_alike_after_the_handshake)
{
	struct nb_secret s = secret_of("correct horse battery staple");
	struct agent_end a;
	struct nb_ctl cc;
	struct nb_auth c;
	struct nb_error err = { { 0 } };
	cr_assert(shake_open(&s, &s, &a, &cc, &c, &err), "%s", err.msg);
	cr_assert(cc.sealed && a.ctl.sealed);
	struct nb_msg m = { .type = NB_MSG_READY, .u.ready.port = 7601 }, got;
	cr_assert(nb_ctl_send(&a.ctl, &m, 1000, &err));
	cr_assert_eq(nb_ctl_recv(&cc, &got, 1000, &err), 1, "%s", err.msg);
	cr_assert_eq(got.u.ready.port, 7601);
	close(cc.fd);
	close(a.ctl.fd);
}

Test(auth, every_run_of_a_session_has_its_own_data_key)
{
	unsigned char k[NB_KEY_LEN] = { 1, 2, 3 }, r1[NB_KEY_LEN], r2[NB_KEY_LEN], r1b[NB_KEY_LEN];
	nb_auth_run_key(k, 1, r1);
	nb_auth_run_key(k, 2, r2);
	nb_auth_run_key(k, 1, r1b);
	cr_assert_arr_neq(r1, r2, NB_KEY_LEN);
	cr_assert_arr_eq(r1, r1b, NB_KEY_LEN);
}

Test(auth, a_silent_or_garbling_client_is_gone_by_the_deadline)
{
	int sv[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	struct nb_auth out;
	struct nb_error err = { { 0 } };
	struct nb_ctl agent, client;
	nb_ctl_init(&agent, sv[1]);
	nb_ctl_init(&client, sv[0]);
	cr_assert_eq(nb_auth_agent(&agent, NULL, nb_ctl_now_ms() + 100, &out, &err), NB_AUTH_GONE);
	const unsigned char garbage[] = { 0, 0, 0, 6, 0, 1, 0xde, 0xad, 0xbe, 0xef };
	cr_assert_eq(write(sv[0], garbage, sizeof(garbage)), (ssize_t)sizeof(garbage));
	cr_assert_eq(nb_auth_agent(&agent, NULL, nb_ctl_now_ms() + 2000, &out, &err), NB_AUTH_GONE);
	struct nb_msg m;
	cr_assert_eq(nb_ctl_recv(&client, &m, 1000, &err), 1, "the agent says why before closing");
	cr_assert_eq(m.type, NB_MSG_ERROR);
	cr_assert_eq(m.u.error.code, NB_ERR_PROTOCOL);
	close(sv[0]);
	close(sv[1]);
}

Test(auth, a_short_or_missing_secret_file_is_an_error_naming_it)
{
	char path[4096];
	cr_assert(nbt_tmpfile("secret", "", "short\n", path, sizeof(path)));
	struct nb_secret s;
	struct nb_error err = { { 0 } };
	cr_assert_not(nb_secret_load(path, &s, &err));
	cr_assert_not_null(strstr(err.msg, "5 bytes (expected 16"), "%s", err.msg);
	cr_assert_not(s.set);
	unlink(path);
	cr_assert_not(nb_secret_load("/nonexistent/nbrun.secret", &s, &err));
	cr_assert_str_eq(err.msg, "secret file /nonexistent/nbrun.secret: No such file or directory");
}

Test(auth, a_secret_file_others_may_read_is_noticed)
{
	char path[4096];
	cr_assert(nbt_tmpfile("secret", "", "correct horse battery staple", path, sizeof(path)));
	chmod(path, 0644);
	struct nb_secret s;
	struct nb_error err = { { 0 } };
	cr_assert(nb_secret_load(path, &s, &err), "%s", err.msg);
	cr_assert(s.others_can_read);
	chmod(path, 0600);
	cr_assert(nb_secret_load(path, &s, &err), "%s", err.msg);
	cr_assert_not(s.others_can_read);
	unlink(path);
}

Test(auth, a_secret_file_others_may_change_or_someone_else_owns_is_refused)
{
	char path[4096];
	cr_assert(nbt_tmpfile("secret", "", "correct horse battery staple", path, sizeof(path)));
	struct nb_secret s;
	struct nb_error err = { { 0 } };
	const mode_t loose[] = { 0602, 0620, 0666, 0622 };
	for (size_t i = 0; i < sizeof(loose) / sizeof(loose[0]); i++) {
		chmod(path, loose[i]);
		cr_expect_not(nb_secret_load(path, &s, &err), "mode %o", (unsigned)loose[i]);
		cr_expect_not_null(strstr(err.msg, "can be changed by"), "%o: %s", (unsigned)loose[i],
				   err.msg);
		cr_expect_not(s.set);
	}
	chmod(path, 0600);
	if (geteuid() == 0) { /* root can give the file away */
		cr_assert_eq(chown(path, 1, 1), 0);
		cr_expect_not(nb_secret_load(path, &s, &err));
		cr_expect_not_null(strstr(err.msg, "belongs to uid 1, not to this user"), "%s", err.msg);
	}
	unlink(path);
}

Test(auth, weak_secrets_score_below_the_warning_and_random_ones_above)
{
	struct { const char *text; bool weak; } t[] = {
		{ "aaaaaaaaaaaaaaaa", true }, { "abcdefghijklmnop", true },
		{ "password12345678", true }, { "0000000000000000000000000000000", true },
		{ "k3Q9xZ2bWm7vR1tY", false },                           /* 16 random base64 */
		{ "vT4lq9Zp8K2xW0s7mB3nQ6cY1hR5jD8fU2gE0aL4sPk=", false }, /* head -c 32 | base64 */
		{ "correct horse battery staple", false },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		unsigned bits = nb_secret_bits((const unsigned char *)t[i].text, strlen(t[i].text));
		cr_expect_eq(bits < NB_SECRET_WEAK_BITS, t[i].weak, "%s: %u bits", t[i].text, bits);
	}
}

/* The handshake fuzz seed corpus speaks today's protocol: each seed, fed to its end as the fuzz
 * harness feeds it (first byte: bit 0 agent or client, bit 1 a secret; the rest is what the
 * peer sends, then it hangs up), reaches the stage it is named for — not an early version
 * mismatch or a truncated frame. */
Test(auth, the_handshake_fuzz_seeds_reach_the_stage_they_are_named_for)
{
	const char *src = getenv("NB_SRCDIR");
	if (!src)
		cr_skip_test("NB_SRCDIR not set");
	static const struct {
		const char *seed, *says; /* says: a part of the error; NULL: the handshake completes */
	} want[] = {
		{ "agent_secret_client_hello_auth", "authentication failed" },
		{ "agent_secret_client_no_secret", "this agent requires a shared secret" },
		{ "agent_setup_first", "expected the client's HELLO" },
		{ "agent_wrong_version", "speaks v1" },
		{ "agent_no_secret_then_frames", NULL }, /* the handshake; the frames fail after it */
		{ "client_agent_busy", "agent is busy" },
		{ "client_agent_error_auth", "authentication failed" },
		{ "client_agent_error_version_after_auth", "protocol version mismatch" },
		{ "client_secret_agent_hello_auth", "failed to prove the shared secret" },
		{ "client_no_secret_agent_hello", NULL },
		{ "client_no_secret_agent_hello_then_frames", NULL },
		{ "truncated", "closed by the peer" },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char path[1024];
		snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/handshake/%s", src, want[i].seed);
		static unsigned char b[65536];
		FILE *f = fopen(path, "rb");
		cr_assert_not_null(f, "%s", path);
		size_t n = fread(b, 1, sizeof(b), f);
		fclose(f);
		cr_assert_gt(n, 0);
		int sv[2];
		cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
		struct nb_secret secret = { .set = (b[0] & 2) != 0 };
		memset(secret.key, 0x42, sizeof(secret.key));
		cr_assert_eq(write(sv[0], b + 1, n - 1), (ssize_t)(n - 1));
		shutdown(sv[0], SHUT_WR);
		struct nb_auth out;
		struct nb_error err = { { 0 } };
		struct nb_ctl c;
		nb_ctl_init(&c, sv[1]);
		bool ok = b[0] & 1 ? nb_auth_agent(&c, &secret, nb_ctl_now_ms() + 1000, &out, &err) ==
					     NB_AUTH_OK
				   : nb_auth_client(&c, &secret, 1000, "fuzz", &out, &err);
		if (want[i].says)
			cr_expect_not_null(strstr(err.msg, want[i].says), "%s: '%s'", want[i].seed, err.msg);
		else
			cr_expect(ok && !err.msg[0], "%s completes: '%s'", want[i].seed, err.msg);
		struct nb_msg m;
		if (ok && strstr(want[i].seed, "then_frames")) { /* made up after the seal: refused */
			cr_expect_eq(nb_ctl_recv(&c, &m, 1000, &err), -1, "%s", want[i].seed);
			cr_expect_str_eq(err.msg, NB_CTL_ALTERED, "%s", want[i].seed);
		}
		close(sv[0]);
		close(sv[1]);
	}
}

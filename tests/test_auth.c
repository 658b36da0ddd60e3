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
#include "proto.h"

struct agent_end {
	int fd;
	const struct nb_secret *secret;
	enum nb_auth_verdict verdict;
	struct nb_auth auth;
	struct nb_error err;
};

static void *agent_main(void *arg)
{
	struct agent_end *a = arg;
	a->verdict = nb_auth_agent(a->fd, a->secret, nb_ctl_now_ms() + 2000, &a->auth, &a->err);
	return NULL;
}

/* Run both ends; the client's result, the agent's in *a. */
static bool shake(const struct nb_secret *client, const struct nb_secret *agent, struct agent_end *a,
		  struct nb_auth *c_auth, struct nb_error *c_err)
{
	int sv[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	*a = (struct agent_end){ .fd = sv[1], .secret = agent };
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, agent_main, a), 0);
	bool ok = nb_auth_client(sv[0], client, 2000, "test-agent", c_auth, c_err);
	close(sv[0]); /* a refusing client hangs up, as nb_client_open does */
	pthread_join(th, NULL);
	close(sv[1]);
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
	cr_assert_eq(nb_auth_agent(sv[1], NULL, nb_ctl_now_ms() + 100, &out, &err), NB_AUTH_GONE);
	const unsigned char garbage[] = { 0, 0, 0, 6, 0, 1, 0xde, 0xad, 0xbe, 0xef };
	cr_assert_eq(write(sv[0], garbage, sizeof(garbage)), (ssize_t)sizeof(garbage));
	cr_assert_eq(nb_auth_agent(sv[1], NULL, nb_ctl_now_ms() + 2000, &out, &err), NB_AUTH_GONE);
	struct nb_msg m;
	cr_assert_eq(nb_ctl_recv(sv[0], &m, 1000, &err), 1, "the agent says why before closing");
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
		{ "client_agent_busy", "agent is busy" },
		{ "client_agent_error_auth", "authentication failed" },
		{ "client_secret_agent_hello_auth", "failed to prove the shared secret" },
		{ "client_no_secret_agent_hello", NULL },
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
		bool ok = b[0] & 1 ? nb_auth_agent(sv[1], &secret, nb_ctl_now_ms() + 1000, &out, &err)
				   : nb_auth_client(sv[1], &secret, 1000, "fuzz", &out, &err);
		if (want[i].says)
			cr_expect_not_null(strstr(err.msg, want[i].says), "%s: '%s'", want[i].seed, err.msg);
		else
			cr_expect(ok && !err.msg[0], "%s completes: '%s'", want[i].seed, err.msg);
		close(sv[0]);
		close(sv[1]);
	}
}

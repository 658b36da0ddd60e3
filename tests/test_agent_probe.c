/* net suite: the data path probe (probe.h) as an attacker meets it, on loopback — before the
 * handshake, beyond its number, with the wrong key or from another host — and the honest client
 * the agent goes on serving. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent.h"
#include "client.h"
#include "ctl.h"
#include "dhello.h"
#include "nbt_agent.h"
#include "probe.h"
#include "proto.h"

static struct nb_agent *agent;

static void stop(void)
{
	nb_agent_destroy(agent);
	agent = NULL;
}

static struct nb_secret secret_of(unsigned char fill)
{
	struct nb_secret s = { .set = true };
	memset(s.key, fill, sizeof(s.key));
	return s;
}

/* A TCP connection to the agent, from 127.0.0.1. */
static int connect_to_agent(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(nb_agent_port(agent)),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	cr_assert_eq(connect(fd, (struct sockaddr *)&to, sizeof(to)), 0);
	return fd;
}


/* The agent serves an honest client: it opens, one short test measures. */
static void assert_serves(const struct nb_secret *s)
{
	struct nb_client c;
	struct nb_error err = { { 0 } };
	cr_assert(nbt_agent_open(agent, "127.0.0.1", s, &c, &err), "%s", err.msg);
	struct nb_msg_setup su = nbt_small_test(1);
	struct nb_test_result res;
	cr_assert_eq(nbt_run_test(&c, &su, &res), NB_OUT_OK, "%s", res.error);
	nb_client_close(&c);
}

TestSuite(agent_probe, .fini = stop, .timeout = 120);

/* Before the handshake a PROBE is one more frame that is not HELLO: no data port opens. */
Test(agent_probe, a_probe_before_the_handshake_opens_no_data_port)
{
	struct nb_secret right = secret_of(1);
	agent = nbt_agent_session(&(struct nb_agent_opts){ .secret = &right }, NULL, NULL);
	int fd = connect_to_agent();
	struct nb_msg q = { .type = NB_MSG_PROBE, .u.probe = { NB_PROTO_UDP, 1 } }, m;
	struct nb_error err = { { 0 } };
	struct nb_ctl ctl;
	nb_ctl_init(&ctl, fd);
	cr_assert(nb_ctl_send(&ctl, &q, 2000, &err), "%s", err.msg);
	int n = 0;
	while (nb_ctl_recv(&ctl, &m, 5000, &err) == 1) {
		cr_expect_neq(m.type, NB_MSG_READY, "a data port for an unauthenticated client");
		nb_msg_free(&m);
		n++;
	}
	cr_expect_leq(n, 2, "at most the agent's HELLO and an ERROR");
	close(fd);
	assert_serves(&right);
}

/* A session probes at most NB_PROBES_MAX times; the next is refused and the session goes on. */
Test(agent_probe, a_session_probes_its_data_path_a_bounded_number_of_times)
{
	struct nb_secret right = secret_of(1);
	struct nb_client c;
	struct nb_error err = { { 0 } };
	agent = nbt_agent_session(&(struct nb_agent_opts){ .secret = &right }, &right, &c);
	char problem[NB_CHECK_TEXT_MAX + 1];
	for (int i = 0; i < NB_PROBES_MAX; i++) {
		enum nb_proto p = i % 2 ? NB_PROTO_UDP : NB_PROTO_TCP;
		cr_assert(nb_client_probe(&c, p, problem, sizeof(problem), &err), "%s", err.msg);
		cr_expect_str_eq(problem, "", "probe %d", i + 1);
	}
	cr_assert(nb_client_probe(&c, NB_PROTO_TCP, problem, sizeof(problem), &err), "%s", err.msg);
	cr_expect_str_eq(problem, "limit: a session probes its data path at most 8 times");
	struct nb_msg_setup su = nbt_small_test(1);
	struct nb_test_result res;
	cr_expect_eq(nbt_run_test(&c, &su, &res), NB_OUT_OK, "the session goes on: %s", res.error);
	nb_client_close(&c);
}

/* The probe's UDP port answers no hello under a run's key, nor one from another host under the
 * probe's own key: nothing comes back, and the agent says no hello came. */
Test(agent_probe, a_probe_answers_only_its_own_key_from_the_clients_host)
{
	struct nb_secret right = secret_of(1);
	struct nb_client c;
	struct nb_error err = { { 0 } };
	agent = nbt_agent_session(&(struct nb_agent_opts){ .secret = &right }, &right, &c);
	struct nb_msg q = { .type = NB_MSG_PROBE, .u.probe = { NB_PROTO_UDP, 0 } }, m;
	cr_assert(nb_ctl_send(&c.ctl, &q, 2000, &err), "%s", err.msg);
	cr_assert_eq(nb_ctl_recv(&c.ctl, &m, 5000, &err), 1, "%s", err.msg);
	cr_assert_eq(m.type, NB_MSG_READY);
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(m.u.ready.port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	unsigned char run_key[NB_KEY_LEN], probe_key[NB_KEY_LEN], b[2][NB_DHELLO_LEN];
	nb_auth_run_key(c.session_key, 1, run_key);
	nb_probe_key(c.session_key, 1, probe_key);
	nb_dhello_put(b[0], &(struct nb_dhello){ .kind = NB_DH_HELLO }, run_key);
	nb_dhello_put(b[1], &(struct nb_dhello){ .kind = NB_DH_HELLO }, probe_key);
	static const char *const src[2] = { "127.0.0.1", "127.0.0.2" };
	int fd[2];
	for (int i = 0; i < 2; i++) {
		fd[i] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in me = { .sin_family = AF_INET };
		inet_pton(AF_INET, src[i], &me.sin_addr);
		cr_assert_eq(bind(fd[i], (struct sockaddr *)&me, sizeof(me)), 0);
		for (int k = 0; k < 5; k++)
			sendto(fd[i], b[i], sizeof(b[i]), 0, (struct sockaddr *)&to, sizeof(to));
	}
	cr_assert_eq(nb_ctl_recv(&c.ctl, &m, NB_PROBE_AGENT_MS + 5000, &err), 1, "%s", err.msg);
	cr_assert_eq(m.type, NB_MSG_CHECK_RESULT);
	cr_expect_not_null(strstr(m.u.check_result.text, "no data hello came from the client"), "%s",
			   m.u.check_result.text);
	for (int i = 0; i < 2; i++) {
		char got[64];
		cr_expect_lt(recv(fd[i], got, sizeof(got), MSG_DONTWAIT), 0, "an answer to %s", src[i]);
		close(fd[i]);
	}
	nb_client_close(&c);
}

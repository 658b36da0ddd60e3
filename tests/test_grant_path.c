/* netns suite: a grant proves something (issue 29 item 2). An authenticated runner asks an agent
 * to send to a host it names (SETUP end CONNECT) with a grant the agent cannot open, or with one
 * that opens but toward a plain TCP listener that is no agent, or toward a loopback or
 * link-local address while the runner itself is not on loopback: each time the agent refuses,
 * sends no payload, and says the same few words whatever the target did (no port scanner). Each
 * test runs in a network namespace of its own (nbt_private_lo), the agent and the runner in
 * this process, the runner's address one of a veth pair's (10.29.0.1) unless the test is about
 * loopback. Needs root; skipped without it. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent.h"
#include "auth.h"
#include "client.h"
#include "ctl.h"
#include "nbt_agent.h"
#include "nbt_pair.h"
#include "proto.h"

#define RUNNER "10.29.0.1"
#define VETH "ip link add nbgp0 type veth peer name nbgp1 && ip addr add " RUNNER "/24 " \
	      "dev nbgp0 && ip link set nbgp0 up && ip link set nbgp1 up"

static struct nb_agent *agent;
static struct nb_secret secret = { .set = true };

/* A private namespace (with the veth pair when veth), an agent with a secret on bind,
 * and an authenticated session *c with it. */
static void open_session(const char *bind, bool veth, struct nb_client *c)
{
	if (!nbt_private_lo(veth ? VETH : NULL))
		cr_skip_test("needs root for a network namespace (and a veth pair)");
	memset(secret.key, 0x29, sizeof(secret.key));
	agent = nbt_agent_session(&(struct nb_agent_opts){ .bind = bind, .secret = &secret }, &secret, c);
}

/* A plain TCP listener on addr (no agent: it proves no key) and what it takes in. */
struct sink {
	int fd;
	uint16_t port;
	pthread_t th;
	uint64_t bytes;
	int conns;
};

static void *sink_main(void *arg)
{
	struct sink *s = arg;
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	while (poll(&p, 1, 3000) > 0) { /* quiet for 3 s: the agent gave up */
		int c = accept(s->fd, NULL, NULL);
		if (c < 0)
			break;
		s->conns++;
		char b[65536];
		ssize_t n;
		struct timeval tv = { .tv_sec = 3 };
		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		while ((n = recv(c, b, sizeof(b), 0)) > 0)
			s->bytes += (uint64_t)n;
		close(c);
	}
	return NULL;
}

static void sink_start(struct sink *s, const char *addr)
{
	*s = (struct sink){ .fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0) };
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	cr_assert_eq(inet_pton(AF_INET, addr, &a.sin_addr), 1);
	cr_assert_eq(bind(s->fd, (struct sockaddr *)&a, sizeof(a)), 0, "%s", strerror(errno));
	cr_assert_eq(listen(s->fd, 16), 0);
	getsockname(s->fd, (struct sockaddr *)&a, &len);
	s->port = ntohs(a.sin_port);
	cr_assert_eq(pthread_create(&s->th, NULL, sink_main, s), 0);
}

static void sink_stop(struct sink *s)
{
	pthread_join(s->th, NULL);
	close(s->fd);
}

/* SETUP run_id as the sending end of a 2 s TCP stream toward addr:port, with grant g. */
static struct nb_msg setup_to(uint32_t run_id, const char *addr, uint16_t port, const uint8_t *g)
{
	struct nb_msg m = { .type = NB_MSG_SETUP };
	struct nb_msg_setup *su = &m.u.setup;
	*su = (struct nb_msg_setup){ .run_id = run_id, .duration_ns = 2000000000ull,
				     .interval_ns = 1000000000ull, .end = NB_END_CONNECT };
	snprintf(su->case_id, sizeof(su->case_id), "grant/%u", run_id);
	su->params = (struct nb_params){ .engine = "stream", .proto = NB_PROTO_TCP, .size = 65536,
					 .streams = 1, .tos = -1 };
	int family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	su->target = (struct nb_target){ .family = (uint8_t)(family == AF_INET ? 4 : 6), .port = port };
	cr_assert_eq(inet_pton(family, addr, su->target.addr), 1, "%s", addr);
	memcpy(su->grant, g, NB_GRANT_LEN);
	return m;
}

/* The agent's answer to m, then START when it said READY: the answer's type, its text in why. */
static int ask(struct nb_client *c, struct nb_msg *m, char *why, size_t n)
{
	struct nb_error err = { { 0 } };
	cr_assert(nb_ctl_send(&c->ctl, m, 2000, &err), "%s", err.msg);
	struct nb_msg r;
	cr_assert_eq(nb_ctl_recv(&c->ctl, &r, 30000, &err), 1, "an answer: %s", err.msg);
	snprintf(why, n, "%s", r.type == NB_MSG_ERROR ? r.u.error.text : "");
	if (r.type == NB_MSG_READY) {
		struct nb_msg start = { .type = NB_MSG_START };
		nb_ctl_send(&c->ctl, &start, 2000, &err);
	}
	int type = r.type;
	nb_msg_free(&r);
	return type;
}

/* SETUP with the grant this session would make for target addr:port (the runner holds the
 * secret: it may seal any target it likes). */
static struct nb_msg granted(const struct nb_client *c, uint32_t run_id, const char *addr,
			     uint16_t port)
{
	uint8_t none[NB_GRANT_LEN] = { 0 };
	unsigned char key[NB_KEY_LEN];
	struct nb_msg m = setup_to(run_id, addr, port, none);
	randombytes_buf(key, sizeof(key));
	nb_auth_grant_seal(c->session_key, run_id, &m.u.setup.target, key, m.u.setup.grant);
	return m;
}

TestSuite(grant_path, .timeout = 90);

Test(grant_path, a_random_grant_is_refused_and_nothing_is_sent)
{
	struct nb_client c;
	open_session("127.0.0.1", false, &c);
	struct sink s;
	sink_start(&s, "127.0.0.1");
	uint8_t g[NB_GRANT_LEN];
	randombytes_buf(g, sizeof(g));
	struct nb_msg m = setup_to(1, "127.0.0.1", s.port, g);
	char why[NB_TEXT_MAX + 1];
	cr_assert_eq(ask(&c, &m, why, sizeof(why)), NB_MSG_ERROR, "a random grant is refused");
	cr_assert_not_null(strstr(why, "grant"), "%s", why);
	sink_stop(&s);
	cr_assert_eq(s.conns, 0, "not even a connection to the target");
	cr_assert_eq(s.bytes, 0);
	nb_client_close(&c);
	nb_agent_destroy(agent);
}

Test(grant_path, a_grant_for_another_target_is_refused)
{
	struct nb_client c;
	open_session("127.0.0.1", false, &c);
	struct sink s;
	sink_start(&s, "127.0.0.1");
	struct nb_msg other = granted(&c, 1, "127.0.0.1", (uint16_t)(s.port + 1));
	struct nb_msg m = setup_to(1, "127.0.0.1", s.port, other.u.setup.grant); /* for port + 1 */
	char why[NB_TEXT_MAX + 1];
	cr_assert_eq(ask(&c, &m, why, sizeof(why)), NB_MSG_ERROR);
	sink_stop(&s);
	cr_assert_eq(s.conns, 0);
	nb_client_close(&c);
	nb_agent_destroy(agent);
}

Test(grant_path, a_listener_that_proves_no_run_key_gets_no_payload)
{
	struct nb_client c;
	open_session("127.0.0.1", false, &c);
	struct sink s;
	sink_start(&s, "127.0.0.1");
	struct nb_msg m = granted(&c, 1, "127.0.0.1", s.port); /* good, but the target is no agent */
	char why[NB_TEXT_MAX + 1];
	cr_assert_eq(ask(&c, &m, why, sizeof(why)), NB_MSG_ERROR, "no READY without the proof");
	sink_stop(&s);
	cr_assert_eq(s.conns, 1, "the agent connected once");
	cr_assert_leq(s.bytes, 56, "and sent its data hello, no payload (%llu bytes)",
		      (unsigned long long)s.bytes);
	nb_client_close(&c);
	nb_agent_destroy(agent);
}

Test(grant_path, a_closed_port_and_a_listener_that_proves_nothing_get_the_same_words)
{
	struct nb_client c;
	open_session("127.0.0.1", false, &c);
	struct sink s;
	sink_start(&s, "127.0.0.1");
	uint16_t closed = nbt_bind_lo(SOCK_STREAM, &closed) >= 0 ? closed : 0; /* bound, not listening */
	char open_why[NB_TEXT_MAX + 1], closed_why[NB_TEXT_MAX + 1];
	struct nb_msg m = granted(&c, 1, "127.0.0.1", s.port);
	cr_assert_eq(ask(&c, &m, open_why, sizeof(open_why)), NB_MSG_ERROR);
	m = granted(&c, 2, "127.0.0.1", closed);
	cr_assert_eq(ask(&c, &m, closed_why, sizeof(closed_why)), NB_MSG_ERROR);
	cr_assert_str_eq(open_why, closed_why);
	cr_assert_null(strstr(closed_why, "refused"), "no errno text: %s", closed_why);
	sink_stop(&s);
	nb_client_close(&c);
	nb_agent_destroy(agent);
}

Test(grant_path, a_runner_off_loopback_cannot_aim_the_agent_at_loopback_or_link_local)
{
	struct nb_client c;
	open_session(RUNNER, true, &c);
	struct sink s;
	sink_start(&s, "127.0.0.1");
	const char *targets[] = { "127.0.0.1", "169.254.169.254", "fe80::1", "::1",
				  "::ffff:127.0.0.1", "224.0.0.1", "0.0.0.0" };
	for (uint32_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		struct nb_msg m = granted(&c, i + 1, targets[i], s.port);
		char why[NB_TEXT_MAX + 1];
		cr_expect_eq(ask(&c, &m, why, sizeof(why)), NB_MSG_ERROR, "%s", targets[i]);
		cr_expect_not_null(strstr(why, "target"), "%s: %s", targets[i], why);
	}
	sink_stop(&s);
	cr_assert_eq(s.conns, 0, "nothing reached the loopback listener");
	nb_client_close(&c);
	nb_agent_destroy(agent);
}

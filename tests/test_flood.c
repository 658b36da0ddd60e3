/* netns suite: a flood of silent connections does not deny the agent to an honest client (issue
 * 29 item 4). 40 source addresses (127.0.1.1 .. 127.0.1.40) keep 8 connections each open to an
 * agent with a secret, saying nothing, and open a new one as soon as the agent closes one, for
 * 30 s; meanwhile an honest client with the secret opens a session every 250 ms: every one of
 * them is served. The agent says "handshake slots full" at most once per 10 s at default
 * verbosity. Another test fills every handshake slot with connections that did say HELLO, from
 * 64 addresses of one each: a newcomer is told the agent is saturated. And wrong secrets from 40
 * addresses as fast as they come for 11 s make a few log lines and a summary, not one line each
 * (issue 29 item 6). Each test runs in a network namespace of its own (its loopback only).
 * Needs root; skipped without it. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent.h"
#include "client.h"
#include "ctl.h"
#include "nbt_agent.h"
#include "nbt_pair.h"

#define SOURCES 40
#define PER_SOURCE 8
#define FLOOD_S 30

static struct nb_agent *agent;
static struct nb_secret secret = { .set = true };
static struct sockaddr_in agent_addr;
static atomic_bool flooding;
static atomic_uint_fast64_t opened;

/* A non-blocking connection to the agent from 127.0.1.<src>, or -1. */
static int open_from(int src)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000100u | (unsigned)src) };
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0 ||
	    (connect(fd, (struct sockaddr *)&agent_addr, sizeof(agent_addr)) < 0 && errno != EINPROGRESS)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	atomic_fetch_add(&opened, 1);
	return fd;
}

/* The flood: SOURCES x PER_SOURCE silent connections, each re-opened once the agent closes it. */
static void *flood(void *arg)
{
	(void)arg;
	struct pollfd p[SOURCES * PER_SOURCE];
	for (int i = 0; i < SOURCES * PER_SOURCE; i++)
		p[i] = (struct pollfd){ .fd = open_from(1 + i / PER_SOURCE), .events = POLLIN };
	while (atomic_load(&flooding)) {
		if (poll(p, SOURCES * PER_SOURCE, 100) <= 0)
			continue;
		for (int i = 0; i < SOURCES * PER_SOURCE; i++) {
			if (p[i].fd >= 0 && !p[i].revents)
				continue;
			if (p[i].fd >= 0)
				close(p[i].fd); /* closed (or answered) by the agent: a new one */
			p[i].fd = open_from(1 + i / PER_SOURCE);
		}
	}
	for (int i = 0; i < SOURCES * PER_SOURCE; i++)
		if (p[i].fd >= 0)
			close(p[i].fd);
	return NULL;
}

/* The agent's console into a file of its own (fd 2 of this test's process). */
static FILE *capture_stderr(void)
{
	FILE *log = tmpfile();
	cr_assert_not_null(log);
	cr_assert_geq(dup2(fileno(log), 2), 0);
	return log;
}

static int lines_with(FILE *log, const char *what)
{
	fflush(stderr);
	rewind(log);
	char line[1024];
	int n = 0;
	while (fgets(line, sizeof(line), log))
		n += strstr(line, what) != NULL;
	return n;
}

static void start_agent(void)
{
	if (!nbt_private_lo(NULL))
		cr_skip_test("needs root for a network namespace");
	memset(secret.key, 0x44, sizeof(secret.key));
	agent = nbt_agent_session(&(struct nb_agent_opts){ .secret = &secret }, NULL, NULL);
	agent_addr = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(nb_agent_port(agent)),
					   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
}

TestSuite(flood, .timeout = 120);

Test(flood, forty_addresses_of_silent_connections_never_keep_an_honest_client_out)
{
	start_agent();
	FILE *log = capture_stderr();
	atomic_store(&flooding, true);
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, flood, NULL), 0);
	nbt_sleep_ms(1000); /* the flood is in full swing */
	int tries = 0, served = 0;
	char first_error[256] = "";
	for (uint64_t end = nb_ctl_now_ms() + FLOOD_S * 1000ull; nb_ctl_now_ms() < end; tries++) {
		struct nb_client c;
		struct nb_error err = { { 0 } };
		if (nbt_agent_open(agent, "127.0.0.1", &secret, &c, &err)) {
			served++;
			nb_client_close(&c);
		} else if (!first_error[0]) {
			snprintf(first_error, sizeof(first_error), "%s", err.msg);
		}
		nbt_sleep_ms(250);
	}
	atomic_store(&flooding, false);
	pthread_join(th, NULL);
	uint64_t flood_conns = atomic_load(&opened);
	nb_agent_destroy(agent);
	cr_expect_gt(flood_conns, 2 * SOURCES * PER_SOURCE, "the flood re-opened what was closed "
		     "(%llu connections)", (unsigned long long)flood_conns);
	cr_expect_eq(served, tries, "served %d of %d: first failure '%s'", served, tries, first_error);
	int full = lines_with(log, "handshake slots full");
	cr_expect_leq(full, FLOOD_S / 10 + 2, "said once per 10 s at most (%d lines)", full);
	fclose(log);
}

/* An honest client that is slow to speak (its HELLO a while after its connect: a loaded host, a
 * tunnel) while the flood turns the waiting room over many times: its place is not the one that
 * gives way, because its source holds one silent connection and the flood's hold several each. */
Test(flood, a_slow_honest_client_keeps_its_place_while_the_flood_turns_the_waiting_room_over)
{
	start_agent();
	atomic_store(&flooding, true);
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, flood, NULL), 0);
	while (atomic_load(&opened) < 4 * SOURCES * PER_SOURCE) /* the flood is in full swing */
		nbt_sleep_ms(10);
	struct nb_error err = { { 0 } };
	int fd = nb_ctl_connect((struct sockaddr_storage *)&agent_addr, sizeof(agent_addr), 2000, &err);
	cr_assert_geq(fd, 0, "%s", err.msg);
	uint64_t at = atomic_load(&opened), deadline = nb_ctl_now_ms() + NB_AGENT_FIRST_BYTES_MS / 2;
	while (atomic_load(&opened) < at + 2 * NB_AGENT_PENDING && nb_ctl_now_ms() < deadline)
		nbt_sleep_ms(5);
	uint64_t turned = atomic_load(&opened) - at;
	struct nb_client c;
	bool served = nb_client_open_fd(&c, "agent", fd, (struct sockaddr_storage *)&agent_addr,
					sizeof(agent_addr), &secret, NULL, &err);
	atomic_store(&flooding, false);
	pthread_join(th, NULL);
	if (served)
		nb_client_close(&c);
	nb_agent_destroy(agent);
	cr_expect_geq(turned, 2 * NB_AGENT_PENDING, "the flood re-opened %llu connections while the "
		      "client was silent", (unsigned long long)turned);
	cr_expect(served, "not served after %llu flood connections: %s", (unsigned long long)turned,
		  err.msg);
}

/* A connection from 127.0.1.<src> that says HELLO (with the secret asked for) and then nothing. */
static int hello_then_silence(int src)
{
	int fd = open_from(src);
	cr_assert_geq(fd, 0);
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	cr_assert_eq(poll(&p, 1, 2000), 1);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	struct nb_ctl c;
	nb_ctl_init(&c, fd);
	struct nb_msg m = { .type = NB_MSG_HELLO };
	m.u.hello = (struct nb_msg_hello){ .proto_version = NB_PROTO_VERSION, .auth = NB_AUTH_MAC };
	struct nb_error err = { { 0 } };
	cr_assert(nb_ctl_send(&c, &m, 1000, &err), "%s", err.msg);
	return fd;
}

Test(flood, when_every_handshake_slot_is_taken_a_newcomer_is_told_the_agent_is_saturated)
{
	start_agent();
	int fds[NB_AGENT_CONNS];
	for (int i = 0; i < NB_AGENT_CONNS; i++)
		fds[i] = hello_then_silence(1 + i); /* one each from 64 addresses: none is the heaviest */
	nbt_sleep_ms(200);
	struct nb_client c;
	struct nb_error err = { { 0 } };
	cr_assert_not(nbt_agent_open(agent, "127.0.0.1", &secret, &c, &err));
	cr_assert_not_null(strstr(err.msg, "saturated"), "%s", err.msg);
	for (int i = 0; i < NB_AGENT_CONNS; i++)
		close(fds[i]);
	nb_agent_destroy(agent);
}

/* A handshake from 127.0.1.<src> with a wrong secret; false when the agent did not refuse it. */
static bool wrong_secret_from(int src, const struct nb_secret *wrong)
{
	int fd = open_from(src);
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	if (fd < 0 || poll(&p, 1, 2000) != 1)
		return false;
	struct nb_ctl c;
	nb_ctl_init(&c, fd);
	struct nb_auth auth;
	struct nb_error err = { { 0 } };
	bool refused = !nb_auth_client(&c, wrong, 2000, "flood", &auth, &err) &&
		       strstr(err.msg, "authentication failed");
	close(fd);
	return refused;
}

Test(flood, wrong_secrets_from_forty_addresses_make_a_few_lines_and_a_summary)
{
	start_agent();
	FILE *log = capture_stderr();
	struct nb_secret wrong = { .set = true };
	memset(wrong.key, 0x45, sizeof(wrong.key));
	int refused = 0;
	for (uint64_t end = nb_ctl_now_ms() + 11000; nb_ctl_now_ms() < end;)
		for (int src = 1; src <= SOURCES; src++)
			refused += wrong_secret_from(src, &wrong);
	int summaries = 0; /* the acceptor's next round says it (a slow build: a few rounds) */
	for (int i = 0; i < 50 && !summaries; i++) {
		nbt_sleep_ms(100);
		summaries = lines_with(log, "more refused handshakes in the last 10 s");
	}
	int lines = lines_with(log, "refused: authentication failed");
	nb_agent_destroy(agent);
	fclose(log);
	cr_expect_gt(refused, 10 * NB_AGENT_LOG_BURST, "%d refused", refused);
	/* the first 10 s: 5 lines and their summary; the second interval has begun: 5 more at most */
	cr_expect_leq(lines, 2 * NB_AGENT_LOG_BURST, "%d lines for %d refusals", lines, refused);
	cr_expect_eq(summaries, 1, "one summary for the first 10 s");
}

/* net suite: clients waiting in line for the agent's one session (queue.h, agent_queue.c) on
 * loopback — the second is told its place and gets the session once the first is done; one
 * that goes away frees its place at once; a connection that has not proved the secret holds
 * none; a full line, a client that would not wait and one whose wait is over are told busy. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "nbt_agent.h"
#include "auth.h"
#include "client.h"
#include "ctl.h"
#include "proto.h"

#define TOLD_MAX 64
#define SETTLE_S 30 /* how long a step may take at most before the test gives up on it */

static struct nb_agent *agent;
static char name[64];
static struct sockaddr_storage addr;
static socklen_t addr_len;
static struct nb_secret secret = { .set = true };

static void start(uint32_t max_queue, bool with_secret)
{
	struct nb_error err = { { 0 } };
	memset(secret.key, 0x5a, sizeof(secret.key));
	secret.set = with_secret;
	agent = nbt_agent_session(&(struct nb_agent_opts){ .verbosity = -1, .max_queue = max_queue,
							   .secret = &secret }, NULL, NULL);
	snprintf(name, sizeof(name), "127.0.0.1:%u", nb_agent_port(agent));
	cr_assert(nb_ctl_resolve(name, 0, &addr, &addr_len, &err));
}

static void stop(void)
{
	nb_agent_destroy(agent);
	agent = NULL;
}

TestSuite(agent_queue, .fini = stop, .timeout = 120);

/* A client opening on its own thread, what it was told while it waited, and how it ended. */
struct waiter {
	pthread_t thread;
	uint32_t timeout_ms;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t told[TOLD_MAX];
	size_t ntold;
	bool done, ok;
	struct nb_client c;
	struct nb_error err;
};

static void on_told(void *ctx, const struct nb_client *c, uint32_t position, uint64_t wait_ms)
{
	struct waiter *w = ctx;
	(void)c, (void)wait_ms;
	pthread_mutex_lock(&w->lock);
	if (w->ntold < TOLD_MAX)
		w->told[w->ntold++] = position;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	struct nb_client_wait cw = { .plan_ms = 10000, .timeout_ms = w->timeout_ms, .told = on_told,
				     .ctx = w };
	bool ok = nb_client_open(&w->c, name, &addr, addr_len, &secret, &cw, &w->err);
	pthread_mutex_lock(&w->lock);
	w->ok = ok;
	w->done = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void waiter_start(struct waiter *w, uint32_t timeout_ms)
{
	memset(w, 0, sizeof(*w));
	w->timeout_ms = timeout_ms;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	cr_assert_eq(pthread_create(&w->thread, NULL, waiter_main, w), 0);
}

/* Wait until w was last told position (or, with 0, until it is done); false after SETTLE_S. */
static bool waiter_at(struct waiter *w, uint32_t position)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SETTLE_S;
	pthread_mutex_lock(&w->lock);
	bool there;
	while (!(there = position ? w->ntold && w->told[w->ntold - 1] == position : w->done) &&
	       !(position && w->done))
		if (pthread_cond_timedwait(&w->cond, &w->lock, &until) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&w->lock);
	return there;
}

static void waiter_join(struct waiter *w)
{
	pthread_join(w->thread, NULL);
	if (w->ok)
		nb_client_close(&w->c);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
}

static void open_now(struct nb_client *c)
{
	struct nb_error err = { { 0 } };
	struct nb_client_wait cw = { .plan_ms = 60000, .timeout_ms = 0 };
	cr_assert(nb_client_open(c, name, &addr, addr_len, &secret, &cw, &err), "%s", err.msg);
}

/* A client in line by hand: the handshake, QUEUE, the agent's first QUEUE (its position). Its
 * socket, to close as a client that vanishes would. */
static int raw_waiter(uint32_t *position)
{
	struct nb_error err = { { 0 } };
	int fd = nb_ctl_connect(&addr, addr_len, 5000, &err);
	cr_assert_geq(fd, 0, "%s", err.msg);
	struct nb_auth auth;
	struct nb_ctl ctl;
	nb_ctl_init(&ctl, fd);
	cr_assert(nb_auth_client(&ctl, &secret, 5000, name, &auth, &err), "%s", err.msg);
	struct nb_msg m = { .type = NB_MSG_QUEUE, .u.queue = { .wait_ms = 60000 } };
	cr_assert(nb_ctl_send(&ctl, &m, 5000, &err), "%s", err.msg);
	cr_assert_eq(nb_ctl_recv(&ctl, &m, SETTLE_S * 1000, &err), 1, "%s", err.msg);
	cr_assert_eq(m.type, NB_MSG_QUEUE, "got %s", nb_msg_name(m.type));
	*position = m.u.queue.position;
	nb_msg_free(&m);
	nb_ctl_forget(&ctl);
	return fd;
}

Test(agent_queue, the_second_client_waits_told_its_place_and_gets_the_session_after_the_first)
{
	start(4, true);
	struct nb_client first;
	open_now(&first);
	struct waiter w;
	waiter_start(&w, 60000);
	cr_assert(waiter_at(&w, 1), "the second is told it is 1st in line");
	cr_assert_not(w.done, "and waits while the first holds the session");
	nb_client_close(&first);
	cr_assert(waiter_at(&w, 0));
	cr_assert(w.ok, "after the first, the second has the session: %s", w.err.msg);
	for (size_t i = 0; i < w.ntold; i++)
		cr_assert_eq(w.told[i], 1, "its place never changed (told %u)", w.told[i]);
	waiter_join(&w);
}

Test(agent_queue, a_client_that_vanishes_frees_its_place_at_once)
{
	start(4, true);
	struct nb_client first;
	open_now(&first);
	uint32_t pos = 0;
	int gone = raw_waiter(&pos);
	cr_assert_eq(pos, 1);
	struct waiter w;
	waiter_start(&w, 60000);
	cr_assert(waiter_at(&w, 2), "behind the first waiter: 2nd");
	close(gone);
	cr_assert(waiter_at(&w, 1), "the one ahead vanished: 1st, while the session still runs");
	cr_assert_not(w.done);
	nb_client_close(&first);
	cr_assert(waiter_at(&w, 0));
	cr_assert(w.ok, "%s", w.err.msg);
	waiter_join(&w);
}

Test(agent_queue, a_connection_that_has_not_proved_the_secret_holds_no_place)
{
	start(4, true);
	struct nb_client first;
	open_now(&first);
	/* a client HELLO and then silence: the handshake is begun, never finished */
	struct nb_error err = { { 0 } };
	int fd = nb_ctl_connect(&addr, addr_len, 5000, &err);
	cr_assert_geq(fd, 0, "%s", err.msg);
	struct nb_msg hello = { .type = NB_MSG_HELLO };
	hello.u.hello = (struct nb_msg_hello){ .proto_version = NB_PROTO_VERSION,
					       .role = NB_ROLE_CLIENT, .auth = NB_AUTH_MAC };
	snprintf(hello.u.hello.version, sizeof(hello.u.hello.version), "test");
	struct nb_ctl ctl; /* before the handshake's end frames travel unsealed */
	nb_ctl_init(&ctl, fd);
	cr_assert(nb_ctl_send(&ctl, &hello, 5000, &err), "%s", err.msg);
	struct nb_msg m;
	cr_assert_eq(nb_ctl_recv(&ctl, &m, 5000, &err), 1, "the agent's HELLO: %s", err.msg);
	nb_msg_free(&m);
	struct waiter w;
	waiter_start(&w, 60000);
	cr_assert(waiter_at(&w, 1), "1st in line: the unproven connection is nobody ahead");
	char c;
	ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
	cr_assert(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK),
		  "the unproven connection was still open when the second was told its place");
	close(fd);
	nb_client_close(&first);
	cr_assert(waiter_at(&w, 0));
	cr_assert(w.ok, "%s", w.err.msg);
	waiter_join(&w);
}

Test(agent_queue, a_client_whose_wait_is_over_gives_up_and_is_told_busy)
{
	start(4, true);
	struct nb_client first;
	open_now(&first);
	struct waiter w;
	waiter_start(&w, 300);
	cr_assert(waiter_at(&w, 0));
	cr_assert_not(w.ok);
	cr_assert(w.c.busy, "a busy agent, not an unreachable one: %s", w.err.msg);
	cr_assert_not_null(strstr(w.err.msg, "gave up waiting"), "%s", w.err.msg);
	cr_assert_not_null(strstr(w.err.msg, "1st in line"), "%s", w.err.msg);
	waiter_join(&w);
	nb_client_close(&first);
}

Test(agent_queue, a_client_that_will_not_wait_is_told_busy_at_once)
{
	start(4, true);
	struct nb_client first, second;
	open_now(&first);
	struct nb_error err = { { 0 } };
	struct nb_client_wait cw = { .timeout_ms = 0 };
	cr_assert_not(nb_client_open(&second, name, &addr, addr_len, &secret, &cw, &err));
	cr_assert(second.busy);
	cr_assert_not_null(strstr(err.msg, "agent is busy"), "%s", err.msg);
	nb_client_close(&first);
}

Test(agent_queue, a_full_line_tells_the_next_client_busy)
{
	start(1, true);
	struct nb_client first, third;
	open_now(&first);
	uint32_t pos = 0;
	int fd = raw_waiter(&pos);
	cr_assert_eq(pos, 1);
	struct nb_error err = { { 0 } };
	struct nb_client_wait cw = { .timeout_ms = 60000 };
	cr_assert_not(nb_client_open(&third, name, &addr, addr_len, &secret, &cw, &err));
	cr_assert(third.busy);
	cr_assert_not_null(strstr(err.msg, "queue is full"), "%s", err.msg);
	close(fd);
	nb_client_close(&first);
}

Test(agent_queue, without_a_secret_one_host_holds_a_bounded_share_of_the_line)
{
	start(NB_QUEUE_PLACES_MAX, false);
	struct nb_client first, more;
	open_now(&first);
	int fds[NB_AGENT_QUEUE_PER_HOST];
	for (uint32_t i = 0; i < NB_AGENT_QUEUE_PER_HOST; i++) {
		uint32_t pos = 0;
		fds[i] = raw_waiter(&pos);
		cr_assert_eq(pos, i + 1);
	}
	struct nb_error err = { { 0 } };
	struct nb_client_wait cw = { .timeout_ms = 60000 };
	cr_assert_not(nb_client_open(&more, name, &addr, addr_len, &secret, &cw, &err));
	cr_assert(more.busy);
	cr_assert_not_null(strstr(err.msg, "this host holds"), "%s", err.msg);
	for (uint32_t i = 0; i < NB_AGENT_QUEUE_PER_HOST; i++)
		close(fds[i]);
	nb_client_close(&first);
}

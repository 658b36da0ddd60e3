/* net suite: clients waiting in line for the agent's one session (queue.h, agent_queue.c) on
 * loopback — the second is told its place and gets the session once the first is done; one
 * that goes away frees its place at once; a connection that has not proved the secret holds
 * none; a full line, a client that would not wait and one whose wait is over are told busy;
 * a companion (a ticket of the holder's) runs beside its holder, and the line waits for both. */
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
#include "pathsync.h"
#include "proto.h"

#define TOLD_MAX 64
#define SETTLE_S 30 /* how long a step may take at most before the test gives up on it */

static struct nb_agent *agent;
static char name[64];
static struct sockaddr_storage addr;
static socklen_t addr_len;
static struct nb_secret secret = { .set = true };

static void start_limited(uint32_t max_queue, bool with_secret, uint32_t max_flows)
{
	struct nb_error err = { { 0 } };
	memset(secret.key, 0x5a, sizeof(secret.key));
	secret.set = with_secret;
	agent = nbt_agent_session(&(struct nb_agent_opts){ .verbosity = -1, .max_queue = max_queue,
							   .secret = &secret,
							   .limits = { .max_flows = max_flows } },
				  NULL, NULL);
	snprintf(name, sizeof(name), "127.0.0.1:%u", nb_agent_port(agent));
	cr_assert(nb_ctl_resolve(name, 0, &addr, &addr_len, &err));
}

static void start(uint32_t max_queue, bool with_secret)
{
	start_limited(max_queue, with_secret, 0);
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

/* ---- companions (proto.h COMPANION): a working case's parts, at once, on one agent ---- */

static bool open_companion(struct nb_client *c, const uint8_t *ticket, struct nb_error *err)
{
	struct nb_client_wait cw = { .plan_ms = 60000, .timeout_ms = 0, .companion = ticket };
	return nb_client_open(c, name, &addr, addr_len, &secret, &cw, err);
}

struct side_run {
	struct nb_client *c;
	uint32_t run_id;
	enum nb_outcome o;
	struct nb_test_result res;
};

static void *side_main(void *arg)
{
	struct side_run *s = arg;
	struct nb_msg_setup su = nbt_small_test(s->run_id);
	s->o = nbt_run_test(s->c, &su, &s->res);
	return NULL;
}

Test(agent_queue, a_companion_runs_beside_its_holder_and_the_next_in_line_waits_for_both)
{
	start(4, true);
	struct nb_client holder, mate;
	struct nb_error err = { { 0 } };
	uint8_t ticket[NB_COMPANION_TICKET_LEN];
	open_now(&holder);
	cr_assert(nb_client_companion_ticket(&holder, ticket, &err), "%s", err.msg);
	/* timeout 0: a client that had to wait in line would be told busy at once */
	cr_assert(open_companion(&mate, ticket, &err), "the companion is let in at once: %s", err.msg);
	struct waiter w;
	waiter_start(&w, 60000);
	cr_assert(waiter_at(&w, 1), "a third client waits, 1st in line");
	/* both sessions run a test at the same time */
	struct side_run a = { .c = &holder, .run_id = 1 }, b = { .c = &mate, .run_id = 2 };
	pthread_t ta, tb;
	cr_assert_eq(pthread_create(&ta, NULL, side_main, &a), 0);
	cr_assert_eq(pthread_create(&tb, NULL, side_main, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	cr_expect_eq(a.o, NB_OUT_OK, "the holder's test: %s", a.res.error);
	cr_expect_eq(b.o, NB_OUT_OK, "the companion's test: %s", b.res.error);
	nb_client_close(&holder);
	struct timespec pause = { 0, 300 * 1000000 };
	nanosleep(&pause, NULL); /* room for a wrong admission to happen */
	cr_assert_not(w.done, "the holder is gone, its companion still holds the agent");
	nb_client_close(&mate);
	cr_assert(waiter_at(&w, 0));
	cr_assert(w.ok, "after both, the next in line has the session: %s", w.err.msg);
	waiter_join(&w);
}

Test(agent_queue, a_companion_ticket_opens_once_only_while_its_holder_holds_the_agent)
{
	start(4, true);
	struct nb_client holder, mate, other;
	struct nb_error err = { { 0 } };
	uint8_t ticket[NB_COMPANION_TICKET_LEN], made_up[NB_COMPANION_TICKET_LEN], late[NB_COMPANION_TICKET_LEN];
	memset(made_up, 0x77, sizeof(made_up));
	open_now(&holder);
	cr_assert(nb_client_companion_ticket(&holder, ticket, &err), "%s", err.msg);
	cr_assert(nb_client_companion_ticket(&holder, late, &err), "%s", err.msg);
	cr_assert_not(open_companion(&other, made_up, &err), "a ticket made up opens nothing");
	cr_expect(strstr(err.msg, "companion ticket opens no session"), "%s", err.msg);
	cr_assert(open_companion(&mate, ticket, &err), "%s", err.msg);
	cr_assert_not(open_companion(&other, ticket, &err), "a ticket used once opens nothing");
	cr_expect(strstr(err.msg, "companion ticket opens no session"), "%s", err.msg);
	cr_assert_not(nb_client_companion_ticket(&mate, made_up, &err), "a companion has none");
	cr_expect(strstr(err.msg, "only the session that holds the agent"), "%s", err.msg);
	for (int i = 2; i < NB_COMPANIONS_MAX; i++)
		cr_assert(nb_client_companion_ticket(&holder, made_up, &err), "%d: %s", i, err.msg);
	cr_assert_not(nb_client_companion_ticket(&holder, made_up, &err), "at most 8");
	cr_expect(strstr(err.msg, "at most 8 companions"), "%s", err.msg);
	struct waiter w;
	waiter_start(&w, 60000);
	cr_assert(waiter_at(&w, 1));
	nb_client_close(&mate);
	nb_client_close(&holder);
	cr_assert(waiter_at(&w, 0) && w.ok, "the holder and its companion are over: %s", w.err.msg);
	cr_assert_not(open_companion(&other, late, &err), "its holder is over: its tickets are too");
	cr_expect(strstr(err.msg, "companion ticket opens no session"), "%s", err.msg);
	waiter_join(&w);
}

struct held_run {
	struct nb_client *c;
	struct nb_pathsync *group;
	enum nb_outcome o;
};

static void no_interval(void *ctx, uint32_t k, const struct nb_span *s, const struct nb_hist *h)
{
	(void)ctx, (void)k, (void)s, (void)h;
}

static void *held_main(void *arg)
{
	struct held_run *h = arg;
	struct nb_msg_setup su = nbt_small_test(1);
	su.duration_ns = 1000000000ull; /* outlasts the companion's SETUP by far */
	struct nb_test_sink sink = { .interval = no_interval };
	struct nb_test_result res;
	struct nb_error err = { { 0 } };
	h->o = nb_client_test_path(h->c, &su, h->group, &sink, &res, &err);
	nb_test_result_free(&res);
	return NULL;
}

Test(agent_queue, the_limits_hold_the_sum_of_a_holder_and_its_companions)
{
	struct nb_error err = { { 0 } };
	start_limited(4, true, 1);
	struct nb_client holder, mate;
	uint8_t ticket[NB_COMPANION_TICKET_LEN];
	open_now(&holder);
	cr_assert(nb_client_companion_ticket(&holder, ticket, &err), "%s", err.msg);
	cr_assert(open_companion(&mate, ticket, &err), "%s", err.msg);
	struct nb_pathsync group;
	cr_assert(nb_pathsync_init(&group, 2));
	struct held_run h = { .c = &holder, .group = &group };
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, held_main, &h), 0);
	cr_assert(nb_pathsync_wait(&group, NB_SYNC_START, NULL, NULL, NULL));
	nb_pathsync_leave(&group); /* the holder's one flow runs now */
	struct nb_msg_setup su = nbt_small_test(2);
	struct nb_test_result res;
	struct nb_msg m;
	cr_assert(nb_ctl_send(&mate.ctl, &(struct nb_msg){ .type = NB_MSG_SETUP, .u.setup = su },
			      5000, &err), "%s", err.msg);
	cr_assert_eq(nb_ctl_recv(&mate.ctl, &m, 5000, &err), 1, "%s", err.msg);
	cr_assert_eq(m.type, NB_MSG_ERROR, "a second flow at once is above --max-streams 1");
	cr_expect_eq(m.u.error.code, NB_ERR_LIMIT);
	cr_expect(strstr(m.u.error.text, "beside the 1 flows"), "%s", m.u.error.text);
	pthread_join(t, NULL);
	cr_expect_eq(h.o, NB_OUT_OK, "the holder's own test ran");
	cr_expect_eq(nbt_run_test(&mate, &su, &res), NB_OUT_OK, "alone again, the companion's runs");
	nb_pathsync_destroy(&group);
	nb_client_close(&mate);
	nb_client_close(&holder);
}

/* net suite: the agent as an attacker meets it, on loopback — silent and garbage
 * connections, wrong and missing secrets, tests beyond its limits, SETUP fields at their
 * extremes — and the honest client it must go on serving (data path probes out of turn:
 * test_agent_probe.c). */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent.h"
#include "agent_stdio.h"
#include "client.h"
#include "ctl.h"
#include "nbt_agent.h"
#include "proto.h"

static struct nb_agent *agent;
static char name[64];
static struct sockaddr_storage addr;
static socklen_t addr_len;

static void start(struct nb_agent_opts o)
{
	struct nb_error err = { { 0 } };
	o.bind = "127.0.0.1";
	o.idle_timeout_s = o.idle_timeout_s ? o.idle_timeout_s : 60;
	agent = nb_agent_create(&o, &err);
	cr_assert_not_null(agent, "%s", err.msg);
	cr_assert(nb_agent_start_thread(agent, &err), "%s", err.msg);
	snprintf(name, sizeof(name), "127.0.0.1:%u", nb_agent_port(agent));
	cr_assert(nb_ctl_resolve(name, 0, &addr, &addr_len, &err));
}

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

/* A TCP connection to the agent from src (an address of 127.0.0.0/8). */
static int connect_from(const char *src)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in me = { .sin_family = AF_INET };
	cr_assert_eq(inet_pton(AF_INET, src, &me.sin_addr), 1);
	cr_assert_eq(bind(fd, (struct sockaddr *)&me, sizeof(me)), 0, "bind %s: %s", src, strerror(errno));
	cr_assert_eq(connect(fd, (struct sockaddr *)&addr, addr_len), 0, "%s", strerror(errno));
	return fd;
}

/* Whether the agent has closed fd (EOF or reset) rather than kept it open and silent. */
static bool closed_now(int fd)
{
	char c;
	ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/* Wait (up to 5 s) until the agent has closed fd. */
static bool closed_soon(int fd)
{
	struct timeval tv = { .tv_sec = 5 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	char c[64];
	ssize_t n;
	while ((n = recv(fd, c, sizeof(c), 0)) > 0)
		;
	return n == 0 || errno == ECONNRESET;
}

/* Open a client session, retrying while the agent still finishes an earlier one (busy), or
 * while as many connections from this address as it takes are still shaking hands (it then
 * closes or resets a new one at once). */
static bool open_client(struct nb_client *c, const struct nb_secret *s, struct nb_error *err)
{
	for (int tries = 0; tries < 50; tries++) {
		if (nb_client_open(c, name, &addr, addr_len, s, NULL, err))
			return true;
		if (!strstr(err->msg, "busy") && !strstr(err->msg, "closed") && !strstr(err->msg, "reset") &&
		    !strstr(err->msg, "saturated"))
			return false;
		usleep(100000);
	}
	return false;
}



/* The agent serves an honest client: it opens, one short test measures. */
static void assert_serves(const struct nb_secret *s)
{
	struct nb_client c;
	struct nb_error err = { { 0 } };
	cr_assert(open_client(&c, s, &err), "%s", err.msg);
	struct nb_msg_setup su = nbt_small_test(1);
	struct nb_test_result res;
	cr_assert_eq(nbt_run_test(&c, &su, &res), NB_OUT_OK, "%s", res.error);
	nb_client_close(&c);
}

TestSuite(agent, .fini = stop, .timeout = 120);

Test(agent, five_silent_connections_do_not_stop_an_honest_client_being_served_at_once)
{
	start((struct nb_agent_opts){ 0 });
	int silent[5];
	for (int i = 0; i < 5; i++)
		silent[i] = connect_from("127.0.0.1");
	struct nb_client c;
	struct nb_error err = { { 0 } };
	cr_assert(nb_client_open(&c, name, &addr, addr_len, NULL, NULL, &err), "%s", err.msg);
	for (int i = 0; i < 5; i++)
		cr_assert_not(closed_now(silent[i]), "served while silent connection %d still waits", i);
	struct nb_msg_setup su = nbt_small_test(1);
	struct nb_test_result res;
	cr_assert_eq(nbt_run_test(&c, &su, &res), NB_OUT_OK, "%s", res.error);
	nb_client_close(&c);
	for (int i = 0; i < 5; i++) {
		cr_assert(closed_soon(silent[i]), "the handshake deadline closes silent connection %d", i);
		close(silent[i]);
	}
}

Test(agent, a_wrong_and_a_missing_secret_are_refused_and_nothing_runs)
{
	struct nb_secret right = secret_of(1), wrong = secret_of(2);
	start((struct nb_agent_opts){ .secret = &right });
	struct nb_client c;
	struct nb_error err = { { 0 } };
	cr_assert_not(nb_client_open(&c, name, &addr, addr_len, &wrong, NULL, &err));
	cr_assert_not_null(strstr(err.msg, "authentication failed"), "%s", err.msg);
	cr_assert_eq(c.ctl.fd, -1);
	cr_assert_not(nb_client_open(&c, name, &addr, addr_len, NULL, NULL, &err));
	cr_assert_not_null(strstr(err.msg, "requires a shared secret"), "%s", err.msg);
	cr_assert_eq(nb_agent_tests_run(agent), 0);
	assert_serves(&right);
	/* the agent counts a test once its RESULT is out: the client may read it first */
	for (int i = 0; i < 100 && nb_agent_tests_run(agent) == 0; i++)
		usleep(20000);
	cr_assert_eq(nb_agent_tests_run(agent), 1);
}

Test(agent, nothing_about_the_agent_is_said_before_the_secret_is_proven)
{
	struct nb_secret right = secret_of(1);
	start((struct nb_agent_opts){ .secret = &right, .collect_facts = true });
	int fd = connect_from("127.0.0.1");
	struct nb_ctl ctl;
	nb_ctl_init(&ctl, fd);
	struct nb_msg hello = { .type = NB_MSG_HELLO }, m;
	hello.u.hello.proto_version = NB_PROTO_VERSION;
	struct nb_error err = { { 0 } };
	cr_assert(nb_ctl_send(&ctl, &hello, 2000, &err), "%s", err.msg);
	int types[4], n = 0;
	char version[64] = "?";
	unsigned proto = 99;
	while (n < 4 && nb_ctl_recv(&ctl, &m, 5000, &err) == 1) {
		if (m.type == NB_MSG_HELLO) {
			snprintf(version, sizeof(version), "%s", m.u.hello.version);
			proto = m.u.hello.proto_version;
		}
		types[n++] = m.type;
		nb_msg_free(&m);
	}
	cr_assert_eq(n, 2, "the agent's HELLO, its ERROR, then it hangs up");
	cr_assert_eq(types[0], NB_MSG_HELLO);
	cr_assert_eq(types[1], NB_MSG_ERROR);
	cr_assert_str_eq(version, "", "no nbrun version in the HELLO");
	cr_assert_eq(proto, 0, "nor a protocol version");
	close(fd);
}

Test(agent, a_second_client_is_told_busy_and_nothing_about_the_first)
{
	start((struct nb_agent_opts){ 0 });
	struct nb_client first, second;
	struct nb_error err = { { 0 } };
	cr_assert(nb_client_open(&first, name, &addr, addr_len, NULL, NULL, &err), "%s", err.msg);
	cr_assert_not(nb_client_open(&second, name, &addr, addr_len, NULL, NULL, &err));
	char want[128];
	snprintf(want, sizeof(want), "peer %s: agent is busy with another client; try again later", name);
	cr_assert_str_eq(err.msg, want);
	nb_client_close(&first);
}

Test(agent, per_address_only_eight_handshakes_wait_and_others_are_served)
{
	start((struct nb_agent_opts){ 0 });
	int silent[NB_AGENT_PER_ADDR];
	for (int i = 0; i < NB_AGENT_PER_ADDR; i++)
		silent[i] = connect_from("127.0.0.2");
	int extra = connect_from("127.0.0.2");
	cr_assert(closed_soon(extra), "one more from that address is closed");
	for (int i = 0; i < NB_AGENT_PER_ADDR; i++)
		cr_assert_not(closed_now(silent[i]), "before connection %d's handshake deadline", i);
	struct nb_client c;
	struct nb_error err = { { 0 } };
	cr_assert(nb_client_open(&c, name, &addr, addr_len, NULL, NULL, &err), "another address: %s", err.msg);
	nb_client_close(&c);
	for (int i = 0; i < NB_AGENT_PER_ADDR; i++)
		close(silent[i]);
	close(extra);
}

Test(agent, allow_tells_a_client_from_elsewhere_why_in_one_frame_and_closes_at_once)
{
	struct nb_cidr only;
	struct nb_error err = { { 0 } };
	cr_assert(nb_cidr_parse("127.0.0.2/32", &only, &err));
	start((struct nb_agent_opts){ .allow = &only, .nallow = 1 });
	int fd = connect_from("127.0.0.1");
	cr_assert(closed_soon(fd), "not in --allow");
	close(fd);
	/* A client from elsewhere is told why in one frame, and nothing more. */
	struct nb_client c;
	cr_assert_not(nb_client_open(&c, name, &addr, addr_len, NULL, NULL, &err));
	char want[160];
	snprintf(want, sizeof(want), "peer %s: refused: this client's address is not in the agent's "
		 "--allow list", name);
	cr_expect_str_eq(err.msg, want);
	fd = connect_from("127.0.0.1");
	struct nb_msg m;
	struct nb_ctl ctl;
	nb_ctl_init(&ctl, fd);
	cr_assert_eq(nb_ctl_recv(&ctl, &m, 5000, &err), 1, "%s", err.msg);
	cr_expect_eq(m.type, NB_MSG_ERROR);
	cr_expect_eq(nb_ctl_recv(&ctl, &m, 5000, &err), -1, "then the close: one frame only");
	close(fd);
	fd = connect_from("127.0.0.2");
	struct nb_auth auth;
	nb_ctl_init(&ctl, fd);
	cr_assert(nb_auth_client(&ctl, NULL, 2000, name, &auth, &err), "in --allow: %s", err.msg);
	close(fd);
}

/* ---- garbage ---- */

/* What connection i sends before it hangs up: garbage, or the start of something valid. */
static size_t garbage(unsigned i, unsigned char *b, size_t cap)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (i + 1);
	size_t n = 0;
	struct nb_buf buf = { 0 };
	struct nb_msg m = { .type = NB_MSG_HELLO };
	switch (i % 6) {
	case 0: /* random bytes */
		n = 1 + x % 64;
		for (size_t k = 0; k < n; k++, x = x * 6364136223846793005ull + 1442695040888963407ull)
			b[k] = (unsigned char)(x >> 56);
		return n;
	case 1: /* a length prefix beyond any frame */
		memcpy(b, "\x7f\xff\xff\xff\x00\x01", 6);
		return 6;
	case 2: /* a SETUP before any HELLO */
		m = (struct nb_msg){ .type = NB_MSG_SETUP, .u.setup = nbt_small_test(1) };
		break;
	case 3: /* a HELLO of another protocol version */
		m.u.hello.proto_version = 77;
		break;
	default: /* a valid HELLO, truncated */
		m.u.hello.proto_version = NB_PROTO_VERSION;
		break;
	}
	nb_msg_encode(&m, &buf, NULL);
	n = i % 6 >= 4 ? 1 + x % (buf.len - 1) : buf.len;
	n = n < cap ? n : cap;
	memcpy(b, buf.p, n);
	nb_buf_free(&buf);
	return n;
}

Test(agent, three_thousand_garbage_or_truncated_frames_leave_it_serving, .timeout = 300)
{
	start((struct nb_agent_opts){ 0 });
	for (unsigned i = 0; i < 3000; i++) {
		unsigned char b[4096];
		size_t n = garbage(i, b, sizeof(b));
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		cr_assert_eq(connect(fd, (struct sockaddr *)&addr, addr_len), 0, "connection %u", i);
		(void)send(fd, b, n, MSG_NOSIGNAL);
		close(fd);
	}
	assert_serves(NULL);
}

/* ---- limits ---- */

Test(agent, each_limit_refuses_the_test_and_the_session_goes_on)
{
	start((struct nb_agent_opts){ .limits = { .max_rate = 100000000ull, .max_flows = 4,
						  .max_duration_s = 5, .max_message = 65536 } });
	struct nb_client c;
	struct nb_error err = { { 0 } };
	cr_assert(nb_client_open(&c, name, &addr, addr_len, NULL, NULL, &err), "%s", err.msg);
	struct nb_msg_setup su[4];
	for (int i = 0; i < 4; i++)
		su[i] = nbt_small_test((uint32_t)i + 1);
	su[0].params.rate = 200000000ull;
	su[1].params.streams = 5;
	su[2].duration_ns = 6000000000ull;
	su[3].params.size = 65537;
	const char *want[4] = { "--max-rate", "--max-streams", "--max-duration", "--max-message" };
	for (int i = 0; i < 4; i++) {
		struct nb_test_result res;
		cr_assert_eq(nbt_run_test(&c, &su[i], &res), NB_OUT_CASE_FAILED, "%s", want[i]);
		cr_assert_not_null(strstr(res.error, "agent: limit: "), "%s", res.error);
		cr_assert_not_null(strstr(res.error, want[i]), "%s", res.error);
	}
	cr_assert_eq(nb_agent_tests_run(agent), 0, "nothing ran");
	struct nb_msg_setup ok = nbt_small_test(9);
	struct nb_test_result res;
	ok.params.rate = 0;
	cr_assert_eq(nbt_run_test(&c, &ok, &res), NB_OUT_CASE_FAILED, "unpaced: no rate bound");
	cr_assert_not_null(strstr(res.error, "an unpaced TCP test has no rate bound"), "%s", res.error);
	ok.run_id = 10;
	ok.params.rate = 50000000ull;
	cr_assert_eq(nbt_run_test(&c, &ok, &res), NB_OUT_OK, "within the limits: %s", res.error);
	nb_client_close(&c);
}

/* ---- sending on a grant (a path between two agents) ---- */

/* SETUP for run_id as the sending end of a path to 127.0.0.1:9 (the discard port). */
static struct nb_msg_setup sending_end(uint32_t run_id, const char *engine)
{
	struct nb_msg_setup su = nbt_small_test(run_id);
	snprintf(su.params.engine, sizeof(su.params.engine), "%s", engine);
	su.end = NB_END_CONNECT;
	su.target = (struct nb_target){ .family = 4, .addr = { 127, 0, 0, 1 }, .port = 9 };
	memset(su.grant, 0x5a, sizeof(su.grant));
	return su;
}

Test(agent, without_a_secret_it_sends_to_no_address_a_client_names)
{
	start((struct nb_agent_opts){ 0 });
	struct nb_client c;
	struct nb_error err = { { 0 } };
	cr_assert(nb_client_open(&c, name, &addr, addr_len, NULL, NULL, &err), "%s", err.msg);
	struct nb_msg_setup su = sending_end(1, "stream");
	struct nb_test_result res;
	cr_assert_eq(nbt_run_test(&c, &su, &res), NB_OUT_CASE_FAILED);
	cr_assert_not_null(strstr(res.error, "agent: this agent has no secret (--secret-file): it "
				  "sends to no address a client names"), "%s", res.error);
	cr_assert_eq(nb_agent_tests_run(agent), 0, "nothing ran");
	struct nb_msg_setup ok = nbt_small_test(2);
	cr_assert_eq(nbt_run_test(&c, &ok, &res), NB_OUT_OK, "the session goes on: %s", res.error);
	nb_client_close(&c);
}

Test(agent, with_a_secret_it_still_refuses_to_time_round_trips_for_another_agent)
{
	struct nb_secret s = secret_of(7);
	start((struct nb_agent_opts){ .secret = &s });
	struct nb_client c;
	struct nb_error err = { { 0 } };
	cr_assert(open_client(&c, &s, &err), "%s", err.msg);
	const char *engines[] = { "rr", "latency" };
	for (uint32_t i = 0; i < 2; i++) {
		struct nb_msg_setup su = sending_end(i + 1, engines[i]);
		su.params.request = su.params.response = 64;
		su.params.rate = 0;
		struct nb_test_result res;
		cr_assert_eq(nbt_run_test(&c, &su, &res), NB_OUT_CASE_FAILED, "%s", engines[i]);
		cr_assert_not_null(strstr(res.error, "measures round trips at its client end: a path "
					  "between two agents carries no latency histograms"), "%s",
				   res.error);
	}
	cr_assert_eq(nb_agent_tests_run(agent), 0, "nothing ran");
	nb_client_close(&c);
}

/* ---- SETUP fields at their extremes ---- */

/* The wire layout of SETUP (proto.c), each field's width (0 = a string) and a valid value. */
struct field {
	const char *name;
	int width;
	uint64_t value;
	const char *text;
};

static const struct field setup_fields[] = {
	{ "run id", 4, 1, NULL }, { "case id", 0, 0, "extreme" }, { "engine", 0, 0, "stream" },
	{ "protocol", 1, 0, NULL }, { "direction", 1, 0, NULL }, { "size", 4, 1000, NULL },
	{ "request", 4, 0, NULL }, { "response", 4, 0, NULL }, { "streams", 4, 1, NULL },
	{ "rate", 8, 1000000, NULL }, { "window", 4, 0, NULL }, { "mss", 4, 0, NULL },
	{ "nodelay", 1, 0, NULL }, { "congestion", 0, 0, "" }, { "tos", 4, 0, NULL },
	{ "wait", 1, 0, NULL }, { "gso", 1, 0, NULL }, { "batch", 4, 0, NULL },
	{ "timeout", 4, 0, NULL }, { "cpu count", 4, 0, NULL }, { "burst", 4, 0, NULL },
	{ "datapath", 1, 0, NULL }, { "threads", 4, 0, NULL },
	{ "self", 4, 0, NULL }, /* the stream engine's own row (engines/stream_self.c) */
	{ "warm-up", 8, 0, NULL },
	{ "omit", 8, 0, NULL }, { "duration", 8, 1000000000ull, NULL },
	{ "interval", 8, 500000000ull, NULL }, { "drain", 8, 0, NULL },
	{ "end", 1, 0, NULL }, { "any source", 1, 0, NULL }, { "target family", 1, 0, NULL },
	{ "target address 0-7", 8, 0, NULL }, { "target address 8-15", 8, 0, NULL },
	{ "target port", 2, 0, NULL }, { "grant 0-7", 8, 0, NULL }, { "grant 8-15", 8, 0, NULL },
	{ "grant 16-23", 8, 0, NULL }, { "grant 24-31", 8, 0, NULL }, { "grant 32-39", 8, 0, NULL },
	{ "grant 40-47", 8, 0, NULL },
};
#define NFIELDS (sizeof(setup_fields) / sizeof(setup_fields[0]))

/* The index of the field of that name (a test names fields, never counts them). */
static int field_of(const char *which)
{
	for (size_t i = 0; i < NFIELDS; i++)
		if (strcmp(setup_fields[i].name, which) == 0)
			return (int)i;
	cr_assert_fail("no SETUP field '%s'", which);
	return -1;
}

static void put(struct nb_buf *b, uint64_t v, int width)
{
	for (int i = width - 1; i >= 0; i--)
		b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

/* A SETUP frame with field `which` set to v (a string: its length prefix); which = -1: valid. */
static struct nb_buf setup_frame(int which, uint64_t v)
{
	static uint8_t mem[1024];
	struct nb_buf b = { .p = mem, .cap = sizeof(mem) };
	put(&b, 0, 4);
	put(&b, NB_MSG_SETUP, 2);
	for (int i = 0; i < (int)NFIELDS; i++) {
		const struct field *f = &setup_fields[i];
		if (f->width == 0) {
			put(&b, i == which ? v : strlen(f->text), 2);
			if (i != which)
				for (const char *s = f->text; *s; s++)
					b.p[b.len++] = (uint8_t)*s;
		} else {
			put(&b, i == which ? v : f->value, f->width);
		}
	}
	size_t body = b.len - 4;
	b.len = 0;
	put(&b, body, 4);
	b.len = body + 4;
	return b;
}

/* Send frame on a fresh session; the agent must answer with an ERROR of one of the codes. */
static void assert_refused(struct nb_buf frame, const char *what)
{
	struct nb_client c;
	struct nb_error err = { { 0 } };
	cr_assert(open_client(&c, NULL, &err), "%s: %s", what, err.msg);
	cr_assert(nb_ctl_send_frame(&c.ctl, frame.p, frame.len, 2000, &err), "%s", err.msg);
	struct nb_msg m;
	cr_assert_eq(nb_ctl_recv(&c.ctl, &m, 10000, &err), 1, "%s: an answer (%s)", what, err.msg);
	cr_assert_eq(m.type, NB_MSG_ERROR, "%s: refused, not %s", what, nb_msg_name(m.type));
	cr_assert(m.u.error.code == NB_ERR_PROTOCOL || m.u.error.code == NB_ERR_LIMIT ||
		  m.u.error.code == NB_ERR_SETUP, "%s: code %u", what, m.u.error.code);
	nb_client_close(&c);
}

Test(agent, a_setup_with_each_field_at_its_extremes_is_refused_cleanly, .timeout = 300)
{
	start((struct nb_agent_opts){ .limits = { .max_rate = 10000000000ull, .max_flows = 64,
						  .max_duration_s = 3600, .max_message = 1u << 20 } });
	struct nb_buf valid = setup_frame(-1, 0);
	struct nb_msg m;
	struct nb_error err = { { 0 } };
	cr_assert(nb_msg_decode(valid.p + 4, valid.len - 4, &m, &err), "the baseline is valid: %s", err.msg);
	for (int i = 1; i < (int)NFIELDS; i++) { /* the run id is any number */
		const struct field *f = &setup_fields[i];
		uint64_t all_ones = f->width ? (f->width == 8 ? UINT64_MAX : (1ull << (8 * f->width)) - 1)
					     : 0xffff;
		assert_refused(setup_frame(i, all_ones), f->name);
	}
	/* The largest values the decoder takes are beyond the agent's limits. */
	const struct { const char *field; uint64_t v; } in_range[] = {
		{ "size", 1u << 30 }, { "request", 1u << 30 }, { "streams", NB_MAX_FLOWS },
		{ "rate", NB_RATE_MAX }, { "duration", 86400ull * 1000000000ull }, { "streams", 0 },
		{ "duration", 0 }, { "interval", 0 }, { "size", 0 },
	};
	for (size_t i = 0; i < sizeof(in_range) / sizeof(in_range[0]); i++)
		assert_refused(setup_frame(field_of(in_range[i].field), in_range[i].v), in_range[i].field);
	assert_serves(NULL);
}

/* An agent serving --stdio on a thread, and how that ended. */
struct stdio_run {
	int fd;
	struct nb_agent_stdio_ends e;
	bool ok;
	struct nb_error err;
};

static void *stdio_main(void *arg)
{
	struct stdio_run *r = arg;
	r->ok = nb_agent_stdio_serve(agent, r->fd, r->fd, &r->e, &r->err);
	return NULL;
}

/* serve --stdio's session on one end of a socketpair (standing for both stdin and stdout) as
 * if sshd had started it for SSH_CONNECTION "127.0.0.1 40000 127.0.0.2 22", its serving thread
 * into *t, and c opened on the other end with the data at 127.0.0.2. */
static void start_stdio(struct stdio_run *r, struct nb_client *c, pthread_t *t)
{
	static struct nb_secret s;
	struct nb_error err = { { 0 } };
	struct sockaddr_storage data;
	socklen_t len;
	int sv[2];
	s = secret_of(7);
	cr_assert(nb_agent_stdio_ends("127.0.0.1 40000 127.0.0.2 22", &r->e, &err), "%s", err.msg);
	struct nb_agent_opts o = { .bind = r->e.server, .stdio = true, .once = true, .secret = &s,
				   .idle_timeout_s = 60, .verbosity = -1 };
	agent = nb_agent_create(&o, &err);
	cr_assert_not_null(agent, "%s", err.msg);
	cr_expect_eq(nb_agent_port(agent), 0, "no control port");
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	r->fd = sv[1];
	cr_assert_eq(pthread_create(t, NULL, stdio_main, r), 0);
	cr_assert(nb_ctl_resolve("127.0.0.2", 0, &data, &len, &err));
	cr_assert(nb_client_open_fd(c, "stdio", sv[0], &data, len, &s, NULL, &err), "%s", err.msg);
}

/* The agent's thread returns (it did not stay), having run tests tests. */
static void end_stdio(struct stdio_run *r, pthread_t t, uint64_t tests)
{
	pthread_join(t, NULL);
	cr_expect(r->ok, "%s", r->err.msg);
	cr_expect_eq(nb_agent_tests_run(agent), tests);
	close(r->fd);
}

Test(agent, over_stdio_a_session_runs_its_test_with_data_on_the_address_ssh_reached)
{
	struct stdio_run r = { .ok = false };
	struct nb_client c;
	struct nb_test_result res;
	pthread_t t;
	start_stdio(&r, &c, &t);
	struct nb_msg_setup su = nbt_small_test(1);
	cr_expect_eq(nbt_run_test(&c, &su, &res), NB_OUT_OK, "data to 127.0.0.2, where the agent bound");
	nb_client_close(&c);
	end_stdio(&r, t, 1);
}

Test(agent, over_stdio_the_end_of_standard_input_ends_the_agent_without_a_bye)
{
	struct stdio_run r = { .ok = false };
	struct nb_client c;
	pthread_t t;
	start_stdio(&r, &c, &t);
	close(c.ctl.fd); /* as when ssh drops: no BYE */
	c.ctl.fd = -1;
	end_stdio(&r, t, 0);
	nb_client_close(&c);
}

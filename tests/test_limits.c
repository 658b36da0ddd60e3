/* What an agent lets one test ask (agent_limits.h), and who may connect at all (cidr.h): every
 * limit refuses with the option it names, never clamps; ranges parse and match. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "cidr.h"
#include "engine.h"
#include "agent_limits.h"

static const struct nb_limits serve = { .max_rate = 1000000000ull, .max_flows = 8,
					.max_duration_s = 60, .max_message = 65536 };

static struct nb_msg_setup setup(const char *engine, enum nb_proto proto)
{
	struct nb_msg_setup su = { .duration_ns = 10000000000ull, .interval_ns = 1000000000ull };
	snprintf(su.params.engine, sizeof(su.params.engine), "%s", engine);
	su.params.proto = proto;
	su.params.streams = 1;
	su.params.size = 1400;
	return su;
}

static bool check(const struct nb_msg_setup *su, char *why, size_t n)
{
	return nb_limits_check(&serve, nb_engine_find(su->params.engine), su, why, n);
}

struct limit_case {
	const char *what;
	void (*change)(struct nb_msg_setup *su);
	const char *why;      /* NULL: within the limits */
};

static void nine_streams(struct nb_msg_setup *su) { su->params.streams = 9; }
static void bidir_five(struct nb_msg_setup *su) { su->params.streams = 5; su->params.direction = NB_DIR_BIDIR; }
static void long_run(struct nb_msg_setup *su) { su->duration_ns = 59000000000ull; su->warmup_ns = 2000000000ull; }
static void big_message(struct nb_msg_setup *su) { su->params.size = 65537; }
static void fast(struct nb_msg_setup *su) { su->params.rate = 600000000ull; su->params.streams = 2; }
static void unpaced_udp(struct nb_msg_setup *su) { su->params.proto = NB_PROTO_UDP; }
static void unpaced_tcp(struct nb_msg_setup *su) { (void)su; }
static void eight_streams(struct nb_msg_setup *su) { su->params.streams = 8; su->params.rate = 100000000ull; }

static const struct limit_case cases[] = {
	{ "9 flows", nine_streams, "limit: 9 flows, above this agent's --max-streams 8" },
	{ "bidir counts both ways", bidir_five, "limit: 10 flows, above this agent's --max-streams 8" },
	{ "warm-up counts", long_run, "limit: the test lasts 61.0 s, above this agent's --max-duration 60 s" },
	{ "a message one byte too big", big_message, "limit: 65537-byte messages, above this agent's "
						   "--max-message 65536 bytes" },
	{ "1.2 G over two flows", fast, "limit: the test offers 1200000000 bit/s over its flows, above "
					"this agent's --max-rate 1000000000 bit/s" },
	{ "unpaced UDP", unpaced_udp, "limit: an unpaced UDP test has no rate bound, and this agent "
				      "allows at most 1000000000 bit/s (--max-rate): give the test a rate" },
	{ "unpaced TCP: nothing but the path bounds it", unpaced_tcp, "limit: an unpaced TCP test has "
		"no rate bound, and this agent allows at most 1000000000 bit/s (--max-rate): give "
		"the test a rate" },
	{ "8 x 100M: at the limits", eight_streams, NULL },
};

Test(limits, each_limit_refuses_naming_its_option)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_msg_setup su = setup("stream", NB_PROTO_TCP);
		cases[i].change(&su);
		char why[512] = "";
		bool ok = check(&su, why, sizeof(why));
		cr_assert_eq(ok, cases[i].why == NULL, "%s: %s", cases[i].what, why);
		if (cases[i].why)
			cr_assert_str_eq(why, cases[i].why, "%s", cases[i].what);
	}
}

Test(limits, packet_rates_count_in_bits_and_closed_loops_pass)
{
	struct nb_msg_setup su = setup("pps", NB_PROTO_UDP);
	su.params.size = 64;
	su.params.rate = 1000000; /* 1 Mpps x 64 B x 8 = 512 Mbit/s per flow */
	su.params.streams = 2;
	char why[512] = "";
	cr_assert_not(check(&su, why, sizeof(why)));
	cr_assert_not_null(strstr(why, "1024000000 bit/s"), "%s", why);
	su = setup("rr", NB_PROTO_UDP);
	su.params.request = 32;
	su.params.response = 128;
	cr_assert(check(&su, why, sizeof(why)), "rr is closed loop: %s", why);
	su = setup("latency", NB_PROTO_UDP);
	cr_assert(check(&su, why, sizeof(why)), "latency ping-pong is closed loop: %s", why);
}

Test(limits, zero_limits_are_no_limits)
{
	const struct nb_limits none = { 0 };
	struct nb_msg_setup su = setup("stream", NB_PROTO_UDP);
	su.params.streams = 128;
	su.params.size = 1u << 30;
	su.duration_ns = 86400ull * 1000000000ull;
	char why[512] = "";
	cr_assert(nb_limits_check(&none, nb_engine_find("stream"), &su, why, sizeof(why)), "%s", why);
}

static struct sockaddr_storage addr(const char *text)
{
	struct sockaddr_storage ss = { 0 };
	if (strchr(text, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		cr_assert_eq(inet_pton(AF_INET6, text, &a->sin6_addr), 1);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		cr_assert_eq(inet_pton(AF_INET, text, &a->sin_addr), 1);
	}
	return ss;
}

Test(cidr, ranges_match_their_addresses_only)
{
	struct nb_cidr list[3];
	struct nb_error err = { { 0 } };
	cr_assert(nb_cidr_parse("10.1.0.0/16", &list[0], &err), "%s", err.msg);
	cr_assert(nb_cidr_parse("192.0.2.7", &list[1], &err), "%s", err.msg);
	cr_assert(nb_cidr_parse("2001:db8::/33", &list[2], &err), "%s", err.msg);
	const struct { const char *a; bool in; } probes[] = {
		{ "10.1.255.3", true }, { "10.2.0.1", false }, { "192.0.2.7", true }, { "192.0.2.8", false },
		{ "::ffff:10.1.2.3", true }, { "2001:db8:7fff::1", true }, { "2001:db8:8000::1", false },
		{ "::1", false },
	};
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		struct sockaddr_storage ss = addr(probes[i].a);
		cr_assert_eq(nb_cidr_match(list, 3, &ss), probes[i].in, "%s", probes[i].a);
	}
	char text[64];
	nb_cidr_str(&list[2], text, sizeof(text));
	cr_assert_str_eq(text, "2001:db8::/33");
}

Test(cidr, a_bad_range_says_what_is_wrong)
{
	struct nb_cidr c = { .prefix = 99 };
	struct nb_error err = { { 0 } };
	cr_assert_not(nb_cidr_parse("10.0.0.0/33", &c, &err));
	cr_assert_str_eq(err.msg, "--allow '10.0.0.0/33': prefix length must be 0..32");
	cr_assert_not(nb_cidr_parse("example.com/8", &c, &err));
	cr_assert_str_eq(err.msg, "--allow 'example.com/8': 'example.com' is no IP address");
	cr_assert_not(nb_cidr_parse("/8", &c, &err));
	cr_assert_eq(c.prefix, 99, "a failed parse leaves its output alone");
}

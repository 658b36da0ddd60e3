/* The case parameters' own answers: one spelling per enum value, parsed back to the same
 * value, and the flow layout of each direction. */
#include <criterion/criterion.h>
#include <string.h>

#include "params.h"

Test(params, every_name_parses_back_to_its_value)
{
	static const struct { enum nb_proto v; const char *name; } protos[] = {
		{ NB_PROTO_TCP, "tcp" }, { NB_PROTO_UDP, "udp" }, { NB_PROTO_ICMP, "icmp" },
	};
	static const struct { enum nb_dir v; const char *name; } dirs[] = {
		{ NB_DIR_FORWARD, "forward" }, { NB_DIR_REVERSE, "reverse" }, { NB_DIR_BIDIR, "bidir" },
	};
	static const struct { enum nb_wait v; const char *name; } waits[] = {
		{ NB_WAIT_BLOCK, "block" }, { NB_WAIT_SPIN, "spin" }, { NB_WAIT_BUSY_POLL, "busy-poll" },
	};
	for (size_t i = 0; i < NB_PROTO_N; i++) {
		enum nb_proto p = NB_PROTO_TCP;
		cr_expect_str_eq(nb_proto_name(protos[i].v), protos[i].name);
		cr_expect_str_eq(nb_proto_names[protos[i].v], protos[i].name);
		cr_expect(nb_proto_parse(protos[i].name, &p) && p == protos[i].v, "%s", protos[i].name);
	}
	for (size_t i = 0; i < NB_DIR_N; i++) {
		enum nb_dir d = NB_DIR_FORWARD;
		cr_expect_str_eq(nb_dir_name(dirs[i].v), dirs[i].name);
		cr_expect_str_eq(nb_dir_names[dirs[i].v], dirs[i].name);
		cr_expect(nb_dir_parse(dirs[i].name, &d) && d == dirs[i].v, "%s", dirs[i].name);
	}
	for (size_t i = 0; i < NB_WAIT_N; i++) {
		enum nb_wait w = NB_WAIT_BLOCK;
		cr_expect_str_eq(nb_wait_name(waits[i].v), waits[i].name);
		cr_expect_str_eq(nb_wait_names[waits[i].v], waits[i].name);
		cr_expect(nb_wait_parse(waits[i].name, &w) && w == waits[i].v, "%s", waits[i].name);
	}
}

/* A sentinel proves a refused name leaves the output alone. */
Test(params, an_unknown_name_is_refused_and_leaves_the_output_alone)
{
	static const char *const bad[] = { "", "TCP", "udp ", "sctp", "busy_poll", "Forward", NULL };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		enum nb_proto p = (enum nb_proto)77;
		enum nb_dir d = (enum nb_dir)77;
		enum nb_wait w = (enum nb_wait)77;
		cr_expect_not(nb_proto_parse(bad[i], &p), "%s", bad[i] ? bad[i] : "NULL");
		cr_expect_not(nb_dir_parse(bad[i], &d), "%s", bad[i] ? bad[i] : "NULL");
		cr_expect_not(nb_wait_parse(bad[i], &w), "%s", bad[i] ? bad[i] : "NULL");
		cr_expect(p == 77 && d == 77 && w == 77, "%s changed the output", bad[i] ? bad[i] : "NULL");
	}
}

Test(params, a_value_out_of_range_is_named_as_unknown)
{
	cr_expect_str_eq(nb_proto_name((enum nb_proto)NB_PROTO_N), "?");
	cr_expect_str_eq(nb_dir_name((enum nb_dir)NB_DIR_N), "?");
	cr_expect_str_eq(nb_wait_name((enum nb_wait)-1), "?");
}

/* Directional engines (one sender per flow) double their flows in bidir: the client sends on
 * the first half; request/response engines ignore the direction and the client always sends. */
Test(params, the_flow_layout_follows_engine_and_direction)
{
	static const struct {
		const char *engine;
		enum nb_dir dir;
		uint32_t streams, nflows;
		const char *client_sends; /* one char per flow: 'c' client sends, 's' server sends */
	} cases[] = {
		{ "stream", NB_DIR_FORWARD, 2, 2, "cc" },
		{ "stream", NB_DIR_REVERSE, 2, 2, "ss" },
		{ "stream", NB_DIR_BIDIR, 3, 6, "cccsss" },
		{ "pps", NB_DIR_BIDIR, 1, 2, "cs" },
		{ "pps", NB_DIR_REVERSE, 1, 1, "s" },
		{ "rr", NB_DIR_BIDIR, 3, 3, "ccc" },
		{ "crr", NB_DIR_REVERSE, 2, 2, "cc" },
		{ "latency", NB_DIR_REVERSE, 1, 1, "c" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_params p = { .direction = cases[i].dir, .streams = cases[i].streams };
		strcpy(p.engine, cases[i].engine);
		cr_expect_eq(nb_params_nflows(&p), cases[i].nflows, "%s %s", cases[i].engine,
			     nb_dir_name(cases[i].dir));
		for (uint32_t f = 0; f < cases[i].nflows; f++)
			cr_expect_eq(nb_params_client_sends(&p, f), cases[i].client_sends[f] == 'c',
				     "%s %s flow %u", cases[i].engine, nb_dir_name(cases[i].dir), f);
	}
}

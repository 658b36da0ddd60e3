/* The parameter rows (engines/param_defs.c): each is well formed and names a key, a field and a
 * plan.csv column of its own; the defaults, the plan.csv spelling and its empty-cell rules are
 * the ones the config, the wire and plan.csv always had. */
#include <criterion/criterion.h>
#include <string.h>

#include "engines.h"
#include "param_defs.h"
#include "params.h"

/* The plan.csv columns that are not parameter rows (reports/files/plan_csv.c). */
static const char *const fixed_columns[] = {
	"case_id", "test", "engine", "protocol", "size", "request", "response", "streams",
	"direction", "rate", "duration_s", "warmup_s", "omit_s", "interval_s", "repetitions",
	"sweep", "paths",
};

static bool is_fixed_column(const char *name)
{
	for (size_t i = 0; i < sizeof(fixed_columns) / sizeof(fixed_columns[0]); i++)
		if (strcmp(fixed_columns[i], name) == 0)
			return true;
	return false;
}

Test(param_defs, every_row_is_well_formed_documented_and_its_own)
{
	size_t n = 0;
	for (const struct nb_param_def *d = nb_param_defs; d->key; d++, n++) {
		struct nb_error err = { { 0 } };
		cr_expect(nb_param_def_check(d, false, &err), "%s", err.msg);
		cr_expect_not_null(d->doc, "%s: what it sets", d->key);
		cr_expect(d->doc_value || d->kind == NB_PK_ENUM || d->kind == NB_PK_UINT,
			  "%s: the values it takes", d->key);
		cr_expect(!d->column || !is_fixed_column(d->column), "%s", d->key);
		cr_expect_eq(nb_param_find(d->key), d, "%s: its key is its own", d->key);
		for (const struct nb_param_def *e = nb_param_defs; e < d; e++) {
			cr_expect(e->offset + e->size <= d->offset || d->offset + d->size <= e->offset,
				  "%s and %s share a field", e->key, d->key);
			cr_expect(!d->column || !e->column || strcmp(d->column, e->column) != 0,
				  "%s and %s share a column", e->key, d->key);
		}
	}
	cr_expect_leq(n, NB_PARAM_ROWS_MAX);
}

/* What config.c set by hand before the rows: tos left alone, 1 s timeout, block, gso as the
 * engine's traits say; a 250 us burst (the pacer's default); every other row zero. */
Test(param_defs, defaults_are_the_ones_a_test_always_started_with)
{
	struct nb_params p;
	memset(&p, 0x5a, sizeof(p));
	nb_params_defaults(&p, &nb_engine_stream);
	cr_expect_eq(p.tos, -1);
	cr_expect_eq(p.timeout_ms, 1000);
	cr_expect_eq(p.wait, NB_WAIT_BLOCK);
	cr_expect(p.gso, "stream: UDP_SEGMENT where offered");
	cr_expect_eq(p.burst_us, 250);
	cr_expect(p.window == 0 && p.mss == 0 && !p.nodelay && p.batch == 0 && p.port == 0);
	cr_expect(p.congestion[0] == '\0' && p.ncpus == 0 && p.cpus[0] == 0);
	nb_params_defaults(&p, &nb_engine_pps);
	cr_expect_not(p.gso, "pps: only when asked");
	cr_expect_eq(p.burst_us, 250);
}

/* Each kind's plan.csv spelling, and the rules that leave a cell empty. */
Test(param_defs, plan_cells_are_spelled_and_left_empty_as_plan_csv_always_had_them)
{
	struct nb_params p = { .proto = NB_PROTO_UDP, .window = 4194304, .nodelay = true,
			       .tos = -1, .wait = NB_WAIT_BUSY_POLL, .gso = false, .batch = 64,
			       .timeout_ms = 200, .ncpus = 3, .cpus = { 0, 2, 17 }, .burst_us = 1500 };
	static const struct { const char *key, *cell; } spelled[] = {
		{ "window", "4194304" }, { "nodelay", "on" }, { "tos", "" }, { "wait", "busy-poll" },
		{ "gso", "off" }, { "batch", "64" }, { "timeout", "200" }, { "cpus", "0,2,17" },
		{ "congestion", "" }, { "burst", "1500" },
	};
	char buf[64];
	for (size_t i = 0; i < sizeof(spelled) / sizeof(spelled[0]); i++)
		cr_expect_str_eq(nb_param_format(nb_param_find(spelled[i].key), &p, buf, sizeof(buf)),
				 spelled[i].cell, "%s", spelled[i].key);
	p.tos = 136;
	cr_expect_str_eq(nb_param_format(nb_param_find("tos"), &p, buf, sizeof(buf)), "136");
	static const struct {
		const char *key;
		const struct nb_engine *e;
		enum nb_proto proto;
		bool cell;
	} rules[] = {
		{ "mss", &nb_engine_stream, NB_PROTO_UDP, false }, /* TCP only */
		{ "mss", &nb_engine_stream, NB_PROTO_TCP, true },
		{ "gso", &nb_engine_stream, NB_PROTO_TCP, false }, /* UDP only */
		{ "gso", &nb_engine_pps, NB_PROTO_UDP, true },
		{ "batch", &nb_engine_stream, NB_PROTO_UDP, false }, /* pps lists it, stream not */
		{ "wait", &nb_engine_rr, NB_PROTO_TCP, true },
		{ "timeout", &nb_engine_crr, NB_PROTO_TCP, false },
		{ "port", &nb_engine_connect, NB_PROTO_TCP, false }, /* no column */
		{ "window", &nb_engine_icmp, NB_PROTO_ICMP, true },
		{ "burst", &nb_engine_stream, NB_PROTO_UDP, true },  /* the engines that pace UDP */
		{ "burst", &nb_engine_stream, NB_PROTO_TCP, false }, /* the kernel paces TCP */
		{ "burst", &nb_engine_pps, NB_PROTO_UDP, true },
		{ "burst", &nb_engine_latency, NB_PROTO_UDP, false },
	};
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		p.proto = rules[i].proto;
		cr_expect_eq(nb_param_in_plan(nb_param_find(rules[i].key), rules[i].e, &p),
			     rules[i].cell, "%s of %s", rules[i].key, rules[i].e->name);
	}
}

/* The decoder's bounds: what a client of any range may send, TOS as value + 1. */
Test(param_defs, wire_bounds_are_the_decoders_of_old)
{
	static const struct { const char *key; uint64_t max; } t[] = {
		{ "window", 1u << 30 }, { "mss", 65535 }, { "nodelay", 1 }, { "tos", 256 },
		{ "wait", NB_WAIT_BUSY_POLL }, { "gso", 1 }, { "batch", 1024 }, { "timeout", 3600000 },
		{ "burst", 10000 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(nb_param_wire_max(nb_param_find(t[i].key)), t[i].max, "%s", t[i].key);
	cr_expect(nb_param_find("port")->flags & NB_PF_LOCAL, "the port never travels");
}

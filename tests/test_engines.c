/* The engine tables: every registered engine's traits are coherent with each other, with the
 * metric columns and with the config language, and say what each engine is. Everything outside
 * engines/ trusts these fields instead of an engine's name, so a new engine is checked here
 * the moment it is registered. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "cols.h"
#include "config.h"
#include "engine.h"
#include "engines.h"
#include "params.h"
#include "pps_xdp.h"

static const enum nb_proto protos[] = { NB_PROTO_TCP, NB_PROTO_UDP };

static size_t nengines(void)
{
	size_t n = 0;
	while (nb_engine_list()[n])
		n++;
	return n;
}

Test(engines, the_registry_finds_each_engine_by_its_unique_name)
{
	const struct nb_engine *const *list = nb_engine_list();
	cr_assert_eq(nengines(), 7);
	for (size_t i = 0; list[i]; i++) {
		cr_assert_eq(nb_engine_find(list[i]->name), list[i], "%s", list[i]->name);
		cr_assert_lt(strlen(list[i]->name), sizeof(((struct nb_params *)0)->engine));
		cr_assert(list[i]->summary && *list[i]->summary, "%s", list[i]->name);
		cr_assert(list[i]->validate && list[i]->client_flow && list[i]->report, "%s", list[i]->name);
		/* an agent side exactly when the flows do not reach their target by themselves */
		cr_assert_eq(!list[i]->server_flow, nb_engine_agentless(list[i]), "%s", list[i]->name);
	}
	cr_assert_null(nb_engine_find("tcp_stream"));
}

Test(engines, the_headline_is_a_metric_column_whose_better_direction_agrees)
{
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++) {
		const struct nb_headline *h = &(*e)->traits.headline;
		int col = nb_col_find(h->column);
		cr_assert_geq(col, 0, "%s: headline '%s' is no metric column", (*e)->name, h->column);
		cr_assert_eq(nb_cols[col].better, h->higher_is_better ? NB_BETTER_HIGHER : NB_BETTER_LOWER,
			     "%s: %s", (*e)->name, h->column);
		cr_assert_str_eq(h->unit, nb_cols[col].unit, "%s", (*e)->name);
	}
}

Test(engines, directional_engines_and_only_they_take_a_direction)
{
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++)
		cr_assert_eq((*e)->traits.directional, nb_engine_has_key(*e, "direction"), "%s",
			     (*e)->name);
}

Test(engines, each_protocol_run_has_a_default_size_at_least_its_minimum)
{
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++) {
		const struct nb_engine_traits *t = &(*e)->traits;
		bool sized = nb_engine_has_key(*e, "size");
		for (size_t i = 0; i < 2; i++) {
			enum nb_proto p = protos[i];
			if (!nb_engine_runs_over(*e, p) || !sized) {
				cr_assert_eq(t->default_size[p], 0, "%s proto %d", (*e)->name, p);
				cr_assert_eq(t->min_size[p], 0, "%s proto %d", (*e)->name, p);
				continue;
			}
			cr_assert_geq(t->min_size[p], 1, "%s proto %d", (*e)->name, p);
			cr_assert_geq(t->default_size[p], t->min_size[p], "%s proto %d", (*e)->name, p);
			if (p == NB_PROTO_UDP)
				cr_assert_leq(t->default_size[p], NB_UDP_MAX_PAYLOAD, "%s", (*e)->name);
		}
	}
}

Test(engines, request_and_response_come_together_with_their_keys)
{
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++) {
		const struct nb_engine_traits *t = &(*e)->traits;
		bool rr = nb_engine_request_response(*e);
		cr_assert_eq(rr, t->default_response > 0, "%s", (*e)->name);
		cr_assert_eq(rr, nb_engine_has_key(*e, "request"), "%s", (*e)->name);
		cr_assert_eq(rr, nb_engine_has_key(*e, "response"), "%s", (*e)->name);
		/* size or request/response, or neither (connect sends no payload) */
		cr_assert_not(rr && nb_engine_has_key(*e, "size"), "%s: size or request/response",
			      (*e)->name);
	}
}

Test(engines, a_rate_unit_exactly_when_the_engine_takes_a_rate)
{
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++) {
		const struct nb_engine_traits *t = &(*e)->traits;
		bool rated = t->rate != NB_RATE_KIND_NONE;
		cr_assert_eq(t->rate_unit != NULL, rated, "%s", (*e)->name);
		cr_assert_eq(nb_engine_has_key(*e, "rate"), rated, "%s", (*e)->name);
		if (nb_engine_has_key(*e, "sweep"))
			cr_assert(rated, "%s sweeps a rate it does not take", (*e)->name);
		cr_assert_eq(t->loop == NB_LOOP_CLOSED, !rated, "%s: only a closed loop has no rate",
			     (*e)->name);
	}
}

Test(engines, protocols_default_and_note_agree)
{
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++) {
		const struct nb_engine_traits *t = &(*e)->traits;
		bool one = nb_engine_runs_over(*e, NB_PROTO_TCP) + nb_engine_runs_over(*e, NB_PROTO_UDP) +
				   nb_engine_runs_over(*e, NB_PROTO_ICMP) == 1;
		cr_assert(nb_engine_runs_over(*e, t->default_proto), "%s", (*e)->name);
		cr_assert_eq(t->protocols & ~(1u << NB_PROTO_TCP | 1u << NB_PROTO_UDP | 1u << NB_PROTO_ICMP), 0);
		cr_assert_eq(t->protocols_note != NULL, one, "%s", (*e)->name);
	}
}

Test(engines, every_listed_key_is_an_engine_key_of_the_config_language)
{
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++) {
		cr_assert_not_null((*e)->traits.keys, "%s", (*e)->name);
		for (const char *const *k = (*e)->traits.keys; *k; k++) {
			cr_assert(nb_config_engine_key(*k), "%s lists '%s'", (*e)->name, *k);
			for (const char *const *j = (*e)->traits.keys; j < k; j++)
				cr_assert_str_neq(*j, *k, "%s lists '%s' twice", (*e)->name, *k);
		}
	}
	cr_assert_not(nb_config_engine_key("duration"), "a common key");
	cr_assert_not(nb_config_engine_key("flows"), "an alias");
	cr_assert_not(nb_config_engine_key("sizes"));
}

/* What each engine is: the behaviour the runner and the report had when they still compared
 * engine names, now read from the tables. */
struct expect {
	const struct nb_engine *e;
	bool directional;
	enum nb_loop loop;
	enum nb_rate_kind rate;
	uint32_t size_tcp, size_udp, min_tcp, min_udp, request, response;
	const char *headline;
	const char *keys;       /* its keys, space-separated, in table order */
};

static const struct expect expected[] = {
	{ &nb_engine_stream, true, NB_LOOP_OPEN, NB_RATE_KIND_BITS, 131072, 1400, 1, 28, 0, 0,
	  "rx_bps", "size rate direction gso burst sweep threads bottleneck" },
	{ &nb_engine_pps, true, NB_LOOP_OPEN, NB_RATE_KIND_PACKETS, 0, 64, 0, 28, 0, 0, "rx_pps",
	  "size rate direction gso batch burst sweep datapath wait threads" },
	{ &nb_engine_rr, false, NB_LOOP_CLOSED, NB_RATE_KIND_NONE, 0, 0, 0, 0, 32, 128,
	  "trans_per_s", "request response wait timeout threads" },
	{ &nb_engine_crr, false, NB_LOOP_CLOSED_UNPACED, NB_RATE_KIND_PACKETS, 0, 0, 0, 0, 32, 128,
	  "trans_per_s", "request response wait rate threads" },
	{ &nb_engine_latency, false, NB_LOOP_CLOSED_UNPACED, NB_RATE_KIND_PACKETS, 32, 32, 24, 24, 0,
	  0, "lat_p50_us", "size rate wait timeout threads" },
	{ &nb_engine_icmp, false, NB_LOOP_CLOSED_UNPACED, NB_RATE_KIND_PACKETS, 0, 0, 0, 0, 0, 0,
	  "lat_p50_us", "size rate timeout" },
	{ &nb_engine_connect, false, NB_LOOP_CLOSED_UNPACED, NB_RATE_KIND_PACKETS, 0, 0, 0, 0, 0, 0,
	  "lat_p50_us", "rate timeout port" },
};

Test(engines, only_icmp_and_connect_need_no_agent)
{
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++)
		cr_assert_eq(nb_engine_agentless(*e),
			     *e == &nb_engine_icmp || *e == &nb_engine_connect, "%s", (*e)->name);
	cr_assert_eq(nb_engine_icmp.traits.default_size[NB_PROTO_ICMP], 56, "ping's default");
	cr_assert_eq(nb_engine_icmp.traits.min_size[NB_PROTO_ICMP], 24, "the header");
	cr_assert_not(nb_engine_agentless(NULL));
}

static void keys_str(const struct nb_engine *e, char *buf, size_t len)
{
	buf[0] = '\0';
	for (const char *const *k = e->traits.keys; *k; k++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "", *k);
}

Test(engines, each_engine_is_what_its_table_says)
{
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		const struct expect *x = &expected[i];
		const struct nb_engine_traits *t = &x->e->traits;
		char keys[128];
		keys_str(x->e, keys, sizeof(keys));
		cr_assert_eq(t->directional, x->directional, "%s", x->e->name);
		cr_assert_eq(t->loop, x->loop, "%s", x->e->name);
		cr_assert_eq(t->rate, x->rate, "%s", x->e->name);
		cr_assert_eq(t->default_size[NB_PROTO_TCP], x->size_tcp, "%s", x->e->name);
		cr_assert_eq(t->default_size[NB_PROTO_UDP], x->size_udp, "%s", x->e->name);
		cr_assert_eq(t->min_size[NB_PROTO_TCP], x->min_tcp, "%s", x->e->name);
		cr_assert_eq(t->min_size[NB_PROTO_UDP], x->min_udp, "%s", x->e->name);
		cr_assert_eq(t->default_request, x->request, "%s", x->e->name);
		cr_assert_eq(t->default_response, x->response, "%s", x->e->name);
		cr_assert_str_eq(t->headline.column, x->headline, "%s", x->e->name);
		cr_assert_str_eq(keys, x->keys, "%s", x->e->name);
	}
}

Test(engines, closed_loop_follows_the_loop_and_the_rate)
{
	static const struct {
		const struct nb_engine *e;
		uint64_t rate;
		bool closed;
	} rows[] = {
		{ &nb_engine_rr, 0, true },       { &nb_engine_crr, 0, true },
		{ &nb_engine_latency, 0, true },  { &nb_engine_latency, 1000, false },
		{ &nb_engine_stream, 0, false },  { &nb_engine_pps, 20000, false },
		{ NULL, 0, false },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		cr_assert_eq(nb_engine_closed_loop(rows[i].e, rows[i].rate), rows[i].closed,
			     "row %zu", i);
}

Test(engines, only_a_directional_bidir_case_doubles_its_flows)
{
	static const struct {
		const char *engine;
		enum nb_dir dir;
		uint32_t nflows;
		bool client_sends_last;
	} rows[] = {
		{ "stream", NB_DIR_BIDIR, 6, false }, { "pps", NB_DIR_REVERSE, 3, false },
		{ "stream", NB_DIR_FORWARD, 3, true }, { "rr", NB_DIR_BIDIR, 3, true },
		{ "latency", NB_DIR_REVERSE, 3, true },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct nb_params p = { .direction = rows[i].dir, .streams = 3 };
		snprintf(p.engine, sizeof(p.engine), "%s", rows[i].engine);
		uint32_t n = nb_params_nflows(&p);
		cr_assert_eq(n, rows[i].nflows, "row %zu", i);
		cr_assert_eq(nb_params_client_sends(&p, n - 1), rows[i].client_sends_last, "row %zu", i);
	}
}

Test(engines, no_engine_has_no_traits)
{
	cr_assert_not(nb_engine_runs_over(NULL, NB_PROTO_TCP));
	cr_assert_not(nb_engine_has_key(NULL, "size"));
	cr_assert_not(nb_engine_request_response(NULL));
}

/* pps' xdp datapath builds every frame itself (no gso); it runs bidir as the socket path. */
Test(engines, pps_on_the_xdp_datapath_refuses_gso_and_runs_bidir)
{
	struct nb_params p = { .proto = NB_PROTO_UDP, .size = 64, .streams = 1,
			       .datapath = NB_PKT_XDP };
	struct nb_error err = { { 0 } };
	if (!nb_pps_xdp_built()) { /* a build without it says so, whatever the case */
		cr_assert_not(nb_engine_pps.validate(&p, &err));
		cr_expect_not_null(strstr(err.msg, "built without the AF_XDP data path"), "%s", err.msg);
		return;
	}
	p.direction = NB_DIR_BIDIR;
	cr_expect(nb_engine_pps.validate(&p, &err), "bidir: %s", err.msg);
	p.direction = NB_DIR_REVERSE;
	p.gso = true;
	cr_assert_not(nb_engine_pps.validate(&p, &err));
	cr_expect_not_null(strstr(err.msg, "gso"), "%s", err.msg);
	p.gso = false;
	cr_expect(nb_engine_pps.validate(&p, &err), "%s", err.msg);
	p.datapath = NB_PKT_SOCKET;
	p.direction = NB_DIR_BIDIR;
	cr_expect(nb_engine_pps.validate(&p, &err), "the socket datapath runs bidir: %s", err.msg);
}

/* An engine of the tests' own (engine_idle.c), registered with one call, and its parameter of
 * its own (`tick`): the config takes it in a idle test only and says where a bad one is, the
 * wire carries it after the common parameters, plan.csv has its column only when the plan has a
 * idle case, and the reader gives it back — none of them edited for it. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_util.h"
#include "engine_idle.h"
#include "outdir.h"
#include "param_defs.h"
#include "plan.h"
#include "proto.h"
#include "results.h"

static void register_null(void)
{
	struct nb_error err = { { 0 } };
	cr_assert(nb_engine_register(&nbt_engine_idle, &err), "%s", err.msg);
}

TestSuite(engine_idle, .init = register_null);

static struct nb_config load_ok(const char *yaml, const char *const *sets, size_t nsets)
{
	struct nb_config cfg;
	struct nb_error err = { { 0 } };
	cr_assert(load_sets(yaml, sets, nsets, &cfg, &err), "%s", err.msg);
	return cfg;
}

Test(engine_idle, the_registry_takes_it_once_and_finds_it_by_name)
{
	struct nb_error err = { { 0 } };
	cr_assert_eq(nb_engine_find("idle"), &nbt_engine_idle);
	cr_assert_not(nb_engine_register(&nbt_engine_idle, &err));
	cr_assert_str_eq(err.msg, "engine idle: the name is taken");
	cr_assert(nb_engine_has_key(&nbt_engine_idle, "tick"), "its own row is its key");
}

/* An own row that would shadow a common key, or lie outside params.own, is refused by name. */
Test(engine_idle, the_registry_refuses_an_own_row_it_cannot_take)
{
	static const struct nb_param_def shadow[] = {
		{ .key = "window", .kind = NB_PK_UINT, .offset = offsetof(struct nb_params, own),
		  .size = 4, .max = 9, .wire = 4 },
		{ .key = NULL },
	}, outside[] = {
		{ .key = "far", .kind = NB_PK_UINT, .offset = offsetof(struct nb_params, own) +
		  NB_PARAMS_OWN_MAX - 2, .size = 4, .max = 9, .wire = 4 },
		{ .key = NULL },
	}, narrow[] = {
		{ .key = "wide", .kind = NB_PK_UINT, .offset = offsetof(struct nb_params, own),
		  .size = 4, .max = 70000, .wire = 2 },
		{ .key = NULL },
	};
	static const struct { const struct nb_param_def *rows; const char *msg; } t[] = {
		{ shadow, "engine x: its parameter window is a common one" },
		{ outside, "parameter far: its field lies outside params.own" },
		{ narrow, "parameter wide: 2 wire bytes do not hold 70000" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct nb_engine x = nbt_engine_idle;
		x.name = "x";
		x.params = t[i].rows;
		struct nb_error err = { { 0 } };
		cr_expect_not(nb_engine_register(&x, &err), "%s", t[i].msg);
		cr_expect_str_eq(err.msg, t[i].msg);
	}
	cr_expect_null(nb_engine_find("x"));
}

Test(engine_idle, its_tick_parses_from_the_test_defaults_and_set_with_its_default)
{
	struct nb_config cfg = load_ok("tests:\n  - name: a\n    engine: idle\n    tick: 250ms\n"
				       "  - name: b\n    engine: idle\n", NULL, 0);
	cr_assert_eq(cfg.ntests, 2);
	cr_expect_eq(nbt_idle_tick_ms(&cfg.tests[0].base), 250);
	cr_expect_eq(nbt_idle_tick_ms(&cfg.tests[1].base), 100, "the row's default");
	nb_config_free(&cfg);
	const char *set[] = { "tick=2s" };
	cfg = load_ok("defaults:\n  tick: 5ms\ntests:\n  - name: a\n    engine: idle\n"
		      "  - name: b\n    engine: stream\n", NULL, 0);
	cr_expect_eq(nbt_idle_tick_ms(&cfg.tests[0].base), 5);
	nb_config_free(&cfg);
	cfg = load_ok("tests:\n  - name: a\n    engine: idle\n    tick: 5ms\n", set, 1);
	cr_expect_eq(nbt_idle_tick_ms(&cfg.tests[0].base), 2000, "--set wins");
	nb_config_free(&cfg);
}

/* Its errors are the ones of its kind (a duration in ms) in its own words, each located. */
Test(engine_idle, a_bad_tick_says_what_and_where)
{
	static const struct { const char *yaml, *where, *msg; } t[] = {
		{ "    tick: soon\n", "4:11", "bad duration 'soon': not a number (expected a duration "
					   "such as 500ms, 10s or 2m)" },
		{ "    tick: 20s\n", "4:11", "tick '20s' is out of range (expected 1ms to 10s)" },
		{ "    tick: [1ms]\n", "4:11", "expected a duration such as 500ms, 10s or 2m, got a "
					    "list" },
		{ "    tik: 1ms\n", "4:5", "unknown key 'tik' (did you mean 'tick'?)" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char yaml[256];
		snprintf(yaml, sizeof(yaml), "tests:\n  - name: a\n    engine: idle\n%s", t[i].yaml);
		assert_err(fail_sets(yaml, NULL, 0), t[i].where, t[i].msg);
	}
	assert_err(fail_sets("defaults:\n  tick: 0ms\ntests:\n  - name: a\n    engine: stream\n",
			     NULL, 0), "2:9", "tick '0ms' is out of range (expected 1ms to 10s)");
}

Test(engine_idle, its_key_means_nothing_to_another_engine)
{
	assert_err(fail_sets("tests:\n  - name: a\n    engine: stream\n    tick: 1ms\n", NULL, 0),
		   "4:5", "'tick' does not apply to engine stream (expected with idle)");
	struct nb_config cfg = load_ok("defaults:\n  tick: 1ms\ntests:\n  - name: a\n"
				       "    engine: stream\n", NULL, 0);
	cr_expect_eq(nbt_idle_tick_ms(&cfg.tests[0].base), 0, "a stream test leaves it alone");
	nb_config_free(&cfg);
	cr_expect(nb_config_engine_key("tick"), "an engine's key, not a common one");
}

static struct nb_msg idle_setup(uint32_t tick_ms)
{
	struct nb_msg m = { .type = NB_MSG_SETUP };
	struct nb_msg_setup *s = &m.u.setup;
	*s = (struct nb_msg_setup){ .run_id = 1, .duration_ns = 1000000000ull,
				    .interval_ns = 1000000000ull };
	snprintf(s->case_id, sizeof(s->case_id), "n");
	snprintf(s->params.engine, sizeof(s->params.engine), "idle");
	s->params.streams = 1;
	s->params.tos = -1;
	nb_param_set(&nbt_engine_idle.params[0], &s->params, tick_ms); /* its row: tick */
	return m;
}

static struct nb_buf encode(const struct nb_msg *m)
{
	struct nb_buf b = { 0 };
	struct nb_error err = { { 0 } };
	cr_assert(nb_msg_encode(m, &b, &err), "%s", err.msg);
	return b;
}

/* After the common rows (cpus: a count 0, then the burst and the threads) come its own: tick as
 * four bytes. */
Test(engine_idle, its_tick_crosses_the_wire_after_the_common_parameters)
{
	struct nb_msg m = idle_setup(250), out, stream = idle_setup(250);
	snprintf(stream.u.setup.params.engine, sizeof(stream.u.setup.params.engine), "stream");
	struct nb_buf b = encode(&m), s = encode(&stream);
	cr_assert_eq(b.len, s.len - 2, "4 bytes of tick against stream's 4 of self; \"idle\" is 2 "
		     "shorter than \"stream\"");
	/* length, type, run id, "n", "idle", protocol, direction, size, request, response, streams,
	 * rate, window, mss, nodelay, "" (congestion), tos, wait, gso, batch, timeout, cpu count,
	 * burst, datapath, threads */
	size_t at = 4 + 2 + 4 + 3 + 6 + 1 + 1 + 4 + 4 + 4 + 4 + 8 + 4 + 4 + 1 + 2 + 4 + 1 + 1 + 4 +
		    4 + 4 + 4 + 1 + 4;
	static const uint8_t tick[4] = { 0, 0, 0, 250 };
	cr_expect_eq(memcmp(b.p + at, tick, 4), 0,
		     "tick right after the CPUs, the burst, the datapath and the threads");
	struct nb_error err = { { 0 } };
	cr_assert(nb_msg_decode(b.p + 4, b.len - 4, &out, &err), "%s", err.msg);
	cr_expect_eq(nbt_idle_tick_ms(&out.u.setup.params), 250);
	b.p[at + 1] = 0xff; /* beyond 10 s: the decoder refuses it by the row's range */
	cr_assert_not(nb_msg_decode(b.p + 4, b.len - 4, &out, &err));
	cr_expect_not_null(strstr(err.msg, "bad frame: tick"), "%s", err.msg);
	nb_buf_free(&b);
	nb_buf_free(&s);
}

static char *plan_csv_of(const char *yaml, char *dir, size_t len)
{
	struct nb_config cfg = load_ok(yaml, NULL, 0);
	struct nb_plan plan;
	struct nb_error err = { { 0 } };
	cr_assert(nb_plan_build(&cfg, NULL, 0, &plan, &err), "%s", err.msg);
	cr_assert(nbt_tmpdir("idleplan", dir, len));
	cr_assert(nb_outdir_write(dir, &cfg, &plan, &err), "%s", err.msg);
	nb_plan_free(&plan);
	nb_config_free(&cfg);
	char file[128];
	snprintf(file, sizeof(file), "%s/" NB_PLAN_CSV_FILE, dir);
	char *text = nbt_slurp(file, NULL);
	cr_assert_not_null(text);
	return text;
}

Test(engine_idle, plan_csv_has_its_column_only_with_an_idle_case_and_reads_it_back)
{
	char dir[64];
	char *text = plan_csv_of("tests:\n  - name: s\n    engine: stream\n", dir, sizeof(dir));
	cr_expect_str_eq(text, "case_id,test,engine,protocol,size,request,response,streams,direction,"
			 "rate,wait,duration_s,warmup_s,omit_s,interval_s,repetitions,sweep,window,mss,"
			 "nodelay,congestion,tos,gso,batch,timeout_ms,cpus,burst_us,datapath,bottleneck_bps,paths,self\n"
			 "s/tcp/s128K/p1/forward,s,stream,tcp,131072,,,1,forward,0,,10,1,0,1,1,,0,0,off,"
			 ",,,,,,,,0,,0\n"); /* bottleneck_bps, paths, then the stream's own self */
	nbt_rmtree(dir);
	free(text);
	text = plan_csv_of("tests:\n  - name: s\n    engine: stream\n"
			   "  - name: n\n    engine: idle\n    tick: 250ms\n", dir, sizeof(dir));
	cr_expect_str_eq(text, "case_id,test,engine,protocol,size,request,response,streams,direction,"
			 "rate,wait,duration_s,warmup_s,omit_s,interval_s,repetitions,sweep,window,mss,"
			 "nodelay,congestion,tos,gso,batch,timeout_ms,cpus,burst_us,datapath,bottleneck_bps,paths,self,tick_ms\n"
			 "s/tcp/s128K/p1/forward,s,stream,tcp,131072,,,1,forward,0,,10,1,0,1,1,,0,0,off,"
			 ",,,,,,,,0,,0,\n" /* the stream row leaves tick_ms empty */
			 "n/tcp/s0/f1/pp,n,idle,tcp,0,,,1,,0,,10,1,0,1,1,,0,0,off,,,,,,,,,,,,250\n");
	free(text);
	struct nb_results res;
	struct nb_error err = { { 0 } };
	cr_assert(nb_results_load(dir, &res, &err), "%s", err.msg);
	nbt_rmtree(dir);
	cr_assert_eq(res.ncases, 2);
	cr_expect_str_eq(nb_plan_case_param(&res.cases[1], "tick"), "250");
	cr_expect_str_eq(res.cases[1].own[0], "250");
	cr_expect_str_eq(nb_plan_case_param(&res.cases[0], "tick"), "", "a stream case has none");
	nb_results_free(&res);
}

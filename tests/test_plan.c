/* Matrix expansion: counts, stable ids, order modes, filters, estimates, the table and plan.csv. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture_util.h"
#include "outdir.h"
#include "plan.h"
#include "results.h"

static struct nb_config cfg;
static struct nb_plan plan;

static void load(const char *yaml, const char *const *sets, size_t nsets)
{
	char path[64];
	cr_assert(nbt_tmpfile("plan", ".yaml", yaml, path, sizeof(path)));
	struct nb_error err;
	bool ok = nb_config_load(path, sets, nsets, &cfg, &err);
	unlink(path);
	cr_assert(ok, "%s", err.msg);
}

static void build(const char *yaml, const char *const *filters, size_t nfilters)
{
	struct nb_error err;
	load(yaml, NULL, 0);
	cr_assert(nb_plan_build(&cfg, filters, nfilters, &plan, &err), "%s", err.msg);
}

static void teardown(void)
{
	nb_plan_free(&plan);
	nb_config_free(&cfg);
}

TestSuite(plan, .fini = teardown);

static const char *matrix =
	"defaults:\n  repetitions: 2\n"
	"tests:\n"
	"  - name: tcp-throughput\n    engine: stream\n    size: [1440, 128K]\n"
	"    streams: [1, 4, 8]\n    direction: [forward, reverse, bidir]\n"
	"  - name: udp-rate\n    engine: stream\n    protocol: udp\n    size: 1400\n"
	"    rate: [100M, 2.5G]\n"
	"  - name: tcp-rr\n    engine: rr\n    flows: [1, 16]\n"
	"  - name: lat\n    engine: latency\n    protocol: udp\n    rate: [0, 10kpps]\n"
	"  - name: pps\n    engine: pps\n    streams: 4\n    rate: 500kpps\n";

static bool has_id(const char *id)
{
	for (size_t i = 0; i < plan.ncases; i++)
		if (strcmp(plan.cases[i].id, id) == 0)
			return true;
	return false;
}

Test(plan, the_matrix_multiplies_out_in_order)
{
	build(matrix, NULL, 0);
	cr_assert_eq(plan.ncases, 18 + 2 + 2 + 2 + 1);
	cr_assert_eq(plan.nslots, 2 * plan.ncases);
	cr_assert_str_eq(plan.cases[0].id, "tcp-throughput/tcp/s1440/p1/forward");
	cr_assert_str_eq(plan.cases[1].id, "tcp-throughput/tcp/s1440/p1/reverse");
	cr_assert_str_eq(plan.cases[17].id, "tcp-throughput/tcp/s128K/p8/bidir");
	for (size_t i = 0; i < plan.ncases; i++)
		cr_assert_eq(plan.cases[i].index, i);
}

Test(plan, ids_are_readable_per_engine)
{
	build(matrix, NULL, 0);
	static const char *const ids[] = {
		"udp-rate/udp/s1400/p1/forward/r100M", "udp-rate/udp/s1400/p1/forward/r2.5G",
		"tcp-rr/tcp/q32r128/f1",               "tcp-rr/tcp/q32r128/f16",
		"lat/udp/s32/f1/pp",                   "lat/udp/s32/f1/r10kpps",
		"pps/udp/s64/p4/forward/r500kpps",
	};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		cr_assert(has_id(ids[i]), "missing %s", ids[i]);
}

Test(plan, cases_carry_resolved_params)
{
	build(matrix, NULL, 0);
	const struct nb_case *c = &plan.cases[19]; /* udp-rate, 2.5G */
	cr_assert_str_eq(c->id, "udp-rate/udp/s1400/p1/forward/r2.5G");
	cr_assert_eq(c->params.rate, 2500000000ull);
	cr_assert_eq(c->params.proto, NB_PROTO_UDP);
	cr_assert_eq(c->params.size, 1400);
	cr_assert_str_eq(c->params.engine, "stream");
	cr_assert_eq(c->test, &cfg.tests[1]);
	cr_assert_eq(c->reps.count, 2);
	const struct nb_case *rr = &plan.cases[21];
	cr_assert_eq(rr->params.request, 32);
	cr_assert_eq(rr->params.response, 128);
	cr_assert_eq(rr->params.streams, 16);
}

Test(plan, adding_a_list_value_never_renames_other_cases)
{
	build("tests:\n  - name: t\n    engine: stream\n    streams: 4\n", NULL, 0);
	char before[160];
	strcpy(before, plan.cases[0].id);
	teardown();
	build("tests:\n  - name: t\n    engine: stream\n    streams: [4, 8]\n    direction: "
	      "[forward, reverse]\n", NULL, 0);
	cr_assert_str_eq(before, "t/tcp/s128K/p4/forward");
	cr_assert_str_eq(plan.cases[0].id, before);
}

Test(plan, default_size_follows_each_protocol)
{
	build("tests:\n  - name: t\n    engine: stream\n    protocol: [tcp, udp]\n"
	      "  - name: p\n    engine: pps\n  - name: l\n    engine: latency\n"
	      "    protocol: [tcp, udp]\n  - name: r\n    engine: rr\n", NULL, 0);
	static const uint32_t sizes[] = { 131072, 1400, 64, 32, 32, 0 };
	cr_assert_eq(plan.ncases, 6);
	for (size_t i = 0; i < 6; i++)
		cr_assert_eq(plan.cases[i].params.size, sizes[i], "case %s", plan.cases[i].id);
	cr_assert_str_eq(plan.cases[1].id, "t/udp/s1400/p1/forward");
	cr_assert_eq(plan.cases[5].params.request, 32);
	cr_assert_eq(plan.cases[5].params.response, 128);
}

Test(plan, each_case_carries_its_tests_engine)
{
	build(matrix, NULL, 0);
	for (size_t i = 0; i < plan.ncases; i++) {
		const struct nb_case *c = &plan.cases[i];
		cr_assert_not_null(c->engine, "%s", c->id);
		cr_assert_eq(c->engine, c->test->engine, "%s", c->id);
		cr_assert_eq(c->engine, nb_engine_find(c->params.engine), "%s", c->id);
	}
}

Test(plan, a_packet_rate_on_a_stream_test_becomes_bits)
{
	build("tests:\n  - name: t\n    engine: stream\n    protocol: udp\n    size: [100, 1000]\n"
	      "    rate: 1kpps\n", NULL, 0);
	cr_assert_eq(plan.cases[0].params.rate, 800000);
	cr_assert_eq(plan.cases[1].params.rate, 8000000);
	cr_assert_str_eq(plan.cases[1].id, "t/udp/s1000/p1/forward/r1kpps");
}

Test(plan, sequential_order_runs_each_case_to_the_end)
{
	build("defaults:\n  repetitions: 3\ntests:\n  - name: t\n    engine: stream\n"
	      "    streams: [1, 2]\n", NULL, 0);
	static const struct nb_slot want[] = { { 0, 0 }, { 0, 1 }, { 0, 2 },
					       { 1, 0 }, { 1, 1 }, { 1, 2 } };
	cr_assert_eq(plan.nslots, 6);
	for (size_t i = 0; i < 6; i++) {
		cr_assert_eq(plan.order[i].case_index, want[i].case_index, "slot %zu", i);
		cr_assert_eq(plan.order[i].rep, want[i].rep, "slot %zu", i);
	}
}

Test(plan, interleaved_order_is_round_robin)
{
	build("defaults:\n  repetitions: 2\n  order: interleaved\ntests:\n  - name: t\n"
	      "    engine: stream\n    streams: [1, 2, 3]\n  - name: u\n    engine: rr\n"
	      "    repetitions: 3\n", NULL, 0);
	static const struct nb_slot want[] = { { 0, 0 }, { 1, 0 }, { 2, 0 }, { 3, 0 }, { 0, 1 },
					       { 1, 1 }, { 2, 1 }, { 3, 1 }, { 3, 2 } };
	cr_assert_eq(plan.nslots, 9);
	for (size_t i = 0; i < 9; i++) {
		cr_assert_eq(plan.order[i].case_index, want[i].case_index, "slot %zu", i);
		cr_assert_eq(plan.order[i].rep, want[i].rep, "slot %zu", i);
	}
}

static const char *random_yaml = "defaults:\n  repetitions: 4\n  order: random\ntests:\n"
				 "  - name: t\n    engine: stream\n    streams: [1, 2, 3, 4, 5]\n";

static void order_of(const char *seed, struct nb_slot *out, size_t *n)
{
	const char *sets[] = { seed };
	struct nb_error err;
	load(random_yaml, sets, 1);
	cr_assert(nb_plan_build(&cfg, NULL, 0, &plan, &err), "%s", err.msg);
	memcpy(out, plan.order, plan.nslots * sizeof(*out));
	*n = plan.nslots;
	teardown();
}

Test(plan, random_order_is_seeded_reproducible_and_complete)
{
	struct nb_slot a[20], b[20], c[20];
	size_t na, nb, nc;
	order_of("seed=7", a, &na);
	order_of("seed=7", b, &nb);
	order_of("seed=8", c, &nc);
	cr_assert_eq(na, 20);
	cr_assert_eq(nb, 20);
	cr_assert_eq(nc, 20);
	cr_assert_eq(memcmp(a, b, sizeof(a)), 0, "same seed, same order");
	cr_assert_neq(memcmp(a, c, sizeof(a)), 0, "another seed, another order");
	uint32_t seen[5] = { 0 };
	bool moved = false;
	for (size_t i = 0; i < 20; i++) {
		cr_assert_eq(a[i].rep, seen[a[i].case_index]++, "reps run in ascending order");
		moved |= a[i].case_index != i % 5;
	}
	for (size_t k = 0; k < 5; k++)
		cr_assert_eq(seen[k], 4, "case %zu runs 4 times", k);
	cr_assert(moved, "random differs from interleaved");
}

Test(plan, auto_repetitions_get_min_slots)
{
	build("tests:\n  - name: t\n    engine: stream\n    repetitions: {auto: true, min: 5}\n",
	      NULL, 0);
	cr_assert_eq(plan.nslots, 5);
	cr_assert_eq(nb_case_slots(&plan.cases[0]), 5);
	cr_assert(plan.cases[0].reps.autorep);
	cr_assert_eq(plan.cases[0].reps.max, 30);
}

Test(plan, filters_keep_matching_ids_and_renumber)
{
	const char *f[] = { "tcp-rr/*", "*/r2.5G" };
	build(matrix, f, 2);
	cr_assert_eq(plan.ncases, 3);
	cr_assert_str_eq(plan.cases[0].id, "udp-rate/udp/s1400/p1/forward/r2.5G");
	cr_assert_str_eq(plan.cases[2].id, "tcp-rr/tcp/q32r128/f16");
	cr_assert_eq(plan.cases[2].index, 2);
	cr_assert_eq(plan.nslots, 6);
}

Test(plan, a_filter_matching_nothing_is_an_error)
{
	const char *f[] = { "nothing*" };
	struct nb_error err;
	load(matrix, NULL, 0);
	memset(&plan, 0x5a, sizeof(plan));
	cr_assert_not(nb_plan_build(&cfg, f, 1, &plan, &err));
	cr_assert(strstr(err.msg, ": no case matches --filter 'nothing*' (expected a glob matching "
			  "some of the 25 case ids"), "%s", err.msg);
	cr_assert_null(plan.cases);
	cr_assert_eq(plan.ncases, 0);
}

Test(plan, duplicate_ids_name_both_tests)
{
	load("tests:\n  - name: a\n    engine: pps\n  - name: b\n    engine: pps\n", NULL, 0);
	strcpy(cfg.tests[1].name, "a"); /* only reachable by building a config by hand */
	struct nb_error err;
	cr_assert_not(nb_plan_build(&cfg, NULL, 0, &plan, &err));
	cr_assert(strstr(err.msg, ":4:5: duplicate case id 'a/udp/s64/p1/forward' (tests 'a' at "
			  "line 2 and 'a' at line 4"), "%s", err.msg);
}

/* A stream's self probes are part of its id: two cases that differ only there are two ids, and
 * the case without them keeps the id it always had. */
Test(plan, self_probes_end_the_case_id)
{
	load("tests:\n  - name: a\n    engine: stream\n  - name: b\n    engine: stream\n"
	     "    self: 10\n", NULL, 0);
	strcpy(cfg.tests[1].name, "a"); /* the same name: only self tells them apart */
	struct nb_error err;
	cr_assert(nb_plan_build(&cfg, NULL, 0, &plan, &err), "%s", err.msg);
	cr_assert_eq(plan.ncases, 2);
	cr_assert_str_eq(plan.cases[0].id, "a/tcp/s128K/p1/forward");
	cr_assert_str_eq(plan.cases[1].id, "a/tcp/s128K/p1/forward/self10");
}

Test(plan, a_matrix_too_large_is_refused)
{
	load("tests:\n  - name: big\n    engine: stream\n    protocol: [tcp, udp]\n"
	     "    size: [100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114,"
	     " 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131]\n"
	     "    streams: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,"
	     " 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32]\n"
	     "    rate: [1M, 2M, 3M, 4M, 5M, 6M, 7M, 8M, 9M, 10M, 11M, 12M, 13M, 14M, 15M, 16M, 17M,"
	     " 18M, 19M, 20M, 21M, 22M, 23M, 24M, 25M, 26M, 27M, 28M, 29M, 30M, 31M, 32M]\n"
	     "    direction: [forward, reverse]\n",
	     NULL, 0);
	struct nb_error err;
	cr_assert_not(nb_plan_build(&cfg, NULL, 0, &plan, &err));
	cr_assert(strstr(err.msg, ":2:5: the matrix grows past 100000 cases at test 'big'"), "%s",
		  err.msg);
}

Test(plan, sweeps_are_one_case_each_and_start_at_from)
{
	build("tests:\n  - name: s\n    engine: stream\n    protocol: udp\n    size: [64, 1400]\n"
	      "    sweep: {rate: {from: 10M, to: 1G, loss: [0%, 0.1%], precision: 1%}, trial: 2s, "
	      "confirm: 2}\n  - name: p\n    engine: pps\n    sweep: {rate: {steps: [1kpps, 2kpps, 4kpps]}}\n",
	      NULL, 0);
	cr_assert_eq(plan.ncases, 3);
	cr_assert_str_eq(plan.cases[0].id, "s/udp/s64/p1/forward/search");
	cr_assert_str_eq(plan.cases[2].id, "p/udp/s64/p1/forward/sweep");
	cr_assert_eq(plan.cases[0].params.rate, 10000000);
	/* probe log2(100) -> 7 + 1, then per threshold 7 bisections + 2 confirmations */
	cr_assert_eq(nb_sweep_trials(&plan.cases[0].sweep), 8 + 2 * (7 + 2));
	cr_assert_eq(nb_sweep_trials(&plan.cases[2].sweep), 3);
	cr_assert_float_eq(nb_case_estimate_s(&plan.cases[0]), 26 * (1 + 2 + 1), 1e-9);
}

/* latency_at: a run of `trial` per fraction above 0 %, and 0 % one `trial` more (the probe alone). */
Test(plan, a_search_estimate_counts_its_latency_at_pdr)
{
	build("tests:\n  - name: s\n    engine: stream\n    protocol: udp\n    size: 1400\n"
	      "    warmup: 1s\n    sweep: {rate: {from: 10M, to: 1G, loss: [0%, 0.1%], precision: 1%}, "
	      "trial: 2s, latency_at: [0%, 50%, 90%]}\n", NULL, 0);
	double trials = nb_sweep_trials(&plan.cases[0].sweep);
	cr_assert_float_eq(nb_case_estimate_s(&plan.cases[0]),
			   (trials + 2) * (1 + 2 + 1) + 2, 1e-9);
}

/* With short_trial the coarse trials are short and only the confirmations take `trial`. */
Test(plan, a_search_estimate_counts_its_short_trials_short)
{
	build("tests:\n  - name: s\n    engine: stream\n    protocol: udp\n    size: 1400\n"
	      "    warmup: 1s\n    sweep: {rate: {from: 10M, to: 1G, loss: 0.1%, precision: 1%}, "
	      "trial: 10s, short_trial: 2s, confirm: 3}\n", NULL, 0);
	/* 8 probes + 7 bisections short, 3 confirmations full; warm-up and 1 s overhead each */
	cr_assert_eq(nb_sweep_trials(&plan.cases[0].sweep), 8 + 7 + 3);
	cr_assert_float_eq(nb_case_estimate_s(&plan.cases[0]), 15 * (1 + 2 + 1) + 3 * (1 + 10 + 1),
			   1e-9);
}

Test(plan, plain_sweep_trial_counts)
{
	struct nb_sweep s = { .enabled = true, .from = 100, .to = 1000, .step = 100 };
	cr_assert_eq(nb_sweep_trials(&s), 10);
	s.step = 300;
	cr_assert_eq(nb_sweep_trials(&s), 4, "100 400 700 1000");
	s.step = 400;
	cr_assert_eq(nb_sweep_trials(&s), 4, "100 500 900, and the end is always tried");
	s.step = 0;
	s.factor = 2;
	cr_assert_eq(nb_sweep_trials(&s), 5, "100 200 400 800 1000");
	s.enabled = false;
	cr_assert_eq(nb_sweep_trials(&s), 1);
}

Test(plan, estimate_is_warmup_plus_duration_plus_overhead_per_run)
{
	build("defaults:\n  duration: 10s\n  warmup: 2s\n  repetitions: 3\ntests:\n  - name: t\n"
	      "    engine: stream\n    streams: [1, 2]\n", NULL, 0);
	cr_assert_float_eq(nb_plan_estimate_s(&plan), 6 * (10 + 2 + 1), 1e-9);
}

static char *capture(void)
{
	static char buf[8192];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	nb_plan_print(&plan, f);
	fclose(f);
	return buf;
}

Test(plan, the_dry_run_table_is_aligned_and_summed_up)
{
	build("defaults:\n  duration: 30s\n  repetitions: 5\ntests:\n  - name: t\n"
	      "    engine: stream\n    streams: [1, 8]\n  - name: r\n    engine: rr\n", NULL, 0);
	const char *out = capture();
	cr_assert(strstr(out, "case id                 engine   protocol  size       streams  "
			      "rate            direction  repetitions\n"), "%s", out);
	cr_assert(strstr(out, "t/tcp/s128K/p1/forward  stream   tcp       128K             1  "
			      "-               forward    5\n"), "%s", out);
	cr_assert(strstr(out, "r/tcp/q32r128/f1        rr       tcp       32/128           1  "
			      "-               -          5\n"), "%s", out);
	cr_assert(strstr(out, "3 cases, 15 runs, estimated 8m 00s (warm-up + duration per run, "
			      "+1 s overhead each)\n"), "%s", out);
}

/* The plan.csv of the plan built last, as the run loop writes it (the caller frees it). */
static char *plan_csv_text(void)
{
	char dir[64], path[96];
	cr_assert(nbt_tmpdir("plancsv", dir, sizeof(dir)));
	struct nb_error err;
	cr_assert(nb_outdir_write(dir, &cfg, &plan, &err), "%s", err.msg);
	snprintf(path, sizeof(path), "%s/plan.csv", dir);
	char *text = nbt_slurp(path, NULL);
	nbt_rmtree(dir);
	cr_assert_not_null(text);
	return text;
}

/* plan.csv as the run loop writes it: outdir.c fills reports' rows from the plan. */
Test(plan, plan_csv_has_one_row_per_case_with_resolved_params)
{
	build("defaults:\n  duration: 5s\n  warmup: 500ms\ntests:\n  - name: t\n    engine: stream\n"
	      "    protocol: udp\n    rate: 1G\n  - name: r\n    engine: rr\n    repetitions: auto\n"
	      "  - name: l\n    engine: latency\n    protocol: udp\n    wait: spin\n"
	      "  - name: s\n    engine: pps\n    direction: reverse\n"
	      "    sweep:\n      rate: {from: 10kpps, to: 40kpps, steps: [10kpps, 40kpps]}\n",
	      NULL, 0);
	char *text = plan_csv_text();
	cr_assert_str_eq(text,
			 "case_id,test,engine,protocol,size,request,response,streams,direction,rate,"
			 "wait,duration_s,warmup_s,omit_s,interval_s,repetitions,sweep,window,mss,"
			 "nodelay,congestion,tos,gso,batch,timeout_ms,cpus,burst_us,datapath,bottleneck_bps,paths,self\n"
			 "t/udp/s1400/p1/forward/r1G,t,stream,udp,1400,,,1,forward,1000000000,,5,0.5,"
			 "0,1,1,,0,,,,,on,,,,250,,,,\n"
			 "r/tcp/q32r128/f1,r,rr,tcp,,32,128,1,,0,block,5,0.5,0,1,auto:3..30:5%,,0,0,off,"
			 ",,,,1000,,,,,,\n"
			 "l/udp/s32/f1/pp,l,latency,udp,32,,,1,,0,spin,5,0.5,0,1,1,,0,,,,,,,1000,,,,,,\n"
			 "s/udp/s64/p1/reverse/sweep,s,pps,udp,64,,,1,reverse,10000,block,5,0.5,0,1,1,sweep,"
			 "0,,,,,off,0,,,250,socket,,,\n");
	free(text);
}

/* Every socket and engine option of every kind, as plan.csv has always spelled it: TCP options
 * only over TCP, gso and burst only over UDP, an engine's options only where it takes them, a TOS left
 * alone as an empty cell, the connect engine's port in no column. */
Test(plan, plan_csv_spells_every_option_where_the_case_has_it)
{
	build("defaults:\n  duration: 2s\n  warmup: 0s\ntests:\n"
	      "  - name: st\n    engine: stream\n    window: 4M\n    mss: 1200\n    nodelay: true\n"
	      "    congestion: bbr\n    tos: af41\n    cpus: 0-2,5\n    self: 10\n"
	      "  - name: su\n    engine: stream\n    protocol: udp\n    mss: 1200\n    gso: off\n"
	      "    tos: 0x10\n"
	      "  - name: pp\n    engine: pps\n    batch: 64\n    gso: auto\n    burst: 2ms\n"
	      "  - name: rr\n    engine: rr\n    protocol: udp\n    wait: spin\n    timeout: 200ms\n"
	      "    nodelay: yes\n"
	      "  - name: ping\n    engine: icmp\n    timeout: 500ms\n"
	      "  - name: conn\n    engine: connect\n    port: 22\n    rate: 5pps\n", NULL, 0);
	char *text = plan_csv_text();
	cr_assert_str_eq(text,
			 "case_id,test,engine,protocol,size,request,response,streams,direction,rate,"
			 "wait,duration_s,warmup_s,omit_s,interval_s,repetitions,sweep,window,mss,"
			 "nodelay,congestion,tos,gso,batch,timeout_ms,cpus,burst_us,datapath,bottleneck_bps,paths,self\n"
			 "st/tcp/s128K/p1/forward/self10,st,stream,tcp,131072,,,1,forward,0,,2,0,0,1,1,,"
			 "4194304,1200,on,bbr,136,,,,\"0,1,2,5\",,,0,,10\n"
			 "su/udp/s1400/p1/forward,su,stream,udp,1400,,,1,forward,0,,2,0,0,1,1,,0,,,,16,"
			 "off,,,,250,,,,\n"
			 "pp/udp/s64/p1/forward,pp,pps,udp,64,,,1,forward,0,block,2,0,0,1,1,,0,,,,,on,64,,,2000,"
			 "socket,,,\n"
			 "rr/udp/q32r128/f1,rr,rr,udp,,32,128,1,,0,spin,2,0,0,1,1,,0,,,,,,,200,,,,,,\n"
			 "ping/icmp/s56/f1/pp,ping,icmp,icmp,56,,,1,,0,,2,0,0,1,1,,0,,,,,,,500,,,,,,\n"
			 "conn/tcp/port22/f1/r5pps,conn,connect,tcp,0,,,1,,5,,2,0,0,1,1,,0,0,off,,,,,"
			 "1000,,,,,,\n");
	free(text);
}

/* repetitions: auto keeps its own stopping rule in plan.csv, so the report states the rule that
 * ran (it used to read back "auto" as the defaults 3-30 runs to +-2 %). */
Test(plan, plan_csv_keeps_the_auto_repetitions_rule)
{
	build("tests:\n  - name: r\n    engine: rr\n"
	      "    repetitions: {auto: true, min: 2, max: 5, ci: 1%}\n", NULL, 0);
	char dir[64];
	cr_assert(nbt_tmpdir("planauto", dir, sizeof(dir)));
	struct nb_error err;
	cr_assert(nb_outdir_write(dir, &cfg, &plan, &err), "%s", err.msg);
	struct nb_results res;
	bool ok = nb_results_load(dir, &res, &err);
	nbt_rmtree(dir);
	cr_assert(ok, "%s", err.msg);
	cr_assert_eq(res.ncases, 1);
	cr_expect_str_eq(res.cases[0].repetitions, "auto:2..5:1%");
	cr_expect(res.cases[0].autorep);
	cr_expect_eq(res.cases[0].rep_min, 2);
	cr_expect_eq(res.cases[0].rep_max, 5);
	cr_expect_float_eq(res.cases[0].ci_target, 0.01, 1e-12);
	nb_results_free(&res);
}

Test(plan, shipped_configs_build)
{
	static const char *const names[] = { "loopback", "cloud-vm", "udp-loss-sweep", "latency" };
	const char *src = getenv("NB_SRCDIR");
	if (!src)
		cr_skip_test("NB_SRCDIR not set");
	for (size_t i = 0; i < 4; i++) {
		char path[512];
		struct nb_error err;
		snprintf(path, sizeof(path), "%s/configs/%s.yaml", src, names[i]);
		cr_assert(nb_config_load(path, NULL, 0, &cfg, &err), "%s", err.msg);
		cr_assert(nb_plan_build(&cfg, NULL, 0, &plan, &err), "%s", err.msg);
		cr_assert_gt(plan.ncases, 0);
		teardown();
	}
}

Test(plan, free_is_safe_twice)
{
	static const struct nb_plan zero;
	build(matrix, NULL, 0);
	cr_assert(plan.cases && plan.order && plan.ncases > 0, "a built plan owns its cases and order");
	nb_plan_free(&plan);
	cr_assert_eq(memcmp(&plan, &zero, sizeof(plan)), 0, "freed: every field zero");
	nb_plan_free(&plan);
	cr_assert_eq(memcmp(&plan, &zero, sizeof(plan)), 0, "freed twice: still zero");
	nb_plan_free(NULL);
}

/* wait: is how a receiver on the xdp datapath waits for its frames; the socket path has no
 * such choice, and the plan says so at the test. */
Test(plan, a_pps_wait_is_the_xdp_datapaths_only)
{
	load("tests:\n  - name: a\n    engine: pps\n    wait: spin\n", NULL, 0);
	struct nb_error err;
	cr_assert_not(nb_plan_build(&cfg, NULL, 0, &plan, &err));
	cr_assert(strstr(err.msg, ":2:5: case a/udp/s64/p1/forward: wait: spin is how the xdp "
			  "datapath's receiver waits for its frames: the socket path blocks in "
			  "recvmmsg (datapath: xdp, or no wait)"), "%s", err.msg);
	nb_config_free(&cfg);
	load("tests:\n  - name: a\n    engine: pps\n    wait: busy-poll\n    datapath: xdp\n", NULL, 0);
	cr_assert(nb_plan_build(&cfg, NULL, 0, &plan, &err), "%s", err.msg);
	cr_assert_eq(plan.cases[0].params.wait, NB_WAIT_BUSY_POLL);
}

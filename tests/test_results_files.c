/* The files of a results folder, one owner each: what a writer writes its reader reads back
 * (a round trip per file), the bytes are the ones nbrun has always written, and a missing or
 * broken file is read as before. The shipped fixture folders still load. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_copy.h"
#include "env_json.h"
#include "fixture_util.h"
#include "hist_csv.h"
#include "nb_config.h"
#include "nbt_files.h"
#include "results.h"
#include "results_dir.h"
#include "sweep_latency_csv.h"

TestSuite(files, .init = nbt_files_setup, .fini = nbt_files_teardown);

/* ---- plan.csv --------------------------------------------------------------------------- */

/* Each row, its parameter cells by key (engines/param_defs.h), and what the reader derives from
 * it (autorep, rep_min, rep_max, ci_target, swept). */
#define NCELLS 10
static const struct plan_case_test {
	struct nb_plan_case row;
	const char *cells[NCELLS][2];
	struct nb_plan_case derived;
} plan_cases[] = {
	{ { .case_id = "t/udp/s1400/p1/forward/r10G", .test = "t", .engine = "stream",
	    .protocol = "udp", .direction = "forward", .repetitions = "3", .sweep = "",
	    .size = 1400, .request = NAN, .response = NAN, .streams = 1, .rate = 10e9,
	    .duration_s = 10, .warmup_s = 0.5, .omit_s = 1, .interval_s = 0.25 },
	  { { "window", "0" } },
	  { .autorep = false, .rep_min = 3, .rep_max = 3, .ci_target = 0.02, .swept = false } },
	{ { .case_id = "r/tcp/q32r128/f16", .test = "r", .engine = "rr", .protocol = "tcp",
	    .direction = "", .repetitions = "auto:4..12:5%", .sweep = "",
	    .size = NAN, .request = 32, .response = 128, .streams = 16, .rate = 0,
	    .duration_s = 2.5, .warmup_s = 0, .omit_s = 0, .interval_s = 1 },
	  { { "wait", "busy-poll" }, { "window", "262144" }, { "mss", "536" }, { "nodelay", "on" },
	    { "congestion", "bbr" }, { "tos", "16" }, { "timeout", "1000" }, { "cpus", "0,2" } },
	  { .autorep = true, .rep_min = 4, .rep_max = 12, .ci_target = 0.05, .swept = false } },
	{ { .case_id = "odd,\"id\"\nline", .test = "t,2", .engine = "latency", .protocol = "udp",
	    .direction = "", .repetitions = "auto", .sweep = "search",
	    .size = 32, .request = NAN, .response = NAN, .streams = 2, .rate = 0,
	    .duration_s = 0.001, .warmup_s = 0.2, .omit_s = 0, .interval_s = 0.5 },
	  { { "wait", "spin" }, { "window", "0" } },
	  { .autorep = true, .rep_min = 3, .rep_max = 30, .ci_target = 0.02, .swept = true } },
	{ { .case_id = "p/udp/s64/p4/bidir/sweep", .test = "p", .engine = "pps", .protocol = "udp",
	    .direction = "bidir", .repetitions = "1", .sweep = "sweep",
	    .size = 64, .request = NAN, .response = NAN, .streams = 4, .rate = 10000,
	    .duration_s = 1, .warmup_s = 1, .omit_s = 0, .interval_s = 1 },
	  { { "window", "0" }, { "gso", "on" }, { "batch", "64" }, { "cpus", "1" },
	    { "burst", "500" } },
	  { .autorep = false, .rep_min = 1, .rep_max = 1, .ci_target = 0.02, .swept = true } },
};
#define NPLAN (sizeof(plan_cases) / sizeof(plan_cases[0]))

/* Row i of plan_cases with its cells in place. */
static struct nb_plan_case plan_row(size_t i)
{
	struct nb_plan_case row = plan_cases[i].row;
	for (size_t k = 0; k < NCELLS && plan_cases[i].cells[k][0]; k++) {
		const struct nb_param_def *d = nb_param_find(plan_cases[i].cells[k][0]);
		cr_assert_not_null(d, "%s", plan_cases[i].cells[k][0]);
		row.opt[d - nb_param_defs] = plan_cases[i].cells[k][1];
	}
	return row;
}

static void write_plan(void)
{
	struct nb_plan_case rows[NPLAN];
	for (size_t i = 0; i < NPLAN; i++)
		rows[i] = plan_row(i);
	struct nb_error err = { "" };
	cr_assert(nb_plan_csv_write(nbt_files_dir, rows, NPLAN, &err), "%s", err.msg);
}

Test(files, plan_csv_rows_round_trip)
{
	write_plan();
	struct nb_results res;
	nbt_files_load(&res);
	cr_assert_eq(res.ncases, NPLAN);
	cr_assert_eq(res.incomplete, 0);
	for (size_t i = 0; i < NPLAN; i++) {
		const struct nb_plan_case *w = &plan_cases[i].row, *d = &plan_cases[i].derived;
		const struct nb_plan_case *r = &res.cases[i];
		struct nb_plan_case want = plan_row(i);
#define S(f) cr_expect_str_eq(r->f, w->f, "row %zu " #f, i)
#define N(f) nbt_files_expect_num(r->f, w->f, #f)
		S(case_id); S(test); S(engine); S(protocol); S(direction); S(repetitions); S(sweep);
		N(size); N(request); N(response); N(streams); N(rate);
		N(duration_s); N(warmup_s); N(omit_s); N(interval_s);
#undef S
#undef N
		for (const struct nb_param_def *p = nb_param_defs; p->key; p++)
			cr_expect_str_eq(nb_plan_case_param(r, p->key), nb_plan_case_param(&want, p->key),
					 "row %zu %s", i, p->key);
		cr_expect_eq(r->autorep, d->autorep, "row %zu autorep", i);
		cr_expect_eq(r->rep_min, d->rep_min, "row %zu rep_min", i);
		cr_expect_eq(r->rep_max, d->rep_max, "row %zu rep_max", i);
		nbt_files_expect_num(r->ci_target, d->ci_target, "ci_target");
		cr_expect_eq(r->swept, d->swept, "row %zu swept", i);
	}
	nb_results_free(&res);
}

/* Sizes and rates as integers (never 1e+10), durations with %g, a NAN as an empty cell. */
Test(files, plan_csv_bytes_are_the_ones_nbrun_always_wrote)
{
	write_plan();
	char *text = nbt_slurp(nbt_files_path(NB_PLAN_CSV_FILE), NULL);
	cr_assert_not_null(text);
	cr_expect_str_eq(text,
			 "case_id,test,engine,protocol,size,request,response,streams,direction,rate,"
			 "wait,duration_s,warmup_s,omit_s,interval_s,repetitions,sweep,window,mss,"
			 "nodelay,congestion,tos,gso,batch,timeout_ms,cpus,burst_us,datapath,bottleneck_bps,paths,self\n"
			 "t/udp/s1400/p1/forward/r10G,t,stream,udp,1400,,,1,forward,10000000000,,10,"
			 "0.5,1,0.25,3,,0,,,,,,,,,,,,,\n"
			 "r/tcp/q32r128/f16,r,rr,tcp,,32,128,16,,0,busy-poll,2.5,0,0,1,auto:4..12:5%,,"
			 "262144,536,on,bbr,16,,,1000,\"0,2\",,,,,\n"
			 "\"odd,\"\"id\"\"\nline\",\"t,2\",latency,udp,32,,,2,,0,spin,0.001,0.2,0,0.5,"
			 "auto,search,0,,,,,,,,,,,,,\n"
			 "p/udp/s64/p4/bidir/sweep,p,pps,udp,64,,,4,bidir,10000,,1,1,0,1,1,sweep,0,,,,,"
			 "on,64,,1,500,,,,\n");
	free(text);
	/* %g: six significant digits, as plan.csv always had */
	struct nb_plan_case row = plan_row(0);
	row.duration_s = 1.2345678;
	row.omit_s = 1e-7;
	struct nb_error err = { "" };
	cr_assert(nb_plan_csv_write(nbt_files_dir, &row, 1, &err), "%s", err.msg);
	text = nbt_slurp(nbt_files_path(NB_PLAN_CSV_FILE), NULL);
	cr_assert_not_null(text);
	cr_expect_not_null(strstr(text, ",10000000000,,1.23457,0.5,1e-07,0.25,3,,0,"), "%s", text);
	free(text);
}

Test(files, plan_csv_rewrites_the_file_and_names_an_unwritable_one)
{
	write_plan();
	struct nb_error err = { "" };
	struct nb_plan_case row = plan_row(1);
	cr_assert(nb_plan_csv_write(nbt_files_dir, &row, 1, &err), "%s", err.msg);
	struct nb_results res;
	nbt_files_load(&res);
	cr_expect_eq(res.ncases, 1);
	nb_results_free(&res);
	cr_assert_not(nb_plan_csv_write("/nonexistent/nbt_files_dir", &row, 1, &err));
	cr_expect_str_eq(err.msg, "cannot write /nonexistent/nbt_files_dir/plan.csv: No such file or directory");
}

/* ---- runs.csv --------------------------------------------------------------------------- */

Test(files, runs_csv_rows_round_trip)
{
	struct nb_run w[3] = {
		{ .run_id = 1, .case_id = "c/1", .test = "c", .engine = "stream", .protocol = "tcp",
		  .rep = 0, .kind = "run", .offered_rate = NAN, .status = "ok", .metric = "rx_bps",
		  .value = 9.41e9, .flags = "gro-local;littles-law", .error = "",
		  .started = "2026-01-01T00:00:01Z" },
		{ .run_id = 2, .case_id = "c/1", .test = "c", .engine = "stream", .protocol = "udp",
		  .rep = 1, .kind = "trial", .offered_rate = 1e8, .status = "invalid",
		  .metric = "rx_bps", .value = 9.9e7, .flags = "host-bound",
		  .error = "quoted \"x\", comma\nand a line", .started = "2026-01-01T00:00:02Z" },
		{ .run_id = 30, .case_id = "r/2", .test = "r", .engine = "rr", .protocol = "tcp",
		  .rep = 2, .kind = "run", .offered_rate = NAN, .status = "failed",
		  .metric = "trans_per_s", .value = NAN, .flags = "", .error = "peer lost",
		  .started = "2026-01-01T00:00:03Z" },
	};
	for (size_t i = 0; i < 3; i++)
		nb_metrics_clear(&w[i].m);
	w[0].m.v[NB_COL_RX_BPS] = 9.41e9;
	w[0].m.v[NB_COL_RETRANS] = 12;
	w[1].m.v[NB_COL_LOSS_PCT] = 0.125;
	w[2].m.v[NB_COL_LAT_P999_US] = 123.456789;
	struct nb_error err = { "" };
	struct nb_csv *c = nb_runs_csv_open(nbt_files_dir, &err);
	cr_assert_not_null(c, "%s", err.msg);
	for (size_t i = 0; i < 3; i++)
		nb_runs_csv_write(c, &w[i]);
	cr_assert(nb_csv_close(c));

	struct nb_results res;
	nbt_files_load(&res);
	cr_assert_eq(res.nruns, 3);
	cr_expect_eq(res.ncases, 2, "cases made up from the runs when plan.csv is missing");
	for (size_t i = 0; i < 3; i++) {
		const struct nb_run *r = &res.runs[i];
#define S(f) cr_expect_str_eq(r->f, w[i].f, "run %zu " #f, i)
		S(case_id); S(test); S(engine); S(protocol); S(kind); S(status); S(metric); S(flags);
		S(error); S(started);
#undef S
		cr_expect_eq(r->run_id, w[i].run_id);
		cr_expect_eq(r->rep, w[i].rep);
		nbt_files_expect_num(r->offered_rate, w[i].offered_rate, "offered_rate");
		nbt_files_expect_num(r->value, w[i].value, "value");
		cr_expect_eq(r->metric_col, nb_col_find(w[i].metric));
		for (int k = 0; k < NB_COL_COUNT; k++)
			nbt_files_expect_num(r->m.v[k], w[i].m.v[k], nb_cols[k].name);
	}
	cr_expect_eq(res.runs[0].case_idx, res.runs[1].case_idx);
	cr_expect_str_eq(res.cases[res.runs[2].case_idx].case_id, "r/2");
	nb_results_free(&res);
}

/* ---- intervals.csv ---------------------------------------------------------------------- */

static struct nb_interval interval(int32_t stream, double t0, double rx_bps)
{
	struct nb_interval iv = { .run_id = 7, .case_id = "c/1", .rep = 1, .stream = stream,
				  .t_start = t0, .t_end = t0 + 1, .omitted = t0 < 1 };
	nb_metrics_clear(&iv.m);
	iv.m.v[NB_COL_RX_BPS] = rx_bps;
	iv.m.v[NB_COL_RX_BYTES] = rx_bps / 8;
	iv.m.v[NB_COL_RX_PACKETS] = 1000 + t0;
	return iv;
}

Test(files, intervals_csv_rows_round_trip_and_index_their_run)
{
	nbt_files_one_run(7, "c/1");
	struct nb_interval w[] = {
		interval(1, 1, 2e9), interval(-1, 1, 5e9), interval(0, 0, 1e9),
		interval(-1, 0, 3e9), interval(0, 1, 3e9), interval(1, 0, 2e9),
	};
	const size_t n = sizeof(w) / sizeof(w[0]);
	struct nb_error err = { "" };
	struct nb_csv *c = nb_intervals_csv_open(nbt_files_dir, &err);
	cr_assert_not_null(c, "%s", err.msg);
	for (size_t i = 0; i < n; i++)
		nb_intervals_csv_write(c, &w[i]);
	cr_assert(nb_csv_close(c));

	struct nb_results res;
	nbt_files_load(&res);
	cr_assert_eq(res.nivals, n);
	for (size_t i = 0; i < n; i++) {
		const struct nb_interval *r = &res.ivals[i];
		cr_expect_eq(r->run_id, 7);
		cr_expect_str_eq(r->case_id, "c/1");
		cr_expect_eq(r->rep, 1);
		cr_expect_eq(r->stream, w[i].stream, "row %zu", i);
		nbt_files_expect_num(r->t_start, w[i].t_start, "t_start");
		nbt_files_expect_num(r->t_end, w[i].t_end, "t_end");
		cr_expect_eq(r->omitted, w[i].omitted, "row %zu", i);
		for (int k = 0; k < NB_COL_COUNT; k++)
			nbt_files_expect_num(r->m.v[k], w[i].m.v[k], nb_cols[k].name);
	}
	/* the run's aggregate rows are the "sum" rows, in time order */
	const struct nb_run *run = &res.runs[0];
	cr_assert_eq(run->iv_n, 2);
	cr_expect_eq(res.iv_sorted[run->iv_first]->stream, -1);
	nbt_files_expect_num(res.iv_sorted[run->iv_first]->m.v[NB_COL_RX_BPS], 3e9, "first sum");
	nbt_files_expect_num(res.iv_sorted[run->iv_first + 1]->m.v[NB_COL_RX_BPS], 5e9, "second sum");
	nb_results_free(&res);

	/* bytes, packets and bits_per_second repeat the received metrics */
	struct nb_csv_table t;
	cr_assert(nb_csv_read(nbt_files_path(NB_INTERVALS_CSV_FILE), &t, &err), "%s", err.msg);
	cr_expect_str_eq(nb_csv_cell(&t, 1, nb_csv_col(&t, "stream")), "sum");
	nbt_files_expect_num(nb_csv_num_cell(&t, 1, nb_csv_col(&t, "bytes")), 5e9 / 8, "bytes");
	nbt_files_expect_num(nb_csv_num_cell(&t, 1, nb_csv_col(&t, "packets")), 1001, "packets");
	nbt_files_expect_num(nb_csv_num_cell(&t, 1, nb_csv_col(&t, "bits_per_second")), 5e9, "bits_per_second");
	nb_csv_table_free(&t);
}

/* ---- meta.json -------------------------------------------------------------------------- */

Test(files, meta_json_round_trip)
{
	struct nb_meta w = { .command = "nbrun x.yaml --peer 10.0.0.2", .config_name = "x",
			     .config_sha256 = "9f86d0", .started = "2026-01-02T03:04:05Z",
			     .finished = "2026-01-02T03:14:05Z", .peer = "10.0.0.2", .order = "random",
			     .complete = true, .runs_ok = 41, .runs_failed = 2, .runs_interrupted = 1,
			     .stopped = "SIGTERM", .sets = { "duration=2s", "omit=0s" }, .nsets = 2,
			     .filters = { "tcp-*" }, .nfilters = 1 };
	struct nb_error err = { "" };
	cr_assert(nb_meta_json_write(nbt_files_dir, &w, &err), "%s", err.msg);
	struct nb_meta r;
	cr_assert(nb_meta_json_read(nbt_files_dir, &r, &err), "%s", err.msg);
	cr_expect_str_eq(r.version, NB_VERSION);
#define S(f) cr_expect_str_eq(r.f, w.f, #f)
	S(command); S(config_name); S(config_sha256); S(started); S(finished); S(peer); S(order);
	S(stopped); S(sets[1]); S(filters[0]);
#undef S
	cr_expect_eq(r.nsets, 2);
	cr_expect_eq(r.nfilters, 1);
	cr_expect_eq(r.runs_interrupted, 1);
	cr_expect_null(r.resumed);
	cr_expect(r.complete_known);
	cr_expect(r.complete);
	cr_expect_eq(r.runs_ok, 41);
	cr_expect_eq(r.runs_failed, 2);
	cr_expect_not_null(r.root);
	nb_meta_json_free(&r);
	cr_expect_null(r.root);
}

/* Sorted keys, two-space indent, no final newline; a NULL string is written "" and read back
 * as unknown (NULL). */
Test(files, meta_json_bytes_and_unknown_strings)
{
	struct nb_meta w = { .command = "nbrun x.yaml", .config_name = "x", .config_sha256 = "ab",
			     .started = "2026-01-02T03:04:05Z", .order = "sequential", .runs_ok = 2,
			     .runs_failed = 1 };
	struct nb_error err = { "" };
	cr_assert(nb_meta_json_write(nbt_files_dir, &w, &err), "%s", err.msg);
	char *text = nbt_slurp(nbt_files_path(NB_META_JSON_FILE), NULL);
	cr_assert_not_null(text);
	cr_expect_str_eq(text, "{\n  \"command\": \"nbrun x.yaml\",\n  \"complete\": false,\n"
			       "  \"config_name\": \"x\",\n  \"config_sha256\": \"ab\",\n"
			       "  \"filters\": [],\n"
			       "  \"finished_utc\": \"\",\n  \"labels\": {},\n  \"nbrun_version\": \"" NB_VERSION "\",\n"
			       "  \"order\": \"sequential\",\n  \"peer\": \"\",\n  \"resumed_utc\": \"\",\n"
			       "  \"runs_failed\": 1,\n  \"runs_interrupted\": 0,\n"
			       "  \"runs_ok\": 2,\n  \"sets\": [],\n"
			       "  \"started_utc\": \"2026-01-02T03:04:05Z\",\n  \"stopped_by\": \"\"\n}");
	free(text);
	struct nb_meta r;
	cr_assert(nb_meta_json_read(nbt_files_dir, &r, &err), "%s", err.msg);
	cr_expect_null(r.finished);
	cr_expect_null(r.peer);
	cr_expect(r.complete_known);
	cr_expect_not(r.complete);
	nb_meta_json_free(&r);
}

Test(files, meta_json_broken_or_missing)
{
	struct nb_meta r;
	struct nb_error err = { "" };
	cr_expect_not(nb_meta_json_read(nbt_files_dir, &r, &err));
	cr_expect_null(r.root);
	nbt_files_put(NB_META_JSON_FILE, "[1, 2]");
	cr_expect_not(nb_meta_json_read(nbt_files_dir, &r, &err));
	cr_expect_not_null(strstr(err.msg, "not an object"), "%s", err.msg);
	cr_expect_eq(strncmp(err.msg, "meta.json:", 10), 0, "%s", err.msg);

	/* in a folder: a broken meta.json is a problem note, the rest still loads */
	nbt_files_one_run(1, "c/1");
	nbt_files_put(NB_META_JSON_FILE, "{\"command\": ");
	struct nb_results res;
	nbt_files_load(&res);
	cr_expect_eq(res.nruns, 1);
	cr_expect_null(res.meta.root);
	cr_expect_not(res.meta.complete_known);
	cr_assert_eq(res.nproblems, 1);
	cr_expect_eq(strncmp(res.problems[0], "meta.json:1: ", 13), 0, "%s", res.problems[0]);
	nb_results_free(&res);
}

Test(files, hist_csv_round_trip_keeps_every_bucket)
{
	static const struct { uint64_t ns, n; } rec[] = {
		{ 1000, 5 }, { 15000, 3 }, { 15100, 2 }, { 2000000, 1 }, { 7777777777, 4 },
	};
	struct nb_hist *w = nb_hist_create(), *r = nb_hist_create();
	cr_assert(w && r);
	uint64_t total = 0;
	for (size_t i = 0; i < sizeof(rec) / sizeof(rec[0]); i++)
		for (uint64_t k = 0; k < rec[i].n; k++, total++)
			nb_hist_record(w, rec[i].ns);
	struct nb_error err = { "" };
	cr_assert(nb_results_dir_create(nbt_files_dir, "x", (char[256]){ 0 }, 256, &(bool){ false }, &err), "%s", err.msg);
	cr_assert(nb_hist_csv_write(nbt_files_dir, 42, w, &err), "%s", err.msg);
	cr_assert(nb_hist_csv_read(nbt_files_dir, 42, r, &err), "%s", err.msg);
	for (size_t b = 0; b < NB_HIST_BUCKETS; b++)
		cr_expect_eq(r->counts[b], w->counts[b], "bucket %zu", b);
	cr_expect_eq(r->count, total);
	/* min and max come back as the bounds of their buckets */
	cr_expect_eq(r->min_ns, nb_hist_bucket_lower(nb_hist_bucket_of(1000)));
	cr_expect_eq(nb_hist_bucket_of(r->max_ns), nb_hist_bucket_of(7777777777));
	cr_expect_geq(r->max_ns, 7777777777);
	nb_hist_destroy(w);
	nb_hist_destroy(r);
}

Test(files, hist_csv_bytes_and_its_place_in_the_folder)
{
	struct nb_hist *w = nb_hist_create();
	nb_hist_record(w, 1000);
	nb_hist_record(w, 1000);
	nb_hist_record(w, 50000);
	struct nb_error err = { "" };
	cr_assert(nb_results_dir_create(nbt_files_dir, "x", (char[256]){ 0 }, 256, &(bool){ false }, &err), "%s", err.msg);
	cr_assert(nb_hist_csv_write(nbt_files_dir, 3, w, &err), "%s", err.msg);
	nb_hist_destroy(w);
	char want[128];
	snprintf(want, sizeof(want), "bucket_lower_ns,count\n%llu,2\n%llu,1\n",
		 (unsigned long long)nb_hist_bucket_lower(nb_hist_bucket_of(1000)),
		 (unsigned long long)nb_hist_bucket_lower(nb_hist_bucket_of(50000)));
	char *text = nbt_slurp(nbt_files_path("latency/run-3.csv"), NULL);
	cr_assert_not_null(text);
	cr_expect_str_eq(text, want);
	free(text);

	/* a run finds its histogram; an empty one (header only) is no histogram */
	nbt_files_one_run(3, "c/1");
	struct nb_results res;
	nbt_files_load(&res);
	cr_assert_not_null(res.runs[0].hist);
	cr_expect_eq(res.runs[0].hist->count, 3);
	nb_results_free(&res);
	nbt_files_put("latency/run-3.csv", "bucket_lower_ns,count\n");
	nbt_files_load(&res);
	cr_expect_null(res.runs[0].hist);
	cr_expect_eq(res.nproblems, 0);
	nb_results_free(&res);
}

/* ---- env.json --------------------------------------------------------------------------- */

Test(files, env_json_in_a_folder_round_trips_and_a_broken_one_is_a_note)
{
	struct nb_facts l;
	nb_facts_init(&l);
	nb_facts_set(&l, "iface", "mtu", "9000");
	nb_facts_unknown(&l, "cpu", "governor", "no cpufreq");
	struct nb_error err = { "" };
	cr_assert(nb_env_json_write(nbt_files_path(NB_ENV_JSON_FILE), &l, NULL, &err), "%s", err.msg);
	nbt_files_one_run(1, "c/1");
	struct nb_results res;
	nbt_files_load(&res);
	cr_expect(res.have_env);
	cr_assert_eq(res.local.n, 2);
	cr_expect_str_eq(nb_facts_value(&res.local, "iface", "mtu"), "9000");
	const struct nb_fact *g = nb_facts_get(&res.local, "cpu", "governor");
	cr_assert_not_null(g);
	cr_expect_not(g->ok);
	cr_expect_str_eq(g->value, "no cpufreq");
	cr_expect_eq(res.peer.n, 0);
	nb_results_free(&res);
	nb_facts_free(&l);

	nbt_files_put(NB_ENV_JSON_FILE, "{\"local\": 3}");
	nbt_files_load(&res);
	cr_expect_not(res.have_env);
	cr_assert_eq(res.nproblems, 1);
	cr_expect_not_null(strstr(res.problems[0], "env.json: expected an object of fact groups"),
			   "%s", res.problems[0]);
	nb_results_free(&res);
}

/* ---- sweep_latency.csv ------------------------------------------------------------------- */

/* What the writer writes the reader reads (a table, by column name); no file: no rows, no note;
 * a run of kind latency is never one of its case's repetitions. */
Test(files, sweep_latency_csv_round_trips_and_a_missing_one_is_none)
{
	nbt_files_one_run(1, "c/1");
	struct nb_results res;
	nbt_files_load(&res);
	cr_expect_eq(res.sweep_latency_t.nrows, 0);
	cr_expect_eq(res.nproblems, 0);
	nb_results_free(&res);
	struct nb_error err = { "" };
	struct nb_csv *c = nb_sweep_latency_csv_open(nbt_files_dir, &err);
	cr_assert_not_null(c, "%s", err.msg);
	struct nb_sweep_latency_row r = {
		.run_id = 7, .rep = 1, .case_id = "s/udp/s1400/p1/forward/search", .goal = "PDR",
		.pdr_rate = 96e6, .unit = "bit/s", .pct = 0, .offered_rate = NAN, .achieved_rate = NAN,
		.loss_pct = NAN, .probe_case_id = "s.lat/udp/s32/f1/r1kpps", .probe_rate = 1000,
		.samples = 1000, .p50_us = 75.5, .p90_us = 90, .p99_us = 800, .p999_us = NAN,
		.status = "ok",
	};
	nb_sweep_latency_csv_write(c, &r);
	r.pct = 50, r.offered_rate = 48e6, r.achieved_rate = 47.9e6, r.loss_pct = 0;
	nb_sweep_latency_csv_write(c, &r);
	cr_assert(nb_csv_finish(c, &err), "%s", err.msg);
	nbt_files_load(&res);
	const struct nb_csv_table *t = &res.sweep_latency_t;
	cr_assert_eq(t->nrows, 2);
	cr_expect_str_eq(nb_csv_cell(t, 0, nb_csv_col(t, "probe_case_id")), "s.lat/udp/s32/f1/r1kpps");
	cr_expect_str_eq(nb_csv_cell(t, 0, nb_csv_col(t, "offered_rate")), "");
	cr_expect_str_eq(nb_csv_cell(t, 0, nb_csv_col(t, "p999_us")), "");
	cr_expect_float_eq(nb_csv_num_cell(t, 1, nb_csv_col(t, "pct")), 50, 1e-9);
	cr_expect_float_eq(nb_csv_num_cell(t, 1, nb_csv_col(t, "achieved_rate")), 47.9e6, 1e-3);
	cr_expect_float_eq(nb_csv_num_cell(t, 1, nb_csv_col(t, "p50_us")), 75.5, 1e-9);
	cr_expect_str_eq(nb_csv_cell(t, 1, nb_csv_col(t, "status")), "ok");
	struct nb_sweep_latency_value v[NB_SWEEP_LATENCY_VALUES_MAX];
	cr_assert_eq(nb_sweep_latency_values(&res, r.case_id, v, NB_SWEEP_LATENCY_VALUES_MAX), 6,
		     "p50, p90, p99 at 0 %% and 50 %% (no p99.9)");
	cr_expect_str_eq(v[3].metric, "pdr_latency_50pct_p50_us");
	cr_expect_float_eq(v[3].us, 75.5, 1e-9);
	nb_results_free(&res);
	/* a resumed search ran again from run 10: the rows of the attempt before it are not its */
	struct nb_sweep_result sw = { .case_id = r.case_id, .rep = 1, .first_run_id = 10,
				      .search = true, .unit = "bit/s", .status = "found",
				      .sentence = "", .goal_name = "PDR" };
	cr_assert(nb_sweeps_json_append(nbt_files_dir, &sw, 1, &err), "%s", err.msg);
	nbt_files_load(&res);
	cr_expect_eq(nb_sweep_latency_values(&res, r.case_id, v, NB_SWEEP_LATENCY_VALUES_MAX), 0);
	cr_expect_not(nb_sweep_latency_row_current(&res, &res.sweep_latency_t, 0));
	nb_results_free(&res);
	struct nb_run run = { .kind = "pdr-latency", .status = "ok" };
	cr_expect_not(nb_run_counts(&run), "a latency phase is part of its search");
	run.kind = "run";
	cr_expect(nb_run_counts(&run));
}

/* ---- config.yaml and the folder ---------------------------------------------------------- */

Test(files, config_copy_keeps_the_exact_bytes)
{
	static const char text[] = "name: x\r\ntests:\n  - name: \"t\"\0after a NUL\n";
	struct nb_error err = { "" };
	cr_assert(nb_config_copy_write(nbt_files_dir, text, sizeof(text) - 1, &err), "%s", err.msg);
	size_t len = 0;
	char *back = nb_config_copy_read(nbt_files_dir, &len, &err);
	cr_assert_not_null(back, "%s", err.msg);
	cr_expect_eq(len, sizeof(text) - 1);
	cr_expect_eq(memcmp(back, text, len), 0);
	free(back);
	cr_assert(nb_config_copy_write(nbt_files_dir, NULL, 0, &err), "%s", err.msg);
	back = nb_config_copy_read(nbt_files_dir, &len, &err);
	cr_assert_not_null(back, "%s", err.msg);
	cr_expect_eq(len, 0);
	free(back);
	unlink(nbt_files_path(NB_CONFIG_COPY_FILE));
	cr_expect_null(nb_config_copy_read(nbt_files_dir, &len, &err));
	cr_expect_not_null(strstr(err.msg, "cannot open"), "%s", err.msg);
}

Test(files, the_results_basic_fixture_loads_every_file)
{
	char copy[256];
	cr_assert(nbt_fixture_copy("results-basic", copy, sizeof(copy)));
	struct nb_results res;
	struct nb_error err = { "" };
	cr_assert(nb_results_load(copy, &res, &err), "%s", err.msg);
	cr_expect_eq(res.ncases, 6);
	cr_expect_eq(res.nruns, 22);
	cr_expect_eq(res.nivals, 130);
	cr_expect_eq(res.incomplete, 0);
	cr_expect_eq(res.nproblems, 0);
	cr_expect_str_eq(res.meta.config_name, "fixture");
	cr_expect_str_eq(res.meta.order, "interleaved");
	cr_expect(res.meta.complete_known && res.meta.complete);
	cr_expect(res.have_env);
	cr_expect_str_eq(nb_facts_value(&res.local, "host", "hostname"), "client-vm");
	struct nb_sweep_result sw;
	cr_assert(nb_sweeps_json_find(&res, "udp-loss/udp/s1400", &sw));
	nbt_files_expect_num(sw.threshold, 300000000, "threshold");
	size_t hists = 0;
	for (size_t i = 0; i < res.nruns; i++)
		hists += res.runs[i].hist != NULL;
	cr_expect_eq(hists, 5);
	nb_results_free(&res);
	nbt_rmtree(copy);
}

Test(files, the_compare_fixtures_load)
{
	static const char *const names[] = { "base", "same", "drop", "noise", "mixed", "mismatch",
					     "envdiff", "vendor-b", "corrupt", "badvalue" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char name[64], path[512];
		snprintf(name, sizeof(name), "compare/%s", names[i]);
		nbt_fixture_path(name, path, sizeof(path));
		struct nb_results res;
		struct nb_error err = { "" };
		cr_assert(nb_results_load(path, &res, &err), "%s: %s", names[i], err.msg);
		cr_expect_gt(res.nruns, 0, "%s", names[i]);
		cr_expect_str_eq(res.meta.config_name, "cloud-vm", "%s", names[i]);
		cr_expect(res.have_env, "%s", names[i]);
		nb_results_free(&res);
	}
}

/* The idle engine's own counter and column (engine_idle.c) through a real batch against the
 * embedded agent: its flows count their ticks, the harness reads them, its report op makes them
 * its column, and runs.csv and intervals.csv write it after `path` — no file outside its own
 * edited for it. A tick sleeps at least `tick`, so a flow of a run measured over d seconds
 * counts at most d / tick + 1 ticks, and one that ran counted some. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_util.h"
#include "csv_read.h"
#include "engine_idle.h"
#include "fixture_util.h"
#include "plan.h"
#include "run.h"

static void register_idle(void)
{
	struct nb_error err = { { 0 } };
	cr_assert(nb_engine_register(&nbt_engine_idle, &err), "%s", err.msg);
}

TestSuite(engine_idle_run, .init = register_idle);

static void read_table(const char *dir, const char *file, struct nb_csv_table *t)
{
	char file_path[256];
	snprintf(file_path, sizeof(file_path), "%s/%s", dir, file);
	struct nb_error err = { { 0 } };
	cr_assert(nb_csv_read(file_path, t, &err), "%s", err.msg);
	cr_assert_geq(t->ncols, 2);
	/* the engines' own columns follow path, every registered engine's (stream's self_*), the
	 * one registered last, idle's, last */
	cr_expect_str_eq(t->hdr[t->ncols - 1], "idle_ticks", "%s: its column is the last", file);
	cr_expect_lt(nb_csv_col(t, "path"), (int)t->ncols - 1, "%s: its column follows path", file);
}

/* Each ok row's ticks over the measured time of 2 flows at 50 ms: 1 .. 2 (d / 0.05 + 1). */
static size_t check_ticks(const struct nb_csv_table *t, const char *file)
{
	int dur = nb_csv_col(t, "duration_s"), ticks = nb_csv_col(t, "idle_ticks");
	int stream = nb_csv_col(t, "stream"), status = nb_csv_col(t, "status");
	size_t checked = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		if ((status >= 0 && strcmp(nb_csv_cell(t, r, status), "ok") != 0) ||
		    (stream >= 0 && strcmp(nb_csv_cell(t, r, stream), "sum") != 0))
			continue;
		double d = nb_csv_num_cell(t, r, dur), n = nb_csv_num_cell(t, r, ticks);
		cr_expect(n >= 1 && n <= 2 * (d / 0.05 + 1), "%s row %zu: %g ticks in %g s", file, r, n, d);
		checked++;
	}
	return checked;
}

Test(engine_idle_run, its_ticks_reach_a_column_of_runs_csv_and_intervals_csv)
{
	struct nb_config cfg;
	struct nb_error err = { { 0 } };
	cr_assert(load_sets("defaults:\n  duration: 2s\n  warmup: 0s\n  interval: 1s\n"
			    "tests:\n  - name: n\n    engine: idle\n    streams: 2\n    tick: 50ms\n",
			    NULL, 0, &cfg, &err), "%s", err.msg);
	struct nb_plan plan;
	cr_assert(nb_plan_build(&cfg, NULL, 0, &plan, &err), "%s", err.msg);
	char dir[64];
	cr_assert(nbt_tmpdir("idlerun", dir, sizeof(dir)));
	struct nb_run_opts o = { .out_dir = dir, .force = true, .verbosity = -1 };
	cr_assert_eq(nb_run_plan(&cfg, &plan, &o, &err), NB_EXIT_OK, "%s", err.msg);
	struct nb_csv_table runs, intervals;
	read_table(dir, "runs.csv", &runs);
	read_table(dir, "intervals.csv", &intervals);
	cr_expect_eq(check_ticks(&runs, "runs.csv"), 1, "one ok run");
	cr_expect_geq(check_ticks(&intervals, "intervals.csv"), 2, "its two measured intervals");
	nb_csv_table_free(&runs);
	nb_csv_table_free(&intervals);
	nb_plan_free(&plan);
	nb_config_free(&cfg);
	nbt_rmtree(dir);
}

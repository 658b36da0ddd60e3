/* The scratch folder and helpers the results-folder tests share (nbt_files.h). */
#include "nbt_files.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fixture_util.h"
#include "runs_csv.h"

char nbt_files_dir[64];

void nbt_files_setup(void)
{
	cr_assert(nbt_tmpdir("files", nbt_files_dir, sizeof(nbt_files_dir)));
}

void nbt_files_teardown(void)
{
	nbt_rmtree(nbt_files_dir);
}

const char *nbt_files_path(const char *name)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", nbt_files_dir, name);
	return path;
}

void nbt_files_put(const char *name, const char *text)
{
	cr_assert(nbt_write(nbt_files_path(name), text, strlen(text)), "%s", name);
}

void nbt_files_load(struct nb_results *res)
{
	struct nb_error err = { "" };
	cr_assert(nb_results_load(nbt_files_dir, res, &err), "%s", err.msg);
}

/* Equal, or both NAN (an empty cell / null on both sides). */
static bool same_num(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

void nbt_files_expect_num(double got, double want, const char *what)
{
	cr_expect(same_num(got, want), "%s: got %.17g, want %.17g", what, got, want);
}

/* A runs.csv with one row, so that a folder loads without plan.csv. */
void nbt_files_one_run(uint32_t run_id, const char *case_id)
{
	struct nb_error err = { "" };
	struct nb_csv *c = nb_runs_csv_open(nbt_files_dir, &err);
	cr_assert_not_null(c, "%s", err.msg);
	struct nb_run r = { .run_id = run_id, .case_id = case_id, .test = "t", .engine = "rr",
			    .protocol = "tcp", .kind = "run", .offered_rate = NAN, .status = "ok",
			    .metric = "trans_per_s", .value = 1, .flags = "", .error = "",
			    .started = "2026-01-01T00:00:00Z" };
	nb_metrics_clear(&r.m);
	nb_runs_csv_write(c, &r);
	cr_assert(nb_csv_close(c));
}


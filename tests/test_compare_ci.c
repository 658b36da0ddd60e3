/* nbrun compare for CI: several --metric columns at once (and "all": each case's headline),
 * on the fixture results folders of tests/fixtures/compare. The JUnit and summary files are
 * checked by tests/unit/compare_ci.sh with a real XML parser. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "fixture_util.h"

#define P1 "tcp-stream/tcp/s128K/p1/forward"
#define RR "tcp-rr/tcp/r1/1/p1"
#define LAT "latency/udp/r64/64"

static void build(const char *nw, const char *const *metrics, size_t n, struct nb_compare *c)
{
	char a[512], b[512];
	nbt_fixture_path("compare/base", a, sizeof(a));
	snprintf(b, sizeof(b), "%.*s/%s", (int)(strlen(a) - 5), a, nw);
	const char *paths[] = { a, b };
	struct nb_compare_opts o = { .paths = paths, .npaths = 2, .threshold = 0.05,
				     .metrics = metrics, .nmetrics = n };
	struct nb_error err = { "" };
	cr_assert(nb_compare_build(c, &o, &err), "build: %s", err.msg);
}

static const struct nb_cmp_row *row_of(const struct nb_compare *c, const char *case_id,
				       const char *metric)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (strcmp(c->rows[i].case_id, case_id) == 0 && strcmp(c->rows[i].metric, metric) == 0)
			return &c->rows[i];
	cr_assert_fail("no row for %s on %s", case_id, metric);
	return NULL;
}

Test(compare_ci, all_and_a_column_judge_each_case_on_both_in_their_own_directions)
{
	const char *m[] = { "all", "lat_p99_us" };
	struct nb_compare c;
	build("mixed", m, 2, &c);
	cr_assert_eq(c.nrows, 10, "5 headline rows and 5 lat_p99_us rows, got %zu", c.nrows);
	/* latency +30 %: worse on p50 and p99 (smaller is better) */
	cr_assert_eq(row_of(&c, LAT, "lat_p50_us")->cells[0].verdict, NB_CMP_REGRESSION);
	cr_assert_eq(row_of(&c, LAT, "lat_p99_us")->cells[0].verdict, NB_CMP_REGRESSION);
	/* rr +15 % transactions: better on trans_per_s (bigger), and on p99 latency (smaller) */
	cr_assert_eq(row_of(&c, RR, "trans_per_s")->cells[0].verdict, NB_CMP_IMPROVEMENT);
	cr_assert_eq(row_of(&c, RR, "lat_p99_us")->cells[0].verdict, NB_CMP_IMPROVEMENT);
	/* a stream case has no latency: no data, never a failure */
	cr_assert_eq(row_of(&c, P1, "lat_p99_us")->cells[0].verdict, NB_CMP_NODATA);
	cr_assert_eq(c.count[NB_CMP_REGRESSION], 2);
	cr_assert_eq(c.nproblems, 0);
	cr_assert_eq(nb_compare_exit(&c), NB_CMP_EXIT_REGRESSION);
	nb_compare_free(&c);
}

Test(compare_ci, a_headline_named_again_is_compared_once)
{
	const char *m[] = { "all", "rx_bps" };
	struct nb_compare c;
	build("drop", m, 2, &c);
	size_t p1_rows = 0;
	for (size_t i = 0; i < c.nrows; i++)
		p1_rows += strcmp(c.rows[i].case_id, P1) == 0;
	cr_assert_eq(p1_rows, 1, "a stream case's headline is rx_bps already");
	cr_assert_eq(c.count[NB_CMP_REGRESSION], 1);
	nb_compare_free(&c);
}

Test(compare_ci, a_missing_case_is_one_problem_however_many_metrics)
{
	const char *m[] = { "all", "lat_p99_us", "cpu_local_pct" };
	struct nb_compare c;
	build("mismatch", m, 3, &c);
	size_t missing = 0;
	for (size_t i = 0; i < c.nproblems; i++)
		missing += c.problems[i].kind == NB_CMP_P_MISSING;
	cr_assert_eq(missing, 1, "got %zu", missing);
	cr_assert_eq(nb_compare_exit(&c), NB_CMP_EXIT_MISSING);
	nb_compare_free(&c);
}

Test(compare_ci, an_unknown_column_among_several_is_refused_by_name)
{
	char a[512];
	nbt_fixture_path("compare/base", a, sizeof(a));
	const char *paths[] = { a, a };
	const char *m[] = { "all", "lat_p99", "rx_bps" };
	struct nb_compare_opts o = { .paths = paths, .npaths = 2, .threshold = 0.05,
				     .metrics = m, .nmetrics = 3 };
	struct nb_compare c;
	struct nb_error err = { "" };
	cr_assert_not(nb_compare_build(&c, &o, &err));
	cr_assert_str_eq(err.msg, "--metric 'lat_p99': not a metric column (e.g. rx_bps, "
			 "trans_per_s, lat_p99_us, loss_pct) or all");
}

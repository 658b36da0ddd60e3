/* Progress lines on a log (plain mode): the counts they print stay true when repetitions: auto
 * runs more than the plan announced; the live view's interval lines. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "live.h"
#include "progress.h"

static char buf[4096];

static FILE *plain(struct nb_progress **p, size_t total)
{
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	cr_assert_not_null(f);
	*p = nb_progress_begin(f, total, 0);
	cr_assert_not_null(*p);
	nb_progress_set_live(*p, false);
	return f;
}

Test(progress, runs_beyond_the_plan_never_print_more_done_than_total)
{
	struct nb_progress *p;
	FILE *f = plain(&p, 4);
	for (uint32_t r = 1; r <= 6; r++)
		nb_progress_run_done(p, "c", r, NB_PROGRESS_MEASURED, "1 Gbit/s");
	nb_progress_end(p);
	fclose(f);
	cr_assert_not_null(strstr(buf, "[5/5 "), "%s", buf);
	cr_assert_not_null(strstr(buf, "[6/6 "), "%s", buf);
	cr_assert_not_null(strstr(buf, "6 of 6 runs measured in "), "%s", buf);
	cr_assert_null(strstr(buf, "of 4 runs"), "%s", buf);
}

Test(progress, extended_total_is_announced_before_the_extra_run)
{
	struct nb_progress *p;
	FILE *f = plain(&p, 2);
	nb_progress_run_done(p, "c", 1, NB_PROGRESS_MEASURED, "x");
	nb_progress_run_done(p, "c", 2, NB_PROGRESS_MEASURED, "x");
	nb_progress_extend(p, 1);
	nb_progress_run_done(p, "c", 3, NB_PROGRESS_MEASURED, "x");
	nb_progress_end(p);
	fclose(f);
	cr_assert_not_null(strstr(buf, "[1/2 "), "%s", buf);
	cr_assert_not_null(strstr(buf, "[3/3 "), "%s", buf);
	cr_assert_not_null(strstr(buf, "3 of 3 runs measured in "), "%s", buf);
}

/* A failed run is no measurement: the closing count says how many measured and how many failed,
 * never "3 of 3 runs done" for a batch that measured nothing. */
Test(progress, the_closing_count_tells_measured_from_failed_and_interrupted)
{
	static const struct {
		enum nb_progress_end how[3];
		const char *want;
	} cases[] = {
		{ { NB_PROGRESS_FAILED, NB_PROGRESS_FAILED, NB_PROGRESS_FAILED },
		  "0 of 3 runs measured, 3 failed in " },
		{ { NB_PROGRESS_MEASURED, NB_PROGRESS_FAILED, NB_PROGRESS_MEASURED },
		  "2 of 3 runs measured, 1 failed in " },
		{ { NB_PROGRESS_MEASURED, NB_PROGRESS_FAILED, NB_PROGRESS_INTERRUPTED },
		  "1 of 3 runs measured, 1 failed, 1 interrupted in " },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_progress *p;
		FILE *f = plain(&p, 3);
		for (uint32_t r = 0; r < 3; r++)
			nb_progress_run_done(p, "c", r + 1, cases[i].how[r], "x");
		nb_progress_end(p);
		fclose(f);
		cr_expect_not_null(strstr(buf, cases[i].want), "want \"%s\" in:\n%s", cases[i].want, buf);
		cr_expect_null(strstr(buf, "done in"), "%s", buf);
	}
}

/* A run's error is printed whole on a log, never cut mid-word at some buffer's size. */
Test(progress, a_long_error_is_printed_whole)
{
	const char *why = "FAILED: no answer to the UDP data hello to [2001:db8:1234:5678:9abc:def0:"
			  "1234:5678]:7699 (a firewall on the way?); and more words after it";
	struct nb_progress *p;
	FILE *f = plain(&p, 1);
	nb_progress_run_done(p, "udp/udp/s1400/p1/forward/r10M", 1, NB_PROGRESS_FAILED, why);
	nb_progress_end(p);
	fclose(f);
	cr_assert_not_null(strstr(buf, why), "%s", buf);
}

/* A run or search stopped by a signal says so, and the end line counts it interrupted. */
Test(progress, an_interrupted_run_is_not_counted_measured)
{
	struct nb_progress *p;
	FILE *f = plain(&p, 2);
	nb_progress_run_done(p, "a", 1, NB_PROGRESS_MEASURED, "1 Gbit/s");
	nb_progress_run_done(p, "b/search", 1, NB_PROGRESS_INTERRUPTED, "search interrupted");
	nb_progress_end(p);
	fclose(f);
	cr_assert_not_null(strstr(buf, "b/search rep 1: search interrupted"), "%s", buf);
	cr_assert_not_null(strstr(buf, "1 of 2 runs measured, 1 interrupted in "), "%s", buf);
}

/* The live view (--live): its columns are what the engine is (its traits) and what its report
 * filled in the run's first row, its values those of the row, in the formatter's units. */
static struct nb_interval row_of(uint32_t run_id, double t0, double t1)
{
	struct nb_interval r = { .run_id = run_id, .case_id = "c", .rep = 1, .stream = -1,
				 .t_start = t0, .t_end = t1 };
	for (size_t i = 0; i < NB_COL_COUNT; i++)
		r.m.v[i] = NAN;
	return r;
}

Test(progress, live_lines_take_their_columns_from_the_engine_and_its_row)
{
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	cr_assert_not_null(f);
	struct nb_live *l = nb_live_begin(NULL, f);
	struct nb_interval tcp = row_of(1, 0, 0.25);
	tcp.m.v[NB_COL_RX_BYTES] = 1e6;
	tcp.m.v[NB_COL_RX_BPS] = 32e6;
	tcp.m.v[NB_COL_RETRANS] = 3;
	nb_live_interval(l, nb_engine_find("stream"), &tcp);
	struct nb_interval rr = row_of(2, 0, 0.25);
	rr.m.v[NB_COL_TRANS_PER_S] = 15000;
	rr.m.v[NB_COL_LAT_P50_US] = 17.3;
	rr.m.v[NB_COL_LAT_P99_US] = 127;
	nb_live_interval(l, nb_engine_find("rr"), &rr);
	struct nb_run run = { .run_id = 2, .case_id = "c", .rep = 1, .status = "failed",
			      .error = "peer lost", .m = rr.m };
	run.m.v[NB_COL_DURATION_S] = 1;
	nb_live_run(l, nb_engine_find("rr"), &run);
	nb_live_end(l);
	fclose(f);
	const char *want =
		"c rep 1 (run 1)\n"
		"         Interval  Transfer        Bitrate         Retr\n"
		"      0.00-0.25 s  1.00 MB         32.0 Mbit/s     3\n"
		"c rep 1 (run 2)\n"
		"         Interval  Trans/s         p50             p99\n"
		"      0.00-0.25 s  15000 trans/s   17.3 µs         127 µs\n"
		"  - - - - - - - - - - - - - - - - - - - - - - - - -\n"
		"      0.00-1.00 s  15000 trans/s   17.3 µs         127 µs        failed: peer lost\n";
	cr_assert_str_eq(buf, want);
}

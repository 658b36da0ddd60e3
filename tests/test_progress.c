/* Progress lines on a log (plain mode): the counts they print stay true when repetitions: auto
 * runs more than the plan announced. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

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
		nb_progress_run_done(p, "c", r, "1 Gbit/s");
	nb_progress_end(p);
	fclose(f);
	cr_assert_not_null(strstr(buf, "[5/5 "), "%s", buf);
	cr_assert_not_null(strstr(buf, "[6/6 "), "%s", buf);
	cr_assert_not_null(strstr(buf, "6 of 6 runs done"), "%s", buf);
	cr_assert_null(strstr(buf, "of 4 runs"), "%s", buf);
}

Test(progress, extended_total_is_announced_before_the_extra_run)
{
	struct nb_progress *p;
	FILE *f = plain(&p, 2);
	nb_progress_run_done(p, "c", 1, "x");
	nb_progress_run_done(p, "c", 2, "x");
	nb_progress_extend(p, 1);
	nb_progress_run_done(p, "c", 3, "x");
	nb_progress_end(p);
	fclose(f);
	cr_assert_not_null(strstr(buf, "[1/2 "), "%s", buf);
	cr_assert_not_null(strstr(buf, "[3/3 "), "%s", buf);
	cr_assert_not_null(strstr(buf, "3 of 3 runs done"), "%s", buf);
}

/* A run or search stopped by a signal says so, and the end line does not count it done. */
Test(progress, an_interrupted_run_is_not_counted_done)
{
	struct nb_progress *p;
	FILE *f = plain(&p, 2);
	nb_progress_run_done(p, "a", 1, "1 Gbit/s");
	nb_progress_run_stopped(p, "b/search", 1, "search interrupted");
	nb_progress_end(p);
	fclose(f);
	cr_assert_not_null(strstr(buf, "b/search rep 1: search interrupted"), "%s", buf);
	cr_assert_not_null(strstr(buf, "1 of 2 runs done"), "%s", buf);
	cr_assert_null(strstr(buf, "2 of 2"), "%s", buf);
}

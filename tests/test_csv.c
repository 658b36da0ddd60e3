/* CSV writing: quoting per RFC 4180, empty cells for NAN, a header only once; a created file
 * appears whole or not at all, and a failed write names the file. CSV reading: quotes, CRLF,
 * broken rows named by file and line, and the round trip of hostile text. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "csv_read.h"
#include "fixture_util.h"
#include "afile.h"
#include "runs_csv.h"

/* The file's text (kept until the next call). */
static const char *slurp(const char *path)
{
	static char *text;
	free(text);
	text = nbt_slurp(path, NULL);
	cr_assert_not_null(text, "%s", path);
	return text;
}

static const char *tmpfile_path(void)
{
	static char path[64];
	cr_assert(nbt_tmpfile("csv", ".csv", NULL, path, sizeof(path)));
	return path;
}

Test(csv, quotes_only_fields_that_need_it)
{
	const char *path = tmpfile_path();
	const char *hdr[] = { "a", "b", "c", "d" };
	struct nb_csv *c = nb_csv_open(path, hdr, 4, NULL);
	cr_assert_not_null(c);
	nb_csv_str(c, "plain");
	nb_csv_str(c, "has,comma");
	nb_csv_str(c, "say \"hi\"");
	nb_csv_str(c, "two\nlines");
	nb_csv_end(c);
	cr_assert(nb_csv_close(c));
	cr_assert_str_eq(slurp(path), "a,b,c,d\nplain,\"has,comma\",\"say \"\"hi\"\"\",\"two\nlines\"\n");
	unlink(path);
}

/* 15 significant digits in plain decimal: all a measurement carries, none of the noise the
 * arithmetic of a mean leaves (16.639999999999997), and never an exponent (9.87654321e+09). */
Test(csv, nan_is_an_empty_cell_and_numbers_keep_precision)
{
	const char *path = tmpfile_path();
	const char *hdr[] = { "x", "y", "z", "w", "v", "u" };
	struct nb_csv *c = nb_csv_open(path, hdr, 6, NULL);
	nb_csv_num(c, NAN);
	nb_csv_num(c, 9876543210.0);
	nb_csv_u64(c, 18446744073709551615ull);
	nb_csv_num(c, 16.639999999999997); /* what %.17g prints for a mean of 16.64 */
	nb_csv_num(c, 22477948213.456787);
	nb_csv_num(c, -0.000003);
	nb_csv_end(c);
	cr_assert(nb_csv_close(c));
	cr_assert_str_eq(slurp(path), "x,y,z,w,v,u\n,9876543210,18446744073709551615,16.64,"
			 "22477948213.4568,-0.000003\n");
	unlink(path);
}

Test(csv, reopening_appends_without_a_second_header)
{
	const char *path = tmpfile_path();
	const char *hdr[] = { "k" };
	for (int i = 0; i < 2; i++) {
		struct nb_csv *c = nb_csv_open(path, hdr, 1, NULL);
		nb_csv_u64(c, (uint64_t)i);
		nb_csv_end(c);
		nb_csv_close(c);
	}
	cr_assert_str_eq(slurp(path), "k\n0\n1\n");
	unlink(path);
}

Test(csv, a_row_with_the_wrong_cell_count_fails_the_close)
{
	const char *path = tmpfile_path();
	const char *hdr[] = { "a", "b" };
	struct nb_csv *c = nb_csv_open(path, hdr, 2, NULL);
	nb_csv_u64(c, 1);
	nb_csv_end(c);
	cr_assert_not(nb_csv_close(c));
	unlink(path);
}

Test(csv, runs_header_has_fixed_then_metric_columns)
{
	char dir[64];
	cr_assert(nbt_tmpdir("runs", dir, sizeof(dir)));
	struct nb_csv *c = nb_runs_csv_open(dir, NULL);
	cr_assert_not_null(c);
	nb_csv_close(c);
	char path[128];
	snprintf(path, sizeof(path), "%s/runs.csv", dir);
	const char *text = slurp(path);
	cr_assert(strncmp(text, "run_id,case_id,test,engine,", 27) == 0);
	cr_assert_not_null(strstr(text, ",rx_bps,"));
	cr_assert_not_null(strstr(text, ",lat_p999_us,"));
	nbt_rmtree(dir);
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

Test(csv, a_created_file_appears_whole_when_finished)
{
	char dir[64], path[128], tmp[140];
	cr_assert(nbt_tmpdir("csvc", dir, sizeof(dir)));
	snprintf(path, sizeof(path), "%s/plan.csv", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	const char *hdr[] = { "a" };
	struct nb_csv *c = nb_csv_create(path, hdr, 1, NULL);
	cr_assert_not_null(c);
	nb_csv_u64(c, 7);
	cr_expect(nb_csv_end(c));
	cr_expect_not(exists(path), "the file is not there before it is finished");
	struct nb_error err = { "" };
	cr_assert(nb_csv_finish(c, &err), "%s", err.msg);
	cr_expect_str_eq(slurp(path), "a\n7\n");
	cr_expect_not(exists(tmp), "no temporary file is left");
	nbt_rmtree(dir);
}

Test(csv, a_created_file_that_failed_leaves_nothing_and_says_why)
{
	char dir[64], path[128];
	cr_assert(nbt_tmpdir("csvf", dir, sizeof(dir)));
	snprintf(path, sizeof(path), "%s/plan.csv", dir);
	const char *hdr[] = { "a", "b" };
	struct nb_csv *c = nb_csv_create(path, hdr, 2, NULL);
	nb_csv_u64(c, 1);
	cr_expect_not(nb_csv_end(c), "a row of one cell in a file of two fails");
	struct nb_error err = { "" };
	cr_expect_not(nb_csv_finish(c, &err));
	char want[200];
	snprintf(want, sizeof(want), "cannot write %s: a row with the wrong number of cells", path);
	cr_expect_str_eq(err.msg, want);
	cr_expect_not(exists(path));
	cr_expect_eq(rmdir(dir), 0, "the folder is empty: no .tmp left");
}

/* /dev/full accepts the open and fails every write with ENOSPC, as a full disk does. */
Test(csv, a_full_disk_fails_the_row_it_happens_in_and_names_the_file)
{
	const char *hdr[] = { "a" };
	struct nb_csv *c = nb_csv_open("/dev/full", hdr, 1, NULL);
	cr_assert_not_null(c);
	nb_csv_u64(c, 1);
	cr_expect_not(nb_csv_end(c));
	struct nb_error err = { "" };
	cr_expect_not(nb_csv_ok(c, &err));
	cr_expect_str_eq(err.msg, "cannot write /dev/full: No space left on device");
	cr_expect_not(nb_csv_sync(c, NULL));
	cr_expect_not(nb_csv_finish(c, NULL));
}

Test(csv, a_whole_file_write_to_a_missing_folder_names_the_file)
{
	struct nb_error err = { "" };
	cr_expect_not(nb_afile_write("/nonexistent/dir/x.json", "{}", 2, &err));
	cr_expect_str_eq(err.msg, "cannot write /nonexistent/dir/x.json: No such file or directory");
}

/* The same cells as JSON Lines (--json-stream): one object a row with the prefix first, the
 * cells by header name, text escaped (invalid UTF-8 as U+FFFD), numbers in the CSV's own text,
 * NAN as null; the stream is left open for the next writer. */
Test(csv, json_lines_are_the_same_cells_as_objects)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *hdr[] = { "id", "name", "v", "big", "none" };
	struct nb_csv *c = nb_csv_json(f, "the stream", hdr, 5, "\"event\":\"x\"", NULL);
	cr_assert_not_null(c);
	nb_csv_u64(c, 7);
	nb_csv_str(c, "say \"hi\"\n\xff");
	nb_csv_num(c, 16.64);
	nb_csv_num(c, 22477948213.4568);
	nb_csv_num(c, NAN);
	cr_assert(nb_csv_end(c));
	cr_assert(nb_csv_finish(c, NULL));
	fputs("after\n", f); /* still open */
	fclose(f);
	cr_assert_str_eq(buf, "{\"event\":\"x\",\"id\":7,\"name\":\"say \\\"hi\\\"\\n\xef\xbf\xbd\","
			      "\"v\":16.64,\"big\":22477948213.4568,\"none\":null}\nafter\n");
	free(buf);
}

Test(csv_read, quoted_fields_crlf_and_embedded_newlines)
{
	const char text[] = "a,b,c\r\n1,\"x,y\",\"say \"\"hi\"\"\"\r\n2,\"two\nlines\",\r\n";
	struct nb_csv_table t;
	struct nb_error err = { "" };
	cr_assert(nb_csv_parse(text, sizeof(text) - 1, "t.csv", &t, &err), "%s", err.msg);
	cr_assert_eq(t.ncols, 3);
	cr_assert_eq(t.nrows, 2);
	cr_assert_str_eq(nb_csv_cell(&t, 0, 1), "x,y");
	cr_assert_str_eq(nb_csv_cell(&t, 0, 2), "say \"hi\"");
	cr_assert_str_eq(nb_csv_cell(&t, 1, 1), "two\nlines");
	cr_assert_str_eq(nb_csv_cell(&t, 1, 2), "");
	cr_assert_eq(t.incomplete, 0);
	nb_csv_table_free(&t);
}

Test(csv_read, broken_rows_are_counted_with_file_and_line)
{
	const struct { const char *text, *problem; size_t rows; } cases[] = {
		{ "a,b\n1,2\n3,4", "t.csv:3: truncated row", 1 },          /* no final newline */
		{ "a,b\n1,2\n3,\"unterminated\n", "t.csv:3: truncated row", 1 },
		{ "a,b\n1,2,3\n4,5\n", "t.csv:2: wrong field count", 1 },
		{ "a,b\n1\n\n4,5\n", "t.csv:2: wrong field count", 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_csv_table t;
		cr_assert(nb_csv_parse(cases[i].text, strlen(cases[i].text), "t.csv", &t, NULL));
		cr_assert_eq(t.nrows, cases[i].rows, "case %zu", i);
		cr_assert_eq(t.incomplete, 1, "case %zu", i);
		cr_assert(strncmp(t.problem, cases[i].problem, strlen(cases[i].problem)) == 0,
			  "case %zu: %s", i, t.problem);
		nb_csv_table_free(&t);
	}
}

Test(csv_read, empty_file_has_no_header)
{
	struct nb_csv_table t;
	struct nb_error err = { "" };
	cr_assert_not(nb_csv_parse("", 0, "e.csv", &t, &err));
	cr_assert_str_eq(err.msg, "e.csv:1: no header row");
}

Test(csv_read, writer_and_reader_round_trip_hostile_text)
{
	char path[64];
	cr_assert(nbt_tmpdir("csv_rt", path, sizeof(path)));
	const char *hostile[] = { "plain", "com,ma", "quo\"te", "new\nline", "cr\r\nlf", "", " lead", "ü|€" };
	const size_t n = sizeof(hostile) / sizeof(hostile[0]);
	char file[128];
	snprintf(file, sizeof(file), "%s/rt.csv", path);
	const char *hdr[] = { "i", "text" };
	struct nb_csv *c = nb_csv_open(file, hdr, 2, NULL);
	for (size_t i = 0; i < n; i++) {
		nb_csv_u64(c, i);
		nb_csv_str(c, hostile[i]);
		nb_csv_end(c);
	}
	cr_assert(nb_csv_close(c));
	struct nb_csv_table t;
	cr_assert(nb_csv_read(file, &t, NULL));
	cr_assert_eq(t.nrows, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(nb_csv_cell(&t, i, 1), hostile[i], "row %zu", i);
	nb_csv_table_free(&t);
	nbt_rmtree(path);
}

/* The run loop writes searches to sweeps.json (one entry per loss goal); the report reads it
 * when meta.json has none, and says each goal's threshold and what its status means. */
/* The fixture's report when sweeps.json says sweeps (and meta.json says none); caller frees. */

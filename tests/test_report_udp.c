/* What a report says of UDP and bidir cases (tests/fixtures/results-udp): the loss, drops and
 * jitter beside the rate (issue 12), each direction of a bidir case in its own columns and
 * judged on its own (issue 21). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_read.h"
#include "fixture_util.h"
#include "nbt_report.h"
#include "report.h"

#define FWD_CASE "udp-rate/udp/s1400/p1/forward/r2.5G"
#define BIDIR_CASE "udp-bidir/udp/s1400/p1/bidir/r100M"

static char dir[256];
static char *md;

static void setup(void)
{
	cr_assert(nbt_fixture_copy("results-udp", dir, sizeof(dir)));
	md = nbt_report_md(dir);
}

static void teardown(void)
{
	free(md);
	nbt_rmtree(dir);
}

TestSuite(report_udp, .init = setup, .fini = teardown);

/* The report.md line that starts with the case's table cell. */
static const char *row_of(const char *case_id)
{
	char cell[200];
	snprintf(cell, sizeof(cell), "| `%s` |", case_id);
	return nbt_md_line(md, cell);
}


Test(report_udp, udp_table_shows_loss_drops_send_errors_and_jitter)
{
	cr_assert_not_null(strstr(md, "| Loss | Lost | Receive-buffer drops | Send errors | Jitter |"),
			   "%s", md);
	const char *r = row_of(FWD_CASE);
	cr_expect(nbt_line_has(r, "| 1.94 ± 0.00"), "%.300s", r); /* Gbit/s: the rate alone hid the rest */
	cr_expect(nbt_line_has(r, "| 22.6 % | 5044643 | 1300 | 0 | 12.5 µs |"), "%.400s", r);
}

Test(report_udp, udp_pitfalls_name_receive_buffer_drops)
{
	cr_expect_not_null(strstr(md, "**rcvbuf-drops** (`" FWD_CASE "`): the receiver's socket "
				      "buffer dropped 1400 datagrams (highest of a run)"), "%s", md);
}

Test(report_udp, bidir_table_shows_each_direction)
{
	cr_assert_not_null(strstr(md, "| Forward (client → agent), Mbit/s | Reverse (agent → client), Mbit/s |"));
	const char *r = row_of(BIDIR_CASE);
	cr_expect(nbt_line_has(r, "| 100 | 50.0 |"), "%.400s", r);
	cr_expect(nbt_line_has(r, "| 0 / 0 % | 0 / 0 | 0 / 0 | 0 / 0 | 18 / 22 µs |"), "%.400s", r);
}

Test(report_udp, bidir_direction_short_of_its_target_warns_by_name)
{
	cr_expect_not_null(strstr(md, "**rate-short** (`" BIDIR_CASE "`): the sender in the reverse "
				      "direction (agent to client) reached 50.0 Mbit/s of its 100 "
				      "Mbit/s target (50.0 %"), "%s", md);
	cr_expect_null(strstr(md, "in the forward direction (client to agent) reached"), "%s", md);
}

Test(report_udp, bidir_directions_reach_summary_csv_and_results_json)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	struct nb_csv_table t;
	struct nb_error err = { "" };
	cr_assert(nb_csv_read(path, &t, &err), "%s", err.msg);
	size_t r = nb_csv_cell(&t, 0, nb_csv_col(&t, "case_id"))[4] == 'b' ? 0 : 1;
	cr_assert_str_eq(nb_csv_cell(&t, r, nb_csv_col(&t, "case_id")), BIDIR_CASE);
	cr_expect_float_eq(nb_csv_num_cell(&t, r, nb_csv_col(&t, "fwd_rx_bps_mean")), 1e8, 1);
	cr_expect_float_eq(nb_csv_num_cell(&t, r, nb_csv_col(&t, "rev_rx_bps_mean")), 5e7, 1);
	cr_expect_float_eq(nb_csv_num_cell(&t, r, nb_csv_col(&t, "rev_target_rate_mean")), 1e8, 1);
	nb_csv_table_free(&t);
	snprintf(path, sizeof(path), "%s/results.json", dir);
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	cr_assert_not_null(root, "%s", je.text);
	json_t *c = json_array_get(json_object_get(root, "summary"), 1);
	json_t *mm = json_object_get(c, "metrics_mean");
	cr_expect_float_eq(json_real_value(json_object_get(mm, "rev_achieved_rate")), 5e7, 1);
	json_t *run = json_array_get(json_object_get(root, "runs"), 2);
	cr_expect_float_eq(json_real_value(json_object_get(json_object_get(run, "metrics"), "fwd_rx_bps")),
			   1e8, 1);
	json_decref(root);
}

/* The data path of each case (its runs' pacing=, gso=, gro= flags), said once, and when its
 * repetitions did not run the same way, said so. */
Test(report_udp, each_case_states_its_data_path_from_its_runs_flags)
{
	cr_expect_not_null(strstr(md, "- Data path of `" BIDIR_CASE "`: pacing=user, gso=on, "
				      "gro=off.\n"), "%s", md);
	cr_expect_not_null(strstr(md, "- Data path of `" FWD_CASE "`: pacing=user, gso=on, gro=off "
				      "(not the same in every repetition: see runs.csv).\n"), "%s", md);
}

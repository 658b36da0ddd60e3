/* results.json: hostile text from the CSV files survives a jansson round trip. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "csv.h"
#include "runs_csv.h"
#include "fixture_util.h"
#include "json.h"
#include "report.h"

static const char *const hostile_ids[] = {
	"quote\"d/\\back",
	"ctl\x01\x1f\tbell\x07",
	"utf8/café/Ü/€/漢字/🚀",
	"new\nline,comma",
};
#define NIDS (sizeof(hostile_ids) / sizeof(hostile_ids[0]))

/* A results folder written with the real runs.csv writer, one run per hostile id. */
static void make_folder(char *dir, size_t len)
{
	setenv("NBRUN_GNUPLOT", "none", 1);
	cr_assert(nbt_tmpdir("json", dir, len));
	struct nb_error err = { "" };
	struct nb_csv *c = nb_runs_csv_open(dir, &err);
	cr_assert_not_null(c, "%s", err.msg);
	for (size_t i = 0; i < NIDS; i++) {
		struct nb_run r = {
			.run_id = (uint32_t)i + 1, .case_id = hostile_ids[i], .test = "t", .engine = "stream",
			.protocol = "tcp", .rep = 1, .kind = "run", .offered_rate = NAN, .status = "failed",
			.metric = "rx_bps", .value = NAN, .flags = "",
			.error = "bad byte \xff here, \"quoted\"", .started = "2024-05-01T00:00:00Z",
		};
		nb_metrics_clear(&r.m);
		nb_runs_csv_write(c, &r);
	}
	cr_assert(nb_csv_close(c));
}

Test(json, hostile_case_ids_and_errors_survive_a_round_trip)
{
	char dir[64];
	make_folder(dir, sizeof(dir));
	struct nb_report_info info;
	struct nb_error err = { "" };
	cr_assert(nb_report_build(dir, &info, &err), "%s", err.msg);
	cr_assert_eq(info.runs, NIDS);
	char path[128];
	snprintf(path, sizeof(path), "%s/results.json", dir);
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	cr_assert_not_null(root, "results.json:%d: %s", je.line, je.text);
	json_t *runs = json_object_get(root, "runs");
	cr_assert_eq(json_array_size(runs), NIDS);
	for (size_t i = 0; i < NIDS; i++) {
		json_t *r = json_array_get(runs, i);
		cr_assert_str_eq(json_string_value(json_object_get(r, "case_id")), hostile_ids[i]);
		cr_assert_str_eq(json_string_value(json_object_get(r, "error")),
				 "bad byte \xef\xbf\xbd here, \"quoted\"");
		cr_assert(json_is_null(json_object_get(r, "value")), "NAN is null, not NaN text");
	}
	json_t *sum = json_object_get(root, "summary");
	cr_assert_eq(json_array_size(sum), NIDS);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(sum, 2), "case_id")),
			 hostile_ids[2]);
	json_decref(root);
	nbt_rmtree(dir);
}

Test(json, invalid_utf8_becomes_replacement_characters)
{
	const struct { const char *in, *out; } cases[] = {
		{ "ok", "ok" },
		{ "\xff", "\xef\xbf\xbd" },
		{ "a\xc3", "a\xef\xbf\xbd" },                 /* truncated 2-byte sequence */
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },   /* overlong encoding */
		{ "é\xe2\x82", "é\xef\xbf\xbd\xef\xbf\xbd" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *j = nb_json_string(cases[i].in);
		cr_assert(json_is_string(j), "case %zu", i);
		cr_assert_str_eq(json_string_value(j), cases[i].out, "case %zu", i);
		json_decref(j);
	}
	cr_assert(json_is_null(nb_json_string(NULL)));
}

Test(json, numbers_that_are_not_finite_become_null)
{
	cr_assert(json_is_null(nb_json_number(NAN)));
	cr_assert(json_is_null(nb_json_number(INFINITY)));
	json_t *j = nb_json_number(9.41e9);
	cr_assert_float_eq(json_real_value(j), 9.41e9, 0);
	json_decref(j);
}

Test(json, control_characters_are_escaped_in_the_file)
{
	char dir[64];
	make_folder(dir, sizeof(dir));
	struct nb_report_info info;
	cr_assert(nb_report_build(dir, &info, NULL));
	char path[128];
	snprintf(path, sizeof(path), "%s/results.json", dir);
	char *text = nbt_slurp(path, NULL);
	cr_assert(strcasestr(text, "ctl\\u0001\\u001f\\tbell\\u0007"), "escaped control characters");
	for (const char *p = text; *p; p++)
		cr_assert((unsigned char)*p >= 0x20 || *p == '\n', "raw control byte at %zu", (size_t)(p - text));
	free(text);
	nbt_rmtree(dir);
}

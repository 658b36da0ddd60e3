/* Labels (issue 16): keys by the Prometheus label-name rules and none of the names the exports
 * set themselves, values UTF-8 without control characters; `labels:` in a config, a later
 * --label wins; meta.json keeps them; runs.jsonl writes one typed record per run that its
 * reader reads back. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>

#include "config_util.h"
#include "meta_json.h"
#include "runs_jsonl.h"

static const struct {
	const char *key, *value;
	bool ok;
} label_cases[] = {
	{ "region", "eu-west-1", true },
	{ "_x9", "", true },
	{ "Build_ID", "v1.2 \"quoted\" \\ and ünïcödé ✓", true },
	{ "9lives", "x", false },
	{ "__name", "x", false },
	{ "has-dash", "x", false },
	{ "", "x", false },
	{ "case_id", "x", false },
	{ "quantile", "x", false },
	{ "ok", "new\nline", false },
	{ "ok", "tab\there", false },
	{ "ok", "bad \xc3\x28 utf8", false },
	{ "ok", "c1 \xc2\x85 control", false },
};

Test(labels, keys_and_values_follow_the_prometheus_rules)
{
	for (size_t i = 0; i < sizeof(label_cases) / sizeof(label_cases[0]); i++) {
		struct nb_error err = { "" };
		bool ok = nb_config_label_check(label_cases[i].key, label_cases[i].value, &err);
		cr_expect_eq(ok, label_cases[i].ok, "%s=%s: %s", label_cases[i].key,
			     label_cases[i].value, err.msg);
	}
}

Test(labels, a_config_labels_mapping_loads_and_a_later_label_wins)
{
	struct nb_config cfg;
	struct nb_error err = { "" };
	cr_assert(load_sets("labels: {region: eu, team: net}\n"
			    "tests:\n  - {name: a, engine: stream}\n", NULL, 0, &cfg, &err), "%s", err.msg);
	cr_assert_eq(cfg.nlabels, 2);
	cr_assert(nb_config_label_arg(cfg.labels, &cfg.nlabels, "team=perf", &err), "%s", err.msg);
	cr_assert(nb_config_label_arg(cfg.labels, &cfg.nlabels, "zone=a=b", &err), "%s", err.msg);
	cr_expect_eq(cfg.nlabels, 3);
	cr_expect_str_eq(cfg.labels[1].value, "perf");
	cr_expect_str_eq(cfg.labels[2].value, "a=b");
	cr_expect_not(nb_config_label_arg(cfg.labels, &cfg.nlabels, "=x", &err));
	nb_config_free(&cfg);
}

Test(labels, a_bad_label_in_a_config_is_located)
{
	assert_err(fail("labels:\n  region: eu\n  engine: x\ntests:\n  - {name: a, engine: stream}\n"),
		   "3:3", "label 'engine': nbrun's exports set this name themselves");
	assert_err(fail("labels: [a, b]\ntests:\n  - {name: a, engine: stream}\n"), "1:9",
		   "labels: expected a mapping");
}

Test(labels, meta_json_and_runs_jsonl_keep_them)
{
	char dir[64];
	cr_assert(nbt_tmpdir("labels", dir, sizeof(dir)));
	struct nb_meta w = { .config_name = "gate", .config_sha256 = "ab12",
			     .label_keys = { "region", "build" },
			     .label_values = { "eu-west-1", "v1 \"x\"" }, .nlabels = 2 };
	struct nb_error err = { "" };
	cr_assert(nb_meta_json_write(dir, &w, &err), "%s", err.msg);
	struct nb_meta m;
	cr_assert(nb_meta_json_read(dir, &m, &err), "%s", err.msg);
	cr_assert_eq(m.nlabels, 2);
	struct nb_run r = { .run_id = 3, .case_id = "c/1", .test = "c", .engine = "stream",
			    .protocol = "tcp", .rep = 2, .kind = "run", .offered_rate = NAN,
			    .status = "ok", .metric = "rx_bps", .value = 9.5e9, .flags = "a;b",
			    .error = "", .started = "2026-01-01T00:00:01Z" };
	nb_metrics_clear(&r.m);
	r.m.v[NB_COL_RX_BPS] = 9.5e9;
	struct nb_runs_jsonl *j = nb_runs_jsonl_open(dir, &m, &err);
	cr_assert_not_null(j, "%s", err.msg);
	cr_assert(nb_runs_jsonl_write(j, &r, &err) && nb_runs_jsonl_write(j, &r, &err), "%s", err.msg);
	nb_runs_jsonl_close(j);
	char file[128];
	snprintf(file, sizeof(file), "%s/" NB_RUNS_JSONL_FILE, dir);
	json_t *all = nb_runs_jsonl_read(file, &err);
	cr_assert_not_null(all, "%s", err.msg);
	cr_assert_eq(json_array_size(all), 2);
	json_t *o = json_array_get(all, 1);
	cr_expect_eq(json_integer_value(json_object_get(o, "run_id")), 3);
	cr_expect(json_is_null(json_object_get(o, "offered_rate")));
	cr_expect(json_is_null(json_object_get(o, "tx_bps")));
	cr_expect_eq(json_real_value(json_object_get(o, "rx_bps")), 9.5e9);
	cr_expect_eq(json_array_size(json_object_get(o, "flags")), 2);
	cr_expect_str_eq(json_string_value(json_object_get(o, "config_sha256")), "ab12");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(o, "labels"), "build")),
			 "v1 \"x\"");
	json_decref(all);
	nb_meta_json_free(&m);
	nbt_rmtree(dir);
}

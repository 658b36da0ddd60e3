/* sweeps.json, its owner's round trip across appends, the entries a repetition drops, its keys,
 * and how meta.json's sweeps and a broken sweeps.json are read (split from
 * test_results_files.c; the same scratch-folder helpers, nbt_files.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nbt_files.h"
#include "results.h"
#include "results_dir.h"

TestSuite(files, .init = nbt_files_setup, .fini = nbt_files_teardown);

/* ---- sweeps.json ------------------------------------------------------------------------ */

/* A plan.csv row for the cases the entries belong to. */
static const struct nb_plan_case plan_row = {
	.case_id = "t/udp/s1400/p1/forward/r10G", .test = "t", .engine = "stream", .protocol = "udp",
	.direction = "forward", .repetitions = "3", .sweep = "", .size = 1400,
	.request = NAN, .response = NAN, .streams = 1, .rate = 10e9, .duration_s = 10,
	.warmup_s = 0.5, .omit_s = 1, .interval_s = 0.25,
};

static const double plain_rates[] = { 1e7, 2e7, 4e7 };

static const struct nb_sweep_result sweep_entries[] = {
	{ .case_id = "p", .rep = 0, .search = false, .unit = "bit/s", .flows = 1, .trials = 3,
	  .elapsed_s = 3.615527877, .trial_s = 1.5, .host_bound_above = NAN, .max_burst = 2,
	  .unreached = NAN, .sender_max = 4e7, .calibration_rate = NAN, .retries = 0,
	  .complete_known = true, .complete = true, .sentence = "p: sweep of 3 rates",
	  .loss_target = NAN, .threshold = NAN, .lowest_fail = NAN, .bracket_lo = NAN,
	  .bracket_hi = NAN, .achieved_rate = NAN, .rates = plain_rates, .nrates = 3 },
	{ .case_id = "s", .rep = 1, .first_run_id = 12, .search = true, .unit = "pkt/s", .flows = 4,
	  .trials = 14, .elapsed_s = 41.25, .trial_s = 30, .host_bound_above = 175000, .max_burst = 8,
	  .unreached = 175000, .sender_max = 151000, .calibration_rate = 151000, .retries = 4,
	  .limit = "a sending thread used 99 % of a core",
	  .interrupted = false, .trial_limit = true, .complete_known = true, .complete = true,
	  .sentence = "s: highest rate with loss ≤ 0 %: 150 kpps", .loss_target = 0,
	  .status = "host-bound", .threshold = 150000, .lowest_fail = NAN, .bracket_lo = 150000,
	  .bracket_hi = 175000, .goal_trials = 9, .achieved_rate = 149996.405001,
	  .goal_name = "NDR", .exceed_ratio = 0, .final_trial_s = 5, .duration_sum_s = 15,
	  .initial_trial_s = 1, .lower_bound = 150000, .upper_bound = NAN, .conditional = 150000 },
	{ .case_id = "s", .rep = 1, .search = true, .unit = "pkt/s", .flows = 4, .trials = 14,
	  .elapsed_s = 41.25, .trial_s = 30, .host_bound_above = 175000, .max_burst = 8,
	  .unreached = 175000, .sender_max = 151000, .calibration_rate = 151000, .retries = 4,
	  .limit = "a sending thread used 99 % of a core",
	  .interrupted = true, .trial_limit = true, .complete_known = true, .complete = false,
	  .sentence = "s: search incomplete", .loss_target = 0.001, .status = "incomplete",
	  .threshold = NAN, .lowest_fail = 190000, .bracket_lo = NAN, .bracket_hi = 190000,
	  .goal_trials = 5, .achieved_rate = NAN, .goal_name = "PDR", .exceed_ratio = 0,
	  .final_trial_s = 5, .duration_sum_s = 15, .initial_trial_s = 1, .lower_bound = NAN,
	  .upper_bound = 190000, .conditional = NAN },
};

static void expect_sweep(const struct nb_sweep_result *r, const struct nb_sweep_result *w)
{
#define S(f) cr_expect_str_eq(r->f, w->f, "%s " #f, w->case_id)
#define N(f) nbt_files_expect_num(r->f, w->f, #f)
#define E(f) cr_expect_eq(r->f, w->f, "%s " #f, w->case_id)
	S(case_id); S(unit); S(sentence);
	E(rep); E(first_run_id); E(search); E(flows); E(interrupted); E(trial_limit); E(complete_known); E(complete);
	E(goal_trials);
	N(trials); N(elapsed_s); N(trial_s); N(host_bound_above); N(max_burst); N(loss_target);
	N(threshold); N(lowest_fail); N(bracket_lo); N(bracket_hi); N(achieved_rate);
	N(unreached); N(sender_max); N(calibration_rate); N(retries);
	if (w->limit)
		S(limit);
	else
		cr_expect_null(r->limit);
	if (w->status)
		S(status);
	else
		cr_expect_null(r->status);
	if (w->goal_name) { /* a search's goal in MLRsearch's words */
		S(goal_name);
		N(exceed_ratio); N(final_trial_s); N(duration_sum_s); N(initial_trial_s);
		N(lower_bound); N(upper_bound); N(conditional);
	} else {
		cr_expect_null(r->goal_name);
	}
#undef S
#undef N
#undef E
}

Test(files, sweeps_json_entries_round_trip_across_appends)
{
	struct nb_plan_case rows[2] = { plan_row, plan_row };
	rows[0].case_id = "p";
	rows[1].case_id = "s";
	struct nb_error err = { "" };
	cr_assert(nb_plan_csv_write(nbt_files_dir, rows, 2, &err), "%s", err.msg);
	cr_assert(nb_sweeps_json_append(nbt_files_dir, &sweep_entries[0], 1, &err), "%s", err.msg);
	cr_assert(nb_sweeps_json_append(nbt_files_dir, &sweep_entries[1], 2, &err), "%s", err.msg);

	struct nb_results res;
	nbt_files_load(&res);
	struct nb_sweep_result r;
	cr_assert(nb_sweeps_json_find(&res, "p", &r));
	expect_sweep(&r, &sweep_entries[0]);
	cr_assert(nb_sweeps_json_goal(&res, "s", 0, &r));
	expect_sweep(&r, &sweep_entries[1]);
	cr_assert(nb_sweeps_json_goal(&res, "s", 1, &r));
	expect_sweep(&r, &sweep_entries[2]);
	cr_expect_not(nb_sweeps_json_goal(&res, "s", 2, &r));
	cr_expect_not(nb_sweeps_json_find(&res, "nope", &r));
	nb_results_free(&res);
}

/* A resumed batch runs an interrupted sweep again: its old entries go, the others stay. */
Test(files, sweeps_json_drop_removes_one_repetitions_entries)
{
	struct nb_error err = { "" };
	cr_assert(nb_sweeps_json_drop(nbt_files_dir, "s", 1, &err), "no file yet: %s", err.msg);
	cr_assert(nb_sweeps_json_append(nbt_files_dir, sweep_entries, 3, &err), "%s", err.msg);
	cr_assert(nb_sweeps_json_drop(nbt_files_dir, "s", 1, &err), "%s", err.msg);
	json_t *doc = json_load_file(nbt_files_path(NB_SWEEPS_JSON_FILE), 0, NULL);
	json_t *list = json_object_get(doc, "sweeps");
	cr_expect_eq(json_array_size(list), 1);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(list, 0), "case_id")), "p");
	json_decref(doc);
}

/* The keys of each kind of entry, in the order written; a plain sweep lists its rates. */
Test(files, sweeps_json_entry_keys_and_rates)
{
	struct nb_error err = { "" };
	cr_assert(nb_sweeps_json_append(nbt_files_dir, sweep_entries, 2, &err), "%s", err.msg);
	json_error_t je;
	json_t *doc = json_load_file(nbt_files_path(NB_SWEEPS_JSON_FILE), 0, &je);
	cr_assert_not_null(doc, "%s", je.text);
	static const char *const plain[] = {
		"case_id", "rep", "first_run_id", "search", "unit", "flows", "trials", "retries",
		"elapsed_s", "trial_s", "host_bound_above", "unreached", "sender_max", "calibration_rate",
		"limit", "max_burst", "interrupted", "trial_limit", "complete", "rates", "sentence", NULL };
	static const char *const goal[] = {
		"case_id", "rep", "first_run_id", "search", "unit", "flows", "trials", "retries",
		"elapsed_s", "trial_s", "host_bound_above", "unreached", "sender_max", "calibration_rate",
		"limit", "max_burst", "interrupted", "trial_limit", "loss", "status",
		"complete", "threshold", "lowest_fail", "bracket_lo", "bracket_hi", "goal_trials",
		"target_rate", "achieved_rate", "sentence", "goal", "exceed_ratio", "final_trial_s",
		"duration_sum_s", "initial_trial_s", "relevant_lower_bound", "relevant_upper_bound",
		"conditional_throughput", NULL };
	const char *const *want[] = { plain, goal };
	for (size_t e = 0; e < 2; e++) {
		json_t *o = json_array_get(json_object_get(doc, "sweeps"), e);
		size_t k = 0;
		for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it), k++)
			cr_expect_str_eq(json_object_iter_key(it), want[e][k] ? want[e][k] : "(end)",
					 "entry %zu key %zu", e, k);
		cr_expect_null(want[e][k], "entry %zu has %zu keys", e, k);
	}
	json_t *rates = json_object_get(json_array_get(json_object_get(doc, "sweeps"), 0), "rates");
	cr_assert_eq(json_array_size(rates), 3);
	for (size_t i = 0; i < 3; i++)
		nbt_files_expect_num(json_real_value(json_array_get(rates, i)), plain_rates[i], "rate");
	json_t *s = json_array_get(json_object_get(doc, "sweeps"), 1);
	nbt_files_expect_num(json_real_value(json_object_get(s, "target_rate")), 150000, "target_rate");
	cr_expect(json_is_null(json_object_get(s, "lowest_fail")));
	json_decref(doc);
}

Test(files, sweeps_in_meta_json_win_and_a_broken_sweeps_json_is_a_note)
{
	nbt_files_one_run(1, "s");
	struct nb_error err = { "" };
	cr_assert(nb_sweeps_json_append(nbt_files_dir, &sweep_entries[1], 1, &err), "%s", err.msg);
	nbt_files_put(NB_META_JSON_FILE, "{\"sweeps\": [{\"case_id\": \"s\", \"loss\": 0.5}]}");
	struct nb_results res;
	nbt_files_load(&res);
	struct nb_sweep_result r;
	cr_assert(nb_sweeps_json_find(&res, "s", &r));
	nbt_files_expect_num(r.loss_target, 0.5, "loss from meta.json");
	nbt_files_expect_num(r.threshold, NAN, "threshold not said");
	cr_expect_not(r.complete_known);
	nb_results_free(&res);

	unlink(nbt_files_path(NB_META_JSON_FILE));
	nbt_files_put(NB_SWEEPS_JSON_FILE, "{\"list\": []}");
	nbt_files_load(&res);
	cr_expect_not(nb_sweeps_json_find(&res, "s", &r));
	cr_assert_eq(res.nproblems, 1);
	cr_expect_not_null(strstr(res.problems[0], "sweeps.json:"), "%s", res.problems[0]);
	cr_expect_not_null(strstr(res.problems[0], "no \"sweeps\" list"), "%s", res.problems[0]);
	nb_results_free(&res);
}

/* ---- latency/run-<id>.csv --------------------------------------------------------------- */


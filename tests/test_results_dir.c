/* The results folder itself: made with its latency folder, a default name unique within a
 * second, a folder in use named and cleared without touching other files (split from
 * test_results_files.c; the same scratch-folder helpers, nbt_files.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nbt_files.h"
#include "results.h"
#include "results_dir.h"

TestSuite(files, .init = nbt_files_setup, .fini = nbt_files_teardown);

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

Test(files, results_dir_is_made_with_its_latency_folder)
{
	char out[256], want[256];
	struct nb_error err = { "" };
	snprintf(want, sizeof(want), "%s/a/b", nbt_files_dir);
	bool made;
	cr_assert(nb_results_dir_create(want, "x", out, sizeof(out), &made, &err), "%s", err.msg);
	cr_expect_str_eq(out, want);
	cr_expect(made);
	cr_expect(is_dir(nbt_files_path("a/b/latency")));
	cr_assert(nb_results_dir_create(want, "x", out, sizeof(out), &made, &err), "%s", err.msg);
	cr_expect_not(made, "an existing folder is not made again");

	/* no folder given: results/<config name>-<UTC timestamp>, "nbrun" for a nameless config */
	cr_assert_eq(chdir(nbt_files_dir), 0);
	static const struct { const char *name, *prefix; } names[] = {
		{ "cloud-vm", "results/cloud-vm-" }, { "", "results/nbrun-" } };
	for (size_t i = 0; i < 2; i++) {
		cr_assert(nb_results_dir_create(NULL, names[i].name, out, sizeof(out), &made, &err),
			  "%s", err.msg);
		size_t n = strlen(names[i].prefix);
		cr_expect_eq(strncmp(out, names[i].prefix, n), 0, "%s", out);
		cr_expect_eq(strlen(out), n + strlen("20260102T030405Z"), "%s", out);
		cr_expect_eq(out[strlen(out) - 1], 'Z', "%s", out);
		char sub[300];
		snprintf(sub, sizeof(sub), "%s/latency", out);
		cr_expect(is_dir(sub), "%s", sub);
	}
}

/* Two batches started in the same second get two folders: the second name takes -2 (the
 * clock is read again, so the test makes the first folder's every possible name exist). */
Test(files, default_results_folders_are_unique_within_a_second)
{
	char a[256], b[256];
	struct nb_error err = { "" };
	bool made;
	cr_assert_eq(chdir(nbt_files_dir), 0);
	cr_assert(nb_results_dir_create(NULL, "x", a, sizeof(a), &made, &err), "%s", err.msg);
	for (int tries = 0; tries < 5; tries++) {
		cr_assert(nb_results_dir_create(NULL, "x", b, sizeof(b), &made, &err), "%s", err.msg);
		if (strncmp(a, b, strlen(a)) == 0)
			break; /* same second: b is a with a suffix */
		strcpy(a, b);
	}
	cr_expect_neq(strcmp(a, b), 0);
	cr_expect_str_eq(b + strlen(a), "-2", "%s then %s", a, b);
}

Test(files, a_folder_in_use_is_named_and_clearing_keeps_other_files)
{
	char what[256];
	cr_expect_not(nb_results_dir_in_use(nbt_files_dir, what, sizeof(what)), "an empty folder is free");
	cr_expect_not(nb_results_dir_in_use(nbt_files_path("none"), what, sizeof(what)));
	struct nb_error err = { "" };
	cr_assert(nb_results_dir_create(nbt_files_dir, "x", (char[256]){ 0 }, 256, &(bool){ false }, &err));
	nbt_files_put(NB_RUNS_CSV_FILE, "run_id\n1\n");
	nbt_files_put("latency/run-1.csv", "bucket_lower_ns,count\n");
	nbt_files_put("notes.txt", "mine");
	cr_expect(nb_results_dir_in_use(nbt_files_dir, what, sizeof(what)));
	cr_expect_not_null(strstr(what, NB_RUNS_CSV_FILE), "%s", what);
	cr_assert(nb_results_dir_clear(nbt_files_dir, &err), "%s", err.msg);
	cr_expect_not(access(nbt_files_path(NB_RUNS_CSV_FILE), F_OK) == 0);
	cr_expect_not(access(nbt_files_path("latency/run-1.csv"), F_OK) == 0);
	cr_expect(access(nbt_files_path("notes.txt"), F_OK) == 0, "a file nbrun does not write stays");
}

/* ---- the shipped fixtures --------------------------------------------------------------- */


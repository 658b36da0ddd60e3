/* Shared by the results-folder tests (test_results_files.c, test_sweeps_json.c,
 * test_results_dir.c): a scratch folder per test and small helpers around it. */
#ifndef NBT_FILES_H
#define NBT_FILES_H
#include <stdbool.h>
#include <stdint.h>

#include "results.h"

/** The current test's scratch folder (made by nbt_files_setup, removed by nbt_files_teardown). */
extern char nbt_files_dir[64];
/** Criterion init/fini of a suite of results-folder tests. */
void nbt_files_setup(void);
void nbt_files_teardown(void);
/** NAME inside the scratch folder (a static buffer). */
const char *nbt_files_path(const char *name);
/** Write TEXT as the file NAME of the scratch folder. */
void nbt_files_put(const char *name, const char *text);
/** Load the scratch folder as a results folder (asserts it loads). */
void nbt_files_load(struct nb_results *res);
/** Expect got == want, or both NAN (an empty cell / null on both sides). */
void nbt_files_expect_num(double got, double want, const char *what);
/** A runs.csv with one row, so that a folder loads without plan.csv. */
void nbt_files_one_run(uint32_t run_id, const char *case_id);
#endif

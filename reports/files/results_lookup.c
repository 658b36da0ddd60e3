/* nbrun — what a file's owner asks of the results while it loads its part (whether the folder
 * holds a file, which case has an id, a table of its own read, whether a run's kind is part of
 * a sweep) and where it notes a problem. Kept apart from the loader
 * (results.c), which calls the owners. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "results.h"
#include "results_int.h"

void nb_results_note(struct nb_results *res, const char *text)
{
	if (*text && res->nproblems < sizeof(res->problems) / sizeof(res->problems[0]))
		snprintf(res->problems[res->nproblems++], sizeof(res->problems[0]), "%s", text);
}

bool nb_results_has(const struct nb_results *res, const char *file)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", res->dir, file);
	return access(path, F_OK) == 0;
}

void nb_results_optional_table(struct nb_results *res, const char *file, struct nb_csv_table *t)
{
	if (!nb_results_has(res, file))
		return;
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", res->dir, file);
	struct nb_error err = { { 0 } };
	if (!nb_csv_read(path, t, &err)) {
		nb_results_note(res, err.msg);
		return;
	}
	if (t->problem[0])
		nb_results_note(res, t->problem);
}

size_t nb_results_case(const struct nb_results *res, const char *case_id)
{
	for (size_t i = 0; i < res->ncases; i++)
		if (strcmp(res->cases[i].case_id, case_id) == 0)
			return i;
	return (size_t)-1;
}

bool nb_run_kind_swept(const char *kind)
{
	return strcmp(kind, "trial") == 0 || strcmp(kind, "pdr-latency") == 0;
}

/* The metric columns in runs.csv and intervals.csv: a header of the file's own columns followed
 * by one column per metric (nb_cols order), then `path` (added last, so that the rows written
 * before it existed only gained a trailing cell), written and read back by name; then the own
 * columns of every registered engine (engine.h `columns`, registry order), each empty in the
 * rows of another engine, written only: what reads a results folder knows the base columns. */
#include "results_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"

#define MAX_COLS (64 + NB_COL_COUNT + 1 + NB_OWN_COLS_ALL_MAX)

/* fixed[], the metrics, path, every engine's own columns: how many. */
static size_t header_of(const char *const *fixed, size_t nfixed, const char *header[MAX_COLS])
{
	size_t n = 0;
	for (size_t i = 0; i < nfixed; i++)
		header[n++] = fixed[i];
	for (size_t i = 0; i < NB_COL_COUNT; i++)
		header[n++] = nb_cols[i].name;
	header[n++] = "path";
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++)
		for (const struct nb_col_def *d = (*e)->columns; d && d->name; d++)
			header[n++] = d->name;
	return n;
}

struct nb_csv *nb_cols_csv_open(const char *dir, const char *file, const char *const *fixed,
				size_t nfixed, struct nb_error *err)
{
	const char *header[MAX_COLS];
	size_t n = header_of(fixed, nfixed, header);
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return nb_csv_open(path, header, n, err);
}

struct nb_csv *nb_cols_csv_json(FILE *f, const char *name, const char *const *fixed, size_t nfixed,
				const char *prefix, struct nb_error *err)
{
	const char *header[MAX_COLS];
	size_t n = header_of(fixed, nfixed, header);
	return nb_csv_json(f, name, header, n, prefix, err);
}

void nb_cols_csv_write(struct nb_csv *c, const struct nb_metrics *m, const char *path)
{
	for (size_t i = 0; i < NB_COL_COUNT; i++)
		nb_csv_num(c, m->v[i]);
	nb_csv_str(c, path && *path ? path : NB_PATH_ALL);
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++)
		for (const struct nb_col_def *d = (*e)->columns; d && d->name; d++)
			nb_csv_num(c, m->own_of == *e ? m->own[d - (*e)->columns] : NAN);
	nb_csv_end(c);
}

bool nb_cols_csv_is_path(const char *path)
{
	return path && *path && strcmp(path, NB_PATH_ALL) != 0;
}

void nb_cols_csv_map(const struct nb_csv_table *t, int map[NB_COL_COUNT])
{
	for (int i = 0; i < NB_COL_COUNT; i++)
		map[i] = nb_csv_col(t, nb_cols[i].name);
}

void nb_cols_csv_read(const struct nb_csv_table *t, size_t r, const int map[NB_COL_COUNT],
		      struct nb_metrics *m)
{
	for (int i = 0; i < NB_COL_COUNT; i++)
		m->v[i] = nb_csv_num_cell(t, r, map[i]);
}

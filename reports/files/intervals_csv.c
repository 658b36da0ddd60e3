/* intervals.csv (see intervals_csv.h): written row by row, read into nb_results.ivals. */
#include "intervals_csv.h"

#include <stdlib.h>
#include <string.h>

#include "results_int.h"

static const char *const fixed_cols[] = {
	"run_id", "case_id", "rep", "stream", "direction", "t_start", "t_end", "omitted",
	"cooldown", "bytes", "packets", "bits_per_second",
};
#define NFIXED (sizeof(fixed_cols) / sizeof(fixed_cols[0]))

struct nb_csv *nb_intervals_csv_open(const char *dir, struct nb_error *err)
{
	return nb_cols_csv_open(dir, NB_INTERVALS_CSV_FILE, fixed_cols, NFIXED, err);
}

struct nb_csv *nb_intervals_csv_json(FILE *f, const char *name, const char *prefix,
				     struct nb_error *err)
{
	return nb_cols_csv_json(f, name, fixed_cols, NFIXED, prefix, err);
}

void nb_intervals_csv_write(struct nb_csv *c, const struct nb_interval *r)
{
	nb_csv_u64(c, r->run_id);
	nb_csv_str(c, r->case_id);
	nb_csv_u64(c, r->rep);
	if (r->stream < 0)
		nb_csv_str(c, "sum");
	else
		nb_csv_u64(c, (uint64_t)r->stream);
	nb_csv_str(c, r->direction ? r->direction : "");
	nb_csv_num(c, r->t_start);
	nb_csv_num(c, r->t_end);
	nb_csv_u64(c, r->omitted ? 1 : 0);
	nb_csv_u64(c, r->cooldown ? 1 : 0);
	nb_csv_num(c, r->m.v[NB_COL_RX_BYTES]);
	nb_csv_num(c, r->m.v[NB_COL_RX_PACKETS]);
	nb_csv_num(c, r->m.v[NB_COL_RX_BPS]);
	nb_cols_csv_write(c, &r->m, r->path);
}

/* Row r of the table into iv. */
static void read_row(const struct nb_csv_table *t, size_t r, const int map[NB_COL_COUNT],
		     struct nb_interval *iv)
{
	int c_run = nb_csv_col(t, "run_id"), c_case = nb_csv_col(t, "case_id");
	int c_rep = nb_csv_col(t, "rep"), c_stream = nb_csv_col(t, "stream");
	int c_dir = nb_csv_col(t, "direction");
	int c_ts = nb_csv_col(t, "t_start"), c_te = nb_csv_col(t, "t_end");
	int c_om = nb_csv_col(t, "omitted"), c_cd = nb_csv_col(t, "cooldown");
	const char *stream = nb_csv_cell(t, r, c_stream), *om = nb_csv_cell(t, r, c_om);
	iv->run_id = nb_csv_u32_cell(t, r, c_run);
	iv->case_id = nb_csv_cell(t, r, c_case);
	iv->rep = nb_csv_u32_cell(t, r, c_rep);
	iv->stream = strcmp(stream, "sum") == 0 ? -1 : (int32_t)strtol(stream, NULL, 10);
	iv->direction = nb_csv_cell(t, r, c_dir);
	iv->t_start = nb_csv_num_cell(t, r, c_ts);
	iv->t_end = nb_csv_num_cell(t, r, c_te);
	iv->omitted = strcmp(om, "1") == 0 || strcmp(om, "true") == 0;
	iv->cooldown = c_cd >= 0 && strcmp(nb_csv_cell(t, r, c_cd), "1") == 0;
	nb_cols_csv_read(t, r, map, &iv->m);
	iv->path = nb_csv_cell(t, r, nb_csv_col(t, "path"));
}

/* A path's own rows (a multi-path run) go to res->path_ivals, apart from the runs' rows. */
bool nb_intervals_csv_load(struct nb_results *res)
{
	const struct nb_csv_table *t = &res->iv_t;
	int map[NB_COL_COUNT];
	nb_cols_csv_map(t, map);
	res->ivals = calloc(t->nrows + 1, sizeof(*res->ivals));
	res->iv_sorted = calloc(t->nrows + 1, sizeof(*res->iv_sorted));
	res->path_ivals = calloc(t->nrows + 1, sizeof(*res->path_ivals));
	if (!res->ivals || !res->iv_sorted || !res->path_ivals)
		return false;
	for (size_t r = 0; r < t->nrows; r++) {
		struct nb_interval iv;
		read_row(t, r, map, &iv);
		if (nb_cols_csv_is_path(iv.path)) {
			res->path_ivals[res->npath_ivals++] = iv;
			continue;
		}
		res->ivals[res->nivals] = iv;
		res->iv_sorted[res->nivals] = &res->ivals[res->nivals];
		res->nivals++;
	}
	return true;
}

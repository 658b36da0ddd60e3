/* latency/run-<id>.csv (see hist_csv.h). */
#include "hist_csv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "afile.h"
#include "csv_read.h"
#include "results_int.h"

static void path_of(const char *dir, uint32_t run_id, char *buf, size_t len)
{
	snprintf(buf, len, "%s/" NB_HIST_CSV_DIR "/run-%" PRIu32 ".csv", dir, run_id);
}

bool nb_hist_csv_write(const char *dir, uint32_t run_id, const struct nb_hist *h,
		       struct nb_error *err)
{
	char path[4200];
	path_of(dir, run_id, path, sizeof(path));
	struct nb_afile a;
	if (!nb_afile_open(&a, path, err))
		return false;
	FILE *f = a.f;
	fprintf(f, "bucket_lower_ns,count\n");
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++) {
		uint64_t c = atomic_load_explicit(&h->counts[i], memory_order_relaxed);
		if (c)
			fprintf(f, "%llu,%llu\n", (unsigned long long)nb_hist_bucket_lower(i),
				(unsigned long long)c);
	}
	return nb_afile_commit(&a, err);
}

static uint64_t bucket_upper(size_t i)
{
	return i + 1 < NB_HIST_BUCKETS ? nb_hist_bucket_lower(i + 1) - 1 : NB_HIST_MAX_NS;
}

bool nb_hist_csv_read(const char *dir, uint32_t run_id, struct nb_hist *h, struct nb_error *err)
{
	char path[4200];
	path_of(dir, run_id, path, sizeof(path));
	struct nb_csv_table t;
	if (!nb_csv_read(path, &t, err))
		return false;
	nb_hist_init(h);
	int c_lo = nb_csv_col(&t, "bucket_lower_ns"), c_n = nb_csv_col(&t, "count");
	uint64_t count = 0, min = UINT64_MAX, max = 0;
	double sum = 0;
	for (size_t r = 0; r < t.nrows; r++) {
		double lo = nb_csv_num_cell(&t, r, c_lo), n = nb_csv_num_cell(&t, r, c_n);
		if (!(lo >= 0) || !(n > 0) || lo > (double)NB_HIST_MAX_NS)
			continue;
		size_t b = nb_hist_bucket_of((uint64_t)lo);
		uint64_t k = (uint64_t)n, blo = nb_hist_bucket_lower(b), bhi = bucket_upper(b);
		h->counts[b] += k;
		count += k;
		sum += (double)k * ((double)blo + (double)bhi) / 2.0;
		min = blo < min ? blo : min;
		max = bhi > max ? bhi : max;
	}
	nb_csv_table_free(&t);
	h->count = count;
	h->sum_ns = (uint64_t)sum;
	h->min_ns = min;
	h->max_ns = max;
	return true;
}

bool nb_hist_csv_load(struct nb_results *res)
{
	for (size_t i = 0; i < res->nruns; i++) {
		char path[4200];
		path_of(res->dir, res->runs[i].run_id, path, sizeof(path));
		if (access(path, F_OK) != 0)
			continue;
		struct nb_hist *h = nb_hist_create();
		if (!h)
			return false;
		struct nb_error err = { "" };
		if (!nb_hist_csv_read(res->dir, res->runs[i].run_id, h, &err) || h->count == 0) {
			nb_results_note(res, err.msg);
			nb_hist_destroy(h);
			continue;
		}
		res->runs[i].hist = h;
	}
	return true;
}

/* latency/run-<id>-<part>.csv (see working_hist.h). */
#include "working_hist.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "afile.h"
#include "csv_read.h"
#include "hist_csv.h"

static void path_of(const char *dir, uint32_t run_id, const char *part, char *buf, size_t len)
{
	snprintf(buf, len, "%s/" NB_HIST_CSV_DIR "/run-%" PRIu32 "-%s.csv", dir, run_id, part);
}

static uint64_t ld(const _Atomic uint64_t *a)
{
	return atomic_load_explicit(a, memory_order_relaxed);
}

static void phase_rows(FILE *f, const char *name, const struct nb_hist *h)
{
	unsigned long long min = ld(&h->min_ns), max = ld(&h->max_ns), ov = ld(&h->overflow);
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++) {
		uint64_t c = ld(&h->counts[i]);
		if (c)
			fprintf(f, "%s,%llu,%llu,%llu,%llu,%llu\n", name,
				(unsigned long long)nb_hist_bucket_lower(i), (unsigned long long)c,
				min, max, ov);
	}
	if (ov) /* the values above the range: a row of their own, in no bucket */
		fprintf(f, "%s,,0,%llu,%llu,%llu\n", name, min, max, ov);
}

bool nb_working_hist_write(const char *dir, uint32_t run_id, const char *part,
			   const char *const *name, const struct nb_hist *const *h, size_t n,
			   struct nb_error *err)
{
	char path[4200];
	path_of(dir, run_id, part, path, sizeof(path));
	struct nb_afile a;
	if (!nb_afile_open(&a, path, err))
		return false;
	fprintf(a.f, "phase,bucket_lower_ns,count,min_ns,max_ns,overflow\n");
	for (size_t i = 0; i < n; i++)
		if (name[i] && name[i][0] && h[i] && ld(&h[i]->count))
			phase_rows(a.f, name[i], h[i]);
	return nb_afile_commit(&a, err);
}

/* One phase's rows as a histogram of their own (min, max and overflow from the rows). */
static void read_phase(const struct nb_csv_table *t, const char *phase, struct nb_hist *p)
{
	int c_ph = nb_csv_col(t, "phase"), c_lo = nb_csv_col(t, "bucket_lower_ns");
	int c_n = nb_csv_col(t, "count"), c_min = nb_csv_col(t, "min_ns");
	int c_max = nb_csv_col(t, "max_ns"), c_ov = nb_csv_col(t, "overflow");
	uint64_t count = 0, ov = 0;
	double sum = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *ph = nb_csv_cell(t, r, c_ph);
		if (!ph || strcmp(ph, phase) != 0)
			continue;
		double lo = nb_csv_num_cell(t, r, c_lo), n = nb_csv_num_cell(t, r, c_n);
		p->min_ns = (uint64_t)nb_csv_num_cell(t, r, c_min);
		p->max_ns = (uint64_t)nb_csv_num_cell(t, r, c_max);
		ov = (uint64_t)nb_csv_num_cell(t, r, c_ov);
		if (!(lo >= 0) || !(n > 0) || lo > (double)NB_HIST_MAX_NS)
			continue;
		size_t b = nb_hist_bucket_of((uint64_t)lo);
		p->counts[b] += (uint64_t)n;
		count += (uint64_t)n;
		double hi = b + 1 < NB_HIST_BUCKETS ? (double)nb_hist_bucket_lower(b + 1) : lo;
		sum += n * ((double)nb_hist_bucket_lower(b) + hi) / 2.0;
	}
	p->overflow = ov;
	p->count = count + ov;
	p->sum_ns = (uint64_t)sum + ov * p->max_ns;
	if (!p->count)
		nb_hist_init(p);
}

bool nb_working_hist_add(const char *dir, uint32_t run_id, const char *part, const char *phase,
			 struct nb_hist *h, struct nb_error *err)
{
	char path[4200];
	path_of(dir, run_id, part, path, sizeof(path));
	struct nb_csv_table t;
	if (!nb_csv_read(path, &t, err))
		return false;
	struct nb_hist *p = nb_hist_create();
	if (!p) {
		nb_csv_table_free(&t);
		return nb_error_set(err, "%s: out of memory", path);
	}
	read_phase(&t, phase, p);
	nb_csv_table_free(&t);
	if (p->count)
		nb_hist_merge(h, p);
	nb_hist_destroy(p);
	return true;
}

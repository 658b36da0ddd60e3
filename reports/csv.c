#include "csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct nb_csv {
	FILE *f;
	size_t ncols;
	size_t cell;      /* cells written in the current row */
	bool failed;
};

struct nb_csv *nb_csv_open(const char *path, const char *const *header, size_t ncols,
			   struct nb_error *err)
{
	struct nb_csv *c = calloc(1, sizeof(*c));
	if (!c) {
		nb_error_set(err, "%s: out of memory", path);
		return NULL;
	}
	c->f = fopen(path, "a");
	if (!c->f) {
		nb_error_errno(err, errno, "cannot open %s", path);
		free(c);
		return NULL;
	}
	c->ncols = ncols;
	struct stat st;
	if (fstat(fileno(c->f), &st) == 0 && st.st_size == 0) {
		for (size_t i = 0; i < ncols; i++)
			nb_csv_str(c, header[i]);
		nb_csv_end(c);
	}
	return c;
}

bool nb_csv_close(struct nb_csv *c)
{
	if (!c)
		return true;
	bool ok = !c->failed;
	if (fclose(c->f) != 0)
		ok = false;
	free(c);
	return ok;
}

void nb_csv_quote(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void sep(struct nb_csv *c)
{
	if (c->cell++ > 0)
		fputc(',', c->f);
}

void nb_csv_str(struct nb_csv *c, const char *s)
{
	sep(c);
	nb_csv_quote(c->f, s);
}

void nb_csv_u64(struct nb_csv *c, uint64_t v)
{
	sep(c);
	fprintf(c->f, "%llu", (unsigned long long)v);
}

void nb_csv_num(struct nb_csv *c, double v)
{
	sep(c);
	if (isfinite(v))
		fprintf(c->f, "%.9g", v);
}

void nb_csv_end(struct nb_csv *c)
{
	fputc('\n', c->f);
	if (c->cell != c->ncols || fflush(c->f) != 0 || ferror(c->f))
		c->failed = true;
	c->cell = 0;
}

const char *const nb_runs_fixed_cols[] = {
	"run_id", "case_id", "test", "engine", "protocol", "rep", "kind", "offered_rate",
	"status", "metric", "value", "flags", "error", "started",
};
const size_t nb_runs_nfixed = sizeof(nb_runs_fixed_cols) / sizeof(nb_runs_fixed_cols[0]);

const char *const nb_intervals_fixed_cols[] = {
	"run_id", "case_id", "rep", "stream", "t_start", "t_end", "omitted",
	"bytes", "packets", "bits_per_second",
};
const size_t nb_intervals_nfixed = sizeof(nb_intervals_fixed_cols) / sizeof(nb_intervals_fixed_cols[0]);

static struct nb_csv *open_with_metrics(const char *dir, const char *file, const char *const *fixed,
					size_t nfixed, struct nb_error *err)
{
	const char *header[64 + NB_COL_COUNT];
	size_t n = 0;
	for (size_t i = 0; i < nfixed; i++)
		header[n++] = fixed[i];
	for (size_t i = 0; i < NB_COL_COUNT; i++)
		header[n++] = nb_cols[i].name;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return nb_csv_open(path, header, n, err);
}

static void write_metrics(struct nb_csv *c, const struct nb_metrics *m)
{
	for (size_t i = 0; i < NB_COL_COUNT; i++)
		nb_csv_num(c, m->v[i]);
	nb_csv_end(c);
}

struct nb_csv *nb_runs_csv_open(const char *dir, struct nb_error *err)
{
	return open_with_metrics(dir, "runs.csv", nb_runs_fixed_cols, nb_runs_nfixed, err);
}

void nb_runs_csv_write(struct nb_csv *c, const struct nb_run_row *r)
{
	nb_csv_u64(c, r->run_id);
	nb_csv_str(c, r->case_id);
	nb_csv_str(c, r->test);
	nb_csv_str(c, r->engine);
	nb_csv_str(c, r->protocol);
	nb_csv_u64(c, r->rep);
	nb_csv_str(c, r->kind);
	nb_csv_num(c, r->offered_rate);
	nb_csv_str(c, r->status);
	nb_csv_str(c, r->metric);
	nb_csv_num(c, r->value);
	nb_csv_str(c, r->flags);
	nb_csv_str(c, r->error);
	nb_csv_str(c, r->started);
	write_metrics(c, &r->m);
}

struct nb_csv *nb_intervals_csv_open(const char *dir, struct nb_error *err)
{
	return open_with_metrics(dir, "intervals.csv", nb_intervals_fixed_cols, nb_intervals_nfixed,
				 err);
}

void nb_intervals_csv_write(struct nb_csv *c, const struct nb_interval_row *r)
{
	nb_csv_u64(c, r->run_id);
	nb_csv_str(c, r->case_id);
	nb_csv_u64(c, r->rep);
	if (r->stream < 0)
		nb_csv_str(c, "sum");
	else
		nb_csv_u64(c, (uint64_t)r->stream);
	nb_csv_num(c, r->t_start);
	nb_csv_num(c, r->t_end);
	nb_csv_u64(c, r->omitted ? 1 : 0);
	nb_csv_num(c, r->m.v[NB_COL_RX_BYTES]);
	nb_csv_num(c, r->m.v[NB_COL_RX_PACKETS]);
	nb_csv_num(c, r->m.v[NB_COL_RX_BPS]);
	write_metrics(c, &r->m);
}

/* Loading a results folder (see results.h): the CSV tables are read here, each file's owner
 * turns its part into nb_results, and the runs are indexed to their interval rows. */
#include "results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env_json.h"
#include "results_int.h"

static bool read_table(struct nb_results *res, const char *file, struct nb_csv_table *t,
		       struct nb_error *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", res->dir, file);
	if (!nb_csv_read(path, t, err))
		return false;
	res->incomplete += t->incomplete;
	nb_results_note(res, t->problem);
	return true;
}

static int cmp_iv(const void *a, const void *b)
{
	const struct nb_interval *x = *(struct nb_interval *const *)a, *y = *(struct nb_interval *const *)b;
	if (x->run_id != y->run_id)
		return x->run_id < y->run_id ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return (x->t_start > y->t_start) - (x->t_start < y->t_start);
}

/* Each run's aggregate rows: the "sum" rows, or the rows of its lowest stream when
 * the writer recorded no sum (a single flow). */
static void index_intervals(struct nb_results *res)
{
	qsort(res->iv_sorted, res->nivals, sizeof(*res->iv_sorted), cmp_iv);
	for (size_t i = 0; i < res->nruns; i++) {
		struct nb_run *run = &res->runs[i];
		size_t lo = 0, hi = res->nivals;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (res->iv_sorted[mid]->run_id < run->run_id)
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t n = 0;
		while (lo + n < res->nivals && res->iv_sorted[lo + n]->run_id == run->run_id &&
		       res->iv_sorted[lo + n]->stream == res->iv_sorted[lo]->stream)
			n++;
		run->iv_first = lo;
		run->iv_n = n;
	}
}

bool nb_run_counts(const struct nb_run *r)
{
	return !nb_run_kind_swept(r->kind) && strcmp(r->status, "ok") == 0;
}

static bool load_tables(struct nb_results *res, struct nb_error *err)
{
	struct nb_error e1 = { "" }, e2 = { "" }, e3 = { "" };
	bool have_plan = nb_results_has(res, NB_PLAN_CSV_FILE) &&
			 read_table(res, NB_PLAN_CSV_FILE, &res->plan_t, &e1);
	bool have_runs = nb_results_has(res, NB_RUNS_CSV_FILE) &&
			 read_table(res, NB_RUNS_CSV_FILE, &res->runs_t, &e2);
	if (!have_plan && !have_runs)
		return nb_error_set(err, "%s: no readable " NB_PLAN_CSV_FILE " or " NB_RUNS_CSV_FILE "%s%s",
				    res->dir, *e1.msg ? " (" : "", *e1.msg ? e1.msg : "");
	nb_results_note(res, e1.msg);
	nb_results_note(res, e2.msg);
	if (nb_results_has(res, NB_INTERVALS_CSV_FILE) &&
	    !read_table(res, NB_INTERVALS_CSV_FILE, &res->iv_t, &e3))
		nb_results_note(res, e3.msg);
	return true;
}

/* The files beside the CSV tables: each is optional, a broken one becomes a problem note. */
static bool load_others(struct nb_results *res)
{
	nb_meta_json_load(res);
	nb_sweeps_json_load(res);
	nb_working_csv_load(res);
	nb_sweep_latency_csv_load(res);
	nb_env_json_load(res);
	return nb_hist_csv_load(res);
}

bool nb_results_load(const char *dir, struct nb_results *res, struct nb_error *err)
{
	memset(res, 0, sizeof(*res));
	snprintf(res->dir, sizeof(res->dir), "%s", dir);
	nb_facts_init(&res->local);
	nb_facts_init(&res->peer);
	if (!load_tables(res, err)) {
		nb_results_free(res);
		return false;
	}
	bool ok = nb_plan_csv_load(res, res->runs_t.nrows) && nb_runs_csv_load(res) &&
		  nb_intervals_csv_load(res) && load_others(res);
	if (!ok) {
		nb_results_free(res);
		return nb_error_set(err, "%s: out of memory", dir);
	}
	index_intervals(res);
	return true;
}

void nb_results_free(struct nb_results *res)
{
	for (size_t i = 0; i < res->nruns; i++)
		nb_hist_destroy(res->runs[i].hist);
	free(res->runs);
	free(res->path_runs);
	free(res->path_ivals);
	free(res->cases);
	free(res->ivals);
	free(res->iv_sorted);
	nb_csv_table_free(&res->plan_t);
	nb_csv_table_free(&res->runs_t);
	nb_csv_table_free(&res->working_t);
	nb_csv_table_free(&res->sweep_latency_t);
	nb_csv_table_free(&res->iv_t);
	nb_facts_free(&res->local);
	nb_facts_free(&res->peer);
	nb_env_hosts_free(&res->hosts);
	nb_meta_json_free(&res->meta);
	memset(res, 0, sizeof(*res));
}

/* nbrun — a batch's rows writer (see rows.h). */
#include "rows.h"

#include "intervals_csv.h"
#include "runs_csv.h"

bool nb_rows_open(struct nb_rows *w, const char *dir, const struct nb_meta *meta,
		  struct nb_error *err)
{
	w->runs = nb_runs_csv_open(dir, err);
	w->jsonl = w->runs ? nb_runs_jsonl_open(dir, meta, err) : NULL;
	w->intervals = w->jsonl ? nb_intervals_csv_open(dir, err) : NULL;
	return w->intervals != NULL;
}

void nb_rows_interval(struct nb_rows *w, const struct nb_engine *e, const struct nb_interval *row,
		      bool whole)
{
	nb_intervals_csv_write(w->intervals, row);
	nb_json_stream_interval(w->stream, row);
	if (whole)
		nb_live_interval(w->live, e, row);
}

void nb_rows_run(struct nb_rows *w, const struct nb_engine *e, const struct nb_run *row)
{
	nb_runs_csv_write(w->runs, row);
	struct nb_error jerr;
	if (!nb_runs_jsonl_write(w->jsonl, row, &jerr))
		nb_rows_failed(w, &jerr);
	nb_json_stream_run(w->stream, row);
	if (!row->path)
		nb_live_run(w->live, e, row);
}

void nb_rows_failed(struct nb_rows *w, const struct nb_error *err)
{
	if (!w->write_failed)
		w->werr = *err;
	w->write_failed = true;
	if (w->running)
		w->running->impl->abort(w->running);
}

void nb_rows_check(struct nb_rows *w)
{
	struct nb_error err = { { 0 } };
	if (!nb_csv_ok(w->intervals, &err) || !nb_csv_ok(w->runs, &err))
		nb_rows_failed(w, &err);
}

void nb_rows_sync(struct nb_rows *w)
{
	struct nb_error err = { { 0 } };
	if ((w->runs && !nb_csv_sync(w->runs, &err)) || !nb_runs_jsonl_sync(w->jsonl, &err) ||
	    (w->intervals && !nb_csv_sync(w->intervals, &err)) ||
	    (w->working && !nb_csv_sync(w->working, &err)) ||
	    (w->sweep_latency && !nb_csv_sync(w->sweep_latency, &err)))
		nb_rows_failed(w, &err);
}

void nb_rows_close(struct nb_rows *w)
{
	nb_rows_sync(w);
	nb_csv_finish(w->runs, NULL);
	nb_csv_finish(w->intervals, NULL);
	nb_csv_finish(w->working, NULL);
	nb_csv_finish(w->sweep_latency, NULL);
	nb_runs_jsonl_close(w->jsonl);
	w->runs = w->intervals = w->working = w->sweep_latency = NULL;
	w->jsonl = NULL;
}

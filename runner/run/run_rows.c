/* nbrun — a run's row (see run_int.h): the notes that change how it reads, its status, and
 * the row in runs.csv and runs.jsonl. Kept apart from the run loop (run.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run_int.h"
#include "cols.h"
#include "flags.h"
#include "metrics.h"
#include "params.h"
#include "runs_csv.h"
#include "udpgso.h"

#define LITTLE_TOLERANCE 0.05

/* Notes on a run that change how it should be read; paths: how many paths its numbers add up
 * (each path keeps its own streams outstanding). */
static void run_flags(const struct nb_batch *b, const struct nb_case *c,
		      const struct nb_test_result *res, size_t paths, char *out, size_t n)
{
	out[0] = '\0';
	const struct nb_params *p = &c->params;
	const struct nb_metrics *m = &res->m;
	double tps = m->v[NB_COL_TRANS_PER_S], mean_us = m->v[NB_COL_LAT_MEAN_US];
	if (nb_engine_closed_loop(c->engine, p->rate) && tps > 0 && mean_us > 0) {
		double little = (double)p->streams * (double)paths / tps * 1e6;
		if (fabs(mean_us / little - 1.0) > LITTLE_TOLERANCE)
			nb_flags_add(out, n, "littles-law");
	}
	/* A receiver that asked for GRO on a local path: buffers never cut into datagrams. */
	if (nb_flags_gauge_max(res, NB_G_GRO) == NB_GRO_ON && b->ends.peer_local)
		nb_flags_add(out, n, "gro-local");
	uint64_t sock = res->lfinal && res->lfinal->nflows ? res->lfinal->flow[0].g[NB_G_ICMP_SOCKET] : 0;
	if (sock) /* which ICMP socket the kernel allowed: the unprivileged ping socket, or raw */
		nb_flags_add(out, n, sock == 1 ? "icmp-ping-socket" : "icmp-raw-socket");
	nb_flags_data_path(res, p, out, n);
	nb_flags_totals(res, c->engine, p, out, n);
	nb_flags_sched_lag(m, out, n);
	nb_flags_verdict(&res->verdict, out, n);
}

enum nb_progress_end nb_run_progress_end(enum nb_outcome o)
{
	return o == NB_OUT_OK ? NB_PROGRESS_MEASURED
	       : o == NB_OUT_INTERRUPTED ? NB_PROGRESS_INTERRUPTED : NB_PROGRESS_FAILED;
}

/* A run that measured is a result only when its readings hold nothing against it: counters no
 * honest end shows make it suspect, a UDP run that received nothing failed, a stall of the
 * measuring process invalid; its error says why (docs/engines.md "When a run is not a result").
 * A late tick whose engine threads kept their pace is only flagged (timeline-stall). */
const char *nb_run_status(enum nb_outcome o, const struct nb_test_result *res, char *why, size_t n)
{
	const struct nb_run_verdict *v = &res->verdict;
	snprintf(why, n, "%s", res->error);
	if (o != NB_OUT_OK)
		return o == NB_OUT_INTERRUPTED ? "interrupted" : "failed";
	nb_run_verdict_text(v, why, n); /* every finding, the worst first */
	return v->suspect[0] ? "suspect" : v->nothing[0] ? "failed" : v->stalled ? "invalid" : "ok";
}

enum nb_outcome nb_run_judged(enum nb_outcome o, const struct nb_test_result *res)
{
	return o == NB_OUT_OK && nb_run_verdict_any(&res->verdict) ? NB_OUT_CASE_FAILED : o;
}

/* rep is the plan's (0-based); the files, the progress and the report count from 1. A path's
 * own row (path not NULL) is part of its run and counts in no total. */
void nb_run_write_row(struct nb_batch *b, const struct nb_case *c, uint32_t rep, const char *started,
		      enum nb_outcome o, const struct nb_test_result *res, const char *path,
		      uint32_t npaths)
{
	char flags[384], why[sizeof(res->error) + sizeof(res->verdict.suspect) + 32];
	run_flags(b, c, res, !path && npaths > 1 ? npaths : 1, flags, sizeof(flags));
	enum nb_col head = nb_metrics_headline(c->engine);
	const char *status = nb_run_status(o, res, why, sizeof(why));
	struct nb_run row = {
		.run_id = b->rows.run_id, .case_id = c->id, .test = c->test->name, .engine = c->params.engine,
		.protocol = nb_proto_name(c->params.proto), .rep = rep + 1, .kind = "run",
		.offered_rate = NAN,
		.status = status, .metric = nb_cols[head].name,
		.value = strcmp(status, "ok") == 0 ? res->m.v[head] : NAN, .flags = flags, .error = why,
		.started = started, .m = res->m, .path = path,
	};
	nb_rows_run(&b->rows, c->engine, &row);
	nb_rows_check(&b->rows);
	if (path)
		return;
	o = nb_run_judged(o, res);
	b->meta.runs_ok += o == NB_OUT_OK;
	b->meta.runs_interrupted += o == NB_OUT_INTERRUPTED;
	b->meta.runs_failed += o == NB_OUT_CASE_FAILED || o == NB_OUT_PEER_LOST;
}

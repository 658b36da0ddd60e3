/* nbrun — `nbrun resume DIR` (nb_run_resume, run.h): a batch cut short (a signal, a lost
 * peer, failed runs) continues from its own folder. The plan comes back from config.yaml —
 * refused when its sha256 is not the one meta.json recorded — with the --set and --filter of
 * meta.json, and must give plan.csv's cases again. A case x repetition with an ok row in
 * runs.csv is done (the files number repetitions from 1, the plan from 0), as is a sweep
 * with a finished entry in sweeps.json; everything else runs,
 * with run ids after the last one in runs.csv. An interrupted sweep's entry is dropped first
 * (its trials stay in runs.csv; the report shows the new attempt's, from its first run id). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "config_copy.h"
#include "outdir.h"
#include "results.h"
#include "sweeps_json.h"

/* What resume holds besides the batch: the config, plan and meta.json it came from. */
struct resume {
	char path[4200];
	struct nb_config cfg;
	struct nb_plan plan;
	struct nb_meta meta;
	struct nb_run_opts o;
	char peer[300];  /* the recorded peer's host, when meta.json names an agentless batch */
	const char *peers[NB_META_PATHS_MAX]; /* a multi-path batch: every path's agent */
};

/* A batch that ran on several paths goes on on the same paths (meta.json's), unless --peer
 * names one. */
static void recorded_paths(struct resume *r, const struct nb_run_opts *o)
{
	if (o->peer || r->meta.npaths < 2)
		return;
	size_t n = 0;
	for (size_t i = 0; i < r->meta.npaths; i++)
		if (r->meta.paths[i].peer)
			r->peers[n++] = r->meta.paths[i].peer;
	r->o.peers = r->peers;
	r->o.npeers = n;
	r->o.peer = n ? r->peers[0] : r->o.peer;
}

static bool load_config(const char *dir, struct resume *r, struct nb_error *err)
{
	struct nb_error why = { { 0 } };
	if (!nb_meta_json_read(dir, &r->meta, &why))
		return nb_error_set(err, "%s: not a results folder nbrun can resume (%s)", dir,
				    why.msg);
	snprintf(r->path, sizeof(r->path), "%s/" NB_CONFIG_COPY_FILE, dir);
	if (!nb_config_load(r->path, r->meta.sets, r->meta.nsets, &r->cfg, err))
		return false;
	char sha[65];
	nb_outdir_sha256_hex(r->cfg.text, r->cfg.text_len, sha);
	if (!r->meta.config_sha256 || strcmp(sha, r->meta.config_sha256) != 0)
		return nb_error_set(err, "%s changed since the batch started (sha256 %.12s…, meta.json "
				    "recorded %.12s…): resume runs the config that ran", r->path, sha,
				    r->meta.config_sha256 ? r->meta.config_sha256 : "nothing");
	return nb_plan_build(&r->cfg, r->meta.filters, r->meta.nfilters, &r->plan, err);
}

/* Whether id is a probe's case of one of the plan's working cases (its rows in runs.csv add
 * it to the cases read back, after plan.csv's). */
static bool probe_of_plan(const struct nb_plan *plan, const char *id)
{
	struct nb_case pc;
	for (size_t i = 0; i < plan->ncases; i++)
		for (uint32_t k = 0; nb_plan_probe_case(&plan->cases[i], k, &pc); k++)
			if (strcmp(pc.id, id) == 0)
				return true;
	return false;
}

/* The plan rebuilt must be plan.csv's, case for case; the cases read back after them are the
 * probes of its working cases, which runs.csv names and plan.csv does not. */
static bool same_plan(const struct nb_plan *plan, const struct nb_results *res, const char *dir,
		      struct nb_error *err)
{
	for (size_t i = 0; i < plan->ncases || i < res->ncases; i++) {
		const char *want = i < res->ncases ? res->cases[i].case_id : "nothing";
		const char *got = i < plan->ncases ? plan->cases[i].id : "nothing";
		if (i >= plan->ncases && probe_of_plan(plan, want))
			continue;
		if (strcmp(want, got) != 0)
			return nb_error_set(err, "%s/plan.csv does not match its config.yaml: case %zu is "
					    "%s there, %s now", dir, i + 1, want, got);
	}
	return true;
}

static bool add_done(struct nb_batch *b, uint32_t ci, uint32_t rep)
{
	struct nb_slot *v = realloc(b->done, (b->ndone + 1) * sizeof(*v));
	if (!v)
		return false;
	b->done = v;
	b->done[b->ndone++] = (struct nb_slot){ ci, rep };
	return true;
}

/* A sweep is done per repetition when sweeps.json has a finished entry for it; an interrupted
 * one is dropped so the new attempt's entry is the one the report reads. */
static bool sweeps_done(struct nb_batch *b, const struct nb_results *res, uint32_t ci,
			struct nb_error *err)
{
	const struct nb_case *c = &b->plan->cases[ci];
	struct nb_sweep_result sw;
	for (size_t nth = 0; nb_sweeps_json_goal(res, c->id, nth, &sw); nth++)
		if (!sw.interrupted && sw.rep > 0 && !add_done(b, ci, sw.rep - 1))
			return nb_error_set(err, "out of memory");
	for (size_t nth = 0; nb_sweeps_json_goal(res, c->id, nth, &sw); nth++)
		if (sw.interrupted && !nb_sweeps_json_drop(b->dir, c->id, sw.rep, err))
			return false;
	return true;
}

/* The pairs runs.csv already has, the values auto repetitions go on from, the last run id. */
static bool find_done(struct nb_batch *b, const struct nb_results *res, struct nb_error *err)
{
	for (size_t i = 0; i < res->nruns; i++) {
		const struct nb_run *run = &res->runs[i];
		size_t ci = run->case_idx;
		b->rows.run_id = run->run_id > b->rows.run_id ? run->run_id : b->rows.run_id;
		if (ci >= b->plan->ncases || !nb_run_counts(run) || run->rep == 0)
			continue;
		if (!add_done(b, (uint32_t)ci, run->rep - 1)) /* the files count from 1 */
			return nb_error_set(err, "out of memory");
		nb_stats_add(&b->stats[ci], run->value);
	}
	for (uint32_t ci = 0; ci < b->plan->ncases; ci++)
		if (b->plan->cases[ci].sweep.enabled && !sweeps_done(b, res, ci, err))
			return false;
	return true;
}

/* The folder is this batch's again: meta.json says when it was resumed. */
static bool adopt(struct nb_batch *b, const char *dir, struct resume *r, struct nb_error *err)
{
	struct nb_results res;
	snprintf(b->dir, sizeof(b->dir), "%s", dir);
	if (!nb_results_load(dir, &res, err))
		return false;
	bool ok = same_plan(&r->plan, &res, dir, err) && find_done(b, &res, err);
	nb_results_free(&res);
	b->meta = r->meta;
	nb_outdir_utc_now(b->resumed, sizeof(b->resumed));
	b->meta.resumed = b->resumed;
	b->meta.complete = false;
	b->claimed = ok;
	return ok;
}

/* The peer meta.json names: NULL for the embedded agent; the host of an agentless batch. */
static const char *recorded_peer(const struct nb_meta *m, char *buf, size_t n)
{
	if (!m->peer || strcmp(m->peer, NB_META_EMBEDDED_PEER) == 0)
		return NULL;
	const char *tail = strstr(m->peer, NB_META_AGENTLESS_PEER);
	if (!tail)
		return m->peer;
	snprintf(buf, n, "%.*s", (int)(tail - m->peer), m->peer);
	return buf;
}

static enum nb_run_exit resume_batch(const char *dir, struct resume *r, struct nb_error *err)
{
	struct nb_batch b;
	enum nb_run_exit rc = NB_EXIT_USAGE;
	if (!nb_batch_init(&b, &r->cfg, &r->plan, &r->o))
		nb_error_set(err, "out of memory");
	else if (adopt(&b, dir, r, err))
		rc = nb_ends_connect(&b.ends, err);
	if (b.claimed && rc == NB_EXIT_OK)
		rc = nb_run_batch(&b, err);
	nb_batch_close(&b, false, NULL);
	nb_batch_free(&b);
	return rc;
}

enum nb_run_exit nb_run_resume(const char *dir, const struct nb_run_opts *o, struct nb_error *err)
{
	struct resume *r = calloc(1, sizeof(*r));
	if (!r)
		return nb_error_set(err, "out of memory"), NB_EXIT_USAGE;
	enum nb_run_exit rc = NB_EXIT_USAGE;
	if (load_config(dir, r, err)) {
		r->o = *o;
		r->o.peer = o->peer ? o->peer : recorded_peer(&r->meta, r->peer, sizeof(r->peer));
		recorded_paths(r, o);
		r->o.out_dir = dir;
		r->o.force = false;
		rc = resume_batch(dir, r, err);
	}
	nb_plan_free(&r->plan);
	nb_config_free(&r->cfg);
	nb_meta_json_free(&r->meta);
	free(r);
	return rc;
}

/* nbrun — the run loop (see run.h). */
#include "run.h"

#include <math.h>
#include <sched.h>
#include <netinet/in.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "client.h"
#include "cols.h"
#include "ctl.h"
#include "env.h"
#include "env_json.h"
#include "hist_csv.h"
#include "meta_json.h"
#include "metrics.h"
#include "outdir.h"
#include "params.h"
#include "fmt.h"
#include "progress.h"
#include "report.h"
#include "interval_rows.h"
#include "runs_csv.h"
#include "stats.h"
#include "sweep_run.h"

#define LITTLE_TOLERANCE 0.05

struct batch {
	const struct nb_config *cfg;
	const struct nb_plan *plan;
	const struct nb_run_opts *o;
	char dir[4096];
	struct nb_agent *local_agent;
	struct nb_secret local_secret; /* the embedded agent's: no other local user can take it */
	struct nb_client client;
	struct nb_csv *runs, *intervals;
	struct nb_meta meta;
	char sha256[65], started[32], finished[32]; /* meta's strings */
	uint32_t run_id;
	bool peer_local;            /* loopback path: GRO artefacts possible */
	struct nb_progress *progress;
	struct nb_stats *stats;     /* per case: headline values of its successful runs */
	size_t runs_done;
};

/* What the interval sink needs to know to write rows. */
struct row_ctx {
	struct batch *b;
	const struct nb_case *c;
	uint32_t run_id, rep;
	const struct nb_msg_setup *su;
};

static void write_interval(void *ctx, uint32_t k, const struct nb_span *span, const struct nb_hist *hist)
{
	struct row_ctx *r = ctx;
	nb_rows_write_interval(r->b->intervals, r->c->engine, r->su, r->run_id, r->rep, k, span, hist);
	nb_progress_tick(r->b->progress);
}

static void build_setup(const struct nb_case *c, uint32_t run_id, struct nb_msg_setup *su)
{
	memset(su, 0, sizeof(*su));
	su->run_id = run_id;
	snprintf(su->case_id, sizeof(su->case_id), "%s", c->id);
	su->params = c->params;
	su->warmup_ns = c->timing.warmup_ns;
	su->omit_ns = c->timing.omit_ns;
	su->duration_ns = c->timing.duration_ns;
	su->interval_ns = c->timing.interval_ns;
	su->drain_ns = nb_engine_drain_ns(c->engine, &c->params);
}

/* Notes on a run that change how it should be read. */
static void run_flags(const struct batch *b, const struct nb_case *c, const struct nb_metrics *m,
		      char *out, size_t n)
{
	out[0] = '\0';
	const struct nb_params *p = &c->params;
	double tps = m->v[NB_COL_TRANS_PER_S], mean_us = m->v[NB_COL_LAT_MEAN_US];
	if (nb_engine_closed_loop(c->engine, p->rate) && tps > 0 && mean_us > 0) {
		double little = (double)p->streams / tps * 1e6;
		if (fabs(mean_us / little - 1.0) > LITTLE_TOLERANCE)
			snprintf(out + strlen(out), n - strlen(out), "%slittles-law", out[0] ? ";" : "");
	}
	if (p->gso && b->peer_local) /* only engines that take `gso` ever have it set */
		snprintf(out + strlen(out), n - strlen(out), "%sgro-local", out[0] ? ";" : "");
}

static void write_run(struct batch *b, const struct nb_case *c, uint32_t rep, const char *started,
		      enum nb_outcome o, const struct nb_test_result *res)
{
	char flags[128];
	run_flags(b, c, &res->m, flags, sizeof(flags));
	enum nb_col head = nb_metrics_headline(c->engine);
	struct nb_run row = {
		.run_id = b->run_id, .case_id = c->id, .test = c->test->name, .engine = c->params.engine,
		.protocol = nb_proto_name(c->params.proto), .rep = rep, .kind = "run", .offered_rate = NAN,
		.status = o == NB_OUT_OK ? "ok" : "failed", .metric = nb_cols[head].name,
		.value = o == NB_OUT_OK ? res->m.v[head] : NAN, .flags = flags, .error = res->error,
		.started = started, .m = res->m,
	};
	nb_runs_csv_write(b->runs, &row);
	if (o == NB_OUT_OK)
		b->meta.runs_ok++;
	else
		b->meta.runs_failed++;
}

static void progress_done(const struct batch *b, const struct nb_case *c, uint32_t rep,
			  enum nb_outcome o, const struct nb_test_result *res)
{
	char text[NB_TEXT_MAX + 96];
	enum nb_col head = nb_metrics_headline(c->engine);
	if (o == NB_OUT_OK)
		nb_fmt_value(res->m.v[head], nb_cols[head].unit, text, sizeof(text));
	else
		snprintf(text, sizeof(text), "FAILED: %s", res->error);
	nb_progress_run_done(b->progress, c->id, rep + 1, text);
}

/* One case x repetition. */
static enum nb_outcome run_one(struct batch *b, uint32_t case_index, uint32_t rep,
			       struct nb_error *err)
{
	const struct nb_case *c = &b->plan->cases[case_index];
	nb_progress_run_start(b->progress, case_index + 1, b->plan->ncases, c->id, rep + 1,
			      c->reps.autorep ? c->reps.max : c->reps.count);
	if (c->sweep.enabled) { /* a sweep or search: its trials are runs of their own (sweep_run.c) */
		struct nb_sweep_env se = {
			.client = &b->client, .runs = b->runs, .intervals = b->intervals, .dir = b->dir,
			.run_id = &b->run_id, .runs_ok = &b->meta.runs_ok, .runs_failed = &b->meta.runs_failed,
			.interrupt = b->o->interrupt, .verbosity = b->o->verbosity, .progress = b->progress,
		};
		b->runs_done++;
		return nb_sweep_case(&se, c, rep, err);
	}
	struct nb_msg_setup su;
	build_setup(c, ++b->run_id, &su);
	char started[32];
	nb_outdir_utc_now(started, sizeof(started));
	struct row_ctx rc = { .b = b, .c = c, .run_id = b->run_id, .rep = rep, .su = &su };
	struct nb_test_sink sink = { .ctx = &rc, .interval = write_interval };
	struct nb_test_result res;
	enum nb_outcome o = nb_client_test(&b->client, &su, &sink, &res, err);
	if (o == NB_OUT_PEER_LOST)
		snprintf(res.error, sizeof(res.error), "%s", err->msg);
	write_run(b, c, rep, started, o, &res);
	if (o == NB_OUT_OK)
		nb_stats_add(&b->stats[case_index], res.m.v[nb_metrics_headline(c->engine)]);
	struct nb_error herr;
	if (res.hist && !nb_hist_csv_write(b->dir, b->run_id, res.hist, &herr))
		fprintf(stderr, "nbrun: %s\n", herr.msg);
	nb_test_result_free(&res);
	progress_done(b, c, rep, o, &res);
	b->runs_done++;
	return o;
}

/* ---- setting up and closing the batch ---- */

static bool connect_peer(struct batch *b, struct nb_error *err)
{
	struct sockaddr_storage addr;
	socklen_t len;
	char name[160];
	const struct nb_secret *secret = b->o->secret;
	if (b->o->peer) {
		if (!nb_ctl_resolve(b->o->peer, NB_DEFAULT_CONTROL_PORT, &addr, &len, err))
			return false;
		snprintf(name, sizeof(name), "%s", b->o->peer);
	} else {
		nb_secret_random(&b->local_secret);
		secret = &b->local_secret;
		struct nb_agent_opts ao = { .bind = "127.0.0.1", .port = 0, .idle_timeout_s = 3600,
					    .verbosity = -1, .collect_facts = true, .secret = secret };
		b->local_agent = nb_agent_create(&ao, err);
		if (!b->local_agent || !nb_agent_start_thread(b->local_agent, err))
			return false;
		snprintf(name, sizeof(name), "127.0.0.1:%u", nb_agent_port(b->local_agent));
		if (!nb_ctl_resolve(name, 0, &addr, &len, err))
			return false;
	}
	if (!nb_client_open(&b->client, name, &addr, len, secret, err))
		return false;
	b->client.interrupt = b->o->interrupt;
	b->peer_local = strcmp(b->client.ifname, "lo") == 0 || strncmp(b->client.ifname, "veth", 4) == 0;
	return true;
}

/* The CPUs the client's engine threads may run on: the cases' `cpus` when any pins, else the
 * process's affinity. Written as a CPU list ("0-1,4"). */
static void engine_cpus(const struct nb_plan *plan, char *out, size_t n, bool *pinned)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	*pinned = false;
	for (size_t i = 0; i < plan->ncases; i++) {
		const struct nb_params *p = &plan->cases[i].params;
		for (uint32_t k = 0; k < p->ncpus; k++, *pinned = true)
			CPU_SET(p->cpus[k], &set);
	}
	if (!*pinned && sched_getaffinity(0, sizeof(set), &set) != 0)
		CPU_ZERO(&set);
	size_t used = 0;
	out[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && used < n; c++) {
		if (!CPU_ISSET(c, &set) || (c > 0 && CPU_ISSET(c - 1, &set)))
			continue;
		int end = c;
		while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set))
			end++;
		int w = end > c ? snprintf(out + used, n - used, "%s%d-%d", used ? "," : "", c, end)
				: snprintf(out + used, n - used, "%s%d", used ? "," : "", c);
		used += w > 0 ? (size_t)w : 0;
	}
}

static bool write_env(struct batch *b, struct nb_error *err)
{
	struct nb_facts local;
	nb_facts_init(&local);
	nb_env_collect("/", (struct sockaddr *)&b->client.addr, b->client.addr_len, &local);
	char cpus[256];
	bool pinned;
	engine_cpus(b->plan, cpus, sizeof(cpus), &pinned);
	nb_env_add_nbrun(&local, pinned ? "one thread per flow; flow i pinned to cpus[i % n]"
					: "one thread per flow, not pinned (the scheduler places them)",
			 cpus[0] ? cpus : NULL);
	char path[4200];
	snprintf(path, sizeof(path), "%s/" NB_ENV_JSON_FILE, b->dir);
	bool ok = nb_env_json_write(path, &local, &b->client.peer_facts, err);
	nb_facts_free(&local);
	return ok;
}

static bool open_batch(struct batch *b, struct nb_error *err)
{
	nb_outdir_sha256_hex(b->cfg->text ? b->cfg->text : "", b->cfg->text_len, b->sha256);
	nb_outdir_utc_now(b->started, sizeof(b->started));
	b->meta = (struct nb_meta){ .command = b->o->cmdline, .config_name = b->cfg->name,
				    .config_sha256 = b->sha256, .started = b->started,
				    .peer = b->o->peer ? b->o->peer : "embedded agent on 127.0.0.1",
				    .order = nb_order_name(b->cfg->order) };
	if (!nb_outdir_open(b->o->out_dir, b->cfg, b->plan, b->dir, sizeof(b->dir), err) ||
	    !nb_meta_json_write(b->dir, &b->meta, err))
		return false;
	b->runs = nb_runs_csv_open(b->dir, err);
	b->intervals = b->runs ? nb_intervals_csv_open(b->dir, err) : NULL;
	return b->intervals != NULL;
}

static void close_batch(struct batch *b, bool complete)
{
	nb_client_close(&b->client);
	nb_agent_destroy(b->local_agent);
	if (!nb_csv_close(b->runs) || !nb_csv_close(b->intervals))
		fprintf(stderr, "nbrun: writing results in %s failed (disk full?)\n", b->dir);
	b->meta.complete = complete;
	nb_outdir_utc_now(b->finished, sizeof(b->finished));
	b->meta.finished = b->finished;
	struct nb_error err = { { 0 } };
	if (b->dir[0] && !nb_meta_json_write(b->dir, &b->meta, &err))
		fprintf(stderr, "nbrun: %s\n", err.msg);
}

static void build_report(struct batch *b)
{
	struct nb_report_info info;
	struct nb_error err = { { 0 } };
	if (!nb_report_build_warn(b->dir, &info, b->o->verbosity >= 0 ? stderr : NULL, &err))
		fprintf(stderr, "nbrun: report: %s\n", err.msg);
	if (b->o->verbosity >= 0)
		fprintf(stderr, "nbrun: results in %s (report.md, summary.csv, runs.csv, intervals.csv)\n",
			b->dir);
}

static bool interrupted(const struct batch *b)
{
	return b->o->interrupt && atomic_load(b->o->interrupt);
}

/* Fold one run's outcome into the batch's exit code; false when the batch must stop. */
static bool account(enum nb_outcome out, enum nb_run_exit *rc)
{
	if (out == NB_OUT_CASE_FAILED && *rc == NB_EXIT_OK)
		*rc = NB_EXIT_CASES_FAILED;
	if (out == NB_OUT_PEER_LOST)
		*rc = NB_EXIT_PEER;
	return out != NB_OUT_PEER_LOST;
}

/* repetitions: auto — repeat each such case until its 95 % CI is narrow enough (netperf's
 * -I/-i rule), after the planned minimum ran in the configured order. */
static bool run_auto_reps(struct batch *b, enum nb_run_exit *rc, struct nb_error *err)
{
	for (uint32_t ci = 0; ci < b->plan->ncases; ci++) {
		const struct nb_case *c = &b->plan->cases[ci];
		if (!c->reps.autorep || c->sweep.enabled) /* a sweep has no headline value to settle */
			continue;
		uint32_t rep = nb_case_slots(c);
		while (!interrupted(b) && rep < c->reps.max &&
		       !nb_stats_autorep_done(&b->stats[ci], c->reps.min, c->reps.max, c->reps.ci)) {
			nb_progress_extend(b->progress, 1);
			if (!account(run_one(b, ci, rep++, err), rc))
				return false;
		}
	}
	return true;
}

static enum nb_run_exit run_all(struct batch *b, struct nb_error *err)
{
	enum nb_run_exit rc = NB_EXIT_OK;
	const struct nb_plan *plan = b->plan;
	/* -q: no progress at all (every progress call takes a NULL progress) */
	b->progress = b->o->verbosity < 0 ? NULL
					  : nb_progress_begin(stderr, plan->nslots, nb_plan_estimate_s(plan));
	size_t i;
	bool go = true;
	for (i = 0; i < plan->nslots && go && !interrupted(b); i++)
		go = account(run_one(b, plan->order[i].case_index, plan->order[i].rep, err), &rc);
	if (go)
		go = run_auto_reps(b, &rc, err);
	nb_progress_end(b->progress);
	b->progress = NULL;
	if (go && interrupted(b)) {
		nb_error_set(err, "interrupted after %zu run%s; every finished run is kept", b->runs_done,
			     b->runs_done == 1 ? "" : "s");
		rc = NB_EXIT_CASES_FAILED;
	}
	b->meta.complete = go && !interrupted(b);
	return rc;
}

enum nb_run_exit nb_run_plan(const struct nb_config *cfg, const struct nb_plan *plan,
			     const struct nb_run_opts *o, struct nb_error *err)
{
	struct batch b = { .cfg = cfg, .plan = plan, .o = o };
	b.client.fd = -1;
	nb_facts_init(&b.client.peer_facts);
	b.stats = calloc(plan->ncases ? plan->ncases : 1, sizeof(*b.stats));
	if (!b.stats || sodium_init() < 0) {
		free(b.stats);
		return nb_error_set(err, "out of memory"), NB_EXIT_USAGE;
	}
	for (size_t ci = 0; ci < plan->ncases; ci++)
		nb_stats_init(&b.stats[ci]);
	enum nb_run_exit rc;
	if (!connect_peer(&b, err))
		rc = NB_EXIT_PEER; /* a peer never reached (or refused us) leaves no results folder */
	else if (!open_batch(&b, err))
		rc = NB_EXIT_USAGE;
	else if (!write_env(&b, err))
		rc = NB_EXIT_PEER;
	else
		rc = run_all(&b, err);
	close_batch(&b, b.meta.complete);
	if (rc != NB_EXIT_USAGE && b.dir[0])
		build_report(&b);
	free(b.stats);
	return rc;
}

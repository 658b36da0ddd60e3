/* nbrun — one batch from first contact to the report (see batch.h). The order matters: the
 * peer is reached and checked before a folder exists, so an unreachable peer or a failed check
 * leaves nothing behind; a folder this batch made and never ran anything in is removed. */
#include "batch.h"

#include <sched.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "env_json.h"
#include "outdir.h"
#include "report.h"
#include "results_dir.h"

bool nb_batch_init(struct nb_batch *b, const struct nb_config *cfg, const struct nb_plan *plan,
		   const struct nb_run_opts *o)
{
	memset(b, 0, sizeof(*b));
	b->cfg = cfg;
	b->plan = plan;
	b->o = o;
	nb_ends_init(&b->ends, cfg, plan, o);
	b->stats = calloc(plan->ncases ? plan->ncases : 1, sizeof(*b->stats));
	if (!b->stats || sodium_init() < 0)
		return false;
	for (size_t ci = 0; ci < plan->ncases; ci++)
		nb_stats_init(&b->stats[ci]);
	return true;
}

void nb_batch_free(struct nb_batch *b)
{
	free(b->stats);
	free(b->done);
	b->stats = NULL;
	b->done = NULL;
}

bool nb_batch_out_free(const struct nb_run_opts *o, struct nb_error *err)
{
	char what[512];
	if (!o->out_dir || o->force || !nb_results_dir_in_use(o->out_dir, what, sizeof(what)))
		return true;
	return nb_error_set(err, "--out %s is not empty (%s): a results folder holds one batch; "
			    "choose a new folder, or add --force to replace its results", o->out_dir,
			    what);
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

/* Every path's agent host for env.json: its peer (HOST[:PORT] or a hosts: name), or "embedded".
 * The glue between the batch's paths and env.json: the only place that walks them for it. */
static size_t env_hosts(const struct nb_batch *b, struct nb_env_host *hosts)
{
	size_t n = 0;
	const struct nb_ends *e = &b->ends;
	for (size_t i = 0; i < e->nends && n < NB_PATHS_MAX; i++)
		hosts[n++] = (struct nb_env_host){ e->end[i].peer ? e->end[i].peer : "embedded",
						   &e->end[i].agent.client.peer_facts };
	return n;
}

static bool write_env(struct nb_batch *b, struct nb_error *err)
{
	struct nb_facts local;
	nb_facts_init(&local);
	const struct nb_client *c = nb_ends_client(&b->ends);
	const struct nb_solo_target *to = &b->ends.local.to;
	if (b->ends.need_agent)
		nb_env_collect("/", (struct sockaddr *)&c->addr, c->addr_len, &local);
	else /* agentless only: the route toward the target; the far end has no facts to give */
		nb_env_collect("/", (struct sockaddr *)&to->addr, to->addr_len, &local);
	char cpus[256];
	bool pinned;
	engine_cpus(b->plan, cpus, sizeof(cpus), &pinned);
	nb_env_add_nbrun(&local, pinned ? "one thread per flow, or per block of flows (threads); "
					  "thread i pinned to cpus[i % n]"
					: "one thread per flow, or per block of flows (threads), not pinned "
					  "(the scheduler places them)",
			 cpus[0] ? cpus : NULL);
	char path[4200];
	snprintf(path, sizeof(path), "%s/" NB_ENV_JSON_FILE, b->dir);
	struct nb_env_host hosts[NB_PATHS_MAX];
	bool ok = nb_env_json_write_hosts(path, &local, hosts, env_hosts(b, hosts), err);
	nb_facts_free(&local);
	return ok;
}

/* The config's labels, then --label over them (checked already: a failure cannot happen). */
static void merge_labels(struct nb_batch *b)
{
	struct nb_error err;
	memcpy(b->labels, b->cfg->labels, sizeof(b->labels));
	b->nlabels = b->cfg->nlabels;
	for (size_t i = 0; i < b->o->nlabels; i++)
		nb_config_label_set(b->labels, &b->nlabels, b->o->labels[i].key, b->o->labels[i].value,
				    &err);
	for (size_t i = 0; i < b->nlabels && i < NB_META_LIST_MAX; i++) {
		b->meta.label_keys[b->meta.nlabels] = b->labels[i].key;
		b->meta.label_values[b->meta.nlabels++] = b->labels[i].value;
	}
}

/* Who the batch ran against, as meta.json and the report say it. */
static const char *peer_text(struct nb_batch *b)
{
	const char *peer = b->ends.peer;
	if (b->ends.need_agent)
		return peer ? peer : NB_META_EMBEDDED_PEER;
	snprintf(b->peer_text, sizeof(b->peer_text), "%s" NB_META_AGENTLESS_PEER,
		 peer ? peer : "127.0.0.1");
	return b->peer_text;
}

static void fill_meta(struct nb_batch *b)
{
	const struct nb_run_opts *o = b->o;
	nb_outdir_sha256_hex(b->cfg->text ? b->cfg->text : "", b->cfg->text_len, b->sha256);
	nb_outdir_utc_now(b->started, sizeof(b->started));
	b->meta = (struct nb_meta){ .command = o->cmdline, .config_name = b->cfg->name,
				    .config_sha256 = b->sha256, .started = b->started,
				    .peer = peer_text(b),
				    .order = nb_order_name(b->cfg->order) };
	for (size_t i = 0; i < o->nsets && i < NB_META_LIST_MAX; i++)
		b->meta.sets[b->meta.nsets++] = o->sets[i];
	for (size_t i = 0; i < o->nfilters && i < NB_META_LIST_MAX; i++)
		b->meta.filters[b->meta.nfilters++] = o->filters[i];
	merge_labels(b);
	nb_ends_meta_paths(&b->ends, &b->meta);
}

bool nb_batch_claim(struct nb_batch *b, struct nb_error *err)
{
	const struct nb_run_opts *o = b->o;
	fill_meta(b);
	if (!nb_results_dir_create(o->out_dir, b->cfg->name, b->dir, sizeof(b->dir), &b->made_dir,
				   err))
		return false;
	bool ok = (!o->force || nb_results_dir_clear(b->dir, err)) &&
		  nb_outdir_write(b->dir, b->cfg, b->plan, err) &&
		  nb_meta_json_write(b->dir, &b->meta, err) && write_env(b, err);
	if (!ok && b->made_dir)
		nb_results_dir_remove(b->dir);
	b->claimed = ok;
	return ok;
}

void nb_batch_close(struct nb_batch *b, bool complete, const char *stopped)
{
	if (b->closed)
		return;
	b->closed = true;
	nb_ends_close(&b->ends);
	nb_rows_close(&b->rows);
	if (!b->claimed || b->rows.write_failed)
		return;
	b->meta.complete = complete;
	b->meta.stopped = stopped;
	nb_outdir_utc_now(b->finished, sizeof(b->finished));
	b->meta.finished = b->finished;
	struct nb_error err = { { 0 } };
	if (!nb_meta_json_write(b->dir, &b->meta, &err))
		nb_rows_failed(&b->rows, &err);
}

bool nb_batch_report(struct nb_batch *b, struct nb_error *err)
{
	struct nb_report_info info;
	return nb_report_build_warn(b->dir, &info, b->o->verbosity >= 0 ? stderr : NULL, err);
}

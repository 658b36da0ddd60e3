/* nbrun — one batch from first contact to the report (see batch.h). The order matters: the
 * peer is reached and checked before a folder exists, so an unreachable peer or a failed check
 * leaves nothing behind; a folder this batch made and never ran anything in is removed. */
#include "batch.h"

#include <sched.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "env.h"
#include "env_json.h"
#include "ifstats.h"
#include "outdir.h"
#include "report.h"
#include "results_dir.h"
#include "runs_csv.h"
#include "intervals_csv.h"

bool nb_batch_init(struct nb_batch *b, const struct nb_config *cfg, const struct nb_plan *plan,
		   const struct nb_run_opts *o)
{
	memset(b, 0, sizeof(*b));
	*b = (struct nb_batch){ .cfg = cfg, .plan = plan, .o = o, .peer = o->peer };
	b->client.ctl.fd = -1;
	nb_facts_init(&b->client.peer_facts);
	/* the plan said to those who wait behind it; a --check's session is short, but unsized */
	nb_waiting_init(&b->waiting, o->check_only ? 0 : nb_plan_estimate_s(plan), o->queue_timeout_ms,
			o->verbosity, o->interrupt);
	b->stats = calloc(plan->ncases ? plan->ncases : 1, sizeof(*b->stats));
	if (!b->stats || sodium_init() < 0)
		return false;
	for (size_t ci = 0; ci < plan->ncases; ci++) {
		nb_stats_init(&b->stats[ci]);
		b->need_agent |= !nb_engine_agentless(plan->cases[ci].engine);
	}
	return true;
}

void nb_batch_free(struct nb_batch *b)
{
	free(b->stats);
	free(b->done);
	b->stats = NULL;
	b->done = NULL;
}

/* The embedded agent on loopback: its console stays quiet (the user's terminal is ours), and a
 * random secret only this process knows keeps other local users out of it. No limits. */
static bool start_local(struct nb_batch *b, char *name, size_t n, struct nb_error *err)
{
	nb_secret_random(&b->local_secret);
	struct nb_agent_opts ao = { .bind = "127.0.0.1", .port = 0, .idle_timeout_s = 3600,
				    .collect_facts = true, .verbosity = -1,
				    .secret = &b->local_secret };
	b->local_agent = nb_agent_create(&ao, err);
	if (!b->local_agent || !nb_agent_start_thread(b->local_agent, err))
		return false;
	snprintf(name, n, "127.0.0.1:%u", nb_agent_port(b->local_agent));
	return true;
}

/* Agentless cases go to the peer's host (its port is the agent's, not theirs), or to 127.0.0.1. */
static bool solo_target(struct nb_batch *b, const char *host, struct nb_error *err)
{
	struct nb_solo_target *t = &b->solo;
	if (!nb_ctl_resolve(host, NB_DEFAULT_CONTROL_PORT, &t->addr, &t->addr_len, err))
		return false;
	if (!nb_ifstats_route_ifname((const struct sockaddr *)&t->addr, t->addr_len, t->ifname,
				     sizeof(t->ifname), NULL))
		t->ifname[0] = '\0';
	t->interrupt = b->o->interrupt;
	return true;
}

/* The agent of --peer HOST[:PORT], or the embedded one, into b->client. */
static enum nb_run_exit connect_peer(struct nb_batch *b, struct nb_error *err)
{
	struct sockaddr_storage addr;
	socklen_t len;
	char name[160];
	if (b->peer)
		snprintf(name, sizeof(name), "%s", b->peer);
	else if (!start_local(b, name, sizeof(name), err))
		return NB_EXIT_PEER;
	const struct nb_secret *secret = b->peer ? b->o->secret : &b->local_secret;
	if (!nb_ctl_resolve(name, NB_DEFAULT_CONTROL_PORT, &addr, &len, err) ||
	    !nb_client_open(&b->client, name, &addr, len, secret, &b->waiting.w, err))
		return b->client.busy ? NB_EXIT_BUSY : NB_EXIT_PEER;
	return NB_EXIT_OK;
}

enum nb_run_exit nb_batch_connect(struct nb_batch *b, struct nb_error *err)
{
	char host[256] = "127.0.0.1";
	uint16_t port;
	const struct nb_host *h = b->peer ? nb_config_host(b->cfg, b->peer) : NULL;
	const char *const *peers = b->o->npeers ? b->o->peers : &b->peer;
	for (size_t i = 0; i < (b->o->npeers ? b->o->npeers : b->peer != NULL); i++)
		if (!nb_reach_peer_name(b->cfg, peers[i], err)) /* a typo of a host of hosts: */
			return NB_EXIT_USAGE;
	if (h)
		snprintf(host, sizeof(host), "%s", h->address);
	else if (b->peer && !nb_ctl_parse_peer(b->peer, NB_DEFAULT_CONTROL_PORT, host, sizeof(host),
					       &port, err))
		return NB_EXIT_USAGE;
	if (!solo_target(b, host, err))
		return NB_EXIT_PEER;
	if (!b->need_agent) { /* no case needs an agent: open no control session */
		b->peer_local = strcmp(b->solo.ifname, "lo") == 0;
		return NB_EXIT_OK;
	}
	enum nb_run_exit rc = h ? nb_batch_connect_host(b, h, err) : connect_peer(b, err);
	if (rc != NB_EXIT_OK)
		return rc;
	b->client.interrupt = b->o->interrupt;
	b->peer_local = strcmp(b->client.ifname, "lo") == 0 || strncmp(b->client.ifname, "veth", 4) == 0;
	return nb_batch_connect_paths(b, err);
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
	for (size_t i = 0; i < b->npaths && n < NB_PATHS_MAX; i++)
		hosts[n++] = (struct nb_env_host){ b->paths[i].peer ? b->paths[i].peer : "embedded",
						   &b->paths[i].client->peer_facts };
	return n;
}

static bool write_env(struct nb_batch *b, struct nb_error *err)
{
	struct nb_facts local;
	nb_facts_init(&local);
	if (b->need_agent)
		nb_env_collect("/", (struct sockaddr *)&b->client.addr, b->client.addr_len, &local);
	else /* agentless only: the route toward the target; the far end has no facts to give */
		nb_env_collect("/", (struct sockaddr *)&b->solo.addr, b->solo.addr_len, &local);
	char cpus[256];
	bool pinned;
	engine_cpus(b->plan, cpus, sizeof(cpus), &pinned);
	nb_env_add_nbrun(&local, pinned ? "one thread per flow; flow i pinned to cpus[i % n]"
					: "one thread per flow, not pinned (the scheduler places them)",
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
	if (b->need_agent)
		return b->peer ? b->peer : NB_META_EMBEDDED_PEER;
	snprintf(b->peer_text, sizeof(b->peer_text), "%s" NB_META_AGENTLESS_PEER,
		 b->peer ? b->peer : "127.0.0.1");
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
	nb_batch_meta_paths(b);
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

bool nb_batch_open_rows(struct nb_batch *b, struct nb_error *err)
{
	b->runs = nb_runs_csv_open(b->dir, err);
	b->jsonl = b->runs ? nb_runs_jsonl_open(b->dir, &b->meta, err) : NULL;
	b->intervals = b->jsonl ? nb_intervals_csv_open(b->dir, err) : NULL;
	return b->intervals != NULL;
}

void nb_batch_write_failed(struct nb_batch *b, const struct nb_error *err)
{
	if (!b->write_failed)
		b->werr = *err;
	b->write_failed = true;
	atomic_store(&b->client.abort, true);
	nb_batch_abort_paths(b);
}

void nb_batch_sync_rows(struct nb_batch *b)
{
	struct nb_error err = { { 0 } };
	if ((b->runs && !nb_csv_sync(b->runs, &err)) || !nb_runs_jsonl_sync(b->jsonl, &err) ||
	    (b->intervals && !nb_csv_sync(b->intervals, &err)))
		nb_batch_write_failed(b, &err);
}

/* Runs.csv and intervals.csv to the disk, then closed; the first failure is kept. */
static void close_rows(struct nb_batch *b)
{
	nb_batch_sync_rows(b);
	nb_csv_finish(b->runs, NULL);
	nb_csv_finish(b->intervals, NULL);
	nb_runs_jsonl_close(b->jsonl);
	b->runs = b->intervals = NULL;
	b->jsonl = NULL;
}

void nb_batch_close(struct nb_batch *b, bool complete, const char *stopped)
{
	if (b->closed)
		return;
	b->closed = true;
	nb_batch_close_paths(b);
	nb_client_close(&b->client);
	nb_reach_destroy(b->reach); /* after the BYE: ends the agents started over ssh */
	b->reach = NULL;
	nb_agent_destroy(b->local_agent);
	b->local_agent = NULL;
	sodium_memzero(&b->local_secret, sizeof(b->local_secret));
	close_rows(b);
	if (!b->claimed || b->write_failed)
		return;
	b->meta.complete = complete;
	b->meta.stopped = stopped;
	nb_outdir_utc_now(b->finished, sizeof(b->finished));
	b->meta.finished = b->finished;
	struct nb_error err = { { 0 } };
	if (!nb_meta_json_write(b->dir, &b->meta, &err))
		nb_batch_write_failed(b, &err);
}

bool nb_batch_report(struct nb_batch *b, struct nb_error *err)
{
	struct nb_report_info info;
	return nb_report_build_warn(b->dir, &info, b->o->verbosity >= 0 ? stderr : NULL, err);
}

/* nbrun — report, env and compare subcommands. */
#include "commands.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "compare.h"
#include "ctl.h"
#include "env.h"
#include "env_json.h"
#include "export.h"
#include "facts.h"
#include "hosts_reach.h"
#include "pitfalls.h"
#include "report.h"
#include "run.h"
#include "waiting.h"

bool nb_cmd_secret(const struct nb_cli *cli, struct nb_secret *s, struct nb_error *err)
{
	const char *path = cli->secret_file ? cli->secret_file : getenv("NBRUN_SECRET_FILE");
	memset(s, 0, sizeof(*s));
	if (!path || !*path)
		return true;
	if (!nb_secret_load(path, s, err))
		return false;
	if (s->others_can_read)
		fprintf(stderr, "nbrun: warning: %s can be read by other users (chmod 600 %s)\n", path, path);
	nb_cmd_secret_strength(path, s);
	return true;
}

void nb_cmd_secret_strength(const char *what, const struct nb_secret *s)
{
	if (s->set && s->bits < NB_SECRET_WEAK_BITS)
		fprintf(stderr, "nbrun: warning: %s looks weak (about %u bits by a rough estimate): "
			"anyone who records a handshake can try guesses offline; make one with `head -c "
			"32 /dev/urandom | base64`\n", what, s->bits);
}

/* Every error of the config, one line each. */
static bool load_config(const struct nb_cli *cli, struct nb_config *cfg)
{
	struct nb_config_errors *errs = malloc(sizeof(*errs));
	if (!errs) {
		fprintf(stderr, "nbrun: out of memory\n");
		return false;
	}
	bool ok = nb_config_load_all(cli->args[0], cli->sets, cli->nsets, cfg, errs);
	for (size_t i = 0; i < errs->n; i++)
		fprintf(stderr, "nbrun: %s\n", errs->v[i].msg);
	if (errs->more)
		fprintf(stderr, "nbrun: %s: %zu more error%s not shown (fix these first)\n",
			cli->args[0], errs->more, errs->more == 1 ? "" : "s");
	free(errs);
	return ok;
}

bool nb_cmd_load(const struct nb_cli *cli, struct nb_config *cfg, struct nb_plan *plan)
{
	struct nb_error err = { { 0 } };
	if (!load_config(cli, cfg))
		return false;
	if (!nb_plan_build(cfg, cli->filters, cli->nfilters, plan, &err)) {
		fprintf(stderr, "nbrun: %s\n", err.msg);
		nb_config_free(cfg);
		return false;
	}
	return true;
}

/* validate's listing of hosts: and of each case's paths: how each host will be reached. */
static void print_hosts(const struct nb_config *cfg, const struct nb_plan *plan)
{
	for (size_t i = 0; i < cfg->nhosts; i++) {
		const struct nb_host *h = &cfg->hosts[i];
		if (h->ssh[0])
			printf("host %s: ssh %s starts %s serve --stdio (control over ssh), data on %s\n",
			       h->name, h->ssh, h->nbrun[0] ? h->nbrun : "nbrun", h->address);
		else
			printf("host %s: agent at %s port %u\n", h->name, h->address,
			       h->port ? h->port : NB_DEFAULT_CONTROL_PORT);
	}
	for (size_t i = 0; i < plan->ncases; i++) {
		char paths[NB_PATHS_MAX * 2 * NB_HOST_NAME_MAX];
		if (plan->cases[i].test->npaths)
			printf("paths of %s: %s\n", plan->cases[i].id,
			       nb_config_paths_str(plan->cases[i].test, paths, sizeof(paths)));
	}
}

int nb_cmd_validate(const struct nb_cli *cli)
{
	struct nb_config cfg = { 0 };
	struct nb_plan plan = { 0 };
	if (!nb_cmd_load(cli, &cfg, &plan))
		return 2;
	printf("ok: %zu case%s, %zu run%s\n", plan.ncases, plan.ncases == 1 ? "" : "s", plan.nslots,
	       plan.nslots == 1 ? "" : "s");
	print_hosts(&cfg, &plan);
	nb_run_note_default_limits(&plan, stdout);
	nb_plan_free(&plan);
	nb_config_free(&cfg);
	return 0;
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

int nb_cmd_export(const struct nb_cli *cli)
{
	struct nb_error err = { { 0 } };
	int rc = nb_export(cli->args[0], (enum nb_export_format)cli->export_format,
			   (enum nb_better)cli->better, cli->out, &err);
	if (rc != 0)
		fprintf(stderr, "nbrun: export: %s\n", err.msg);
	return rc;
}

int nb_cmd_report(const struct nb_cli *cli)
{
	struct nb_report_info info;
	struct nb_error err = { { 0 } };
	if (!nb_report_build_warn(cli->args[0], &info, stderr, &err)) {
		fprintf(stderr, "nbrun: report: %s\n", err.msg);
		return 2;
	}
	fprintf(stderr, "report: %zu case%s, %zu run%s (%zu failed), %zu incomplete row%s skipped, "
		"%zu chart%s (%zu rendered)%s%s\n", info.cases, plural(info.cases), info.runs,
		plural(info.runs), info.failed_runs, info.incomplete_rows, plural(info.incomplete_rows),
		info.charts, plural(info.charts), info.charts_rendered, info.note[0] ? "; " : "",
		info.note);
	return 0;
}

/* What `env --peer` reached: the agent's session, and for a host of a config its config and
 * the reach that may have started its agent over ssh. */
struct env_peer {
	struct nb_client c;
	struct nb_config cfg;
	struct nb_reach *reach;
};

/* env's session waits for a busy agent as a batch's does (for --queue-timeout), its own
 * time unsized: it reads the facts and goes. */
static const struct nb_client_wait *env_wait(const struct nb_cli *cli)
{
	static struct nb_waiting wt;
	nb_waiting_init(&wt, 0, cli->queue_timeout_ms, cli->verbosity, NULL);
	return &wt.w;
}

/* Reach the agent at --peer HOST[:PORT]: 0, or the exit code (2 a malformed peer or secret
 * file, 3 unreachable or refused, 6 busy). */
static int env_address(const struct nb_cli *cli, struct nb_client *c)
{
	struct sockaddr_storage addr;
	socklen_t len;
	char host[256];
	uint16_t port;
	struct nb_secret secret = { 0 };
	struct nb_error err = { { 0 } };
	int rc = 0;
	if (!nb_ctl_parse_peer(cli->peer, NB_DEFAULT_CONTROL_PORT, host, sizeof(host), &port, &err) ||
	    !nb_cmd_secret(cli, &secret, &err))
		rc = 2;
	else if (!nb_ctl_resolve(cli->peer, NB_DEFAULT_CONTROL_PORT, &addr, &len, &err) ||
		 !nb_client_open(c, cli->peer, &addr, len, &secret, env_wait(cli), &err))
		rc = c->busy ? 6 : 3;
	sodium_memzero(&secret, sizeof(secret));
	if (rc)
		fprintf(stderr, "nbrun: %s\n", err.msg);
	return rc;
}

/* env CONFIG --peer NAME: NAME a host of CONFIG's hosts: is reached as a run reaches it (its
 * agent started over ssh for an ssh host), any other NAME is an address. 0 or the exit code. */
static int env_reach(const struct nb_cli *cli, struct env_peer *p)
{
	struct nb_secret secret = { 0 };
	struct nb_error err = { { 0 } };
	if (!cli->nargs)
		return env_address(cli, &p->c);
	if (!load_config(cli, &p->cfg)) /* its errors are printed */
		return 2;
	const struct nb_host *h = nb_config_host(&p->cfg, cli->peer);
	if (!h && !nb_reach_peer_name(&p->cfg, cli->peer, &err)) {
		fprintf(stderr, "nbrun: %s\n", err.msg);
		return 2;
	}
	if (!h)
		return env_address(cli, &p->c);
	struct nb_reach_opts o = { .cfg = &p->cfg, .secret = &secret, .verbosity = cli->verbosity,
				   .wait = env_wait(cli) };
	int rc = 0;
	if (!nb_cmd_secret(cli, &secret, &err))
		rc = 2;
	else if (!(p->reach = nb_reach_create(&o)))
		rc = 3, nb_error_set(&err, "out of memory");
	else if (!nb_reach_open(p->reach, h->name, &p->c, &err))
		rc = p->c.busy ? 6 : 3;
	sodium_memzero(&secret, sizeof(secret));
	if (rc)
		fprintf(stderr, "nbrun: %s\n", err.msg);
	return rc;
}

/* Print (and with --json write) the facts: 0, or 1 when env.json cannot be written. */
static int env_print(const struct nb_cli *cli, const struct nb_facts *local,
		     const struct nb_facts *peer)
{
	struct nb_error err = { { 0 } };
	nb_env_print(local, peer, stdout);
	if (peer)
		nb_env_diff(local, peer, stdout);
	struct nb_pitfalls pf = { 0 };
	if (nb_pitfalls_check(local, peer, NULL, 0, 0.05, &pf))
		nb_pitfalls_print(&pf, stdout);
	nb_pitfalls_free(&pf);
	struct nb_env_host host = { cli->peer, peer };
	if (cli->json && !nb_env_json_write_hosts(cli->json, local, &host, peer ? 1 : 0, &err)) {
		fprintf(stderr, "nbrun: %s\n", err.msg);
		return 1;
	}
	return 0;
}

int nb_cmd_env(const struct nb_cli *cli)
{
	struct nb_facts local;
	struct env_peer p = { .c = { .ctl.fd = -1 } };
	nb_facts_init(&local);
	nb_facts_init(&p.c.peer_facts);
	int rc = cli->peer ? env_reach(cli, &p) : 0;
	if (rc == 0) {
		if (cli->peer)
			nb_env_collect("/", (struct sockaddr *)&p.c.addr, p.c.addr_len, &local);
		else
			nb_env_collect("/", NULL, 0, &local);
		nb_env_add_nbrun(&local, "one thread per flow", "not pinned");
		rc = env_print(cli, &local, cli->peer ? &p.c.peer_facts : NULL);
	}
	nb_client_close(&p.c);
	nb_reach_destroy(p.reach); /* after the BYE: ends an agent started over ssh */
	nb_config_free(&p.cfg);
	nb_facts_free(&local);
	return rc;
}

int nb_cmd_compare(const struct nb_cli *cli)
{
	struct nb_compare_opts o = {
		.paths = cli->args, .npaths = cli->nargs, .threshold = cli->threshold,
		.metrics = cli->metrics, .nmetrics = cli->nmetrics, .format = cli->format, .junit = cli->junit, .summary = cli->summary, .out = cli->out, .names = cli->names,
		.neutral = cli->neutral, .allow_missing = cli->allow_missing,
		.fail_on_inconclusive = cli->fail_on_inconclusive, .expect = cli->expect,
		.nexpect = cli->nexpect,
	};
	return nb_compare_run(&o, stdout, stderr);
}

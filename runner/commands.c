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
#include "facts.h"
#include "pitfalls.h"
#include "report.h"

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
	return true;
}

int nb_cmd_report(const struct nb_cli *cli)
{
	struct nb_report_info info;
	struct nb_error err = { { 0 } };
	if (!nb_report_build_warn(cli->args[0], &info, stderr, &err)) {
		fprintf(stderr, "nbrun: report: %s\n", err.msg);
		return 2;
	}
	fprintf(stderr, "report: %zu cases, %zu runs (%zu failed), %zu incomplete rows skipped, "
		"%zu charts (%zu rendered)%s%s\n", info.cases, info.runs, info.failed_runs,
		info.incomplete_rows, info.charts, info.charts_rendered, info.note[0] ? "; " : "", info.note);
	return 0;
}

/* env --peer: the agent's session (its facts) and our facts toward it; an exit code. */
static int open_peer(const struct nb_cli *cli, struct nb_client *c, struct nb_facts *local)
{
	struct sockaddr_storage addr;
	socklen_t len;
	struct nb_secret secret;
	struct nb_error err = { { 0 } };
	if (!nb_cmd_secret(cli, &secret, &err)) {
		fprintf(stderr, "nbrun: %s\n", err.msg);
		return 2;
	}
	bool ok = nb_ctl_resolve(cli->peer, NB_DEFAULT_CONTROL_PORT, &addr, &len, &err) &&
		  nb_client_open(c, cli->peer, &addr, len, &secret, &err);
	sodium_memzero(&secret, sizeof(secret));
	if (!ok) {
		fprintf(stderr, "nbrun: %s\n", err.msg);
		return 3;
	}
	nb_env_collect("/", (struct sockaddr *)&addr, len, local);
	return 0;
}

int nb_cmd_env(const struct nb_cli *cli)
{
	struct nb_facts local;
	struct nb_client c;
	struct nb_error err = { { 0 } };
	nb_facts_init(&local);
	memset(&c, 0, sizeof(c));
	c.fd = -1;
	nb_facts_init(&c.peer_facts);
	int rc = cli->peer ? open_peer(cli, &c, &local) : 0;
	if (rc) {
		nb_facts_free(&local);
		return rc;
	}
	if (!cli->peer)
		nb_env_collect("/", NULL, 0, &local);
	nb_env_add_nbrun(&local, "one thread per flow", "not pinned");
	const struct nb_facts *peer = cli->peer ? &c.peer_facts : NULL;
	nb_env_print(&local, peer, stdout);
	if (peer)
		nb_env_diff(&local, peer, stdout);
	struct nb_pitfalls pf = { 0 };
	if (nb_pitfalls_check(&local, peer, NULL, 0, 0.05, &pf))
		nb_pitfalls_print(&pf, stdout);
	nb_pitfalls_free(&pf);
	if (cli->json && !nb_env_json_write(cli->json, &local, peer, &err)) {
		fprintf(stderr, "nbrun: %s\n", err.msg);
		rc = 1;
	}
	nb_client_close(&c);
	nb_facts_free(&local);
	return rc;
}

int nb_cmd_compare(const struct nb_cli *cli)
{
	struct nb_compare_opts o = {
		.paths = cli->args, .npaths = cli->nargs, .threshold = cli->threshold,
		.metric = cli->metric, .format = cli->format, .out = cli->out, .names = cli->names,
		.neutral = cli->neutral, .allow_missing = cli->allow_missing,
		.fail_on_inconclusive = cli->fail_on_inconclusive, .expect = cli->expect,
		.nexpect = cli->nexpect,
	};
	return nb_compare_run(&o, stdout, stderr);
}

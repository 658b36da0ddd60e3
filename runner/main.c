/* nbrun — entry point. Only main() exits. */
#include <signal.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "cli.h"
#include "config.h"
#include "nb_config.h"
#include "plan.h"
#include "run.h"
#include "commands.h"
#include "units.h"

static atomic_bool interrupted;
static struct nb_agent *serving;

static void on_sigint(int sig)
{
	(void)sig;
	atomic_store(&interrupted, true);
	if (serving)
		nb_agent_request_stop(serving);
	signal(SIGINT, SIG_DFL); /* a second Ctrl-C ends at once */
}

static int fail(const struct nb_error *err, int code)
{
	fprintf(stderr, "nbrun: %s\n", err->msg);
	return code;
}

static int load(const struct nb_cli *cli, struct nb_config *cfg, struct nb_plan *plan,
		struct nb_error *err)
{
	if (!nb_config_load(cli->args[0], cli->sets, cli->nsets, cfg, err))
		return 2;
	if (!nb_plan_build(cfg, cli->filters, cli->nfilters, plan, err)) {
		nb_config_free(cfg);
		return 2;
	}
	return 0;
}

static int cmd_run(const struct nb_cli *cli)
{
	struct nb_config cfg = { 0 };
	struct nb_plan plan = { 0 };
	struct nb_error err = { { 0 } };
	struct nb_secret secret = { 0 };
	if (load(cli, &cfg, &plan, &err))
		return fail(&err, 2);
	int rc = 0;
	if (cli->cmd == NB_CMD_VALIDATE) {
		printf("ok: %zu case%s, %zu run%s\n", plan.ncases, plan.ncases == 1 ? "" : "s",
		       plan.nslots, plan.nslots == 1 ? "" : "s");
	} else if (cli->dry_run) {
		nb_plan_print(&plan, stdout);
	} else if (cli->peer && !nb_cmd_secret(cli, &secret, &err)) {
		rc = fail(&err, 2);
	} else {
		struct nb_run_opts o = { .peer = cli->peer, .secret = &secret, .out_dir = cli->out,
					 .cmdline = cli->cmdline, .verbosity = cli->verbosity,
					 .interrupt = &interrupted };
		signal(SIGINT, on_sigint);
		signal(SIGPIPE, SIG_IGN);
		rc = (int)nb_run_plan(&cfg, &plan, &o, &err);
		if (rc != 0 && err.msg[0])
			fprintf(stderr, "nbrun: %s\n", err.msg);
	}
	sodium_memzero(&secret, sizeof(secret));
	nb_plan_free(&plan);
	nb_config_free(&cfg);
	return rc;
}

/* What `nbrun serve` says at start: where it listens, its limits, who may use it. */
static void serve_banner(const struct nb_agent *a, const struct nb_agent_opts *o)
{
	char msg[32], rate[32], who[1024] = "";
	if (o->verbosity >= 0) {
		fprintf(stderr, "nbrun serve: listening on port %u (data ports %u-%u)\n", nb_agent_port(a),
			o->data_lo, o->data_hi);
		nb_units_fmt_size(o->limits.max_message, msg, sizeof(msg));
		nb_units_fmt_si(o->limits.max_rate, rate, sizeof(rate));
		fprintf(stderr, "nbrun serve: limits per test: --max-streams %u, --max-message %s, "
			"--max-duration %u s, --max-rate %s\n", o->limits.max_flows, msg,
			o->limits.max_duration_s, o->limits.max_rate ? rate : "none (bit/s)");
	}
	for (size_t i = 0, used = 0; i < o->nallow && used < sizeof(who) - 64; i++) {
		used += (size_t)snprintf(who + used, sizeof(who) - used, "%s", i ? ", " : "");
		nb_cidr_str(&o->allow[i], who + used, sizeof(who) - used);
		used = strlen(who);
	}
	if (o->nallow && o->verbosity >= 0)
		fprintf(stderr, "nbrun serve: connections only from %s (--allow)\n", who);
	if (!o->secret->set) /* loud, even with -q */
		fprintf(stderr, "nbrun serve: WARNING: no --secret-file: anyone who can reach port %u%s "
			"can make this host send traffic and read its environment; give --secret-file "
			"FILE (the same on the client)%s\n", nb_agent_port(a),
			o->nallow ? " from the --allow ranges" : "",
			o->nallow ? "" : ", and --allow CIDR to limit who may connect");
}

static int cmd_serve(const struct nb_cli *cli)
{
	struct nb_secret secret;
	struct nb_error err = { { 0 } };
	if (!nb_cmd_secret(cli, &secret, &err))
		return fail(&err, 2);
	struct nb_agent_opts o = {
		.bind = cli->bind, .port = cli->port, .data_lo = cli->data_lo, .data_hi = cli->data_hi,
		.once = cli->once, .idle_timeout_s = cli->idle_timeout_s, .verbosity = cli->verbosity,
		.collect_facts = true, .secret = &secret, .allow = cli->allow, .nallow = cli->nallow,
		.limits = { .max_rate = cli->max_rate, .max_flows = cli->max_streams,
			    .max_duration_s = cli->max_duration_s, .max_message = cli->max_message },
	};
	signal(SIGPIPE, SIG_IGN);
	struct nb_agent *a = nb_agent_create(&o, &err);
	if (!a) {
		sodium_memzero(&secret, sizeof(secret));
		return fail(&err, 1);
	}
	serve_banner(a, &o);
	serving = a;
	signal(SIGINT, on_sigint);
	signal(SIGTERM, on_sigint);
	bool ok = nb_agent_run(a, &err);
	serving = NULL;
	nb_agent_destroy(a);
	sodium_memzero(&secret, sizeof(secret));
	return ok ? 0 : fail(&err, 1);
}

int main(int argc, char **argv)
{
	struct nb_cli cli;
	struct nb_error err = { { 0 } };
	if (!nb_cli_parse(argc, argv, &cli, &err)) {
		fprintf(stderr, "nbrun: %s (try 'nbrun --help')\n", err.msg);
		return 2;
	}
	switch (cli.cmd) {
	case NB_CMD_HELP:
		nb_cli_usage(stdout);
		return 0;
	case NB_CMD_VERSION:
		printf("nbrun %s%s\n", NB_VERSION, NB_STATIC_BUILD ? " (static)" : "");
		return 0;
	case NB_CMD_RUN:
	case NB_CMD_VALIDATE:
		return cmd_run(&cli);
	case NB_CMD_SERVE:
		return cmd_serve(&cli);
	case NB_CMD_REPORT:
		return nb_cmd_report(&cli);
	case NB_CMD_ENV:
		return nb_cmd_env(&cli);
	case NB_CMD_COMPARE:
		return nb_cmd_compare(&cli);
	}
	return 2;
}

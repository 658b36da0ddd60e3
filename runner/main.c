/* nbrun — entry point. Only main() exits. SIGINT, SIGTERM and SIGHUP stop a batch the same
 * way (the current run ends as interrupted, every finished row is kept, the report is
 * written) and the exit code says which signal it was (128 + its number); a second one of the
 * same kind ends the process at once. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "agent_stdio.h"
#include "cidr.h"
#include "cli.h"
#include "commands.h"
#include "config.h"
#include "ctl.h"
#include "nb_config.h"
#include "plan.h"
#include "run.h"
#include "units.h"

static atomic_bool interrupted;
static atomic_int signo;
static struct nb_agent *serving;

static void on_signal(int sig)
{
	atomic_store(&signo, sig);
	atomic_store(&interrupted, true);
	if (serving)
		nb_agent_request_stop(serving);
}

/* SA_RESETHAND: the second signal of a kind takes its default action (ends nbrun). */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESETHAND };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int fail(const struct nb_error *err, int code)
{
	if (err->msg[0])
		fprintf(stderr, "nbrun: %s\n", err->msg);
	return code;
}

static struct nb_run_opts run_opts(const struct nb_cli *cli, const struct nb_secret *secret)
{
	return (struct nb_run_opts){
		.peer = cli->peer, .peers = cli->peers, .npeers = cli->npeers, .secret = secret,
		.out_dir = cli->out, .force = cli->force, .check_only = cli->check, .push = cli->push,
		.cmdline = cli->cmdline, .sets = cli->sets, .nsets = cli->nsets,
		.filters = cli->filters, .nfilters = cli->nfilters, .labels = cli->labels,
		.nlabels = cli->nlabels, .verbosity = cli->verbosity,
		.queue_timeout_ms = cli->queue_timeout_ms, .interrupt = &interrupted, .signo = &signo,
		.live = cli->live || (cli->verbosity > 0 && isatty(STDERR_FILENO)),
	};
}

/* --json-stream is opened before anything runs: a path that cannot be written is bad input. */
static bool open_stream(const struct nb_cli *cli, struct nb_run_opts *o, struct nb_error *err)
{
	if (!cli->json_stream)
		return true;
	o->stream = nb_json_stream_open(cli->json_stream, err);
	return o->stream != NULL;
}

/* A batch that never began (an unreachable peer, a failed check) says why on the stream too. */
static void close_stream(struct nb_run_opts *o, int rc, const struct nb_error *err)
{
	if (o->stream && rc != 0 && !nb_json_stream_ended(o->stream))
		nb_json_stream_error(o->stream, err->msg[0] ? err->msg
					 : rc == NB_EXIT_CHECK ? "the check found problems (stderr names each)"
							       : "the batch did not start");
	nb_json_stream_close(o->stream);
	o->stream = NULL;
}

/* A signal while an agent was being started or reached ends that as "unreachable" (exit 3):
 * the signal is what stopped the batch, and the exit code says so. */
static int exit_code(enum nb_run_exit rc)
{
	if (rc == NB_EXIT_PEER && atomic_load(&interrupted))
		rc = NB_EXIT_SIGNAL;
	return rc == NB_EXIT_SIGNAL ? NB_EXIT_SIGNAL + atomic_load(&signo) : (int)rc;
}

/* Without --peer, the paths the config's tests name (all from local, the same in each). */
static int config_paths(const struct nb_cli *cli, const struct nb_config *cfg,
			const struct nb_plan *plan, struct nb_run_opts *o, struct nb_error *err)
{
	static const char *peers[NB_PATHS_MAX];
	size_t n = 0;
	if (cli->check)
		return 0; /* --check asks every host the paths name (preflight), whatever runs them */
	if (!nb_batch_config_peers(cfg, plan, peers, &n, err))
		return NB_EXIT_USAGE;
	if (n && cli->npeers)
		return nb_error_set(err, "--peer and the paths: of %s both name the paths: give one",
				    cfg->path), NB_EXIT_USAGE;
	if (n) {
		o->peer = peers[0];
		o->peers = peers;
		o->npeers = n;
	}
	return 0;
}

static int cmd_run(const struct nb_cli *cli)
{
	struct nb_config cfg = { 0 };
	struct nb_plan plan = { 0 };
	struct nb_error err = { { 0 } };
	struct nb_secret secret = { 0 };
	if (!nb_cmd_load(cli, &cfg, &plan))
		return NB_EXIT_USAGE;
	int rc = 0;
	if (cli->dry_run) {
		nb_plan_print(&plan, stdout);
	} else if ((cli->peer || cfg.nhosts) && !nb_cmd_secret(cli, &secret, &err)) {
		rc = fail(&err, NB_EXIT_USAGE);
	} else {
		struct nb_run_opts o = run_opts(cli, &secret);
		rc = config_paths(cli, &cfg, &plan, &o, &err);
		if (rc == 0 && !open_stream(cli, &o, &err))
			rc = NB_EXIT_USAGE;
		else if (rc == 0) {
			catch_signals();
			rc = exit_code(nb_run_plan(&cfg, &plan, &o, &err));
			close_stream(&o, rc, &err);
		}
		fail(&err, rc);
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
		if (o->stdio)
			fprintf(stderr, "nbrun serve: one session on standard input and output (data on "
				"%s, ports %u-%u)\n", o->bind, o->data_lo, o->data_hi);
		else
			fprintf(stderr, "nbrun serve: listening on port %u (data ports %u-%u)\n",
				nb_agent_port(a), o->data_lo, o->data_hi);
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
	if (!o->secret->set && !o->stdio) /* loud, even with -q; over ssh only ssh's user reaches it */
		fprintf(stderr, "nbrun serve: WARNING: no --secret-file: anyone who can reach port %u%s "
			"can make this host send traffic and read its environment; give --secret-file "
			"FILE (the same on the client)%s\n", nb_agent_port(a),
			o->nallow ? " from the --allow ranges" : "",
			o->nallow ? "" : ", and --allow CIDR to limit who may connect");
}

static int cmd_resume(const struct nb_cli *cli)
{
	struct nb_error err = { { 0 } };
	struct nb_secret secret;
	if (!nb_cmd_secret(cli, &secret, &err))
		return fail(&err, NB_EXIT_USAGE);
	struct nb_run_opts o = run_opts(cli, &secret);
	int rc = NB_EXIT_USAGE;
	if (open_stream(cli, &o, &err)) {
		catch_signals();
		rc = exit_code(nb_run_resume(cli->args[0], &o, &err));
		close_stream(&o, rc, &err);
	}
	fail(&err, rc);
	sodium_memzero(&secret, sizeof(secret));
	return rc;
}

/* serve's secret: --secret-stdin's line, else --secret-file's (or $NBRUN_SECRET_FILE's). */
static bool serve_secret(const struct nb_cli *cli, struct nb_secret *secret, struct nb_error *err)
{
	if (cli->secret_stdin && cli->secret_file)
		return nb_error_set(err, "--secret-stdin and --secret-file: give one of them");
	if (cli->secret_stdin) {
		bool ok = nb_secret_read_line(0, secret, err);
		if (ok)
			nb_cmd_secret_strength("the secret on standard input", secret);
		return ok;
	}
	return nb_cmd_secret(cli, secret, err);
}

/* The line a launcher reads (sshlaunch.h): where this agent listens, on stdout at once. */
static void announce(const struct nb_agent *a)
{
	printf("nbrun-agent port %u\n", nb_agent_port(a));
	fflush(stdout);
}

static struct nb_agent_opts serve_opts(const struct nb_cli *cli, const struct nb_secret *secret,
				       const struct nb_agent_stdio_ends *ends)
{
	return (struct nb_agent_opts){
		.bind = cli->stdio && !cli->bind ? ends->server : cli->bind,
		.port = cli->stdio ? 0 : cli->port, .data_lo = cli->data_lo, .data_hi = cli->data_hi,
		.once = cli->once || cli->stdio, .stdio = cli->stdio,
		.idle_timeout_s = cli->idle_timeout_s, .max_queue = cli->max_queue,
		.verbosity = cli->verbosity,
		.collect_facts = true, .secret = secret, .allow = cli->allow, .nallow = cli->nallow,
		.limits = { .max_rate = cli->max_rate, .max_flows = cli->max_streams,
			    .max_duration_s = cli->max_duration_s, .max_message = cli->max_message },
	};
}

/* serve --stdio's protocol output: standard output as it was; fd 1 itself now goes to standard
 * error, so that no stray line ever lands between the protocol's bytes. */
static int protocol_out(void)
{
	int out = fcntl(1, F_DUPFD_CLOEXEC, 3);
	if (out >= 0)
		dup2(2, 1);
	return out;
}

/* Serve until stopped: a TCP agent, or with --stdio one session on stdin and stdout. */
static bool serve(const struct nb_cli *cli, struct nb_agent *a,
		  const struct nb_agent_stdio_ends *ends, struct nb_error *err)
{
	int out = cli->stdio ? protocol_out() : -1;
	if (cli->stdio && out < 0)
		return nb_error_errno(err, errno, "standard output");
	if (cli->secret_stdin && !cli->stdio)
		nb_agent_stop_on_eof(a, 0);
	if (!cli->stdio && (cli->secret_stdin || cli->port == 0)) /* a launcher waits for it */
		announce(a);
	serving = a;
	catch_signals();
	bool ok = cli->stdio ? nb_agent_stdio_serve(a, 0, out, ends, err) : nb_agent_run(a, err);
	serving = NULL;
	if (out >= 0)
		close(out);
	return ok;
}

/* Whether --bind names a loopback address (no --bind: every address, so no). One that does not
 * resolve is left to nb_agent_create to name. */
static bool loopback_only(const char *bind)
{
	struct sockaddr_storage ss;
	socklen_t len;
	return bind && (!nb_ctl_resolve(bind, 0, &ss, &len, NULL) ||
			nb_cidr_kind_of(&ss) == NB_ADDR_LOOPBACK);
}

/* Without a secret anyone who reaches the agent can make this host send traffic: it serves
 * loopback only, unless told --insecure, and then with conservative limits where none was
 * given. Over ssh (--stdio) only ssh's user reaches it. */
static bool open_policy(const struct nb_cli *cli, const struct nb_secret *s, struct nb_agent_opts *o,
			struct nb_error *err)
{
	if (s->set || cli->stdio || loopback_only(cli->bind))
		return true;
	if (!cli->insecure)
		return nb_error_set(err, "serve: no secret, on %s beyond loopback: anyone who reaches "
				    "it could make this host send traffic; give --secret-file FILE (the "
				    "same on the client), or --insecure to serve without one",
				    cli->bind ? cli->bind : "every address");
	if (!(cli->limits_given & NB_CLI_GAVE_STREAMS))
		o->limits.max_flows = NB_LIMITS_OPEN_FLOWS;
	if (!(cli->limits_given & NB_CLI_GAVE_DURATION))
		o->limits.max_duration_s = NB_LIMITS_OPEN_DURATION_S;
	if (!(cli->limits_given & NB_CLI_GAVE_RATE))
		o->limits.max_rate = NB_LIMITS_OPEN_RATE;
	return true;
}

static int cmd_serve(const struct nb_cli *cli)
{
	struct nb_secret secret;
	struct nb_error err = { { 0 } };
	struct nb_agent_stdio_ends ends = { .client_len = 0 };
	if (cli->stdio && !nb_agent_stdio_ends(getenv("SSH_CONNECTION"), &ends, &err))
		return fail(&err, 2);
	if (!serve_secret(cli, &secret, &err))
		return fail(&err, 2);
	struct nb_agent_opts o = serve_opts(cli, &secret, &ends);
	if (!open_policy(cli, &secret, &o, &err))
		return fail(&err, 2);
	signal(SIGPIPE, SIG_IGN);
	struct nb_agent *a = nb_agent_create(&o, &err);
	if (!a) {
		sodium_memzero(&secret, sizeof(secret));
		return fail(&err, 1);
	}
	serve_banner(a, &o);
	bool ok = serve(cli, a, &ends, &err);
	nb_agent_destroy(a);
	sodium_memzero(&secret, sizeof(secret));
	return ok ? 0 : fail(&err, 1);
}

/* A usage error: one line with where to look; an option of another subcommand also shows
 * this subcommand's usage. */
static int usage_error(const struct nb_cli *cli, bool foreign, const struct nb_error *err)
{
	if (foreign) {
		fprintf(stderr, "nbrun: %s\n\n", err->msg);
		nb_cli_usage(cli->cmd, stderr);
	} else if (cli->cmd == NB_CMD_RUN || cli->cmd > NB_CMD_EXPORT) {
		fprintf(stderr, "nbrun: %s (try 'nbrun --help')\n", err->msg);
	} else {
		fprintf(stderr, "nbrun: %s (try 'nbrun %s --help')\n", err->msg, nb_cli_cmd_name(cli->cmd));
	}
	return NB_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct nb_cli cli;
	struct nb_error err = { { 0 } };
	bool foreign;
	if (!nb_cli_parse(argc, argv, &cli, &foreign, &err))
		return usage_error(&cli, foreign, &err);
	switch (cli.cmd) {
	case NB_CMD_HELP:
		nb_cli_usage(cli.help_for, stdout);
		return 0;
	case NB_CMD_VERSION:
		/* A build without the AF_XDP path says so: an agent that cannot run `datapath: xdp`. */
		printf("nbrun %s%s\n", NB_VERSION,
		       NB_STATIC_BUILD ? (NB_HAVE_XDP ? " (static)" : " (static, without xdp)")
				       : (NB_HAVE_XDP ? "" : " (without xdp)"));
		return 0;
	case NB_CMD_RUN:
		return cmd_run(&cli);
	case NB_CMD_RESUME:
		return cmd_resume(&cli);
	case NB_CMD_VALIDATE:
		return nb_cmd_validate(&cli);
	case NB_CMD_SERVE:
		return cmd_serve(&cli);
	case NB_CMD_REPORT:
		return nb_cmd_report(&cli);
	case NB_CMD_ENV:
		return nb_cmd_env(&cli);
	case NB_CMD_COMPARE:
		return nb_cmd_compare(&cli);
	case NB_CMD_EXPORT:
		return nb_cmd_export(&cli);
	}
	return NB_EXIT_USAGE;
}

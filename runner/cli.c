/* nbrun — command-line parsing. One table says which options each subcommand takes; an option
 * of another subcommand is a usage error, never silently ignored. Errors are one line. The help
 * texts are cli_help.c's. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "export.h"
#include "agent.h"
#include "agent_limits.h"
#include "nb_config.h"
#include "units.h"
#include "waiting.h"

enum {
	OPT_PEER = 256, OPT_OUT, OPT_FORCE, OPT_DRY_RUN, OPT_CHECK, OPT_FILTER, OPT_SET, OPT_BIND,
	OPT_PORT, OPT_DATA_PORTS, OPT_ONCE, OPT_MAX_DURATION, OPT_IDLE_TIMEOUT, OPT_THRESHOLD,
	OPT_METRIC, OPT_FORMAT, OPT_VERSION, OPT_JSON, OPT_NAMES, OPT_NEUTRAL, OPT_EXPECT_DIFF,
	OPT_ALLOW_MISSING, OPT_FAIL_INCONCLUSIVE, OPT_LABEL, OPT_BETTER, OPT_JUNIT, OPT_SUMMARY,
	OPT_SECRET_FILE, OPT_ALLOW, OPT_MAX_RATE, OPT_MAX_STREAMS, OPT_MAX_MESSAGE, OPT_SECRET_STDIN,
	OPT_PUSH, OPT_STDIO, OPT_INSECURE, OPT_QUEUE_TIMEOUT, OPT_MAX_QUEUE, OPT_JSON_STREAM, OPT_LIVE,
};

#define C(x) (1u << NB_CMD_##x)
#define ALL (C(RUN) | C(RESUME) | C(SERVE) | C(VALIDATE) | C(REPORT) | C(COMPARE) | C(ENV) | C(EXPORT))

/* Every option: its name, argument, the subcommands that take it. */
static const struct optdef {
	const char *name;
	int has_arg;
	int id;
	unsigned cmds;
} optdefs[] = {
	{ "peer", required_argument, OPT_PEER, C(RUN) | C(RESUME) | C(ENV) },
	{ "out", required_argument, OPT_OUT, C(RUN) | C(COMPARE) | C(EXPORT) },
	{ "force", no_argument, OPT_FORCE, C(RUN) },
	{ "dry-run", no_argument, OPT_DRY_RUN, C(RUN) },
	{ "check", no_argument, OPT_CHECK, C(RUN) },
	{ "filter", required_argument, OPT_FILTER, C(RUN) | C(VALIDATE) },
	{ "set", required_argument, OPT_SET, C(RUN) | C(VALIDATE) },
	{ "label", required_argument, OPT_LABEL, C(RUN) },
	{ "secret-file", required_argument, OPT_SECRET_FILE, C(RUN) | C(RESUME) | C(ENV) | C(SERVE) },
	{ "secret-stdin", no_argument, OPT_SECRET_STDIN, C(SERVE) },
	{ "push", no_argument, OPT_PUSH, C(RUN) },
	{ "queue-timeout", required_argument, OPT_QUEUE_TIMEOUT, C(RUN) | C(RESUME) | C(ENV) },
	{ "json-stream", required_argument, OPT_JSON_STREAM, C(RUN) | C(RESUME) },
	{ "live", no_argument, OPT_LIVE, C(RUN) | C(RESUME) },
	{ "bind", required_argument, OPT_BIND, C(SERVE) },
	{ "port", required_argument, OPT_PORT, C(SERVE) },
	{ "data-ports", required_argument, OPT_DATA_PORTS, C(SERVE) },
	{ "once", no_argument, OPT_ONCE, C(SERVE) },
	{ "stdio", no_argument, OPT_STDIO, C(SERVE) },
	{ "insecure", no_argument, OPT_INSECURE, C(SERVE) },
	{ "max-duration", required_argument, OPT_MAX_DURATION, C(SERVE) },
	{ "idle-timeout", required_argument, OPT_IDLE_TIMEOUT, C(SERVE) },
	{ "max-queue", required_argument, OPT_MAX_QUEUE, C(SERVE) },
	{ "allow", required_argument, OPT_ALLOW, C(SERVE) },
	{ "max-rate", required_argument, OPT_MAX_RATE, C(SERVE) },
	{ "max-streams", required_argument, OPT_MAX_STREAMS, C(SERVE) },
	{ "max-message", required_argument, OPT_MAX_MESSAGE, C(SERVE) },
	{ "threshold", required_argument, OPT_THRESHOLD, C(COMPARE) },
	{ "metric", required_argument, OPT_METRIC, C(COMPARE) },
	{ "format", required_argument, OPT_FORMAT, C(COMPARE) | C(EXPORT) },
	{ "junit", required_argument, OPT_JUNIT, C(COMPARE) },
	{ "summary", required_argument, OPT_SUMMARY, C(COMPARE) },
	{ "better", required_argument, OPT_BETTER, C(EXPORT) },
	{ "names", required_argument, OPT_NAMES, C(COMPARE) },
	{ "neutral", no_argument, OPT_NEUTRAL, C(COMPARE) },
	{ "expect-diff", required_argument, OPT_EXPECT_DIFF, C(COMPARE) },
	{ "allow-missing", no_argument, OPT_ALLOW_MISSING, C(COMPARE) },
	{ "fail-on-inconclusive", no_argument, OPT_FAIL_INCONCLUSIVE, C(COMPARE) },
	{ "json", required_argument, OPT_JSON, C(ENV) },
	{ "quiet", no_argument, 'q', ALL },
	{ "verbose", no_argument, 'v', ALL },
	{ "version", no_argument, OPT_VERSION, C(RUN) },
	{ "help", no_argument, 'h', ALL },
};
#define NOPTS (sizeof(optdefs) / sizeof(optdefs[0]))

static bool parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	if (!s || !*s || *s == '-')
		return false;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || v < lo || v > hi)
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool parse_port_range(const char *s, uint16_t *lo, uint16_t *hi)
{
	char buf[32];
	uint32_t a, b;
	const char *dash = strchr(s, '-');
	if (!dash || (size_t)(dash - s) >= sizeof(buf))
		return false;
	memcpy(buf, s, (size_t)(dash - s));
	buf[dash - s] = '\0';
	if (!parse_u32(buf, 1, 65535, &a) || !parse_u32(dash + 1, 1, 65535, &b) || a > b)
		return false;
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
	return true;
}

static bool push(const char **list, size_t *n, const char *v, const char *what, struct nb_error *err)
{
	if (*n >= NB_CLI_MAX_LIST)
		return nb_error_set(err, "too many %s (at most %d)", what, NB_CLI_MAX_LIST);
	list[(*n)++] = v;
	return true;
}

static void cli_defaults(struct nb_cli *cli)
{
	memset(cli, 0, sizeof(*cli));
	cli->cmd = NB_CMD_RUN;
	cli->port = NB_DEFAULT_CONTROL_PORT;
	cli->data_lo = NB_DEFAULT_DATA_LO;
	cli->data_hi = NB_DEFAULT_DATA_HI;
	cli->max_duration_s = NB_LIMITS_SERVE_DURATION_S;
	cli->idle_timeout_s = 300;
	cli->max_queue = NB_AGENT_QUEUE_DEFAULT;
	cli->queue_timeout_ms = NB_QUEUE_TIMEOUT_DEFAULT_MS;
	cli->max_streams = NB_LIMITS_SERVE_FLOWS;
	cli->max_message = NB_LIMITS_SERVE_MESSAGE;
	cli->threshold = 0.05;
	cli->format = "md";
	cli->export_format = -1;
	cli->better = NB_BETTER_NONE;
}

static void save_cmdline(int argc, char **argv, struct nb_cli *cli)
{
	size_t used = 0;
	for (int i = 0; i < argc && used < sizeof(cli->cmdline) - 1; i++) {
		int n = snprintf(cli->cmdline + used, sizeof(cli->cmdline) - used, "%s%s",
				 i ? " " : "", argv[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* serve's limits on one test: --max-streams, --max-message, --max-rate. */
static bool apply_limit_opt(int c, const char *arg, struct nb_cli *cli, struct nb_error *err)
{
	uint64_t v;
	enum nb_rate_unit unit;
	const char *why;
	switch (c) {
	case OPT_MAX_STREAMS:
		if (!parse_u32(arg, 1, NB_MAX_FLOWS, &cli->max_streams))
			return nb_error_set(err, "--max-streams '%s': expected flows, 1..%d", arg, NB_MAX_FLOWS);
		cli->limits_given |= NB_CLI_GAVE_STREAMS;
		return true;
	case OPT_MAX_MESSAGE:
		if (!nb_units_size(arg, &v, &why) || v < 1 || v > (1u << 30))
			return nb_error_set(err, "--max-message '%s': expected a size, 1 to 1G, e.g. 1M", arg);
		cli->max_message = (uint32_t)v;
		return true;
	}
	if (!nb_units_rate(arg, &v, &unit, &why) || unit == NB_RATE_PPS)
		return nb_error_set(err, "--max-rate '%s': expected bit/s, e.g. 10G (0: no limit)", arg);
	cli->max_rate = v;
	cli->limits_given |= NB_CLI_GAVE_RATE;
	return true;
}

/* --queue-timeout: a duration up to a day (a bare number is seconds), 0 for no wait at all. */
static bool parse_queue_timeout(const char *arg, struct nb_cli *cli, struct nb_error *err)
{
	uint64_t ns = 0;
	const char *why = NULL;
	if (!nb_units_duration(arg, &ns, &why) || ns > 86400ull * 1000000000ull)
		return nb_error_set(err, "--queue-timeout '%s': expected a duration up to 24h, e.g. "
				    "30s or 10m (0: do not wait)", arg);
	cli->queue_timeout_ms = (uint32_t)(ns / 1000000ull);
	return true;
}

/* Options of serve: numbers with ranges, who may connect, the limits. */
static bool apply_serve_opt(int c, const char *arg, struct nb_cli *cli, struct nb_error *err)
{
	uint32_t v;
	switch (c) {
	case OPT_ALLOW:
		if (cli->nallow >= NB_CLI_MAX_LIST)
			return nb_error_set(err, "too many --allow (at most %d)", NB_CLI_MAX_LIST);
		return nb_cidr_parse(arg, &cli->allow[cli->nallow++], err);
	case OPT_MAX_STREAMS:
	case OPT_MAX_MESSAGE:
	case OPT_MAX_RATE:
		return apply_limit_opt(c, arg, cli, err);
	case OPT_PORT:
		if (!parse_u32(arg, 0, 65535, &v))
			return nb_error_set(err, "--port '%s': expected a port 1..65535 (0: any free one)",
					    arg);
		cli->port = (uint16_t)v;
		return true;
	case OPT_DATA_PORTS:
		if (!parse_port_range(arg, &cli->data_lo, &cli->data_hi))
			return nb_error_set(err, "--data-ports '%s': expected LOW-HIGH, e.g. 7600-7699", arg);
		return true;
	case OPT_MAX_DURATION:
		if (!parse_u32(arg, 1, 86400 * 7, &cli->max_duration_s))
			return nb_error_set(err, "--max-duration '%s': expected seconds, 1..604800", arg);
		cli->limits_given |= NB_CLI_GAVE_DURATION;
		return true;
	case OPT_IDLE_TIMEOUT:
		if (!parse_u32(arg, 1, 86400, &cli->idle_timeout_s))
			return nb_error_set(err, "--idle-timeout '%s': expected seconds, 1..86400", arg);
		return true;
	case OPT_MAX_QUEUE:
		if (!parse_u32(arg, 0, NB_QUEUE_PLACES_MAX, &cli->max_queue))
			return nb_error_set(err, "--max-queue '%s': expected clients, 0..%d", arg,
					    NB_QUEUE_PLACES_MAX);
		return true;
	}
	return true;
}

/* Options of compare. */
static bool apply_compare_opt(int c, const char *arg, struct nb_cli *cli, struct nb_error *err)
{
	switch (c) {
	case OPT_THRESHOLD: return nb_cmp_parse_threshold(arg, &cli->threshold, err);
	case OPT_FORMAT:
		if (strcmp(arg, "md") && strcmp(arg, "csv") && strcmp(arg, "json"))
			return nb_error_set(err, "--format '%s': expected md, csv or json", arg);
		cli->format = arg;
		return true;
	case OPT_METRIC: return push(cli->metrics, &cli->nmetrics, arg, "--metric", err);
	case OPT_NAMES: cli->names = arg; return true;
	case OPT_JUNIT: cli->junit = arg; return true;
	case OPT_SUMMARY: cli->summary = arg; return true;
	case OPT_NEUTRAL: cli->neutral = true; return true;
	case OPT_EXPECT_DIFF: return push(cli->expect, &cli->nexpect, arg, "--expect-diff", err);
	case OPT_ALLOW_MISSING: cli->allow_missing = true; return true;
	case OPT_FAIL_INCONCLUSIVE: cli->fail_on_inconclusive = true; return true;
	}
	return true;
}

/* Options of export. */
static bool apply_export_opt(int c, const char *arg, struct nb_cli *cli, struct nb_error *err)
{
	enum nb_export_format f;
	if (c == OPT_FORMAT) {
		if (!nb_export_format_parse(arg, &f))
			return nb_error_set(err, "--format '%s': expected prometheus, github-benchmark, "
					    "jsonl or csv", arg);
		cli->export_format = (int)f;
		return true;
	}
	if (strcmp(arg, "bigger") && strcmp(arg, "smaller"))
		return nb_error_set(err, "--better '%s': expected bigger or smaller", arg);
	cli->better = arg[0] == 'b' ? NB_BETTER_HIGHER : NB_BETTER_LOWER;
	return true;
}

/* Apply one parsed option; false with err set on a bad value. */
static bool apply_opt(int c, const char *arg, struct nb_cli *cli, struct nb_error *err)
{
	switch (c) {
	case OPT_PEER:
		cli->peer = cli->peer ? cli->peer : arg;
		return push(cli->peers, &cli->npeers, arg, "--peer", err);
	case OPT_OUT: cli->out = arg; return true;
	case OPT_FORCE: cli->force = true; return true;
	case OPT_DRY_RUN: cli->dry_run = true; return true;
	case OPT_CHECK: cli->check = true; return true;
	case OPT_FILTER: return push(cli->filters, &cli->nfilters, arg, "--filter", err);
	case OPT_SET:
		if (!strchr(arg, '=') || arg[0] == '=')
			return nb_error_set(err, "--set '%s': expected KEY=VALUE", arg);
		return push(cli->sets, &cli->nsets, arg, "--set", err);
	case OPT_LABEL: return nb_config_label_arg(cli->labels, &cli->nlabels, arg, err);
	case OPT_BIND: cli->bind = arg; return true;
	case OPT_ONCE: cli->once = true; return true;
	case OPT_STDIO: cli->stdio = true; return true;
	case OPT_INSECURE: cli->insecure = true; return true;
	case OPT_JSON: cli->json = arg; return true;
	case OPT_SECRET_FILE: cli->secret_file = arg; return true;
	case OPT_SECRET_STDIN: cli->secret_stdin = true; return true;
	case OPT_PUSH: cli->push = true; return true;
	case OPT_QUEUE_TIMEOUT: return parse_queue_timeout(arg, cli, err);
	case OPT_JSON_STREAM: cli->json_stream = arg; return true;
	case OPT_LIVE: cli->live = true; return true;
	case 'q': cli->verbosity = -1; return true;
	case 'v': cli->verbosity++; return true;
	case OPT_BETTER:
		return apply_export_opt(c, arg, cli, err);
	case OPT_FORMAT:
		if (cli->cmd == NB_CMD_EXPORT)
			return apply_export_opt(c, arg, cli, err);
		return apply_compare_opt(c, arg, cli, err);
	case OPT_THRESHOLD:
	case OPT_METRIC:
	case OPT_JUNIT:
	case OPT_SUMMARY:
	case OPT_NAMES:
	case OPT_NEUTRAL:
	case OPT_EXPECT_DIFF:
	case OPT_ALLOW_MISSING:
	case OPT_FAIL_INCONCLUSIVE:
		return apply_compare_opt(c, arg, cli, err);
	}
	return apply_serve_opt(c, arg, cli, err);
}

static const struct optdef *optdef_of(int id)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (optdefs[i].id == id)
			return &optdefs[i];
	return NULL;
}

/* "serve" or "run, resume or env": the subcommands taking an option. */
static void owners(unsigned cmds, char *buf, size_t len)
{
	const char *names[NB_CMD_EXPORT + 1];
	size_t n = 0;
	for (int c = NB_CMD_RUN; c <= NB_CMD_EXPORT; c++)
		if ((cmds >> c) & 1u)
			names[n++] = nb_cli_cmd_name((enum nb_cmd)c);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
}

/* An option this subcommand does not take: name the ones that do. */
static bool foreign_opt(const struct nb_cli *cli, const struct optdef *d, bool *foreign,
			struct nb_error *err)
{
	char who[128];
	owners(d->cmds, who, sizeof(who));
	*foreign = true;
	return nb_error_set(err, "--%s is not an option of nbrun %s (only of nbrun %s)", d->name,
			    nb_cli_cmd_name(cli->cmd), who);
}

static bool check_positionals(struct nb_cli *cli, struct nb_error *err)
{
	if (cli->npeers > 1 && cli->cmd != NB_CMD_RUN)
		return nb_error_set(err, "%s: one --peer (several paths at once are for nbrun run)",
				    nb_cli_cmd_name(cli->cmd));
	switch (cli->cmd) {
	case NB_CMD_RUN:
	case NB_CMD_VALIDATE:
		if (cli->nargs != 1)
			return nb_error_set(err, cli->nargs ? "expected one CONFIG.yaml, got %zu arguments"
							  : "missing CONFIG.yaml%.0zu", cli->nargs);
		return true;
	case NB_CMD_EXPORT:
		if (cli->nargs == 1 && cli->export_format < 0)
			return nb_error_set(err, "export: --format is required (prometheus, "
					    "github-benchmark, jsonl or csv)");
		/* fall through */
	case NB_CMD_REPORT:
	case NB_CMD_RESUME:
		if (cli->nargs != 1)
			return nb_error_set(err, "%s: expected one results folder",
					    nb_cli_cmd_name(cli->cmd));
		return true;
	case NB_CMD_COMPARE:
		if (cli->nargs < 2)
			return nb_error_set(err, "compare: expected BASE and at least one NEW results folder");
		return true;
	case NB_CMD_ENV:
		if (cli->nargs > 1 || (cli->nargs && !cli->peer))
			return nb_error_set(err, "env: CONFIG.yaml only names the hosts --peer NAME may "
					    "name: give one, with --peer");
		return true;
	case NB_CMD_SERVE:
		if (cli->nargs)
			return nb_error_set(err, "unexpected argument '%s'", cli->args[0]);
		return true;
	default:
		return true;
	}
}

/* The subcommand named by argv[1], if any (*named); `help` takes an optional subcommand. */
static int subcommand(int argc, char **argv, struct nb_cli *cli, bool *named)
{
	*named = false;
	if (argc < 2)
		return 1;
	for (int c = NB_CMD_RUN; c <= NB_CMD_EXPORT; c++)
		if (strcmp(argv[1], nb_cli_cmd_name((enum nb_cmd)c)) == 0) {
			cli->cmd = (enum nb_cmd)c;
			*named = true;
			return 2;
		}
	if (strcmp(argv[1], "help") != 0)
		return 1;
	cli->cmd = NB_CMD_HELP;
	cli->help_for = NB_CMD_HELP;
	for (int c = NB_CMD_RUN; argc > 2 && c <= NB_CMD_EXPORT; c++)
		if (strcmp(argv[2], nb_cli_cmd_name((enum nb_cmd)c)) == 0)
			cli->help_for = (enum nb_cmd)c;
	return argc;
}

static bool parse_opts(int argc, char **argv, struct nb_cli *cli, bool named, bool *foreign,
		       struct nb_error *err)
{
	struct option long_opts[NOPTS + 1];
	for (size_t i = 0; i < NOPTS; i++)
		long_opts[i] = (struct option){ optdefs[i].name, optdefs[i].has_arg, NULL, optdefs[i].id };
	long_opts[NOPTS] = (struct option){ NULL, 0, NULL, 0 };
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":qvho:", long_opts, NULL)) != -1) {
		const char *bad = argv[optind - 1];
		c = c == 'o' ? OPT_OUT : c;
		if (c == '?')
			return nb_error_set(err, "unknown option '%s'", optopt ? (char[]){ '-', (char)optopt, 0 } : bad);
		if (c == ':')
			return nb_error_set(err, "option '%s' needs an argument", bad);
		const struct optdef *d = optdef_of(c);
		if (d && !((d->cmds >> cli->cmd) & 1u))
			return foreign_opt(cli, d, foreign, err);
		if (c == 'h' || c == OPT_VERSION) {
			cli->help_for = named ? cli->cmd : NB_CMD_HELP;
			cli->cmd = c == 'h' ? NB_CMD_HELP : NB_CMD_VERSION;
			continue;
		}
		if (!apply_opt(c, optarg, cli, err))
			return false;
	}
	return true;
}

bool nb_cli_parse(int argc, char **argv, struct nb_cli *cli, bool *foreign, struct nb_error *err)
{
	cli_defaults(cli);
	save_cmdline(argc, argv, cli);
	*foreign = false;
	bool named;
	optind = subcommand(argc, argv, cli, &named);
	if (cli->cmd == NB_CMD_HELP)
		return true;
	if (!parse_opts(argc, argv, cli, named, foreign, err))
		return false;
	for (int i = optind; i < argc; i++)
		if (!push(cli->args, &cli->nargs, argv[i], "arguments", err))
			return false;
	if (cli->cmd == NB_CMD_HELP || cli->cmd == NB_CMD_VERSION)
		return true;
	return check_positionals(cli, err);
}

/* nbrun — command-line parsing. One option table for every subcommand; each
 * subcommand then checks its positional arguments. Errors are one line. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "limits.h"
#include "nb_config.h"
#include "units.h"

enum {
	OPT_PEER = 256, OPT_OUT, OPT_DRY_RUN, OPT_FILTER, OPT_SET, OPT_BIND, OPT_PORT, OPT_DATA_PORTS,
	OPT_ONCE, OPT_MAX_DURATION, OPT_IDLE_TIMEOUT, OPT_THRESHOLD, OPT_METRIC, OPT_FORMAT,
	OPT_VERSION, OPT_JSON, OPT_NAMES, OPT_NEUTRAL, OPT_EXPECT_DIFF, OPT_ALLOW_MISSING,
	OPT_FAIL_INCONCLUSIVE, OPT_SECRET_FILE, OPT_ALLOW, OPT_MAX_RATE, OPT_MAX_STREAMS,
	OPT_MAX_MESSAGE,
};

static const struct option long_opts[] = {
	{ "peer", required_argument, NULL, OPT_PEER },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "set", required_argument, NULL, OPT_SET },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "data-ports", required_argument, NULL, OPT_DATA_PORTS },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "max-duration", required_argument, NULL, OPT_MAX_DURATION },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT },
	{ "secret-file", required_argument, NULL, OPT_SECRET_FILE },
	{ "allow", required_argument, NULL, OPT_ALLOW },
	{ "max-rate", required_argument, NULL, OPT_MAX_RATE },
	{ "max-streams", required_argument, NULL, OPT_MAX_STREAMS },
	{ "max-message", required_argument, NULL, OPT_MAX_MESSAGE },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "names", required_argument, NULL, OPT_NAMES },
	{ "neutral", no_argument, NULL, OPT_NEUTRAL },
	{ "expect-diff", required_argument, NULL, OPT_EXPECT_DIFF },
	{ "allow-missing", no_argument, NULL, OPT_ALLOW_MISSING },
	{ "fail-on-inconclusive", no_argument, NULL, OPT_FAIL_INCONCLUSIVE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct {
	const char *name;
	enum nb_cmd cmd;
} subcommands[] = {
	{ "serve", NB_CMD_SERVE }, { "report", NB_CMD_REPORT }, { "compare", NB_CMD_COMPARE },
	{ "env", NB_CMD_ENV },     { "validate", NB_CMD_VALIDATE }, { "help", NB_CMD_HELP },
};

void nb_cli_usage(FILE *out)
{
	fprintf(out,
		"usage: nbrun [OPTIONS] CONFIG.yaml        run a test matrix\n"
		"       nbrun serve [--bind ADDR] [--port %d] [--data-ports %d-%d] [--once]\n"
		"                   [--secret-file FILE] [--allow CIDR]... [--idle-timeout SECONDS]\n"
		"                   [--max-duration SECONDS] [--max-streams N] [--max-message SIZE]\n"
		"                   [--max-rate BITS]  the agent (docs/agent.md: on a cloud VM)\n"
		"       nbrun validate CONFIG.yaml          check a config, print the case count\n"
		"       nbrun report DIR                    rebuild report, summary and charts\n"
		"       nbrun compare BASE NEW [NEW...] [--threshold 5%%] [--metric NAME]\n"
		"                     [--out FILE.md] [--format md|csv|json] [--allow-missing]\n"
		"                     [--fail-on-inconclusive] [--expect-diff KEY] [--names A,B] [--neutral]\n"
		"       nbrun env [--peer HOST[:PORT]] [--json FILE]  environment facts of both ends\n"
		"\n"
		"options:\n"
		"  --peer HOST[:PORT]   run against `nbrun serve` on HOST (default: embedded agent on loopback)\n"
		"  --out DIR            results folder (default results/<name>-<UTC timestamp>)\n"
		"  --dry-run            print the plan and its estimated duration, run nothing\n"
		"  --filter GLOB        run only cases whose id matches (repeatable)\n"
		"  --set KEY=VALUE      override a default for every test, e.g. --set duration=5s (repeatable)\n"
		"  --secret-file FILE   the agent's shared secret (run, env, serve; else $NBRUN_SECRET_FILE)\n"
		"  -q, --quiet          only errors;  -v, --verbose  more detail\n"
		"  --version            print the version;  -h, --help  this text\n",
		NB_DEFAULT_CONTROL_PORT, NB_DEFAULT_DATA_LO, NB_DEFAULT_DATA_HI);
}

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

/* serve's limits and who may connect: --allow, --max-*, --idle-timeout. */
static bool apply_serve(int c, const char *arg, struct nb_cli *cli, struct nb_error *err)
{
	uint64_t v;
	enum nb_rate_unit unit;
	const char *why;
	switch (c) {
	case OPT_ALLOW:
		if (cli->nallow >= NB_CLI_MAX_LIST)
			return nb_error_set(err, "too many --allow (at most %d)", NB_CLI_MAX_LIST);
		return nb_cidr_parse(arg, &cli->allow[cli->nallow++], err);
	case OPT_MAX_DURATION:
		if (!parse_u32(arg, 1, 86400 * 7, &cli->max_duration_s))
			return nb_error_set(err, "--max-duration '%s': expected seconds, 1..604800", arg);
		return true;
	case OPT_IDLE_TIMEOUT:
		if (!parse_u32(arg, 1, 86400, &cli->idle_timeout_s))
			return nb_error_set(err, "--idle-timeout '%s': expected seconds, 1..86400", arg);
		return true;
	case OPT_MAX_STREAMS:
		if (!parse_u32(arg, 1, NB_MAX_FLOWS, &cli->max_streams))
			return nb_error_set(err, "--max-streams '%s': expected flows, 1..%d", arg, NB_MAX_FLOWS);
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
	cli->max_streams = NB_LIMITS_SERVE_FLOWS;
	cli->max_message = NB_LIMITS_SERVE_MESSAGE;
	cli->threshold = 0.05;
	cli->format = "md";
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

/* Apply one parsed option; false with err set on a bad value. */
static bool apply_opt(int c, const char *arg, const char *argv0, struct nb_cli *cli,
		      struct nb_error *err)
{
	uint32_t v;
	switch (c) {
	case OPT_PEER: cli->peer = arg; return true;
	case OPT_OUT: cli->out = arg; return true;
	case OPT_DRY_RUN: cli->dry_run = true; return true;
	case OPT_FILTER: return push(cli->filters, &cli->nfilters, arg, "--filter", err);
	case OPT_SET:
		if (!strchr(arg, '=') || arg[0] == '=')
			return nb_error_set(err, "--set '%s': expected KEY=VALUE", arg);
		return push(cli->sets, &cli->nsets, arg, "--set", err);
	case OPT_BIND: cli->bind = arg; return true;
	case OPT_PORT:
		if (!parse_u32(arg, 1, 65535, &v))
			return nb_error_set(err, "--port '%s': expected a port 1..65535", arg);
		cli->port = (uint16_t)v;
		return true;
	case OPT_DATA_PORTS:
		if (!parse_port_range(arg, &cli->data_lo, &cli->data_hi))
			return nb_error_set(err, "--data-ports '%s': expected LOW-HIGH, e.g. 7600-7699", arg);
		return true;
	case OPT_ONCE: cli->once = true; return true;
	case OPT_THRESHOLD: return nb_cmp_parse_threshold(arg, &cli->threshold, err);
	case OPT_METRIC: cli->metric = arg; return true;
	case OPT_FORMAT:
		if (strcmp(arg, "md") && strcmp(arg, "csv") && strcmp(arg, "json"))
			return nb_error_set(err, "--format '%s': expected md, csv or json", arg);
		cli->format = arg;
		return true;
	case OPT_JSON: cli->json = arg; return true;
	case OPT_NAMES: cli->names = arg; return true;
	case OPT_NEUTRAL: cli->neutral = true; return true;
	case OPT_EXPECT_DIFF: return push(cli->expect, &cli->nexpect, arg, "--expect-diff", err);
	case OPT_ALLOW_MISSING: cli->allow_missing = true; return true;
	case OPT_FAIL_INCONCLUSIVE: cli->fail_on_inconclusive = true; return true;
	case OPT_SECRET_FILE: cli->secret_file = arg; return true;
	case OPT_ALLOW:
	case OPT_MAX_DURATION:
	case OPT_IDLE_TIMEOUT:
	case OPT_MAX_RATE:
	case OPT_MAX_STREAMS:
	case OPT_MAX_MESSAGE:
		return apply_serve(c, arg, cli, err);
	case 'q': cli->verbosity = -1; return true;
	case 'v': cli->verbosity++; return true;
	case 'h': cli->cmd = NB_CMD_HELP; return true;
	case OPT_VERSION: cli->cmd = NB_CMD_VERSION; return true;
	}
	return nb_error_set(err, "%s: unknown option", argv0);
}

static bool check_positionals(struct nb_cli *cli, struct nb_error *err)
{
	switch (cli->cmd) {
	case NB_CMD_RUN:
	case NB_CMD_VALIDATE:
		if (cli->nargs != 1)
			return nb_error_set(err, cli->nargs ? "expected one CONFIG.yaml, got %zu arguments"
							  : "missing CONFIG.yaml%.0zu", cli->nargs);
		return true;
	case NB_CMD_REPORT:
		if (cli->nargs != 1)
			return nb_error_set(err, "report: expected one results folder");
		return true;
	case NB_CMD_COMPARE:
		if (cli->nargs < 2)
			return nb_error_set(err, "compare: expected BASE and at least one NEW results folder");
		return true;
	case NB_CMD_SERVE:
	case NB_CMD_ENV:
		if (cli->nargs)
			return nb_error_set(err, "unexpected argument '%s'", cli->args[0]);
		return true;
	case NB_CMD_HELP:
	case NB_CMD_VERSION:
		return true;
	}
	return true;
}

bool nb_cli_parse(int argc, char **argv, struct nb_cli *cli, struct nb_error *err)
{
	cli_defaults(cli);
	save_cmdline(argc, argv, cli);
	int first = 1;
	if (argc > 1) {
		for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
			if (strcmp(argv[1], subcommands[i].name) == 0) {
				cli->cmd = subcommands[i].cmd;
				first = 2;
			}
		}
	}
	optind = first;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":qvh", long_opts, NULL)) != -1) {
		const char *bad = argv[optind - 1];
		if (c == '?')
			return nb_error_set(err, "unknown option '%s'", optopt ? (char[]){ '-', (char)optopt, 0 } : bad);
		if (c == ':')
			return nb_error_set(err, "option '%s' needs an argument", bad);
		if (!apply_opt(c, optarg, bad, cli, err))
			return false;
	}
	for (int i = optind; i < argc; i++)
		if (!push(cli->args, &cli->nargs, argv[i], "arguments", err))
			return false;
	if (cli->cmd == NB_CMD_HELP || cli->cmd == NB_CMD_VERSION)
		return true;
	return check_positionals(cli, err);
}

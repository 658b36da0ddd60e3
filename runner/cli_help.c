/* nbrun — the command line's help: each subcommand's synopsis and options as `nbrun SUB --help`
 * prints them, the overview and the exit codes. Which options a subcommand takes is cli.c's table. */
#include "cli.h"

#include <string.h>

/* What `nbrun SUB --help` prints: the synopsis, then one line per option. */
static const struct cmddef {
	const char *name;
	const char *synopsis;
	const char *options;
} cmddefs[] = {
	[NB_CMD_RUN] = { "run",
		"usage: nbrun [OPTIONS] CONFIG.yaml        run a test matrix\n",
		"  --peer HOST[:PORT]   run against `nbrun serve` on HOST (default: embedded agent on loopback);\n"
		"                       a name of the config's hosts: means that host (docs/fleet.md)\n"
		"                       repeated, each case runs on every path local->HOST at once\n"
		"  --out DIR            results folder, new or empty (default results/<name>-<UTC timestamp>)\n"
		"  --force              use a non-empty --out anyway, replacing the results files in it\n"
		"  --dry-run            print the plan and its estimated duration, run nothing\n"
		"  --check              ask both ends for what the plan needs (congestion control, CPUs,\n"
		"                       data ports, limits), one line per problem; run nothing\n"
		"  --filter GLOB        run only cases whose id matches (repeatable)\n"
		"  --set KEY=VALUE      override a default for every test, e.g. --set duration=5s (repeatable)\n"
		"  --label KEY=VALUE    tag the batch, e.g. --label region=eu-west-1 (repeatable; wins over\n"
		"                       the config's labels:); carried into meta.json, runs.jsonl, exports\n"
		"  --secret-file FILE   the agent's shared secret (default: $NBRUN_SECRET_FILE; none)\n"
		"  --push               copy this nbrun to each ssh host first (docs/fleet.md)\n"
		"  --queue-timeout T    wait up to T in line for an agent busy with other batches,\n"
		"                       e.g. 30s, 10m (default 5m; 0: fail at once, exit 6)\n"
		"  --live               a line per interval of each run as it is measured (the default\n"
		"                       with -v on a terminal)\n"
		"  --json-stream FILE   write the batch's events as NDJSON to FILE (-: standard output)\n"
		"                       as they happen: batch, case, interval, run, error, batch end\n" },
	[NB_CMD_RESUME] = { "resume",
		"usage: nbrun resume DIR [--peer HOST[:PORT]]   run what an interrupted batch left out\n",
		"  --peer HOST[:PORT]   the agent to use (default: the peer recorded in DIR/meta.json)\n"
		"  --secret-file FILE   the agent's shared secret (default: $NBRUN_SECRET_FILE; none)\n"
		"  --queue-timeout T    wait up to T in line for a busy agent (default 5m; 0: not at all)\n"
		"  --live               a line per interval as it is measured (default with -v on a tty)\n"
		"  --json-stream FILE   the batch's events as NDJSON to FILE (-: standard output)\n" },
	[NB_CMD_SERVE] = { "serve",
		"usage: nbrun serve --secret-file FILE [--allow CIDR]... [--bind ADDR] [--port 7575]\n"
		"                   [--data-ports 7600-7699] [--once] [--secret-stdin] [--stdio]\n"
		"                   [--insecure]\n"
		"                   [--idle-timeout SECONDS] [--max-queue N]\n"
		"                   [--max-duration SECONDS] [--max-streams N] [--max-message SIZE]\n"
		"                   [--max-rate BITS]   the agent (docs/agent.md: on a cloud VM)\n",
		"  --secret-file FILE   clients must prove this shared secret (default: $NBRUN_SECRET_FILE);\n"
		"                       without one the agent serves loopback only, unless --insecure\n"
		"  --secret-stdin       read the secret's line from standard input, and stop when it\n"
		"                       ends (how nbrun starts agents over ssh)\n"
		"  --allow CIDR         accept connections only from CIDR (repeatable; default: anyone)\n"
		"  --bind ADDR          listen on ADDR only (default: every address)\n"
		"  --port PORT          control port (default 7575; 0: any free one)\n"
		"  --data-ports LO-HI   data port range (default 7600-7699)\n"
		"  --once               exit after the first session\n"
		"  --insecure           serve without a secret on an address beyond loopback: anyone who\n"
		"                       reaches it may use the agent (limits then default to\n"
		"                       --max-streams 8 --max-duration 60 --max-rate 1G)\n"
		"  --stdio              serve one session on standard input and output, opening no\n"
		"                       control port; run by sshd (its SSH_CONNECTION says the data\n"
		"                       address and the client's), as nbrun does for ssh: hosts\n"
		"  --max-duration S     refuse tests longer than S seconds (default 3600)\n"
		"  --max-streams N      refuse tests with more than N flows (default 64)\n"
		"  --max-message SIZE   refuse messages larger than SIZE (default 1M)\n"
		"  --max-rate BITS      refuse tests asking more than BITS bit/s, e.g. 10G, and unpaced\n"
		"                       streams (default: none)\n"
		"  --idle-timeout S     close a session that runs no test for S seconds (default 300)\n"
		"  --max-queue N        clients that may wait in line while a session runs, first come\n"
		"                       first served (default 8, at most 32; 0: a second is told busy)\n" },
	[NB_CMD_VALIDATE] = { "validate",
		"usage: nbrun validate CONFIG.yaml [--filter GLOB] [--set KEY=VALUE]   check a config\n",
		"  --filter GLOB        count only cases whose id matches (repeatable)\n"
		"  --set KEY=VALUE      override a default for every test (repeatable)\n" },
	[NB_CMD_REPORT] = { "report",
		"usage: nbrun report DIR                    rebuild report, summary and charts\n", "" },
	[NB_CMD_COMPARE] = { "compare",
		"usage: nbrun compare BASE NEW [NEW...] [--threshold 5%] [--metric NAME]\n"
		"                     [--out FILE.md] [--format md|csv|json] [--junit FILE.xml]\n"
		"                     [--summary FILE.md] [--allow-missing]\n"
		"                     [--fail-on-inconclusive] [--expect-diff KEY] [--names A,B]\n"
		"                     [--neutral]   regression gate, vendor comparison\n",
		"  --threshold PCT      smallest change that counts (default 5%)\n"
		"  --metric NAME        judge every case on this column; all: each case's headline\n"
		"                       (the default); repeatable: --metric all --metric lat_p99_us\n"
		"  --out FILE           write the comparison here (charts beside it), not on stdout\n"
		"  --format FMT         md (default), csv or json\n"
		"  --junit FILE         also write JUnit XML: a testsuite per metric, a testcase per\n"
		"                       case, a failure wherever the gate fails\n"
		"  --summary FILE       also append a short Markdown summary (the gate, then the\n"
		"                       changes), e.g. --summary \"$GITHUB_STEP_SUMMARY\"\n"
		"  --allow-missing      an interrupted NEW batch, a failed case and a case missing\n"
		"                       from NEW are notes, not failures (exit 3, 4, 5)\n"
		"  --fail-on-inconclusive  an inconclusive case fails the gate\n"
		"  --expect-diff KEY    a difference in this plan or environment key is intended\n"
		"                       (repeatable)\n"
		"  --names A,B          name the folders in the report\n"
		"  --neutral            vendor comparison: no better or worse, only differences\n" },
	[NB_CMD_ENV] = { "env",
		"usage: nbrun env [CONFIG.yaml] [--peer HOST[:PORT]|NAME] [--json FILE]\n"
		"                                           environment facts of both ends\n",
		"  --peer HOST[:PORT]   also ask the agent on HOST for its facts; a NAME of\n"
		"                       CONFIG.yaml's hosts: is reached as a run reaches it (its\n"
		"                       agent started over ssh for an ssh: host)\n"
		"  --secret-file FILE   the agent's shared secret (default: $NBRUN_SECRET_FILE; none)\n"
		"  --queue-timeout T    wait up to T in line for a busy agent (default 5m; 0: not at all)\n"
		"  --json FILE          also write the facts as JSON to FILE\n" },
	[NB_CMD_EXPORT] = { "export",
		"usage: nbrun export DIR --format prometheus|github-benchmark|jsonl|csv [-o FILE]\n"
		"                    [--better bigger|smaller]   results for other systems\n",
		"  --format FMT         prometheus (text exposition: Pushgateway, textfile collector),\n"
		"                       github-benchmark (github-action-benchmark's custom JSON),\n"
		"                       jsonl (runs.jsonl's records) or csv (one row per case)\n"
		"  -o, --out FILE       write here, whole or not at all (default: stdout)\n"
		"  --better DIR         github-benchmark: only the bigger- or smaller-is-better\n"
		"                       headlines (needed when the folder has both)\n" },
};

static const char common_options[] =
	"  -q, --quiet          only errors;  -v, --verbose  more detail;  -h, --help  this text\n";

static const char exit_codes[] =
	"exit codes: 0 every run measured; 1 some runs failed or gave no result (recorded);\n"
	"  2 bad input (config, CLI); 3 the peer is unreachable or died mid-run; 4 a results file\n"
	"  cannot be written; 5 --check found a problem; 6 the agent stayed busy (its queue full,\n"
	"  or --queue-timeout passed); 129, 130, 143 interrupted by SIGHUP, SIGINT, SIGTERM\n"
	"  (every finished run is kept and reported).\n";

const char *nb_cli_cmd_name(enum nb_cmd cmd)
{
	return cmd <= NB_CMD_EXPORT ? cmddefs[cmd].name : cmd == NB_CMD_HELP ? "help" : "version";
}

static void overview(FILE *out)
{
	fputs(cmddefs[NB_CMD_RUN].synopsis, out);
	for (int c = NB_CMD_RESUME; c <= NB_CMD_EXPORT; c++)
		fprintf(out, "       %s", cmddefs[c].synopsis + strlen("usage: "));
	fputs("       nbrun help [SUBCOMMAND]             this text, or a subcommand's options\n"
	      "\noptions of a run:\n", out);
	fputs(cmddefs[NB_CMD_RUN].options, out);
	fputs(common_options, out);
	fputs("  --version            print the version\n\n", out);
	fputs(exit_codes, out);
	fputs("'nbrun SUBCOMMAND --help' lists its options; `man nbrun` has the details.\n", out);
}

void nb_cli_usage(enum nb_cmd cmd, FILE *out)
{
	if (cmd > NB_CMD_EXPORT) {
		overview(out);
		return;
	}
	fputs(cmddefs[cmd].synopsis, out);
	fputs("\noptions:\n", out);
	fputs(cmddefs[cmd].options, out);
	fputs(common_options, out);
	if (cmd == NB_CMD_RUN || cmd == NB_CMD_RESUME)
		fprintf(out, "\n%s", exit_codes);
}

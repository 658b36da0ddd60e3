/* nbrun — command line: subcommands, each with its own options and help. */
#ifndef NB_CLI_H
#define NB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cidr.h"
#include "config.h"
#include "ctl.h"
#include "nb_error.h"

#define NB_CLI_MAX_LIST 64

enum nb_cmd {
	NB_CMD_RUN, NB_CMD_RESUME, NB_CMD_SERVE, NB_CMD_VALIDATE, NB_CMD_REPORT, NB_CMD_COMPARE,
	NB_CMD_ENV, NB_CMD_EXPORT, NB_CMD_HELP, NB_CMD_VERSION,
};

/** serve's limits the command line set (the others take their defaults). */
enum { NB_CLI_GAVE_RATE = 1, NB_CLI_GAVE_STREAMS = 2, NB_CLI_GAVE_DURATION = 4 };

struct nb_cli {
	enum nb_cmd cmd;
	enum nb_cmd help_for;                /* help: the subcommand asked about (HELP: all) */
	int verbosity;                       /* -1 quiet, 0 normal, 1+ verbose */
	const char *args[NB_CLI_MAX_LIST];   /* positional arguments after the subcommand */
	size_t nargs;
	/* run, resume, validate, env */
	const char *peer;                    /* HOST[:PORT]; NULL = embedded agent on loopback */
	const char *peers[NB_CLI_MAX_LIST];  /* run: every --peer (several: one path to each) */
	size_t npeers;
	const char *out;
	bool force;                          /* run: a non-empty --out is used anyway */
	bool dry_run;
	bool check;                          /* run: check both ends against the plan, run nothing */
	const char *filters[NB_CLI_MAX_LIST];
	size_t nfilters;
	const char *sets[NB_CLI_MAX_LIST];
	size_t nsets;
	struct nb_label labels[NB_LABELS_MAX]; /* run: --label KEY=VALUE, checked (a later one wins) */
	size_t nlabels;
	const char *json;                    /* env: also write the facts as env.json here */
	uint32_t queue_timeout_ms;           /* run, resume, env: wait this long for a busy agent */
	const char *json_stream;             /* run, resume: --json-stream FILE ("-": stdout) */
	bool live;                           /* run, resume: --live, a line per interval */
	/* run, env, serve */
	const char *secret_file;             /* --secret-file (else NBRUN_SECRET_FILE) */
	bool push;                           /* run: copy this binary to each ssh host first */
	bool secret_stdin;                   /* serve: the secret is stdin's first line; its end
						stops the agent */
	/* serve */
	const char *bind;
	uint16_t port;
	uint16_t data_lo, data_hi;
	bool once;
	bool stdio;                          /* one session on stdin/stdout (agent_stdio.h) */
	bool insecure;                       /* no secret on an address beyond loopback, knowingly */
	unsigned limits_given;               /* NB_CLI_GAVE_*: the limits set on the command line */
	uint32_t max_duration_s;
	uint32_t idle_timeout_s;
	uint32_t max_queue;                  /* clients that may wait for the session */
	uint64_t max_rate;                   /* bit/s; 0 = no limit */
	uint32_t max_streams;                /* flows per test */
	uint32_t max_message;                /* bytes */
	struct nb_cidr allow[NB_CLI_MAX_LIST]; /* --allow; none = anyone may connect */
	size_t nallow;
	/* compare */
	double threshold;                    /* fraction, 0.05 = 5 % */
	const char *metrics[NB_CLI_MAX_LIST]; /* --metric NAME or all (repeatable) */
	size_t nmetrics;
	const char *format;                  /* md, csv, json */
	const char *junit;                   /* --junit FILE */
	const char *summary;                 /* --summary FILE */
	const char *names;                   /* --names A,B (neutral wording) */
	bool neutral, allow_missing, fail_on_inconclusive;
	const char *expect[NB_CLI_MAX_LIST]; /* --expect-diff KEY */
	size_t nexpect;
	/* export */
	int export_format;                   /* enum nb_export_format */
	int better;                          /* enum nb_better: --better, NB_BETTER_NONE unset */
	/* the command line as typed, for the report */
	char cmdline[1024];
};

/** Parse argv into cli; on a usage error fills err with one line and returns false (cli->cmd
 *  then names the subcommand whose usage applies; *foreign says the option belongs to another
 *  subcommand, so its usage should follow the error). */
bool nb_cli_parse(int argc, char **argv, struct nb_cli *cli, bool *foreign, struct nb_error *err);
/** Print the usage of cmd (NB_CMD_HELP: the overview of every subcommand). */
void nb_cli_usage(enum nb_cmd cmd, FILE *out);
/** The subcommand's name as typed ("run" for a plain run). */
const char *nb_cli_cmd_name(enum nb_cmd cmd);

#endif

/* nbrun — command line: subcommands and their options. */
#ifndef NB_CLI_H
#define NB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cidr.h"
#include "ctl.h"
#include "error.h"

#define NB_CLI_MAX_LIST 64

enum nb_cmd {
	NB_CMD_RUN, NB_CMD_SERVE, NB_CMD_REPORT, NB_CMD_COMPARE, NB_CMD_ENV, NB_CMD_VALIDATE,
	NB_CMD_HELP, NB_CMD_VERSION,
};

struct nb_cli {
	enum nb_cmd cmd;
	int verbosity;                       /* -1 quiet, 0 normal, 1+ verbose */
	const char *args[NB_CLI_MAX_LIST];   /* positional arguments after the subcommand */
	size_t nargs;
	/* run, validate, env */
	const char *peer;                    /* HOST[:PORT]; NULL = embedded agent on loopback */
	const char *out;
	bool dry_run;
	const char *filters[NB_CLI_MAX_LIST];
	size_t nfilters;
	const char *sets[NB_CLI_MAX_LIST];
	size_t nsets;
	const char *json;                    /* env: also write the facts as env.json here */
	/* run, env, serve */
	const char *secret_file;             /* --secret-file (else NBRUN_SECRET_FILE) */
	/* serve */
	const char *bind;
	uint16_t port;
	uint16_t data_lo, data_hi;
	bool once;
	uint32_t max_duration_s;
	uint32_t idle_timeout_s;
	uint64_t max_rate;                   /* bit/s; 0 = no limit */
	uint32_t max_streams;                /* flows per test */
	uint32_t max_message;                /* bytes */
	struct nb_cidr allow[NB_CLI_MAX_LIST]; /* --allow; none = anyone may connect */
	size_t nallow;
	/* compare */
	double threshold;                    /* fraction, 0.05 = 5 % */
	const char *metric;
	const char *format;                  /* md, csv, json */
	const char *names;                   /* --names A,B (neutral wording) */
	bool neutral, allow_missing, fail_on_inconclusive;
	const char *expect[NB_CLI_MAX_LIST]; /* --expect-diff KEY */
	size_t nexpect;
	/* the command line as typed, for the report */
	char cmdline[1024];
};

/** Parse argv into cli; on a usage error fills err with one line and returns false. */
bool nb_cli_parse(int argc, char **argv, struct nb_cli *cli, struct nb_error *err);
/** Print the usage text. */
void nb_cli_usage(FILE *out);

#endif

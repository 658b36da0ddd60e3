/* nbrun — the smaller subcommands: report, env, compare. Each returns the exit code. */
#ifndef NB_COMMANDS_H
#define NB_COMMANDS_H

#include "cli.h"

/** `nbrun report DIR`: rebuild summary, report and charts from a results folder. */
int nb_cmd_report(const struct nb_cli *cli);
/** `nbrun env [--peer HOST]`: environment facts of this host (and the agent's). */
int nb_cmd_env(const struct nb_cli *cli);
/** `nbrun compare BASE NEW...`: regression / vendor comparison. */
int nb_cmd_compare(const struct nb_cli *cli);

#endif

/* nbrun — the smaller subcommands: validate, report, env, compare, and loading a config for
 * a run. Each returns the exit code. */
#ifndef NB_COMMANDS_H
#define NB_COMMANDS_H

#include "auth.h"
#include "cli.h"
#include "config.h"
#include "plan.h"

/** Load cli's config and build its plan; false after printing every error on stderr. */
bool nb_cmd_load(const struct nb_cli *cli, struct nb_config *cfg, struct nb_plan *plan);
/** `nbrun validate CONFIG`: check a config, print its case and run counts. */
int nb_cmd_validate(const struct nb_cli *cli);

/** The shared secret of --secret-file, else of $NBRUN_SECRET_FILE, else none (s->set false);
 *  warns on stderr when others may read the file. */
bool nb_cmd_secret(const struct nb_cli *cli, struct nb_secret *s, struct nb_error *err);
/** Warn on stderr when secret s (read from what) looks weak (auth.h nb_secret_bits). */
void nb_cmd_secret_strength(const char *what, const struct nb_secret *s);
/** `nbrun report DIR`: rebuild summary, report and charts from a results folder. */
int nb_cmd_report(const struct nb_cli *cli);
/** `nbrun env [CONFIG] [--peer HOST|NAME]`: environment facts of this host (and the agent's;
 *  NAME a host of CONFIG's hosts:, reached as a run reaches it). */
int nb_cmd_env(const struct nb_cli *cli);
/** `nbrun compare BASE NEW...`: regression / vendor comparison. */
int nb_cmd_compare(const struct nb_cli *cli);
/** nbrun export DIR --format FMT [-o FILE]: 0, 2 bad input, 4 the output cannot be written. */
int nb_cmd_export(const struct nb_cli *cli);

#endif

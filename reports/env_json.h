/* nbrun — env.json: the environment facts of both ends, {"local": {group: {key: value}},
 * "peer": ... or null}; an unknown fact is {"unknown": reason}. Written into a results folder
 * when the batch has connected (and by `nbrun env --json FILE`), read back by the report and
 * compare. */
#ifndef NB_ENV_JSON_H
#define NB_ENV_JSON_H

#include <stdbool.h>

#include "error.h"
#include "facts.h"

#define NB_ENV_JSON_FILE "env.json"

/** Write env.json to path (peer may be NULL). */
bool nb_env_json_write(const char *path, const struct nb_facts *local, const struct nb_facts *peer,
		       struct nb_error *err);
/** Read env.json back (facts must be initialised; missing "peer" leaves it empty). */
bool nb_env_json_read(const char *path, struct nb_facts *local, struct nb_facts *peer,
		      struct nb_error *err);

#endif

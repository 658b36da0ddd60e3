/* nbrun — env.json: the environment facts of every host of a batch.
 *   {"local": {group: {key: value}},             this host (the runner)
 *    "peer": {...} or null,                       path 0's agent (compare and old readers)
 *    "hosts": {"NAME": {group: {key: value}}},    every agent host, by the name its paths use
 *                                                 (the peer, or "embedded")
 *    "differences": [{"group": g, "key": k, "values": {"local": v, "NAME": v, ...}}]}
 * A value is a string, or {"unknown": reason} for a fact that could not be read. "differences"
 * lists each comparable fact (nb_facts_comparable) whose value is not the same on local and every
 * host: a host lacking the fact gives null there; an unknown fact differs from any known value,
 * and two unknowns agree whatever their reasons (a reason often names its host). Written into a
 * results folder when the batch has connected (and by `nbrun env --json FILE`), read back by the
 * report and compare; a file without "hosts" (written before it existed) reads as no hosts. */
#ifndef NB_ENV_JSON_H
#define NB_ENV_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "nb_error.h"
#include "facts.h"

#define NB_ENV_JSON_FILE "env.json"
#define NB_ENV_LOCAL "local"   /* the runner's host among the differences' values */

/** One agent host to write: the name its paths use and its facts (both borrowed). */
struct nb_env_host {
	const char *name;
	const struct nb_facts *facts;
};

/** The agent hosts read back from env.json, in the file's order (owned). */
struct nb_env_hosts {
	char **names;
	struct nb_facts *facts;  /* facts[i] are names[i]'s */
	size_t n;
};

/** Write env.json to path: local, hosts[0..n) (a repeated name is written once), "peer" as
 *  hosts[0]'s facts (null when n is 0) and the differences. */
bool nb_env_json_write_hosts(const char *path, const struct nb_facts *local,
			     const struct nb_env_host *hosts, size_t n, struct nb_error *err);
/** Write env.json with one agent host named "peer" (peer may be NULL: no host). */
bool nb_env_json_write(const char *path, const struct nb_facts *local, const struct nb_facts *peer,
		       struct nb_error *err);
/** Read env.json back (facts must be initialised; missing "peer" leaves it empty). */
bool nb_env_json_read(const char *path, struct nb_facts *local, struct nb_facts *peer,
		      struct nb_error *err);
/** nb_env_json_read, and "hosts" into hosts (zeroed by the caller; no "hosts": n = 0). */
bool nb_env_json_read_hosts(const char *path, struct nb_facts *local, struct nb_facts *peer,
			    struct nb_env_hosts *hosts, struct nb_error *err);
/** Free what nb_env_json_read_hosts filled; a zeroed list is fine. */
void nb_env_hosts_free(struct nb_env_hosts *hosts);

#endif

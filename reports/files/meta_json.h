/* nbrun — meta.json: what the batch was (command, config and its sha256, the --set and
 * --filter it ran with, the user's labels, peer, run order), when it ran, whether it finished or what stopped it.
 * Written when a batch starts and rewritten when it ends (and by each resume); read back by
 * the report, compare and `nbrun resume`. */
#ifndef NB_META_JSON_H
#define NB_META_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "nb_error.h"

#define NB_META_JSON_FILE "meta.json"
#define NB_META_EMBEDDED_PEER "embedded agent on 127.0.0.1" /* peer: no --peer was given */
/* peer's tail when no case needed an agent: "HOST" NB_META_AGENTLESS_PEER */
#define NB_META_AGENTLESS_PEER " (no agent: agentless tests; environment facts of the local end only)"
#define NB_META_LIST_MAX 64

#define NB_META_PATHS_MAX 16

/** One path of the batch (an agent's control session): its clock against the runner's, measured
 *  over the control connection when the batch began (NAN: not measured). */
struct nb_meta_path {
	const char *name;        /* "local->HOST" */
	const char *peer;        /* HOST[:PORT] of its agent */
	double clock_offset_us;  /* the agent's clock minus the runner's */
	double control_rtt_us;   /* the control connection's round trip */
};

/** meta.json. The writer writes every field (a NULL string as ""; nbrun_version is always this
 *  build's). The reader fills what the file says: NULL strings (absent or "") and
 *  complete_known = false mean unknown, and root keeps the whole document, which the strings
 *  borrow from. */
struct nb_meta {
	const char *version, *command, *config_name, *config_sha256, *started, *finished, *peer,
		*order;
	const char *stopped;     /* what ended the batch early ("SIGTERM"), or NULL */
	const char *resumed;     /* when `nbrun resume` last continued it, or NULL */
	bool complete_known, complete;
	uint32_t runs_ok, runs_failed, runs_interrupted;
	const char *sets[NB_META_LIST_MAX];    /* the --set KEY=VALUE it ran with */
	size_t nsets;
	const char *filters[NB_META_LIST_MAX]; /* the --filter globs */
	size_t nfilters;
	const char *label_keys[NB_META_LIST_MAX];   /* the user's labels (config, --label) */
	const char *label_values[NB_META_LIST_MAX];
	size_t nlabels;
	struct nb_meta_path paths[NB_META_PATHS_MAX]; /* the agents' paths (none: agentless) */
	size_t npaths;
	json_t *root;            /* reader: the whole document, or NULL */
};

/** Write (or rewrite) DIR/meta.json. */
bool nb_meta_json_write(const char *dir, const struct nb_meta *m, struct nb_error *err);
/** Read DIR/meta.json into m; false (err = "meta.json:LINE: what") when it is not a JSON object. */
bool nb_meta_json_read(const char *dir, struct nb_meta *m, struct nb_error *err);
/** Free what the reader kept; a zeroed meta is fine. */
void nb_meta_json_free(struct nb_meta *m);

#endif

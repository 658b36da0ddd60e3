/* nbrun — meta.json: what the batch was (command, config and its sha256, peer, run order),
 * when it ran and whether it finished. Written when a batch starts and rewritten when it ends;
 * read back by the report and compare. */
#ifndef NB_META_JSON_H
#define NB_META_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"

#define NB_META_JSON_FILE "meta.json"

/** meta.json. The writer writes every field (a NULL string as ""; nbrun_version is always this
 *  build's). The reader fills what the file says: NULL strings (absent or "") and
 *  complete_known = false mean unknown, and root keeps the whole document, which the strings
 *  borrow from. */
struct nb_meta {
	const char *version, *command, *config_name, *config_sha256, *started, *finished, *peer,
		*order;
	bool complete_known, complete;
	uint32_t runs_ok, runs_failed;
	json_t *root;            /* reader: the whole document, or NULL */
};

/** Write (or rewrite) DIR/meta.json. */
bool nb_meta_json_write(const char *dir, const struct nb_meta *m, struct nb_error *err);
/** Read DIR/meta.json into m; false (err = "meta.json:LINE: what") when it is not a JSON object. */
bool nb_meta_json_read(const char *dir, struct nb_meta *m, struct nb_error *err);
/** Free what the reader kept; a zeroed meta is fine. */
void nb_meta_json_free(struct nb_meta *m);

#endif

/* nbrun — results.json: plan, environment, runs, summary, warnings and meta in one
 * document for machines, written with jansson (no hand-made escaping). Text from the
 * CSV files may hold any bytes; invalid UTF-8 becomes U+FFFD so the document stays valid. */
#ifndef NB_JSON_H
#define NB_JSON_H

#include <jansson.h>
#include <stdbool.h>

#include "nb_error.h"
#include "json_value.h"
#include "pitfalls.h"
#include "results.h"
#include "summary.h"

#define NB_JSON_FILE "results.json"

/** Write results.json at path (replacing it); pf may be NULL. */
bool nb_json_write(const char *path, const struct nb_results *res, const struct nb_summary *s,
		   const struct nb_pitfalls *pf, struct nb_error *err);

#endif

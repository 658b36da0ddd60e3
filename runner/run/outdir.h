/* nbrun — the runner's side of the results folder: it fills what reports/ writes into it from
 * the config and the plan (config.yaml, plan.csv); the folder itself is results_dir.c, its
 * files belong to reports/files/ (config_copy, plan_csv, meta_json ...). */
#ifndef NB_OUTDIR_H
#define NB_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "nb_error.h"
#include "plan.h"

/** Current UTC time as ISO 8601 ("2026-11-30T05:01:02Z"). */
void nb_outdir_utc_now(char *out, size_t n);
/** SHA-256 of a buffer as 64 hex characters. */
void nb_outdir_sha256_hex(const void *data, size_t len, char out[65]);
/** Write config.yaml (the exact bytes that ran) and plan.csv into the results folder dir. */
bool nb_outdir_write(const char *dir, const struct nb_config *cfg, const struct nb_plan *plan,
		     struct nb_error *err);

#endif

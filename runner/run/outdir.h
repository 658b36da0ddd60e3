/* nbrun — the results folder: its name, the files written once (config copy,
 * plan, environment, meta), and a run's latency histogram file. */
#ifndef NB_OUTDIR_H
#define NB_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "error.h"
#include "facts.h"
#include "hist.h"
#include "plan.h"

/** What meta.json records about the batch. */
struct nb_meta {
	const char *command;
	const char *config_name;
	const char *peer;
	const char *order;
	char config_sha256[65];
	char started_utc[32];
	char finished_utc[32];
	bool complete;
	uint32_t runs_ok, runs_failed;
};

/** Current UTC time as ISO 8601 ("2026-11-30T05:01:02Z"). */
void nb_utc_now(char *out, size_t n);
/** Choose (when dir is NULL) and create the results folder; out gets its path. */
bool nb_outdir_create(const char *dir, const char *config_name, char *out, size_t n,
		      struct nb_error *err);
/** Write config.yaml (the exact bytes that ran) and plan.csv. */
bool nb_outdir_write_inputs(const char *dir, const struct nb_config *cfg, const struct nb_plan *plan,
			    struct nb_error *err);
/** Write (or rewrite) meta.json. */
bool nb_outdir_write_meta(const char *dir, const struct nb_meta *m, struct nb_error *err);
/** Write latency/run-<id>.csv: bucket_lower_ns,count for every non-empty bucket. */
bool nb_outdir_write_hist(const char *dir, uint32_t run_id, const struct nb_hist *h,
			  struct nb_error *err);
/** SHA-256 of a buffer as 64 hex characters. */
void nb_sha256_hex(const void *data, size_t len, char out[65]);

#endif

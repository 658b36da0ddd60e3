/* nbrun — a results file written whole or not at all. Every file of a results folder that is
 * written in one go (config.yaml, plan.csv, meta.json, env.json, sweeps.json, summary.csv,
 * report.md, results.json, latency/run-<id>.csv, the charts' .dat and .gp) goes through here: it
 * is written to PATH.tmp, flushed to the disk (fsync) and renamed over PATH, so a reader never
 * sees half a file and a crash or a full disk leaves the previous version. A failure removes
 * the temporary file and names PATH with the reason in one line. */
#ifndef NB_AFILE_H
#define NB_AFILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "nb_error.h"

/** A file being written: f writes into tmp until nb_afile_commit renames it to path. */
struct nb_afile {
	FILE *f;
	char path[4096];
	char tmp[4104];
};

/** Open path's temporary sibling for writing; false with err naming path. */
bool nb_afile_open(struct nb_afile *a, const char *path, struct nb_error *err);
/** Flush, fsync and close the temporary file and rename it over path; on any failure the
 *  temporary file is removed and err says "cannot write PATH: reason". */
bool nb_afile_commit(struct nb_afile *a, struct nb_error *err);
/** Close and remove the temporary file without touching path; an unopened afile is fine. */
void nb_afile_abort(struct nb_afile *a);
/** Write buf (len bytes) to path whole or not at all. */
bool nb_afile_write(const char *path, const void *buf, size_t len, struct nb_error *err);
/** Write a JSON document (json_dumpf flags) to path whole or not at all. */
bool nb_afile_json(const char *path, const json_t *doc, size_t flags, struct nb_error *err);

#endif

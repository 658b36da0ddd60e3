/* nbrun — one batch, from first contact to the report: its ends reached (batch_ends.h) and
 * checked before any folder exists, the results folder claimed for this batch alone, its
 * files written (the rows through rows.h), and at the end the report. Shared by a new batch
 * (run.c) and `nbrun resume` (resume.c); the run loop itself is run.c. */
#ifndef NB_BATCH_H
#define NB_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "batch_ends.h"
#include "config.h"
#include "meta_json.h"
#include "plan.h"
#include "progress.h"
#include "rows.h"
#include "run.h"
#include "stats.h"

/** The batch: its config, plan and options, its results folder, meta.json, progress and
 *  statistics, the slots a resume found done; its ends (the targets its cases run on) and its
 *  rows writer are parts of their own. */
struct nb_batch {
	const struct nb_config *cfg;
	const struct nb_plan *plan;
	const struct nb_run_opts *o;
	char dir[4096];
	bool made_dir;               /* this batch created dir: removed again when nothing ran */
	bool claimed;                /* dir is this batch's and holds its first files */
	bool closed;
	struct nb_ends ends;         /* the far ends (batch_ends.h) */
	struct nb_rows rows;         /* runs.csv, runs.jsonl, intervals.csv, run ids (rows.h) */
	char peer_text[300];         /* meta's peer when no case needs an agent */
	struct nb_meta meta;
	struct nb_label labels[NB_LABELS_MAX]; /* the config's, then --label over them (meta's) */
	size_t nlabels;
	char sha256[65], started[32], finished[32], resumed[32]; /* meta's strings */
	struct nb_progress *progress;
	struct nb_stats *stats;      /* per case: headline values of its successful runs */
	size_t runs_done;            /* runs (a sweep: its trials) that finished, this invocation */
	struct nb_slot *done;        /* resume: case x repetition pairs already measured */
	size_t ndone;
};

/** Zero b for cfg, plan and o (stats allocated); false when out of memory. */
bool nb_batch_init(struct nb_batch *b, const struct nb_config *cfg, const struct nb_plan *plan,
		   const struct nb_run_opts *o);
/** --check: ask every other host the plan names (preflight.c); lines on stderr as
 *  nb_batch_check's, "host NAME" for each; how many problems. err when one cannot be reached. */
size_t nb_batch_check_hosts(struct nb_batch *b, const struct nb_msg_check *need,
			    struct nb_error *err);
/** Ask both ends for what the plan needs; prints one line per problem on stderr and returns
 *  how many there were (preflight.c). err is set when the agent could not be asked. */
size_t nb_batch_check(struct nb_batch *b, struct nb_error *err);
/** Refuse a --out that holds anything (unless --force), before anything is touched. */
bool nb_batch_out_free(const struct nb_run_opts *o, struct nb_error *err);
/** Claim the results folder (a new unique one, or --out) and write config.yaml, plan.csv,
 *  meta.json and env.json; false with err naming the file that could not be written. */
bool nb_batch_claim(struct nb_batch *b, struct nb_error *err);
/** Sync and close the CSV files, rewrite meta.json (complete or not, what stopped it) and say
 *  goodbye to every end; the first write failure goes to b->rows.werr. */
void nb_batch_close(struct nb_batch *b, bool complete, const char *stopped);
/** Rebuild summary, report and charts; false (err) when a report file cannot be written. */
bool nb_batch_report(struct nb_batch *b, struct nb_error *err);
/** From the agent reached to the exit code (run.c): the check, the folder claimed (unless
 *  resume adopted it already), every run not yet done, the report. */
enum nb_run_exit nb_run_batch(struct nb_batch *b, struct nb_error *err);
/** Free what init allocated (not the folder). */
void nb_batch_free(struct nb_batch *b);

#endif

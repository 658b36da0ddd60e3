/* nbrun — a swept case on its target: every trial one run on it (target.h), written to
 * runs.csv (kind "trial") and intervals.csv as it ends, and the result of the sweep or search
 * appended to sweeps.json and told on stderr. */
#ifndef NB_SWEEP_RUN_H
#define NB_SWEEP_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "meta_json.h"
#include "plan.h"
#include "progress.h"
#include "rows.h"
#include "sweep_latency_csv.h"
#include "sweep.h"
#include "target.h"

#define NB_SWEEP_SENTENCE_MAX 1024 /* room for a sweep's sentence (nb_sweep_sentence) */

/** What a swept case borrows from the run loop's batch. */
struct nb_sweep_env {
	struct nb_run_target *target;        /* the case's: each trial is one run on it; on several
					    paths (a composite) the search offers every flow of
					    every path the same rate and judges the sum: a trial
					    row for the sum (path all) and one per path, no interval
					    rows for such trials */
	struct nb_rows *rows;            /* runs.csv (a row per trial), runs.jsonl, intervals.csv;
					    each trial takes the next run id; the first file that
					    cannot be written stops the trial and the sweep */
	const char *dir;                 /* results folder: sweeps.json goes there */
	struct nb_meta *meta;            /* the batch's run counts (meta.json), one per trial */
	const atomic_bool *interrupt;    /* set by a signal: no new trial starts */
	int verbosity;                   /* < 0: quiet; 0: one line per trial and the result */
	struct nb_progress *progress;    /* lines go through it when set, else straight to stderr */
	/* a search's latency at % of PDR: the target of case lc (the load at a fraction, its test's
	   working part the probe: a working composite over the case's agent and a companion
	   session), NULL with err when the case cannot have one; NULL: no latency phases */
	struct nb_run_target *(*working_target)(void *ends, const struct nb_case *lc,
						struct nb_error *err);
	void *ends;
};

/** Run the sweep or search of case c (the plan's repetition rep, 0-based; its rows say rep + 1). NB_OUT_PEER_LOST when the agent was
 *  lost (err says why), NB_OUT_INTERRUPTED when a signal or a write failure stopped it (its
 *  trials are kept), NB_OUT_CASE_FAILED when trials failed to run or the search could not
 *  finish, else NB_OUT_OK. */
enum nb_outcome nb_sweep_case(const struct nb_sweep_env *env, const struct nb_case *c, uint32_t rep,
			      struct nb_error *err);

/** After case c's search (outcome o, repetition rep from 1): its latency at each fraction of
 *  its PDR rate (c->sweep.latency_at; sweep_latency.c): rows of kind "pdr-latency" in runs.csv and
 *  intervals.csv, a row per fraction in sweep_latency.csv, a line each on stderr. NB_OUT_OK when
 *  there was nothing to measure (no PDR found: said so) or every fraction ran; else
 *  NB_OUT_PEER_LOST, NB_OUT_INTERRUPTED (a signal or a failed write) or NB_OUT_CASE_FAILED. */
struct nb_sweep_latency_out {
	struct nb_sweep_latency_row row[NB_LATENCY_AT_MAX]; /* as sweep_latency.csv has them */
	size_t n;
	uint32_t goal;                       /* the goal taken as the PDR */
	char probe_id[160], status[NB_LATENCY_AT_MAX][128], goal_name[24];
};
enum nb_outcome nb_sweep_latency(const struct nb_sweep_env *env, const struct nb_case *c,
				 uint32_t rep, const struct nb_sweep_outcome *o,
				 struct nb_sweep_latency_out *out, struct nb_error *err);
/** A line of the sweep on stderr, through the progress line when there is one (quiet: none). */
void nb_sweep_say(const struct nb_sweep_env *env, const char *text);

/** Append the outcome of case c's sweep (repetition rep, from 1) to DIR/sweeps.json ({"sweeps": [...]}, one entry per
 *  loss goal, or one for a plain sweep; the PDR goal's with lat's rows); max_burst is the largest pacer burst of any trial,
 *  first_run_id the run id of its first trial. */
bool nb_sweep_record_append(const char *dir, const struct nb_case *c, uint32_t rep,
			    const struct nb_sweep_outcome *o, double max_burst, uint32_t first_run_id,
			    const struct nb_sweep_latency_out *lat, struct nb_error *err);
/** The sentence stating goal g's result ("id: highest rate with loss ≤ 0.1 %: 187.4 Mbit/s
 *  (lowest failing 189.2 Mbit/s, 14 trials, 2 retries, 41 s)"; where every attempt fell short,
 *  what held the sender back and what to do), or a plain sweep's summary when g is out of
 *  range. */
void nb_sweep_sentence(const struct nb_case *c, const struct nb_sweep_outcome *o, uint32_t g,
		       char *buf, size_t len);

#endif

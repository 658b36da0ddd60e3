/* nbrun — the live view (`-v` on a terminal, or `--live`): one line per interval of each run as
 * it is measured, iperf3-like, under a header naming the case, its repetition and the columns;
 * then the run's own line when it ends. The columns are the engine's: its headline, what its
 * traits say it is (a sender per flow: bytes and bit/s; round trips: p50 and p99), and the
 * loss, jitter and retransmits its report fills (a column left empty by the engine's report op
 * is not shown). Only the rows the statistics use (all flows, all paths) are shown; every row
 * is in intervals.csv. Lines go through the progress line (progress.h) so a terminal's live
 * bar is redrawn under them. Every call takes a NULL view and does nothing. */
#ifndef NB_LIVE_H
#define NB_LIVE_H

#include <stdio.h>

#include "engine.h"
#include "intervals_csv.h"
#include "progress.h"
#include "runs_csv.h"

struct nb_live;

/** Lines through p (NULL: straight to out, e.g. with -q); NULL on out of memory. */
struct nb_live *nb_live_begin(struct nb_progress *p, FILE *out);
/** Interval row of a run of engine e (the row over all flows and paths). */
void nb_live_interval(struct nb_live *l, const struct nb_engine *e, const struct nb_interval *row);
/** The run's (or sweep trial's) own row of engine e, when it ends. */
void nb_live_run(struct nb_live *l, const struct nb_engine *e, const struct nb_run *row);
/** Free l; NULL is fine. */
void nb_live_end(struct nb_live *l);

#endif

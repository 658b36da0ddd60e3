/* nbrun — the warnings of what the run side held against its runs: the status and flags
 * runs.csv gives a row whose readings showed a stall of the measuring process, counters no
 * honest end can show, nothing received, or a scheduled sender far behind its schedule (see
 * docs/engines.md "When a run is not a result"). Each is said once per case, with the
 * evidence of its worst run and what to do. */
#ifndef NB_PITFALLS_RUNS_H
#define NB_PITFALLS_RUNS_H

#include <stdbool.h>

#include "pitfalls.h"
#include "results.h"

/** The findings of res's runs (each case's rows of path all: runs and sweep trials) into out;
 *  false when out of memory. */
bool nb_pitfalls_check_runs(const struct nb_results *res, struct nb_pitfalls *out);

#endif

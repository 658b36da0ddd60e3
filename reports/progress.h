/* nbrun — progress during a run, on stderr. On a terminal: one live line redrawn
 * in place (bar, run i/N, case i/N, repetition, last value, elapsed / ETA). Not on
 * a terminal (CI logs): one plain line per finished run, nothing redrawn. */
#ifndef NB_PROGRESS_H
#define NB_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct nb_progress;

/** Start: total runs planned and the plan's time estimate in seconds (0 = unknown).
 *  out is usually stderr; live mode when it is a terminal. NULL on out of memory. */
struct nb_progress *nb_progress_begin(FILE *out, size_t total_runs, double est_s);
/** Force live (true) or plain (false) output, e.g. for tests or --quiet logs. */
void nb_progress_set_live(struct nb_progress *p, bool live);
/** A run starts: case number (1-based) of ncases, its id, repetition (1-based) of reps. */
void nb_progress_run_start(struct nb_progress *p, size_t case_no, size_t ncases, const char *case_id,
			   uint32_t rep, uint32_t reps);
/** More runs than planned (repetitions: auto goes on until its CI target): the total grows by n. */
void nb_progress_extend(struct nb_progress *p, size_t n);
/** Redraw the live line (elapsed time); call it e.g. once per interval. No-op in plain mode. */
void nb_progress_tick(struct nb_progress *p);
/** A run ended; value_text e.g. "9.41 Gbit/s" or "failed: peer closed". */
void nb_progress_run_done(struct nb_progress *p, const char *case_id, uint32_t rep, const char *value_text);
/** A run was stopped before its end (a signal): its line says so, and it is not counted done. */
void nb_progress_run_stopped(struct nb_progress *p, const char *case_id, uint32_t rep,
			     const char *text);
/** Print a message line without breaking the live line (warnings during a run). */
void nb_progress_message(struct nb_progress *p, const char *text);
/** Finish: clear the live line, print the total, free p. NULL is a no-op. */
void nb_progress_end(struct nb_progress *p);

#endif

/* nbrun — the notes a row of runs.csv carries (its `flags`): ';'-separated words, some of them
 * key=value facts of the data path that both ordinary runs and sweep trials state: how the
 * senders kept their rate (pacing=user|fq|tcp, kpace.h) and, paced in user space, the burst the
 * pacer was given (burst=1ms, pace.h), whether UDP senders used GSO (gso=on|off|unsupported) and
 * UDP receivers GRO (gro=on|off, udpgso.h), from both ends' final gauges. */
#ifndef NB_FLAGS_H
#define NB_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client.h"

/** Append flag to the ';'-separated list in out (n bytes). */
void nb_flags_add(char *out, size_t n, const char *flag);
/** The largest value of gauge g over every flow of both ends' final snapshots (0 = none). */
uint64_t nb_flags_gauge_max(const struct nb_test_result *res, enum nb_gauge g);
/** Append the data-path facts of a run of a case with parameters p (pacing=, burst=, gso=,
 *  gro=) that apply to it. */
void nb_flags_data_path(const struct nb_test_result *res, const struct nb_params *p, char *out,
			size_t n);
/** Append the whole-run counts of a UDP run of a directional engine e (pps, stream: their
 *  datagrams carry the sequence header), from both ends' last readings:
 *  tx_total=N;rx_total=M;rcvbuf_drops_total=D, datagrams sent, received (duplicates and late
 *  ones included) and dropped by the receivers' own buffers or rings from start to stop. */
void nb_flags_totals(const struct nb_test_result *res, const struct nb_engine *e,
		     const struct nb_params *p, char *out, size_t n);
/** Append what the readings hold against a run (runcheck.h): suspect, nothing-received,
 *  timeline-stall=GAP (the longest gap of a late tick, e.g. 2.49s). */
void nb_flags_verdict(const struct nb_run_verdict *v, char *out, size_t n);
/** Append schedule-lag=MAX (e.g. 650ms) when a scheduled sender's lag reached the latency's own
 *  scale: its p99 (its max under 100 sends) at or above the run's p50 latency. */
void nb_flags_sched_lag(const struct nb_metrics *m, char *out, size_t n);
/** Whether m's schedule lag reached its latency's scale (what nb_flags_sched_lag flags). */
bool nb_flags_lag_matters(const struct nb_metrics *m);

#endif

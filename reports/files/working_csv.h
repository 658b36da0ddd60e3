/* nbrun — working.csv: the numbers of each run of a working case (docs/config.md, "Working
 * conditions"; docs/reports.md): per probe a row per phase (idle, loaded, after: its samples
 * and percentiles from that phase's histogram, the loaded row its inflation over idle), the
 * load's row (throughput each way, Jain's fairness index over its flows, the congestion
 * control that ran) and the case's row (RPM in its TCP variant, loaded and idle). Appended row
 * by row as runs end; only a batch with a working case has the file. */
#ifndef NB_WORKING_CSV_H
#define NB_WORKING_CSV_H

#include <stdbool.h>
#include <stdint.h>

#include "csv.h"
#include "nb_error.h"

#define NB_WORKING_CSV_FILE "working.csv"

/** One row; a number that does not apply is NaN (an empty cell). */
struct nb_working_row {
	uint32_t run_id, rep;
	const char *case_id;          /* the working case's */
	const char *part;             /* "load", "probe1" .. "probe8", or "case" */
	const char *part_case_id;     /* the part's own case id (the case's for "case") */
	const char *engine, *protocol;
	const char *phase;            /* "idle", "loaded", "after"; "" for load and case rows */
	uint64_t samples;
	double p50_us, p90_us, p99_us, p999_us, tm95_us;
	double inflation_p50_us, inflation_p99_us, inflation_ratio; /* loaded rows */
	double up_bps, down_bps, jain;                              /* load row */
	double rpm_tcp, idle_rpm_tcp;                               /* case row */
	const char *congestion;       /* load row: what its sockets ran */
	double idle_s;                /* every row: the case's idle phase, s (the load starts then
					 on the probes' time axis) */
	const char *path;             /* a probe's row of a case on several paths: the path it ran
					 on ("local->HOST"); NULL or "": the case's one path */
	const char *rpm_self;         /* case row: where RPM's self term came from: "self" (the
					 load's self probes), "standin" (a TCP latency probe on
					 its own connection); NULL or "": no self term */
};

/** Open DIR/working.csv for appending (its header when new). */
struct nb_csv *nb_working_csv_open(const char *dir, struct nb_error *err);
/** Append one row. */
void nb_working_csv_write(struct nb_csv *c, const struct nb_working_row *r);

#endif

/* nbrun — matrix expansion: tests x axes -> cases with stable ids, and the run order. */
#ifndef NB_PLAN_H
#define NB_PLAN_H

/* A plan never holds more cases than this; a bigger matrix is an error. */
#define NB_PLAN_MAX_CASES 100000

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"

/** One case: a test with one value on every axis. */
struct nb_case {
	char id[160];                 /* e.g. "tcp-throughput/tcp/s128K/p4/reverse"; unique in the plan */
	const struct nb_test *test;   /* the test it came from (owned by the config) */
	const struct nb_engine *engine; /* the test's engine: its traits decide everything engine-
					   specific about the case (never params.engine's name) */
	uint32_t index;               /* position in the plan, 0-based, in matrix order */
	struct nb_params params;      /* fully resolved; params.rate is the sweep's start when swept */
	struct nb_timing timing;
	struct nb_reps reps;
	struct nb_sweep sweep;
};

/** One slot of the run order: which case, which repetition (0-based). */
struct nb_slot {
	uint32_t case_index;
	uint32_t rep;
};

struct nb_plan {
	struct nb_case *cases;
	size_t ncases;
	struct nb_slot *order;        /* sequential, interleaved or seeded-random order of case x rep */
	size_t nslots;
};

/** Expand cfg into cases; keep only ids matching one of filters (fnmatch globs) when nfilters > 0.
 *  Errors (no case left, duplicate id, an engine rejecting its params) name the test's line. */
bool nb_plan_build(const struct nb_config *cfg, const char *const *filters, size_t nfilters,
		   struct nb_plan *plan, struct nb_error *err);
/** Probe i of working case c (c->test->working) as a case of its own (its id TEST.pN/...,
 *  timing over every phase, c's index); false when c has no probe i. */
bool nb_plan_probe_case(const struct nb_case *c, uint32_t i, struct nb_case *out);
/** Whether probe (a case of nb_plan_probe_case) reaches its working case's agent's control port:
 *  an agentless engine with a port (connect) given none (docs/config.md, "Working conditions"). */
bool nb_plan_probe_agent_port(const struct nb_case *probe);
/** Free the plan's arrays; a zeroed plan is fine. */
void nb_plan_free(struct nb_plan *plan);
/** Estimated wall time of the whole plan in seconds (warm-up + duration per run, plus overhead). */
double nb_plan_estimate_s(const struct nb_plan *plan);
/** Print the --dry-run table and the estimate. */
void nb_plan_print(const struct nb_plan *plan, FILE *out);
/** Slots a case gets in the order: its repetitions, or `min` for repetitions: auto. */
uint32_t nb_case_slots(const struct nb_case *c);
/** Estimated wall time of one run (one slot) of a case in seconds; a sweep counts its trials. */
double nb_case_estimate_s(const struct nb_case *c);
/** Estimated number of trials of a sweep or search (1 when the case has no sweep). */
uint32_t nb_sweep_trials(const struct nb_sweep *s);
/** The case's rate for people: "1G" (bit/s), "500kpps", "10M..1G" for a sweep, "ping-pong" for
 *  a closed loop that takes a rate, "-" if none. */
char *nb_case_rate_str(const struct nb_case *c, char *buf, size_t len);

#endif

/* nbrun — sweeps.json: the result of each sweep or loss-threshold search, {"sweeps": [...]},
 * one entry per loss goal of a search (one for a plain sweep), appended as each swept case ends.
 * The report reads the list from here, or from meta.json's "sweeps" when that carries it. */
#ifndef NB_SWEEPS_JSON_H
#define NB_SWEEPS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nb_error.h"
#include "sweep_latency_csv.h"

#define NB_SWEEPS_JSON_FILE "sweeps.json"

struct nb_results;

/** One entry of sweeps.json. Rates are in the engine's unit (`unit`) per flow; NAN = null.
 *  The writer writes every field of its kind (search: the goal fields; plain: rates); the reader
 *  fills what the entry says (NAN, NULL and false = not said; rates are not read back). */
struct nb_sweep_result {
	const char *case_id;
	uint32_t rep;
	uint32_t first_run_id;   /* the run id of its first trial (0: not said) */
	bool search;             /* a loss-threshold search (else a plain sweep of rates) */
	const char *unit;        /* "bit/s" or "pkt/s" */
	uint32_t flows;
	double trials;           /* trials of the whole sweep */
	double elapsed_s;        /* wall time of the whole sweep */
	double trial_s;          /* sum of the trials' measured durations */
	double host_bound_above; /* every attempt above this fell short and nothing ever sent as
				  * much: the generator's limit (NAN: none claimed) */
	double max_burst;        /* largest pacer burst of any trial, packets */
	double unreached;        /* lowest rate where every attempt fell short (NAN: none) */
	double sender_max;       /* most any trial or the calibration burst sent */
	double calibration_rate; /* what the unpaced calibration burst sent (NAN: none ran) */
	double retries;          /* trials that were retries of one whose sender fell short */
	const char *limit;       /* what held the sender back at `unreached`, what to do (or NULL) */
	bool interrupted, trial_limit;
	bool complete_known, complete;
	const char *sentence;    /* the result for people */
	/* a search's loss goal: */
	double loss_target;      /* fraction (0.001 = 0.1 %) */
	const char *status;      /* "found", "below-from", "at-or-above-to", "host-bound", "incomplete" */
	double threshold;        /* highest rate that passed every trial (engine unit) */
	double lowest_fail;      /* lowest rate that failed */
	double bracket_lo, bracket_hi;
	uint32_t goal_trials;    /* trials run while this goal was searched */
	double achieved_rate;    /* mean send rate of the valid trials at the threshold */
	/* the same goal in MLRsearch's words (RFC 9971; runner/run/sweep_mlr.h): */
	const char *goal_name;   /* "NDR" (loss ratio 0), "PDR", "PDR 0.1%" (NULL: not said) */
	double exceed_ratio;     /* Goal Exceed Ratio */
	double final_trial_s;    /* Goal Final Trial Duration */
	double duration_sum_s;   /* Goal Duration Sum */
	double initial_trial_s;  /* Goal Initial Trial Duration */
	double lower_bound;      /* Relevant Lower Bound (NAN: none) */
	double upper_bound;      /* Relevant Upper Bound (NAN: none) */
	double conditional;      /* Conditional Throughput, per flow (NAN: no lower bound) */
	/* a PDR goal's latency at % of its rate (writer only; sweep_latency_csv.h): */
	const struct nb_sweep_latency_row *latency;
	size_t nlatency;
	/* a plain sweep (writer only): */
	const double *rates;     /* the offered rates in the order run */
	size_t nrates;
};

/** Append n entries to DIR/sweeps.json (created when missing; replaced atomically). */
bool nb_sweeps_json_append(const char *dir, const struct nb_sweep_result *e, size_t n,
			   struct nb_error *err);
/** Remove the entries of case_id's repetition rep from DIR/sweeps.json (a resumed batch runs
 *  that sweep again); a missing file is fine. */
bool nb_sweeps_json_drop(const char *dir, const char *case_id, uint32_t rep, struct nb_error *err);
/** The nth (0-based) entry of case_id in the order recorded (a search's loss goals); false
 *  past the last. */
bool nb_sweeps_json_goal(const struct nb_results *res, const char *case_id, size_t nth,
			 struct nb_sweep_result *out);
/** The first entry of case_id; false when the folder does not name it. */
bool nb_sweeps_json_find(const struct nb_results *res, const char *case_id,
			 struct nb_sweep_result *out);

/** The goals in MLRsearch's words (goal_name set) of case_id's first recorded search
 *  repetition, at most max of them into out; returns how many (0: no search, or a folder
 *  from before). Their strings live as long as res. */
size_t nb_sweeps_json_goals(const struct nb_results *res, const char *case_id,
			    struct nb_sweep_result *out, size_t max);
/** A goal's headline as machines name it: "ndr_conditional_throughput",
 *  "pdr_conditional_throughput", "pdr_0.1pct_conditional_throughput" (compare, export). */
void nb_sweep_goal_metric(const struct nb_sweep_result *e, char *buf, size_t len);
/** A goal's name as machines write it: "ndr", "pdr", "pdr_0.1pct" (NULL: "goal"). */
void nb_sweep_goal_key(const char *goal_name, char *buf, size_t len);

#endif

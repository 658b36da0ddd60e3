/* nbrun — rate sweeps and the loss-threshold search, as pure logic.
 *
 * The module decides which rate to try next and when to stop; a callback runs
 * one trial and says what it measured. Nothing here touches a socket, so the
 * search is tested against simulated loss functions (tests/test_sweep.c) and
 * driven against a real agent by sweep_run.c.
 */
#ifndef NB_SWEEP_H
#define NB_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define NB_SWEEP_MAX_TRIALS 60            /* default bound on the trials of one search */
#define NB_SWEEP_CALIBRATE_NS 250000000ull /* the unpaced calibration burst of a search */
#define NB_SWEEP_SHORTFALL 0.01           /* a sender more than 1 % below the offered rate fell short */
#define NB_SWEEP_STALL_NS 5000000ull      /* a failing trial's sender this far behind its schedule
					   * (beyond its burst) made its own queue: not a fail */
#define NB_SWEEP_CPU_BOUND_PCT 90.0       /* a sending thread this busy (% of a core) that fell
					   * short is CPU-bound (a paced one spins only when early) */

/** What the sending end did in a trial, to say what held it back (NAN = not known). */
struct nb_trial_host {
	double cpu_pct;         /* the busiest sending thread's CPU time, % of one core */
	double host_cpu_pct;    /* the sending host's CPU busy share, % */
	double steal_pct;       /* the sending host's CPU time stolen by the hypervisor, % */
	double snd_errs;        /* sends the kernel refused (ENOBUFS / EAGAIN) */
	double forgiven_ms;     /* sending time per flow the pacer forgave (it ran > 10 ms late) */
	double lag_ms;          /* how far behind its schedule the sender fell at most (sched_lag_max) */
};

/** Whether a sender that fell lag_ms behind its schedule at most fell far behind (more than
 *  NB_SWEEP_STALL_NS; NAN: not known, no): what a trial's note and the search's verdict name. */
static inline bool nb_sweep_far_behind(double lag_ms)
{
	return lag_ms * 1e6 > (double)NB_SWEEP_STALL_NS; /* false for NAN */
}

/** The rule alone: whether a trial that lost loss_ratio lost it after its sender fell far behind
 *  its schedule: it fails the strictest of s's goals, and its largest schedule lag (lag_max_us,
 *  NAN = not known) exceeds its burst (burst_us) by more than NB_SWEEP_STALL_NS. The pacer paid
 *  that debt at twice the rate: up to that much of the rate queued at the bottleneck by the
 *  sender itself, which a small queue drops even below its rate. Such a trial is not valid. */
bool nb_sweep_stalled_loss(const struct nb_sweep *s, double loss_ratio, double lag_max_us,
			   uint32_t burst_us);

/** One trial: the search fills offered, duration_ns and attempt, the callback the rest. */
struct nb_trial {
	uint64_t offered;       /* per flow, in the unit of nb_params.rate (bit/s or packet/s);
				 * 0 for the calibration burst (unpaced) */
	uint64_t duration_ns;   /* measured time asked for */
	uint32_t attempt;       /* 0: the first run at this rate; k: its k-th retry */
	bool calibration;       /* the unpaced burst that measures what the sender can offer */
	/* filled by the callback: */
	double sent_rate;       /* achieved send rate, same unit and scope as offered */
	double recv_rate;       /* received rate, same unit and scope as offered */
	double loss_ratio;      /* lost / actually sent (0.001 = 0.1 %) */
	double jitter_us;
	bool valid;             /* false: the sender fell short of offered (NB_SWEEP_SHORTFALL), lost
				 * packets after falling NB_SWEEP_STALL_NS behind its schedule, or
				 * stalled (its pacer forgave debt): it did not keep its schedule */
	bool ok;                /* the trial ran (false: it failed and measured nothing) */
	struct nb_trial_host host;
	/* filled by the search: */
	uint32_t pass_mask;     /* valid trials: bit g set = loss_ratio <= goal g */
	uint32_t bound_mask;    /* trials that fell short: bit g set = loss_ratio <= goal g, so
				 * the rate actually sent passes goal g (a lower bound) */
	bool confirm;           /* run in a goal's final phase (full length, confirmation) */
};

enum nb_sweep_status {
	NB_SWEEP_FOUND,          /* threshold below a rate that failed, confirmed */
	NB_SWEEP_BELOW_FROM,     /* loss above the goal even at `from`: no threshold */
	NB_SWEEP_AT_OR_ABOVE_TO, /* no loss above the goal even at `to`: threshold >= to */
	NB_SWEEP_HOST_BOUND,     /* every attempt above the threshold fell short and no trial
				  * ever sent that much: the generator is the limit */
	NB_SWEEP_SENDER_SHORT,   /* every attempt above the threshold fell short, though a trial
				  * or the calibration sent more: the host held the sender back */
	NB_SWEEP_INCOMPLETE,     /* stopped (interrupted, trial limit): see the bracket */
};

/** What held the sender back where every attempt fell short (bits of nb_sweep_outcome.limits). */
enum nb_sweep_limit {
	NB_SWEEP_LIMIT_CPU = 1,         /* its threads used >= NB_SWEEP_CPU_BOUND_PCT of a core */
	NB_SWEEP_LIMIT_SEND_ERRORS = 2, /* the kernel refused sends (local queue, qdisc) */
	NB_SWEEP_LIMIT_LATE = 4,        /* the pacer forgave debt with CPU to spare and no refused
					 * send: the sender was descheduled */
};

/** The answer for one loss goal. */
struct nb_sweep_goal {
	double loss;            /* the goal: loss ratio at or below which a trial passes */
	uint64_t threshold;     /* highest rate that passed every trial at it (0 = none) */
	uint64_t lowest_fail;   /* lowest rate that failed a trial (0 = none) */
	uint64_t bracket_lo;    /* highest passing rate below bracket_hi (0 = none) */
	uint64_t bracket_hi;    /* lowest failing or unreached rate (0 = none) */
	enum nb_sweep_status status;
	uint32_t trials;        /* trials run while this goal was the one searched */
};

/** What a sweep or search did. */
struct nb_sweep_outcome {
	bool search;
	uint32_t paths;                 /* paths each trial ran on at once (set by the caller; 0 = 1) */
	struct nb_sweep_goal goal[NB_LOSS_MAX];
	uint32_t ngoals;
	struct nb_trial *trials;        /* in the order run (the calibration burst is not one) */
	size_t ntrials;
	struct nb_trial calibration;    /* the unpaced burst (ok: it ran) */
	uint32_t retries;               /* trials that were retries of one that fell short */
	uint64_t unreached;             /* lowest rate where every attempt fell short (0 = none) */
	uint64_t host_bound_above;      /* unreached, when no trial nor the calibration sent that
					 * much: the generator's limit (0 = none claimed) */
	double sender_max;              /* most any trial or the calibration sent (0 = none ran) */
	uint64_t unsteady;              /* a rate the sender reached once, then missed in every
					 * attempt: the search stopped there (0 = none) */
	uint32_t limits;                /* enum nb_sweep_limit bits, from the attempts at unreached */
	struct nb_trial_host short_host; /* those attempts: worst CPU, summed errors and debt */
	bool interrupted;               /* the callback returned false */
	bool trial_limit;               /* the search used every trial it was allowed */
	uint32_t broken;                /* trials that did not run (ok == false) */
	uint64_t elapsed_ns;            /* wall time of the whole sweep */
	uint64_t trial_ns;              /* sum of the trials' measured durations */
};

/** Bounds of a search; zero fields take the defaults above. */
struct nb_sweep_opts {
	uint32_t max_trials;
	uint64_t calibrate_ns;  /* a search starts with an unpaced burst this long (0 = none) */
};

/** Run the sweep or search s; run(ctx, t) runs one trial at t->offered for t->duration_ns
 *  (unpaced when t->calibration) and returns false to stop (peer lost, interrupted). A trial
 *  whose sender fell short is retried up to s->retries times at the same rate. out is filled
 *  (free it with nb_sweep_outcome_free). False only when out of memory. */
bool nb_sweep_execute(const struct nb_sweep *s, const struct nb_sweep_opts *o,
		      bool (*run)(void *ctx, struct nb_trial *t), void *ctx,
		      struct nb_sweep_outcome *out);
/** Free the trials of out; a zeroed outcome is fine. */
void nb_sweep_outcome_free(struct nb_sweep_outcome *out);
/** The rates of a plain sweep (steps, step or factor, from..to) into rates; returns how many
 *  there are (may exceed max; only max are written). */
size_t nb_sweep_plain_rates(const struct nb_sweep *s, uint64_t *rates, size_t max);
/** "found", "below-from", "at-or-above-to", "host-bound", "sender-short", "incomplete". */
const char *nb_sweep_status_name(enum nb_sweep_status st);

#endif

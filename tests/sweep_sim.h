/* The simulated device under test and traffic generator that drive the sweep tests
 * (test_sweep.c: the search itself; test_sweep_short.c: a sender that falls short). */
#ifndef NBT_SWEEP_SIM_H
#define NBT_SWEEP_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "sweep.h"

#define M 1000000ull
#define G 1000000000ull
#define S 1000000000ull

/* A simulated device under test and its traffic generator. */
struct nbt_sim {
	uint64_t knee;          /* drop-tail capacity: loss = (r - knee) / r above it */
	uint64_t ndr_knee;      /* graded: 0.2 % loss between ndr_knee and knee (0 = none) */
	uint64_t win_lo, win_hi;/* non-monotonic: 5 % loss inside [win_lo, win_hi] */
	uint64_t long_knee;     /* full-length trials above this lose 1 % (0 = none) */
	uint64_t host_max;      /* offered above this: the sender falls short (0 = none) */
	double noise;           /* relative half-width of a random zone around knee */
	uint64_t rng;           /* xorshift64 state (the seed) */
	bool blind;             /* recv_rate NAN: no hint for the guess */
	uint32_t stop_at;       /* this call returns false (0 = never) */
	uint32_t broken_from;   /* calls from this one on fail to run (0 = never) */
	uint64_t full_ns;       /* what counts as a full-length trial */
	uint32_t hiccup[8];     /* these calls (1-based) stall: the sender sends 95 % of offered */
	uint32_t catch_up[8];   /* these calls stall and catch up: the rate is sent, its pacer
				 * forgave debt (invalid), and the burst loses 0.5 % */
	uint32_t busy_from;     /* from this call on the sender reaches at most busy_max (0 = never) */
	uint64_t busy_max;
	uint64_t line;          /* what an unpaced burst sends (0 = 10G) */
	struct nb_trial_host on_short; /* what a sender that fell short says held it back */
	uint32_t calls;
	uint64_t rates[128];    /* offered rate of every call, in order */
};

/** The search's callback: one trial of the simulated sender against the simulated device. */
bool nbt_sim_run(void *ctx, struct nb_trial *t);
/** A search from..to for one loss goal, 1 s short trials, 5 s final ones, 2 confirmations, no
 *  retries. */
struct nb_sweep nbt_search_cfg(uint64_t from, uint64_t to, double loss, double precision);
/** Run cfg against sim (its full_ns set from cfg) into out. */
void nbt_sim_search(const struct nb_sweep *cfg, struct nbt_sim *sim, struct nb_sweep_outcome *out);
/** Whether any valid trial at rate failed / passed goal g. */
void nbt_rate_record(const struct nb_sweep_outcome *o, uint64_t rate, uint32_t g, bool *failed,
		     bool *passed);
/** What every search result must satisfy, whatever the device did. */
void nbt_check_invariants(const struct nb_sweep *cfg, const struct nb_sweep_outcome *o);

#endif

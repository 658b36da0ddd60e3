/* nbrun — the YAML test matrix, typed.
 *
 * nb_config_load reads a file with libyaml, checks every key and value (each
 * error is one line "FILE:LINE:COL: what (expected what)"; a file with several
 * errors gets them all, up to NB_CONFIG_MAX_ERRORS), applies
 * `defaults:` to each test and `--set key=value` overrides on top, and keeps
 * for every test the axes (lists) that the plan expands into cases.
 */
#ifndef NB_CONFIG_H
#define NB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#define NB_AXIS_MAX 32
#define NB_LOSS_MAX 4
#define NB_LATENCY_AT_MAX 8  /* a search's fractions of the PDR rate with a latency phase */
#define NB_LATENCY_RATE 9000 /* its probe's default messages/s: FD.io CSIT's latency streams */
#define NB_SWEEP_RETRIES 2   /* default re-runs of a sweep trial whose sender fell short */

#define NB_LABELS_MAX 32
#define NB_LABEL_KEY_MAX 64
#define NB_LABEL_VALUE_MAX 256

/** A user's label (config `labels:`, `--label`): tags every exported row, record and series. */
struct nb_label {
	char key[NB_LABEL_KEY_MAX];
	char value[NB_LABEL_VALUE_MAX];
};

enum nb_order { NB_ORDER_SEQUENTIAL, NB_ORDER_INTERLEAVED, NB_ORDER_RANDOM };

/** How many times a case runs: a fixed count, or until the 95 % CI is narrow enough. */
struct nb_reps {
	uint32_t count;     /* fixed count (>= 1); with autorep, the planning estimate (= min) */
	bool autorep;       /* repetitions: auto */
	uint32_t min, max;  /* auto: clamp (default 3 .. 30) */
	double ci;          /* auto: target CI half-width relative to the mean (0.02 = 2 %) */
};

/** A rate sweep or loss-threshold search over a test's rate (units as nb_params.rate). */
struct nb_sweep {
	bool enabled;
	bool search;                      /* `loss:` given: search the threshold; else a plain sweep */
	uint64_t from, to;
	uint64_t steps[NB_AXIS_MAX];      /* plain sweep: explicit rates ... */
	uint32_t nsteps;
	uint64_t step;                    /* ... or a fixed step ... */
	double factor;                    /* ... or a factor (> 1) */
	double loss[NB_LOSS_MAX];         /* search: loss ratios (0.001 = 0.1 %), ascending */
	uint32_t nloss;
	double precision;                 /* search: stop when (hi - lo) / lo <= precision */
	uint64_t trial_ns;                /* measured time of each trial (a search's final ones) */
	uint64_t short_trial_ns;          /* search: the coarse trials' measured time, below
					     trial_ns (MLRsearch's short trials); 0 = every trial
					     lasts trial_ns */
	uint32_t confirm;                 /* re-runs of the found rate; all must pass */
	uint32_t retries;                 /* re-runs of a trial whose sender fell short of its rate */
	double latency_at[NB_LATENCY_AT_MAX]; /* search: after it, latency measured with the load at
					     these fractions of the PDR rate (0.5 = 50 %; 0 = the
					     probe alone), ascending (FD.io CSIT's latency at % PDR) */
	uint32_t nlatency_at;             /* 0: no latency phases */
	uint64_t latency_rate;            /* the latency probe's messages/s (CSIT's 9 kpps) */
};

/** Run timing shared by every case of a test. */
struct nb_timing {
	uint64_t duration_ns, warmup_ns, omit_ns, interval_ns;
	uint64_t cooldown_ns;   /* the tail of the measured window left out of the statistics */
};

/** One axis value list; every list-valued key becomes one. */
struct nb_axis_u64 {
	uint64_t v[NB_AXIS_MAX];
	uint32_t n;
};

#define NB_HOSTS_MAX 32
#define NB_PATHS_MAX 16
#define NB_HOST_NAME_MAX 64
#define NB_HOST_LOCAL "local"   /* the runner itself: a reserved host name */

/** A host of `hosts:`: how its agent is reached. An ssh host's agent is started by nbrun over
 *  OpenSSH for the batch (runner/control/sshlaunch.h); an address-only host runs one already. */
struct nb_host {
	char name[NB_HOST_NAME_MAX];
	char address[256];       /* where its agent listens, or for ssh hosts where its data ports
				    are (default: the host part of ssh) */
	char ssh[256];           /* [USER@]HOST for ssh; "" = an agent already running there */
	char nbrun[256];         /* ssh: the remote binary (default "nbrun" on the remote PATH) */
	uint16_t port;           /* address hosts: control port; 0 = 7575 (ssh hosts have none:
				    their agent talks over ssh) */
	char secret_file[512];   /* address hosts: their secret ("" = --secret-file's) */
	uint16_t data_lo, data_hi; /* ssh: the agent's --data-ports (0, 0 = its default) */
	uint32_t line, col;      /* where the entry starts in the file */
};

/** One path of a case: from a host of `hosts:` (or local, the runner) to another host. */
struct nb_path {
	char from[NB_HOST_NAME_MAX], to[NB_HOST_NAME_MAX];
};

#define NB_PROBES_MAX 8
/* A working case's idle phase at most: the load's agent waits that long for its START, and no
 * longer (agent_session.c START_TIMEOUT_MS). */
#define NB_WORKING_IDLE_MAX_NS (120ull * 1000000000ull)

struct nb_test;

/** A working test's probes and phases (docs/config.md, "Working conditions"): the test itself
 *  is its load (a stream test), these run beside it on the same path. */
struct nb_working {
	uint64_t idle_ns;                 /* the probes alone before the load (> 0) */
	uint64_t after_ns;                /* the probes alone after it */
	struct nb_test *probes;           /* [nprobes], each with one value per axis; their timing
					     spans idle + the load's duration + after */
	uint32_t nprobes;
};

/** One test of the matrix with its axes, after defaults and overrides. */
struct nb_test {
	char name[64];
	uint32_t line, col;               /* where the test starts in the file */
	const struct nb_engine *engine;   /* the registry's table of base.engine */
	struct nb_params base;            /* every non-axis parameter */
	struct nb_axis_u64 protocol;      /* enum nb_proto values */
	struct nb_axis_u64 size;          /* n == 0: the engine's traits.default_size per protocol */
	struct nb_axis_u64 streams;       /* streams (stream, pps) or flows (rr, crr, latency) */
	struct nb_axis_u64 rate;          /* 0 = unlimited */
	uint32_t rate_pps_mask;           /* bit-rate engines: bit i set = rate.v[i] is packet/s (plan
					     converts) */
	struct nb_axis_u64 direction;     /* enum nb_dir values */
	struct nb_axis_u64 request;
	struct nb_axis_u64 response;
	struct nb_timing timing;
	struct nb_reps reps;
	struct nb_sweep sweep;
	struct nb_path paths[NB_PATHS_MAX]; /* `paths:`; none = the one path of --peer (or local) */
	uint32_t npaths;
	struct nb_working *working;       /* `load:` and `probes:`: this test is the load of a
					     working case (owned; NULL: an ordinary test) */
};

struct nb_config {
	char path[512];
	char name[64];
	char description[256];
	enum nb_order order;
	uint64_t seed;
	struct nb_test *tests;
	size_t ntests;
	struct nb_label labels[NB_LABELS_MAX]; /* `labels:`, in the order of the file */
	size_t nlabels;
	struct nb_host *hosts;            /* `hosts:`, in the order of the file (NULL: none) */
	size_t nhosts;
	char *text;                       /* the file's bytes, copied into the results folder */
	size_t text_len;
};

struct nb_error;

#define NB_CONFIG_MAX_ERRORS 20

/** Every error of a config file, in the order of the file (--set errors first). */
struct nb_config_errors {
	struct nb_error v[NB_CONFIG_MAX_ERRORS];
	size_t n;
	size_t more;                      /* errors beyond the first NB_CONFIG_MAX_ERRORS */
};

/** nb_config_load collecting every error into errs (zeroed here) instead of the first. */
bool nb_config_load_all(const char *path, const char *const *sets, size_t nsets,
			struct nb_config *cfg, struct nb_config_errors *errs);
/** Parse and check path; sets ("key=value", applied to every test) override defaults and tests.
 *  On error fills err with the first "FILE:LINE:COL: ..." and leaves *cfg zeroed. */
bool nb_config_load(const char *path, const char *const *sets, size_t nsets, struct nb_config *cfg,
		    struct nb_error *err);
/** nb_config_load of text already in memory (copied); name stands for the file in errors. */
bool nb_config_load_text(const char *name, const char *text, size_t len, const char *const *sets,
			 size_t nsets, struct nb_config *cfg, struct nb_error *err);
/** Free what nb_config_load allocated; a zeroed cfg is fine. */
void nb_config_free(struct nb_config *cfg);
/** Whether name is a key of a test that means something only to the engines listing it in their
 *  traits.keys ("size", "gso" ...); false for common keys ("duration") and unknown names. */
bool nb_config_engine_key(const char *name);
/** Check a label: key by the Prometheus label-name rules and none of the names nbrun's exports
 *  set themselves, value UTF-8 without control characters; false with err saying why. */
bool nb_config_label_check(const char *key, const char *value, struct nb_error *err);
/** Whether key is a label name nbrun's exports set themselves (case_id, test, quantile ...). */
bool nb_config_label_reserved(const char *key);
/** Set key to value in labels[*n] (the same key is replaced, so a later one wins), checked. */
bool nb_config_label_set(struct nb_label *labels, size_t *n, const char *key, const char *value,
			 struct nb_error *err);
/** nb_config_label_set from "KEY=VALUE" (a --label argument). */
bool nb_config_label_arg(struct nb_label *labels, size_t *n, const char *arg, struct nb_error *err);
/** The probe of test t's latency at % of PDR (sweep latency_at) into out: a test of engine e
 *  named TEST.lat, over UDP, of e's default size, one flow at rate messages/s, e's defaults
 *  otherwise, with t's timing and repetitions (the caller sets the timing of each phase). */
void nb_config_latency_probe(const struct nb_test *t, const struct nb_engine *e, uint64_t rate,
			     struct nb_test *out);
/** The host of cfg's `hosts:` named name, or NULL. */
const struct nb_host *nb_config_host(const struct nb_config *cfg, const char *name);
/** The name of a host of cfg's `hosts:` that name looks like a typo of (the suggestion an
 *  unknown key gets), or NULL. */
const char *nb_config_host_near(const struct nb_config *cfg, const char *name);
/** "local->vm1;vm2->vm3": a test's paths for plan.csv and listings ("" when it has none). */
char *nb_config_paths_str(const struct nb_test *t, char *buf, size_t len);
/** The name of an order mode: "sequential", "interleaved", "random". */
const char *nb_order_name(enum nb_order order);

#endif

/* nbrun — internals shared by the config parser's files (not for other modules).
 *
 *   config.c        load the file, walk the top level, resolve each test, --set
 *   config_keys.c   the key table, each structural key's value handler (axes too), suggestions
 *   config_params.c a parameter row's value (engines/param_defs.h), read by its kind
 *   config_values.c typed values with locations: integers, enums, units
 *   config_sweep.c  repetitions and sweep
 *   config_check.c  the checks that span keys of a resolved test (protocol x size, omit ...)
 *   config_hosts.c  hosts: (how each host is reached) and paths: (which hosts a case uses)
 *   config_errors.c keeping each error, suggesting the nearest word, a nested map's keys
 */
#ifndef NB_CONFIG_INT_H
#define NB_CONFIG_INT_H

#include "config.h"
#include "config_yaml.h"
#include "units.h"

/* Where a key may be written. */
enum { NB_KS_TOP = 1, NB_KS_DEFAULTS = 2, NB_KS_TEST = 4 };
/* At most this many registered engines are offered as `engine:` values. */
#define NB_CFG_MAX_ENGINES 32
/* Keys of the language at most, the engines' own parameters included. */
#define NB_CFG_KEYS_MAX 96

/** One `--set KEY=VALUE`, its value parsed as YAML. */
struct nb_cfg_set {
	char key[32];
	struct nb_ysrc src;
	struct nb_ynode *value;
};

/** Everything the parser needs while it works; freed by config.c. */
struct nb_cfg_ctx {
	struct nb_ysrc src;
	struct nb_ynode *root;
	const struct nb_ynode *defaults;   /* the `defaults:` mapping, or NULL */
	struct nb_cfg_set *sets;
	size_t nsets;
	struct nb_error *err;              /* the error being made; nb_cfg_note keeps it */
	struct nb_config_errors *errs;     /* every error kept so far */
	const struct nb_host *hosts;       /* `hosts:` as parsed (paths: names must be there) */
	size_t nhosts;
};

struct nb_param_def;

/** A key of a test (or of defaults) and how its value lands in a struct nb_test: by its own
 *  handler (apply), or as a parameter row (param) read by its kind. */
struct nb_cfg_key {
	const char *name;
	const char *alias;                 /* e.g. flows for streams; NULL if none */
	unsigned scope;                    /* NB_KS_* bits */
	bool common;                       /* means something to every engine; else only to the
					      engines that list it in their traits.keys */
	bool (*apply)(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t);
	const struct nb_param_def *param;  /* a parameter row (engines/param_defs.h), or NULL */
	const struct nb_engine *owner;     /* an engine's own row: only that engine takes it */
};

/* config_errors.c */
/** Keep the error in c->err (once, in file order); returns false, so a check that failed
 *  can be noted and the parser can go on: `ok = check(...) || nb_cfg_note(c);`. */
bool nb_cfg_note(struct nb_cfg_ctx *c);
/** The closest of cands to word when it is close enough, else NULL. */
const char *nb_cfg_suggest(const char *word, const char *const *cands, size_t n);
/** Check map has only keys from allowed (a nested mapping such as sweep:); where names it. */
bool nb_cfg_check_keys(struct nb_cfg_ctx *c, const struct nb_ynode *map,
		       const char *const *allowed, size_t n, const char *where);

/* config_keys.c */
/** The key table, in the order keys are applied; ends with a NULL name. */
const struct nb_cfg_key *nb_cfg_keys(void);
/** A key by its name or alias, or NULL. */
const struct nb_cfg_key *nb_cfg_key_find(const char *name);
/** nb_cfg_key_find, preferring the key of that name that means something to engine e (an own
 *  parameter several engines name alike). */
const struct nb_cfg_key *nb_cfg_key_find_for(const char *name, const struct nb_engine *e);
/** Apply key k's value v to test t (its handler, or its parameter row); k takes a value. */
bool nb_cfg_key_apply(struct nb_cfg_ctx *c, const struct nb_cfg_key *k, const struct nb_ynode *v,
		      struct nb_test *t);
/** Whether key k means something to engine e: it is common, e lists it in its traits, or it is
 *  one of e's own parameter rows. */
bool nb_cfg_key_applies(const struct nb_cfg_key *k, const struct nb_engine *e);
/** The names of the registered engines, in registry order, into names; returns how many. */
size_t nb_cfg_engine_names(const char **names, size_t max);
/** "a, b or c" of n names into buf. */
void nb_cfg_join_or(const char *const *names, size_t n, char *buf, size_t len);
/** Check every key of map is allowed at scope (and, when scope is a test and e is not NULL,
 *  means something to engine e); each bad key is noted (nb_cfg_note), false when any was. */
bool nb_cfg_check_map(struct nb_cfg_ctx *c, const struct nb_ynode *map, unsigned scope,
		      const struct nb_engine *e);
/** The effective value of key for a test: the last --set, else the test's, else defaults'. */
const struct nb_ynode *nb_cfg_lookup(const struct nb_cfg_ctx *c, const struct nb_ynode *test,
				     const char *key);

/* config_values.c */
/** v must be a scalar with a value; what names the expected value for the message. */
bool nb_cfg_scalar(struct nb_cfg_ctx *c, const struct nb_ynode *v, const char *what);
/** An integer in [lo, hi]. */
bool nb_cfg_uint(struct nb_cfg_ctx *c, const struct nb_ynode *v, uint64_t lo, uint64_t hi,
		 uint64_t *out);
/** A duration in nanoseconds, at most 24 h. */
bool nb_cfg_duration(struct nb_cfg_ctx *c, const struct nb_ynode *v, uint64_t *ns);
/** The error for a size that nb_units_size refused with why, saying what is wrong with it
 *  (its unit reads as bits, an unknown unit, not whole ...); returns false. */
bool nb_cfg_size_error(struct nb_cfg_ctx *c, const struct nb_ynode *v, const char *key,
		       const char *why, const char *expected);
/** A TOS byte: 0..255, hex (0x10), or a DSCP name (ef, af11..af43, cs0..cs7, le) shifted into
 *  the byte. */
bool nb_cfg_tos(struct nb_cfg_ctx *c, const struct nb_ynode *v, int *out);
/** Append the CPUs of one list item ("3", "0-3", "0-3,8") to cpus[*n] (NB_MAX_CPUS at most,
 *  each once). */
bool nb_cfg_cpulist(struct nb_cfg_ctx *c, const struct nb_ynode *v, int16_t *cpus, uint32_t *n);
/** A percentage as a ratio in [lo, hi]. */
bool nb_cfg_percent(struct nb_cfg_ctx *c, const struct nb_ynode *v, double lo, double hi,
		    double *out);
/** true/false/yes/no/on/off. */
bool nb_cfg_bool(struct nb_cfg_ctx *c, const struct nb_ynode *v, bool *out);
/** One of names (a "|"-free list); suggests the closest on a typo. */
bool nb_cfg_enum(struct nb_cfg_ctx *c, const struct nb_ynode *v, const char *const *names,
		 size_t n, int *out);
/** A rate in engine e's unit (bit/s or packets/s, its traits.rate); *pps when written as a
 *  packet rate (which a bit-rate engine's plan converts with the size). */
bool nb_cfg_rate(struct nb_cfg_ctx *c, const struct nb_ynode *v, const struct nb_engine *e,
		 uint64_t *out, bool *pps);
/** Item i of an axis written as a scalar (i = 0) or a list. */
const struct nb_ynode *nb_cfg_item(const struct nb_ynode *v, size_t i);
/** Number of values of an axis written as a scalar or a list. */
size_t nb_cfg_nitems(const struct nb_ynode *v);

/* config_params.c */
/** Parameter row d's value v into t's parameters, read and checked by the row's kind. */
bool nb_cfg_apply_param(struct nb_cfg_ctx *c, const struct nb_param_def *d,
			const struct nb_ynode *v, struct nb_test *t);

/* labels.c */
/** `labels:` into cfg->labels; each bad entry noted, false when any was. */
bool nb_cfg_load_labels(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_config *cfg);

/* config_hosts.c */
/** `hosts:` into cfg->hosts (a bad entry is noted, kept by name so paths: can name it). */
bool nb_cfg_load_hosts(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_config *cfg);
/** `paths:` a list of {from: NAME|local, to: NAME}, each name in hosts:, none to itself. */
bool nb_cfg_apply_paths(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t);

/* config_sweep.c */
/** `repetitions:` an integer, `auto`, or {auto: true, min, max, ci}. */
bool nb_cfg_apply_reps(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t);
/** `sweep:` {rate: {from, to, steps|step|factor|loss, precision}, trial, confirm, retries}. */
bool nb_cfg_apply_sweep(struct nb_cfg_ctx *c, const struct nb_ynode *v, struct nb_test *t);
/** The checks that involve several keys of a resolved test (protocol x size, omit < duration ...). */
bool nb_cfg_check_test(struct nb_cfg_ctx *c, const struct nb_ynode *test, struct nb_test *t);

/** How config.c resolves one test's mapping into t (its engine, then its keys). */
typedef bool (*nb_cfg_resolve_fn)(struct nb_cfg_ctx *c, const struct nb_ynode *node,
				  struct nb_test *t);
/** Whether a test's mapping is a working test (load: or probes:, config_working.c). */
bool nb_cfg_is_working(const struct nb_ynode *node);
/** A working test: t the load (a stream test) with t->working its probes and phases, each part
 *  resolved by resolve; errors noted. */
bool nb_cfg_working(struct nb_cfg_ctx *c, const struct nb_ynode *node, struct nb_test *t,
		    nb_cfg_resolve_fn resolve);
/** Free what nb_cfg_working made (NULL is fine). */
void nb_cfg_working_free(struct nb_working *w);

#endif

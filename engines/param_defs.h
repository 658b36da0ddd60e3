/* nbrun — one descriptor per case parameter: what its config key is, what it holds, where it
 * lives in struct nb_params, its default and range, how the wire carries it, its plan.csv cell
 * and its line in docs/config.md. The config's key table, the defaults, the wire codec, the
 * plan.csv writer and reader and the docs' reference table all iterate these rows, so a new
 * parameter is a row, its field, and the engine that uses it.
 *
 * A const array of struct nb_param_def, not an X-macro: an engine declares its own rows in its
 * own file, in an array of this same struct its table points at (nb_engine.params), and the
 * consumers walk them at run time beside the common ones, which an X-macro expanded at compile
 * time in one list could not take; designated initializers also name every field of a row.
 *
 * The seven matrix axes (protocol, size, streams, rate, direction, request, response) are not
 * rows: each is a list in the config, multiplied out by the plan, with defaults from the
 * engine's traits and plan.csv rules from its shape (request/response or one size,
 * directional); they stay structural in the config (config_keys.c), the wire (first, in a fixed
 * order) and plan.csv. So is `engine`, and the timing keys, which are not fields of nb_params.
 */
#ifndef NB_PARAM_DEFS_H
#define NB_PARAM_DEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

/** What a parameter holds, and so how the config reads it, the wire carries it and plan.csv
 *  spells it. */
enum nb_param_kind {
	NB_PK_UINT,        /* an integer in [min, max]; field: an unsigned integer of size bytes */
	NB_PK_BOOL,        /* true/false/yes/no/on/off, or names[0] (false) / names[1] (true);
			      field: bool; plan.csv on/off */
	NB_PK_ENUM,        /* one of names[]; field: an enum; plan.csv and wire: its index */
	NB_PK_NAME,        /* a name of [a-z0-9_] shorter than the field; field: char[size] */
	NB_PK_TOS,         /* a TOS byte 0..255, 0x.. or a DSCP name; field: int32_t, -1 = left
			      alone (an empty cell; on the wire the value + 1, so 0) */
	NB_PK_SIZE,        /* bytes with K, M, G (powers of 1024), in [min, max]; field: uint32_t */
	NB_PK_DURATION_MS, /* a duration in [min, max] milliseconds; field: uint32_t ms */
	NB_PK_DURATION_US, /* a duration in [min, max] microseconds; field: uint32_t us */
	NB_PK_RATE,        /* bit/s with k, M, G, T (powers of 1000), bps or bit/s, in [min, max]
			      (never a packet rate); field: uint64_t */
	NB_PK_CPUS,        /* CPU numbers and ranges, each once: a uint32_t count at offset, the
			      int16_t CPUs right after it (nb_params.ncpus, cpus); plan.csv "0,2";
			      wire: u32 count, u16 each */
};

/* Row flags. */
#define NB_PF_LISTED 1u   /* only for the engines whose traits.keys list the key (else: all) */
#define NB_PF_TCP 2u      /* plan.csv: a cell only over TCP (empty over UDP) */
#define NB_PF_UDP 4u      /* plan.csv: a cell only over UDP */
#define NB_PF_LOCAL 8u    /* the runner's own: never sent to an agent */
#define NB_PF_AXES 16u    /* plan.csv: the column stands among the axes' (after rate) */

/** The offset of member of an engine's own parameter struct type, as its rows give it: the
 *  engine's struct lies at nb_params.own. */
#define NB_PARAM_OWN(type, member) (offsetof(struct nb_params, own) + offsetof(type, member))
/** An engine's own parameter struct fits the block (put it beside the struct). */
#define NB_PARAM_OWN_FITS(type) \
	_Static_assert(sizeof(type) <= NB_PARAMS_OWN_MAX, #type " fits nb_params.own")

/** One parameter. The common rows are nb_param_defs[]; an engine's own rows its table's
 *  params[] (offsets by NB_PARAM_OWN). Every text is what the config, the wire or the docs
 *  say of the value. */
struct nb_param_def {
	const char *key;          /* the config key */
	const char *alias;        /* another name for it; NULL = none */
	enum nb_param_kind kind;
	unsigned flags;           /* NB_PF_* */
	size_t offset, size;      /* the field in struct nb_params */
	int64_t def;              /* the default, as the field holds it (a NAME, CPUS: empty) */
	/** Optional: the default for engine e instead of def (gso: the engine's gso_default). */
	int64_t (*engine_def)(const struct nb_engine *e);
	uint64_t min, max;        /* the config's range (UINT, SIZE, DURATION_MS, DURATION_US: in
				     the field's unit) */
	const char *const *names; /* ENUM: the values' names; BOOL: NULL or the words for false
				     and true */
	unsigned nnames;
	const char *unit;         /* of the field and its plan.csv cell ("bytes", "ms"); NULL =
				     none */
	unsigned wire;            /* bytes of an integer kind on the wire, big-endian */
	uint64_t wire_max;        /* the decoder's bound, from 0 (0 = max): an agent takes what a
				     client of any range sends, the engine checks the rest */
	const char *column;       /* plan.csv column; NULL = none */
	const char *what;         /* the value in messages ("congestion control"); NULL = key */
	const char *expect;       /* the config error's "expected ..." text; NULL = the kind's own
				     words from the range or the names */
	const char *doc_value;    /* docs/config.md: the values it takes */
	const char *doc_default;  /* docs/config.md: the default in words; NULL = def, spelled */
	const char *doc;          /* docs/config.md: what it sets, one line */
};

/** The parameters every engine or several engines take, in the order of the config's key
 *  table and of the wire; ends with a NULL key. */
extern const struct nb_param_def nb_param_defs[];
/** Rows of nb_param_defs at most (not counting its end): the size of per-row arrays. */
#define NB_PARAM_ROWS_MAX 24
/** An engine's own rows at most. */
#define NB_PARAM_OWN_ROWS_MAX 8

/** Row i of a case of engine e: the common rows, then e's own (*own true); NULL past the end. */
const struct nb_param_def *nb_param_at(const struct nb_engine *e, size_t i, bool *own);
/** The common row of key (its name or alias), or NULL. */
const struct nb_param_def *nb_param_find(const char *key);
/** Whether row d means something to engine e: an own row of e, a common row every engine
 *  takes, or one e lists in its traits.keys. */
bool nb_param_applies(const struct nb_param_def *d, const struct nb_engine *e);
/** The value of a row of an integer kind (all but NAME and CPUS) in p. */
int64_t nb_param_get(const struct nb_param_def *d, const struct nb_params *p);
/** Set the value of a row of an integer kind in p. */
void nb_param_set(const struct nb_param_def *d, struct nb_params *p, int64_t v);
/** The field of row d in p. */
void *nb_param_field(const struct nb_param_def *d, struct nb_params *p);
/** The field of row d in p, read only. */
const void *nb_param_cfield(const struct nb_param_def *d, const struct nb_params *p);
/** Every row's default for a case of engine e (the common rows and e's own), into p. */
void nb_params_defaults(struct nb_params *p, const struct nb_engine *e);
/** Row d's value in p as plan.csv spells it: an integer, on/off, an enum's name, the name,
 *  "0,2" for CPUs; "" for a TOS left alone. Returns buf. */
char *nb_param_format(const struct nb_param_def *d, const struct nb_params *p, char *buf,
		      size_t len);
/** Whether a case of engine e with parameters p has row d's plan.csv cell: d has a column, e
 *  takes it, and its protocol rule holds (TCP only, UDP only). */
bool nb_param_in_plan(const struct nb_param_def *d, const struct nb_engine *e,
		      const struct nb_params *p);
/** The largest integer a row of an integer kind may hold on the wire (0 .. this). */
uint64_t nb_param_wire_max(const struct nb_param_def *d);
/** Whether row d is well formed (own: an engine's own row, inside params.own): its field, its
 *  wire width, its names; false with err saying what is wrong. */
bool nb_param_def_check(const struct nb_param_def *d, bool own, struct nb_error *err);

#endif

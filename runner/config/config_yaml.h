/* nbrun — a small YAML node tree that remembers where every node was written.
 *
 * libyaml's event stream is folded into scalars, sequences and mappings, each
 * with its 1-based line:col and its source (a file, or one `--set KEY=VALUE`),
 * so every later check can point at the exact spot. Duplicate keys, aliases
 * and a second document are rejected while building.
 */
#ifndef NB_CONFIG_YAML_H
#define NB_CONFIG_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nb_error.h"

/** Where a tree came from: a file, or a --set value (then errors say "--set KEY: ..."). */
struct nb_ysrc {
	const char *file;
	const char *set_key;   /* non-NULL for a --set value */
};

enum nb_ykind { NB_Y_SCALAR, NB_Y_SEQ, NB_Y_MAP };

/** One node. A mapping keeps keys and values alternating in kids: k0, v0, k1, v1 ... */
struct nb_ynode {
	enum nb_ykind kind;
	uint32_t line, col;
	const struct nb_ysrc *src;
	char *str;                  /* scalar text */
	bool plain;                 /* scalar written without quotes */
	struct nb_ynode **kids;
	size_t nkids;
};

/** Parse text into a tree; *root is NULL for an empty document. Errors carry libyaml's mark. */
bool nb_yaml_parse(const char *text, size_t len, const struct nb_ysrc *src,
		   struct nb_ynode **root, struct nb_error *err);
/** Free a tree; NULL is fine. */
void nb_ynode_free(struct nb_ynode *n);
/** The value of key in mapping map, or NULL (also when map is NULL or not a mapping). */
const struct nb_ynode *nb_ymap_get(const struct nb_ynode *map, const char *key);
/** The key node of key in map, or NULL. */
const struct nb_ynode *nb_ymap_key(const struct nb_ynode *map, const char *key);
/** True for a plain `~`, `null`, or empty scalar: a key written without a value. */
bool nb_ynode_is_null(const struct nb_ynode *n);
/** "a list", "a mapping", "a value": for "expected X, got Y" messages. */
const char *nb_ynode_kind_name(const struct nb_ynode *n);
/** Fill err with "FILE:LINE:COL: " (or "--set KEY: ") then the message; returns false. */
bool nb_yerror(struct nb_error *err, const struct nb_ynode *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

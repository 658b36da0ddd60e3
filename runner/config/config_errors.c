/* The config parser's errors: each kept once, in file order (nb_cfg_note), the nearest known
 * word for a typo (nb_cfg_suggest), and a nested mapping's unknown keys (nb_cfg_check_keys).
 * Kept apart from the loader (config.c) and the key table (config_keys.c): every file of the
 * parser reports through these, and the loader and the table call those files. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config_int.h"

/* Where an error points: its line and column when it names c's file (0, 0 for --set). */
static void location(const struct nb_cfg_ctx *c, const char *msg, unsigned long *line,
		     unsigned long *col)
{
	size_t n = strlen(c->src.file);
	*line = *col = 0;
	if (strncmp(msg, c->src.file, n) == 0 && msg[n] == ':')
		sscanf(msg + n + 1, "%lu:%lu", line, col);
}

bool nb_cfg_note(struct nb_cfg_ctx *c)
{
	struct nb_config_errors *e = c->errs;
	for (size_t i = 0; i < e->n; i++)
		if (strcmp(e->v[i].msg, c->err->msg) == 0)
			return false;
	if (e->n == NB_CONFIG_MAX_ERRORS) {
		e->more++;
		return false;
	}
	unsigned long line, col, l2, c2;
	location(c, c->err->msg, &line, &col);
	size_t at = e->n;
	while (at > 0 && (location(c, e->v[at - 1].msg, &l2, &c2), l2 > line || (l2 == line && c2 > col)))
		at--;
	memmove(&e->v[at + 1], &e->v[at], (e->n - at) * sizeof(e->v[0]));
	e->v[at] = *c->err;
	e->n++;
	return false;
}

static bool same(char a, char b)
{
	return strncasecmp(&a, &b, 1) == 0;
}

/* Edit distance counting a swap of neighbours as one edit (optimal string alignment),
 * case-insensitive; words longer than 63 characters are far from everything. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d[64][64];
	if (la > 63 || lb > 63)
		return 64;
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			if (i == 0 || j == 0) {
				d[i][j] = (unsigned char)(i + j);
				continue;
			}
			unsigned best = d[i - 1][j - 1] + !same(a[i - 1], b[j - 1]);
			best = d[i - 1][j] + 1u < best ? d[i - 1][j] + 1u : best;
			best = d[i][j - 1] + 1u < best ? d[i][j - 1] + 1u : best;
			if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]) &&
			    d[i - 2][j - 2] + 1u < best)
				best = d[i - 2][j - 2] + 1u;
			d[i][j] = (unsigned char)best;
		}
	return d[la][lb];
}

const char *nb_cfg_suggest(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word), limit = len >= 8 ? 3 : len >= 4 ? 2 : 1;
	const char *best = NULL;
	size_t best_d = limit + 1;
	for (size_t i = 0; i < n; i++) {
		size_t d = distance(word, cands[i]);
		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	return best;
}

bool nb_cfg_check_keys(struct nb_cfg_ctx *c, const struct nb_ynode *map,
		       const char *const *allowed, size_t n, const char *where)
{
	for (size_t i = 0; i < map->nkids; i += 2) {
		const struct nb_ynode *key = map->kids[i];
		bool ok = false;
		for (size_t j = 0; j < n && !ok; j++)
			ok = strcmp(key->str, allowed[j]) == 0;
		if (ok)
			continue;
		const char *near = nb_cfg_suggest(key->str, allowed, n);
		char list[128] = "";
		for (size_t j = 0; j < n; j++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 j ? ", " : "", allowed[j]);
		if (near)
			return nb_yerror(c->err, key, "unknown key '%s' in %s (did you mean '%s'?)",
					 key->str, where, near);
		return nb_yerror(c->err, key, "unknown key '%s' in %s (expected %s)", key->str, where,
				 list);
	}
	return true;
}

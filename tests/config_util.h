/* The config tests' helpers: load YAML text through a temporary file, and the error of a file
 * that must not load, with its location checked. Static, so each test file keeps the short
 * names its tables read with (fail, assert_err); each test executable includes this once. */
#ifndef NBT_CONFIG_UTIL_H
#define NBT_CONFIG_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "fixture_util.h"

/* The temporary file of the last write_yaml. */
static char path[64];

static inline void write_yaml(const char *yaml)
{
	cr_assert(nbt_tmpfile("cfg", ".yaml", yaml, path, sizeof(path)));
}

/* Loads yaml with sets; on success the caller frees cfg. */
static inline bool load_sets(const char *yaml, const char *const *sets, size_t nsets,
			     struct nb_config *cfg, struct nb_error *err)
{
	write_yaml(yaml);
	bool ok = nb_config_load(path, sets, nsets, cfg, err);
	unlink(path);
	return ok;
}

/* The error of a broken file with the path stripped: "LINE:COL: message". */
static inline const char *fail_sets(const char *yaml, const char *const *sets, size_t nsets)
{
	static struct nb_error err;
	struct nb_config cfg;
	memset(&cfg, 0xa5, sizeof(cfg));
	cr_assert_not(load_sets(yaml, sets, nsets, &cfg, &err), "loaded:\n%s", yaml);
	cr_assert_null(cfg.tests, "a failed load leaves cfg zeroed");
	cr_assert_eq(cfg.ntests, 0);
	size_t plen = strlen(path);
	cr_assert(strncmp(err.msg, path, plen) == 0 || strncmp(err.msg, "--set ", 6) == 0,
		  "no location: %s", err.msg);
	if (strncmp(err.msg, path, plen) != 0)
		return err.msg;
	const char *m = err.msg + plen + 1;
	return m + strspn(m, " ");
}

static inline const char *fail(const char *yaml)
{
	return fail_sets(yaml, NULL, 0);
}

/* got starts with "loc:" and contains fragment. */
static inline void assert_err(const char *got, const char *loc, const char *fragment)
{
	size_t n = strlen(loc);
	cr_assert(strncmp(got, loc, n) == 0 && got[n] == ':', "want %s, got: %s", loc, got);
	cr_assert(strstr(got, fragment), "want '%s' in: %s", fragment, got);
}

/* A broken value: the text that completes a head, where the error points, words of its message. */
struct nbt_err_case {
	const char *v, *loc, *fragment;
};

/* Each case's head + v + "\n" fails to load, at loc and with fragment in the message. */
static inline void assert_errs(const char *head, const struct nbt_err_case *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char yaml[512];
		snprintf(yaml, sizeof(yaml), "%s%s\n", head, t[i].v);
		assert_err(fail(yaml), t[i].loc, t[i].fragment);
	}
}

#endif

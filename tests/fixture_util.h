/* Test helpers: copy a fixture results folder into a fresh temporary folder. */
#ifndef NB_FIXTURE_UTIL_H
#define NB_FIXTURE_UTIL_H

#include <stdbool.h>
#include <stddef.h>

/** Copy $NB_SRCDIR/tests/fixtures/<name> into a new temp folder; its path goes to out. */
bool nbt_fixture_copy(const char *name, char *out, size_t len);
/** Read a whole file into a malloc'd NUL-terminated buffer (NULL when unreadable). */
char *nbt_slurp(const char *path, size_t *len);
/** Write text to path (replacing it). */
bool nbt_write(const char *path, const char *text, size_t len);
/** Remove a folder tree made by nbt_fixture_copy. */
void nbt_rmtree(const char *dir);

#endif

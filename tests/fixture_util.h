/* Test helpers shared by every test: temporary files and folders (one naming scheme,
 * /tmp/nbt_<tag>_XXXXXX), fixture folders copied into one, whole-file read and write. */
#ifndef NB_FIXTURE_UTIL_H
#define NB_FIXTURE_UTIL_H

#include <stdbool.h>
#include <stddef.h>

/** Create a fresh folder /tmp/nbt_<tag>_XXXXXX; its path goes to out. */
bool nbt_tmpdir(const char *tag, char *out, size_t len);
/** Create /tmp/nbt_<tag>_XXXXXX<suffix> holding text (NULL: empty); its path goes to out. */
bool nbt_tmpfile(const char *tag, const char *suffix, const char *text, char *out, size_t len);
/** The path of $NB_SRCDIR/tests/fixtures/<name> ("." without NB_SRCDIR), written to out. */
const char *nbt_fixture_path(const char *name, char *out, size_t len);
/** Copy $NB_SRCDIR/tests/fixtures/<name> into a new temp folder; its path goes to out. */
bool nbt_fixture_copy(const char *name, char *out, size_t len);
/** Read a whole file into a malloc'd NUL-terminated buffer (NULL when unreadable). */
char *nbt_slurp(const char *path, size_t *len);
/** Write text to path (replacing it). */
bool nbt_write(const char *path, const char *text, size_t len);
/** Remove a folder tree made by nbt_tmpdir or nbt_fixture_copy. */
void nbt_rmtree(const char *dir);

#endif

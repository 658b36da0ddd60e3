/* Results files written whole or not at all (see afile.h). */
#include "afile.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* One line for a failed write: the file the user knows (path, not its .tmp) and why. */
static bool fail(struct nb_afile *a, int e, struct nb_error *err)
{
	nb_error_errno(err, e ? e : EIO, "cannot write %s", a->path);
	nb_afile_abort(a);
	return false;
}

bool nb_afile_open(struct nb_afile *a, const char *path, struct nb_error *err)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->path, sizeof(a->path), "%s", path);
	snprintf(a->tmp, sizeof(a->tmp), "%s.tmp", path);
	a->f = fopen(a->tmp, "w");
	if (!a->f)
		return nb_error_errno(err, errno, "cannot write %s", path);
	return true;
}

bool nb_afile_commit(struct nb_afile *a, struct nb_error *err)
{
	if (!a->f)
		return nb_error_set(err, "cannot write %s: not open", a->path);
	errno = 0;
	if (ferror(a->f) || fflush(a->f) != 0 || fsync(fileno(a->f)) != 0)
		return fail(a, errno, err);
	FILE *f = a->f;
	a->f = NULL;
	if (fclose(f) != 0) {
		unlink(a->tmp);
		return nb_error_errno(err, errno, "cannot write %s", a->path);
	}
	if (rename(a->tmp, a->path) != 0) {
		int e = errno;
		unlink(a->tmp);
		return nb_error_errno(err, e, "cannot write %s", a->path);
	}
	return true;
}

void nb_afile_abort(struct nb_afile *a)
{
	if (!a->f)
		return;
	fclose(a->f);
	a->f = NULL;
	unlink(a->tmp);
}

bool nb_afile_write(const char *path, const void *buf, size_t len, struct nb_error *err)
{
	struct nb_afile a;
	if (!nb_afile_open(&a, path, err))
		return false;
	if (len && fwrite(buf, 1, len, a.f) != len)
		return fail(&a, errno, err);
	return nb_afile_commit(&a, err);
}

bool nb_afile_json(const char *path, const json_t *doc, size_t flags, struct nb_error *err)
{
	struct nb_afile a;
	if (!nb_afile_open(&a, path, err))
		return false;
	errno = 0;
	if (json_dumpf(doc, a.f, flags) != 0)
		return fail(&a, errno, err);
	return nb_afile_commit(&a, err);
}

/* Test helpers: temporary files and folders, fixtures, whole-file read and write. */
#include "fixture_util.h"

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *nbt_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = '\0';
		if (len)
			*len = (size_t)n;
	}
	return buf;
}

bool nbt_write(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	bool ok = fwrite(text, 1, len, f) == len;
	return fclose(f) == 0 && ok;
}

static bool copy_tree(const char *src, const char *dst)
{
	DIR *d = opendir(src);
	if (!d)
		return false;
	bool ok = true;
	struct dirent *e;
	while (ok && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char s[4096], t[4096];
		snprintf(s, sizeof(s), "%s/%s", src, e->d_name);
		snprintf(t, sizeof(t), "%s/%s", dst, e->d_name);
		struct stat st;
		if (stat(s, &st) != 0)
			ok = false;
		else if (S_ISDIR(st.st_mode))
			ok = mkdir(t, 0755) == 0 && copy_tree(s, t);
		else {
			size_t n = 0;
			char *buf = nbt_slurp(s, &n);
			ok = buf && nbt_write(t, buf, n);
			free(buf);
		}
	}
	closedir(d);
	return ok;
}

bool nbt_tmpdir(const char *tag, char *out, size_t len)
{
	int n = snprintf(out, len, "/tmp/nbt_%s_XXXXXX", tag);
	return n > 0 && (size_t)n < len && mkdtemp(out);
}

bool nbt_tmpfile(const char *tag, const char *suffix, const char *text, char *out, size_t len)
{
	int n = snprintf(out, len, "/tmp/nbt_%s_XXXXXX%s", tag, suffix);
	if (n <= 0 || (size_t)n >= len)
		return false;
	int fd = mkstemps(out, (int)strlen(suffix));
	if (fd < 0)
		return false;
	size_t want = text ? strlen(text) : 0;
	bool ok = write(fd, text ? text : "", want) == (ssize_t)want;
	if (close(fd) != 0 || !ok) {
		unlink(out);
		return false;
	}
	return true;
}

const char *nbt_fixture_path(const char *name, char *out, size_t len)
{
	const char *root = getenv("NB_SRCDIR");
	snprintf(out, len, "%s/tests/fixtures/%s", root ? root : ".", name);
	return out;
}

bool nbt_fixture_copy(const char *name, char *out, size_t len)
{
	char src[4096];
	nbt_fixture_path(name, src, sizeof(src));
	return nbt_tmpdir("fixture", out, len) && copy_tree(src, out);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void nbt_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#include "csv.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct nb_csv {
	FILE *f;
	size_t ncols;
	size_t cell;      /* cells written in the current row */
	bool failed;
};

/* Append to path (create = false) or replace it; the header goes into an empty file. */
static struct nb_csv *open_csv(const char *path, bool create, const char *const *header,
			       size_t ncols, struct nb_error *err)
{
	struct nb_csv *c = calloc(1, sizeof(*c));
	if (!c) {
		nb_error_set(err, "%s: out of memory", path);
		return NULL;
	}
	c->f = fopen(path, create ? "w" : "a");
	if (!c->f) {
		if (create)
			nb_error_errno(err, errno, "%s: cannot create", path);
		else
			nb_error_errno(err, errno, "cannot open %s", path);
		free(c);
		return NULL;
	}
	c->ncols = ncols;
	struct stat st;
	if (fstat(fileno(c->f), &st) == 0 && st.st_size == 0) {
		for (size_t i = 0; i < ncols; i++)
			nb_csv_str(c, header[i]);
		nb_csv_end(c);
	}
	return c;
}

struct nb_csv *nb_csv_open(const char *path, const char *const *header, size_t ncols,
			   struct nb_error *err)
{
	return open_csv(path, false, header, ncols, err);
}

struct nb_csv *nb_csv_create(const char *path, const char *const *header, size_t ncols,
			     struct nb_error *err)
{
	return open_csv(path, true, header, ncols, err);
}

bool nb_csv_close(struct nb_csv *c)
{
	if (!c)
		return true;
	bool ok = !c->failed;
	if (fclose(c->f) != 0)
		ok = false;
	free(c);
	return ok;
}

void nb_csv_quote(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void sep(struct nb_csv *c)
{
	if (c->cell++ > 0)
		fputc(',', c->f);
}

void nb_csv_str(struct nb_csv *c, const char *s)
{
	sep(c);
	nb_csv_quote(c->f, s);
}

void nb_csv_u64(struct nb_csv *c, uint64_t v)
{
	sep(c);
	fprintf(c->f, "%llu", (unsigned long long)v);
}

void nb_csv_num(struct nb_csv *c, double v)
{
	sep(c);
	if (isfinite(v))
		fprintf(c->f, "%.9g", v);
}

void nb_csv_printf(struct nb_csv *c, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	nb_csv_str(c, buf);
}

void nb_csv_end(struct nb_csv *c)
{
	fputc('\n', c->f);
	if (c->cell != c->ncols || fflush(c->f) != 0 || ferror(c->f))
		c->failed = true;
	c->cell = 0;
}

/* CSV writing (see csv.h). */
#include "csv.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "afile.h"
#include "fmt.h"
#include "json_value.h"

struct nb_csv {
	FILE *f;
	struct nb_afile a;  /* a created file: f is a.f until committed */
	bool created;
	char path[4096];
	size_t ncols;
	size_t cell;        /* cells written in the current row */
	bool failed;
	int err_no;         /* why the first write failed (0: a row of the wrong width) */
	const char *const *names; /* JSON Lines (nb_csv_json): each cell's member name, else NULL */
	char *prefix;       /* JSON Lines: the members every row starts with ("" for none) */
};

static void failed(struct nb_csv *c, int e)
{
	if (!c->failed)
		c->err_no = e;
	c->failed = true;
}

static void write_header(struct nb_csv *c, const char *const *header)
{
	for (size_t i = 0; i < c->ncols; i++)
		nb_csv_str(c, header[i]);
	nb_csv_end(c);
}

/* Append to path (create = false) or write it whole; the header goes into an empty file. */
static struct nb_csv *open_csv(const char *path, bool create, const char *const *header,
			       size_t ncols, struct nb_error *err)
{
	struct nb_csv *c = calloc(1, sizeof(*c));
	if (!c) {
		nb_error_set(err, "%s: out of memory", path);
		return NULL;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->created = create;
	c->ncols = ncols;
	if (create)
		c->f = nb_afile_open(&c->a, path, err) ? c->a.f : NULL;
	else if (!(c->f = fopen(path, "a")))
		nb_error_errno(err, errno, "cannot write %s", path);
	if (!c->f) {
		free(c);
		return NULL;
	}
	struct stat st;
	if (create || (fstat(fileno(c->f), &st) == 0 && st.st_size == 0))
		write_header(c, header);
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

struct nb_csv *nb_csv_json(FILE *f, const char *name, const char *const *header, size_t ncols,
			   const char *prefix, struct nb_error *err)
{
	struct nb_csv *c = calloc(1, sizeof(*c));
	const char **names = calloc(ncols ? ncols : 1, sizeof(*names));
	char *pre = strdup(prefix ? prefix : "");
	if (!c || !names || !pre) {
		free(c);
		free(names);
		free(pre);
		nb_error_set(err, "%s: out of memory", name);
		return NULL;
	}
	memcpy(names, header, ncols * sizeof(*names));
	snprintf(c->path, sizeof(c->path), "%s", name);
	c->f = f;
	c->ncols = ncols;
	c->names = names;
	c->prefix = pre;
	return c;
}

static void free_csv(struct nb_csv *c)
{
	free((void *)c->names);
	free(c->prefix);
	free(c);
}

bool nb_csv_ok(const struct nb_csv *c, struct nb_error *err)
{
	if (!c->failed)
		return true;
	if (c->err_no)
		return nb_error_errno(err, c->err_no, "cannot write %s", c->path);
	return nb_error_set(err, "cannot write %s: a row with the wrong number of cells", c->path);
}

bool nb_csv_sync(struct nb_csv *c, struct nb_error *err)
{
	if (c->failed)
		return nb_csv_ok(c, err);
	if (fflush(c->f) != 0 || fsync(fileno(c->f)) != 0)
		failed(c, errno);
	return nb_csv_ok(c, err);
}

bool nb_csv_finish(struct nb_csv *c, struct nb_error *err)
{
	if (!c)
		return true;
	bool ok = nb_csv_ok(c, err);
	if (c->created && ok)
		ok = nb_afile_commit(&c->a, err);
	else if (c->created)
		nb_afile_abort(&c->a);
	else if (!c->names && fclose(c->f) != 0 && ok) /* JSON Lines: f is not ours */
		ok = nb_error_errno(err, errno, "cannot write %s", c->path);
	free_csv(c);
	return ok;
}

bool nb_csv_close(struct nb_csv *c)
{
	return nb_csv_finish(c, NULL);
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

/* Before a cell: the comma, and in JSON Lines the row's opening or the cell's member name. */
static void sep(struct nb_csv *c)
{
	size_t i = c->cell++;
	if (!c->names) {
		if (i > 0)
			fputc(',', c->f);
		return;
	}
	if (i == 0)
		fprintf(c->f, "{%s%s", c->prefix, c->prefix[0] ? "," : "");
	else
		fputc(',', c->f);
	json_t *name = nb_json_string(i < c->ncols ? c->names[i] : "");
	char *text = json_dumps(name, JSON_ENCODE_ANY);
	fprintf(c->f, "%s:", text ? text : "\"\"");
	free(text);
	json_decref(name);
}

void nb_csv_str(struct nb_csv *c, const char *s)
{
	sep(c);
	if (!c->names) {
		nb_csv_quote(c->f, s);
		return;
	}
	json_t *j = nb_json_string(s ? s : "");
	char *text = json_dumps(j, JSON_ENCODE_ANY);
	fputs(text ? text : "\"\"", c->f);
	free(text);
	json_decref(j);
}

void nb_csv_u64(struct nb_csv *c, uint64_t v)
{
	sep(c);
	fprintf(c->f, "%llu", (unsigned long long)v);
}

void nb_csv_num(struct nb_csv *c, double v)
{
	char buf[400];
	sep(c);
	nb_fmt_num(v, buf, sizeof(buf));
	fputs(buf[0] || !c->names ? buf : "null", c->f);
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

bool nb_csv_end(struct nb_csv *c)
{
	errno = 0;
	fputs(c->names ? "}\n" : "\n", c->f);
	if (c->cell != c->ncols)
		failed(c, 0);
	else if (fflush(c->f) != 0 || ferror(c->f))
		failed(c, errno ? errno : EIO);
	c->cell = 0;
	return !c->failed;
}

#include "csv_read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* In-place unquoting: the write pointer never passes the read pointer, because
 * every byte written consumed at least one byte, and the cell's NUL goes where
 * its delimiter was read. */
struct parser {
	char *r, *w, *end;
	size_t line;
	char **cells;
	size_t n, cap;
};

enum rec { REC_EOF, REC_OK, REC_TRUNCATED, REC_NOMEM };

static bool push_cell(struct parser *p, char *cell)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		char **c = realloc(p->cells, cap * sizeof(*c));
		if (!c)
			return false;
		p->cells = c;
		p->cap = cap;
	}
	p->cells[p->n++] = cell;
	return true;
}

/* Reads a quoted field body after its opening quote; false when the file ends inside it. */
static bool quoted_body(struct parser *p)
{
	for (;;) {
		if (p->r >= p->end)
			return false;
		char c = *p->r++;
		if (c == '"') {
			if (p->r < p->end && *p->r == '"') {
				*p->w++ = '"';
				p->r++;
				continue;
			}
			return true;
		}
		if (c == '\n')
			p->line++;
		*p->w++ = c;
	}
}

static enum rec next_record(struct parser *p)
{
	p->n = 0;
	for (;;) {
		char *start = p->w;
		bool quoted = p->r < p->end && *p->r == '"';
		if (quoted) {
			p->r++;
			if (!quoted_body(p))
				return REC_TRUNCATED;
		}
		char *plain = p->w;
		while (p->r < p->end && *p->r != ',' && *p->r != '\n')
			*p->w++ = *p->r++;
		if (p->r < p->end && *p->r == '\n' && p->w > plain && p->w[-1] == '\r')
			p->w--;
		char d = p->r < p->end ? *p->r++ : '\0';
		*p->w++ = '\0';
		if (!push_cell(p, start))
			return REC_NOMEM;
		if (d == ',')
			continue;
		if (d == '\n') {
			p->line++;
			return REC_OK;
		}
		return (p->n == 1 && !quoted && *start == '\0') ? REC_EOF : REC_TRUNCATED;
	}
}

static bool add_row(struct nb_csv_table *t, char **cells, size_t line)
{
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct nb_csv_row *r = realloc(t->rows, cap * sizeof(*r));
		if (!r)
			return false;
		t->rows = r;
		t->cap = cap;
	}
	char **copy = malloc(t->ncols * sizeof(*copy));
	if (!copy)
		return false;
	memcpy(copy, cells, t->ncols * sizeof(*copy));
	t->rows[t->nrows++] = (struct nb_csv_row){ .cells = copy, .line = line };
	return true;
}

static void note(struct nb_csv_table *t, size_t line, const char *what, size_t n)
{
	t->incomplete++;
	if (t->problem[0] == '\0')
		snprintf(t->problem, sizeof(t->problem), "%s:%zu: %s (%zu of %zu fields)", t->name, line,
			 what, n, t->ncols);
}

static bool read_header(struct nb_csv_table *t, struct parser *p, struct nb_error *err)
{
	enum rec rc = next_record(p);
	if (rc != REC_OK || (p->n == 1 && p->cells[0][0] == '\0'))
		return nb_error_set(err, "%s:1: no header row", t->name);
	t->ncols = p->n;
	t->hdr = malloc(p->n * sizeof(*t->hdr));
	if (!t->hdr)
		return nb_error_set(err, "%s: out of memory", t->name);
	memcpy(t->hdr, p->cells, p->n * sizeof(*t->hdr));
	return true;
}

static bool parse_rows(struct nb_csv_table *t, struct parser *p, struct nb_error *err)
{
	for (;;) {
		size_t line = p->line;
		enum rec rc = next_record(p);
		if (rc == REC_EOF)
			return true;
		if (rc == REC_NOMEM)
			return nb_error_set(err, "%s:%zu: out of memory", t->name, line);
		if (rc == REC_TRUNCATED) {
			note(t, line, "truncated row", p->n);
			return true;
		}
		if (p->n == 1 && p->cells[0][0] == '\0' && t->ncols > 1)
			continue; /* blank line */
		if (p->n != t->ncols)
			note(t, line, "wrong field count", p->n);
		else if (!add_row(t, p->cells, line))
			return nb_error_set(err, "%s:%zu: out of memory", t->name, line);
	}
}

bool nb_csv_parse(const char *text, size_t len, const char *name, struct nb_csv_table *t,
		  struct nb_error *err)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->buf = malloc(len + 1);
	if (!t->buf)
		return nb_error_set(err, "%s: out of memory", name);
	memcpy(t->buf, text, len);
	t->buf[len] = '\0';
	struct parser p = { .r = t->buf, .w = t->buf, .end = t->buf + len, .line = 1 };
	bool ok = read_header(t, &p, err) && parse_rows(t, &p, err);
	free(p.cells);
	if (!ok)
		nb_csv_table_free(t);
	return ok;
}

static char *slurp(const char *path, size_t *len, struct nb_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		nb_error_errno(err, errno, "cannot open %s", path);
		return NULL;
	}
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		char *b = realloc(buf, cap * 2);
		if (!b) {
			free(buf);
			buf = NULL;
		} else {
			buf = b;
			cap *= 2;
		}
	}
	bool bad = ferror(f);
	fclose(f);
	if (!buf || bad) {
		free(buf);
		nb_error_set(err, "%s: %s", path, buf ? "read error" : "out of memory");
		return NULL;
	}
	*len = n;
	return buf;
}

bool nb_csv_read(const char *path, struct nb_csv_table *t, struct nb_error *err)
{
	memset(t, 0, sizeof(*t));
	size_t len = 0;
	char *text = slurp(path, &len, err);
	if (!text)
		return false;
	const char *base = strrchr(path, '/');
	bool ok = nb_csv_parse(text, len, base ? base + 1 : path, t, err);
	free(text);
	return ok;
}

void nb_csv_table_free(struct nb_csv_table *t)
{
	for (size_t i = 0; i < t->nrows; i++)
		free(t->rows[i].cells);
	free(t->rows);
	free(t->hdr);
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

int nb_csv_col(const struct nb_csv_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->hdr[i], name) == 0)
			return (int)i;
	return -1;
}

const char *nb_csv_cell(const struct nb_csv_table *t, size_t r, int col)
{
	if (col < 0 || (size_t)col >= t->ncols || r >= t->nrows)
		return "";
	return t->rows[r].cells[col];
}

double nb_csv_num_cell(const struct nb_csv_table *t, size_t r, int col)
{
	const char *s = nb_csv_cell(t, r, col);
	if (*s == '\0')
		return NAN;
	char *end;
	double v = strtod(s, &end);
	return (end == s || *end != '\0') ? NAN : v;
}

uint32_t nb_csv_u32_cell(const struct nb_csv_table *t, size_t r, int col)
{
	double v = nb_csv_num_cell(t, r, col);
	return isfinite(v) && v >= 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
}

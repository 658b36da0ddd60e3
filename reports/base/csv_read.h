/* nbrun — reading CSV files back (RFC 4180): quoted fields with commas, quotes and
 * newlines, CRLF or LF line ends. A results folder may end mid-row after a crash, so
 * a row that is truncated or has the wrong number of fields is counted as incomplete
 * and skipped, never a crash; the first such problem is kept as "file:line: what". */
#ifndef NB_CSV_READ_H
#define NB_CSV_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nb_error.h"

/** One complete row: ncols NUL-terminated cells pointing into the table's buffer. */
struct nb_csv_row {
	char **cells;
	size_t line;       /* physical line where the row starts (1-based) */
};

/** A whole CSV file in memory. */
struct nb_csv_table {
	char name[128];        /* file name used in messages */
	char *buf;             /* the file's bytes, unquoted in place */
	char **hdr;
	size_t ncols;
	struct nb_csv_row *rows;
	size_t nrows, cap;
	size_t incomplete;     /* rows skipped: truncated or with the wrong field count */
	char problem[256];     /* the first incomplete row, "file:line: what", or "" */
};

/** Read and parse path; false (err = "file: why") when it cannot be read or has no header. */
bool nb_csv_read(const char *path, struct nb_csv_table *t, struct nb_error *err);
/** Parse len bytes of text (copied); name is used in messages. */
bool nb_csv_parse(const char *text, size_t len, const char *name, struct nb_csv_table *t,
		  struct nb_error *err);
/** Free the table; a zeroed table is fine. */
void nb_csv_table_free(struct nb_csv_table *t);
/** Column index by header name, or -1. */
int nb_csv_col(const struct nb_csv_table *t, const char *name);
/** Cell text of row r in column col; "" when col < 0. */
const char *nb_csv_cell(const struct nb_csv_table *t, size_t r, int col);
/** Cell as a number; NAN when empty, absent or not a number. */
double nb_csv_num_cell(const struct nb_csv_table *t, size_t r, int col);
/** Cell as a uint32; 0 when empty, absent, not a number or out of range. */
uint32_t nb_csv_u32_cell(const struct nb_csv_table *t, size_t r, int col);

#endif

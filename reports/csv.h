/* nbrun — CSV writing with RFC 4180 quoting: the generic writer under every CSV file nbrun
 * writes (the files of a results folder have their own modules: plan_csv, runs_csv ...). */
#ifndef NB_CSV_H
#define NB_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

/** A CSV file being written; every row is flushed when it ends. */
struct nb_csv;

/** Open path for appending; writes header when the file is new or empty. */
struct nb_csv *nb_csv_open(const char *path, const char *const *header, size_t ncols,
			   struct nb_error *err);
/** Create path (replacing any previous file) and write header. */
struct nb_csv *nb_csv_create(const char *path, const char *const *header, size_t ncols,
			     struct nb_error *err);
/** Flush and close; NULL is a no-op. Returns false if a write failed at any time. */
bool nb_csv_close(struct nb_csv *c);
/** A text cell, quoted when it holds a comma, quote, CR or LF; NULL is an empty cell. */
void nb_csv_str(struct nb_csv *c, const char *s);
/** An unsigned integer cell. */
void nb_csv_u64(struct nb_csv *c, uint64_t v);
/** A number cell with up to 9 significant digits; NAN or infinity is an empty cell. */
void nb_csv_num(struct nb_csv *c, double v);
/** A cell formatted as by printf (quoted like nb_csv_str when it needs it). */
void nb_csv_printf(struct nb_csv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** End the row and flush it to the kernel. */
void nb_csv_end(struct nb_csv *c);
/** Write s to f as one CSV field (quoted when needed). */
void nb_csv_quote(FILE *f, const char *s);

#endif

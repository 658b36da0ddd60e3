/* nbrun — CSV writing with RFC 4180 quoting: the generic writer under every CSV file nbrun
 * writes (the files of a results folder have their own modules: plan_csv, runs_csv ...). */
#ifndef NB_CSV_H
#define NB_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nb_error.h"

/** A CSV file being written. An appended file (nb_csv_open: runs.csv, intervals.csv) hands
 *  every row to the kernel when it ends and reaches the disk at nb_csv_sync; a created one
 *  (nb_csv_create) is written whole or not at all (afile.h). */
struct nb_csv;

/** Open path for appending; writes header when the file is new or empty. */
struct nb_csv *nb_csv_open(const char *path, const char *const *header, size_t ncols,
			   struct nb_error *err);
/** Create path whole or not at all: rows go to a temporary file that nb_csv_finish renames
 *  over path (replacing any previous file). */
struct nb_csv *nb_csv_create(const char *path, const char *const *header, size_t ncols,
			     struct nb_error *err);
/** The same cells as JSON Lines on f (not owned: finish frees the writer, never closes f): a
 *  row is one object, `{PREFIX,"header[0]":cell,...}`, its text cells JSON strings (invalid
 *  UTF-8 as U+FFFD), its integers and numbers written as in a CSV file (nb_fmt_num: a NAN is
 *  null), handed to the kernel at its end. name says what f is in an error ("cannot write
 *  NAME"); prefix (may be NULL) is the members each row starts with, e.g. `"event":"x"`. The
 *  header names must live as long as the writer. */
struct nb_csv *nb_csv_json(FILE *f, const char *name, const char *const *header, size_t ncols,
			   const char *prefix, struct nb_error *err);
/** True while every write so far succeeded; else err says "cannot write PATH: reason". */
bool nb_csv_ok(const struct nb_csv *c, struct nb_error *err);
/** Flush the rows written so far to the disk (fsync); false with err as nb_csv_ok. */
bool nb_csv_sync(struct nb_csv *c, struct nb_error *err);
/** Close (a created file: commit it); NULL is a no-op. False with err as nb_csv_ok when a write
 *  failed at any time (a created file is then removed). */
bool nb_csv_finish(struct nb_csv *c, struct nb_error *err);
/** nb_csv_finish without the reason. */
bool nb_csv_close(struct nb_csv *c);
/** A text cell, quoted when it holds a comma, quote, CR or LF; NULL is an empty cell. */
void nb_csv_str(struct nb_csv *c, const char *s);
/** An unsigned integer cell. */
void nb_csv_u64(struct nb_csv *c, uint64_t v);
/** A number cell with up to 9 significant digits; NAN or infinity is an empty cell. */
void nb_csv_num(struct nb_csv *c, double v);
/** A cell formatted as by printf (quoted like nb_csv_str when it needs it). */
void nb_csv_printf(struct nb_csv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** End the row and hand it to the kernel; false when this or an earlier write failed. */
bool nb_csv_end(struct nb_csv *c);
/** Write s to f as one CSV field (quoted when needed). */
void nb_csv_quote(FILE *f, const char *s);

#endif

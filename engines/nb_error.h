/* nbrun — caller-owned error text, shared by every layer. */
#ifndef NB_ERROR_H
#define NB_ERROR_H

#include <stdbool.h>

/** A one-line, human-readable error filled by the function that failed. */
struct nb_error {
	char msg[256];
};

/** Format into err (a NULL err is allowed); always returns false so callers can `return nb_error_set(...)`.
 *  An argument may be err's own message ("host %s: %s", name, err->msg): it is read whole
 *  before err is written. */
bool nb_error_set(struct nb_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** Like nb_error_set, with ": strerror(errnum)" appended. */
bool nb_error_errno(struct nb_error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

#include "nb_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool nb_error_set(struct nb_error *err, const char *fmt, ...)
{
	if (!err)
		return false;
	char msg[sizeof(err->msg)]; /* an argument may be err->msg itself */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memcpy(err->msg, msg, sizeof(msg));
	return false;
}

bool nb_error_errno(struct nb_error *err, int errnum, const char *fmt, ...)
{
	if (!err)
		return false;
	char head[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	snprintf(err->msg, sizeof(err->msg), "%s: %s", head, strerror(errnum));
	return false;
}

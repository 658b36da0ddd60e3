/* nbrun — the helpers --check shares between the targets' checks (target_check.c) and the
 * batch's preflight (preflight.c). */
#ifndef NB_TARGET_CHECK_H
#define NB_TARGET_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "client.h"
#include "plan.h"

/** Each line of text on stderr as "nbrun: check: WHO: LINE"; returns how many. */
size_t nb_check_print(const char *who, const char *text);
/** Whether case c keeps within lim (held by who) as its SETUP will be judged; else why. A swept
 *  case as its longest trial at its highest rate. */
bool nb_check_case_within(const struct nb_case *c, const struct nb_limits *lim, const char *who,
			  char *why, size_t n);

#endif

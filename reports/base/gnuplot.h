/* nbrun — gnuplot, for the report's charts and compare's: whether it can run, running it on a
 * script in a folder (posix_spawnp, never a shell), and text quoted for a script's strings. */
#ifndef NB_GNUPLOT_H
#define NB_GNUPLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "nb_error.h"

/** True when an executable gnuplot is on PATH and NBRUN_GNUPLOT is not "none". */
bool nb_chart_gnuplot_available(void);
/** Run `gnuplot script` in workdir (posix_spawnp, no shell), its output appended to log. */
bool nb_chart_gnuplot_run(const char *workdir, const char *script, const char *log,
			  struct nb_error *err);
/** s as a gnuplot double-quoted string body (backslash and quote escaped). */
void nb_chart_gp_str(FILE *f, const char *s);

#endif

/* nbrun — report.html: the sections of report.md as one self-contained page for a browser,
 * a phone or a printer (inline CSS and SVG charts, no fetch; html.c). */
#ifndef NB_HTML_H
#define NB_HTML_H

#include <stdbool.h>
#include <stddef.h>

#include "nb_error.h"

#define NB_HTML_FILE "report.html"

/** Write html_path (replacing it) from the report.md at md_path of results folder dir, its
 *  charts' SVGs inline; *charts says how many were drawn. */
bool nb_html_write(const char *dir, const char *md_path, const char *html_path,
		   size_t *charts, struct nb_error *err);

#endif

/* nbrun — Markdown text that cannot render as anything but text (md_text.c), for report.md,
 * compare's Markdown and every section that quotes a value from the results. */
#ifndef NB_MD_TEXT_H
#define NB_MD_TEXT_H

#include <stdio.h>

/** s as inert Markdown text: no HTML, link, entity, emphasis or code span can come of it,
 *  control and bidi characters are dropped, line breaks are spaces; nothing for NULL. */
void nb_md_text(FILE *f, const char *s);
/** s as one table cell, nb_md_text; NULL or "" as "—". */
void nb_md_cell(FILE *f, const char *s);
/** s as inline code in a table cell (backticks and '|' made safe, control and bidi characters
 *  dropped). */
void nb_md_code(FILE *f, const char *s);
/** A table cell holding v in unit for people (nb_fmt_value: "2.13 Mbit/s"); NAN as "—". */
void nb_md_value_cell(FILE *f, double v, const char *unit);

#endif

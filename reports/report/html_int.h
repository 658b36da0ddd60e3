/* nbrun — inside report.html: the Markdown-to-HTML pass (html_md.c) and the page around it
 * (html.c). Not for use outside reports/report. */
#ifndef NB_HTML_INT_H
#define NB_HTML_INT_H

#include <stddef.h>
#include <stdio.h>

/** What the pass asks of the page: an image line's chart, drawn inline. */
struct nb_html_ctx {
	const char *dir;   /* the results folder */
	size_t *charts;    /* charts drawn so far (each SVG's ids are made unique by it) */
	/** Write the chart of "![alt](src)" (src as report.md names it, charts/NAME.png). */
	void (*chart)(const struct nb_html_ctx *ctx, FILE *o, const char *alt, size_t altn,
		      const char *src, size_t srcn);
};

/** Write n bytes of s escaped for HTML text and attribute values. */
void nb_html_text(FILE *o, const char *s, size_t n);
/** One line's inline Markdown (code, bold, emphasis, links, escapes) as HTML. */
void nb_html_inline(FILE *o, const char *s, size_t n);
/** The body of report.html from report.md's text. */
void nb_html_from_md(FILE *o, const char *md, const struct nb_html_ctx *ctx);

#endif

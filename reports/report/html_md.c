/* report.html's body: the Markdown nbrun writes (report.md) turned into HTML, block by block.
 * It reads only the subset markdown*.c writes — headings, paragraphs, pipe tables, one-line
 * list items (two levels), block quotes, <details>/<summary> lines, a rule, an image line, and
 * inline code, bold, emphasis, links and backslash escapes — so the two files can never show
 * different sections. Every character of text is escaped for HTML: the only tags are the ones
 * written here, and a link only keeps an href of plain path characters (report.md's own links
 * to charts/ files and #sections; text from elsewhere has its [ escaped and is never a link). */
#include "html_int.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void nb_html_text(FILE *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		switch (s[i]) {
		case '<': fputs("&lt;", o); break;
		case '>': fputs("&gt;", o); break;
		case '&': fputs("&amp;", o); break;
		case '"': fputs("&quot;", o); break;
		case '\'': fputs("&#39;", o); break;
		default: fputc(s[i], o);
		}
}

static bool word_char(const char *s, size_t i, size_t n)
{
	return i < n && (isalnum((unsigned char)s[i]) || (unsigned char)s[i] >= 0x80);
}

/* A code span's text: "\|" was written for the table, it is a "|". */
static size_t code_span(FILE *o, const char *s, size_t i, size_t n)
{
	size_t e = i + 1;
	while (e < n && s[e] != '`')
		e++;
	if (e >= n) { /* no closing backtick: a literal one */
		nb_html_text(o, s + i, 1);
		return i + 1;
	}
	fputs("<code>", o);
	for (size_t k = i + 1; k < e; k++)
		if (!(s[k] == '\\' && k + 1 < e && s[k + 1] == '|'))
			nb_html_text(o, s + k, 1);
	fputs("</code>", o);
	return e + 1;
}

/* "[text](href)" with an href of path characters only; else the "[" is text. */
static size_t link(FILE *o, const char *s, size_t i, size_t n)
{
	size_t t = i + 1;
	while (t < n && s[t] != ']' && s[t] != '[')
		t++;
	if (t + 1 >= n || s[t] != ']' || s[t + 1] != '(') {
		nb_html_text(o, s + i, 1);
		return i + 1;
	}
	size_t h = t + 2, e = h;
	while (e < n && (isalnum((unsigned char)s[e]) || strchr("._/#-", s[e])))
		e++;
	if (e >= n || s[e] != ')' || e == h) {
		nb_html_text(o, s + i, 1);
		return i + 1;
	}
	fputs("<a href=\"", o);
	nb_html_text(o, s + h, e - h);
	fputs("\">", o);
	nb_html_inline(o, s + i + 1, t - i - 1);
	fputs("</a>", o);
	return e + 1;
}

void nb_html_inline(FILE *o, const char *s, size_t n)
{
	bool strong = false, em = false;
	char em_mark = 0;
	for (size_t i = 0; i < n;) {
		char c = s[i];
		if (c == '\\' && i + 1 < n && ispunct((unsigned char)s[i + 1])) {
			nb_html_text(o, s + i + 1, 1);
			i += 2;
		} else if (c == '`')
			i = code_span(o, s, i, n);
		else if (c == '[')
			i = link(o, s, i, n);
		else if (c == '*' && i + 1 < n && s[i + 1] == '*') {
			fputs(strong ? "</strong>" : "<strong>", o);
			strong = !strong;
			i += 2;
		} else if ((c == '*' || c == '_') && (em ? em_mark == c : i + 1 < n && s[i + 1] != ' ') &&
			   (c == '*' || (em ? !word_char(s, i + 1, n) : !(i && word_char(s, i - 1, n))))) {
			fputs(em ? "</em>" : "<em>", o);
			em = !em;
			em_mark = c;
			i++;
		} else {
			nb_html_text(o, s + i, 1);
			i++;
		}
	}
	if (em)
		fputs("</em>", o);
	if (strong)
		fputs("</strong>", o);
}

/* The open blocks: at most one of each, closed in order. */
struct blocks {
	FILE *o;
	const struct nb_html_ctx *ctx;
	bool para, quote, table, section;
	int list;            /* nesting depth of open lists */
	size_t rows;         /* rows of the open table */
	char align[64];      /* per column: 'r' right, 'l' left */
	char *head[64];      /* its header cells as text: each cell's data-label, for narrow screens */
	size_t nhead;
};

static void close_blocks(struct blocks *b)
{
	if (b->para)
		fputs("</p>\n", b->o);
	if (b->quote)
		fputs("</blockquote>\n", b->o);
	if (b->table)
		fputs("</tbody></table></div>\n", b->o);
	for (; b->nhead > 0; b->nhead--)
		free(b->head[b->nhead - 1]);
	for (; b->list > 0; b->list--)
		fputs("</li></ul>\n", b->o);
	b->para = b->quote = b->table = false;
}

/* Cells of "| a | b \| c | `x|y` |", split on the bars that are not escaped or in code. */
static size_t split_cells(const char *line, size_t n, const char *cell[], size_t len[], size_t max)
{
	size_t k = 0, i = 1, start = 1;
	bool code = false;
	for (; i < n && k < max; i++) {
		if (line[i] == '\\' && i + 1 < n)
			i++;
		else if (line[i] == '`')
			code = !code;
		else if (line[i] == '|' && !code) {
			size_t a = start, e = i;
			while (a < e && line[a] == ' ')
				a++;
			while (e > a && line[e - 1] == ' ')
				e--;
			cell[k] = line + a;
			len[k++] = e - a;
			start = i + 1;
		}
	}
	return k;
}

static void table_row(struct blocks *b, const char *line, size_t n)
{
	const char *cell[64];
	size_t len[64], k = split_cells(line, n, cell, len, 64);
	if (b->table && b->rows == 1) { /* the alignment row */
		for (size_t i = 0; i < k && i < sizeof(b->align); i++)
			b->align[i] = len[i] && cell[i][len[i] - 1] == ':' ? 'r' : 'l';
		b->rows++;
		return;
	}
	if (!b->table) {
		close_blocks(b);
		fputs("<div class=\"table\"><table><thead>", b->o);
		b->table = true;
		b->rows = 0;
		memset(b->align, 'l', sizeof(b->align));
	}
	bool head = b->rows == 0;
	fputs("<tr>", b->o);
	for (size_t i = 0; i < k; i++) {
		bool r = !head && i < sizeof(b->align) && b->align[i] == 'r';
		if (head && b->nhead < 64)
			b->head[b->nhead++] = strndup(cell[i], len[i]);
		fputs(head ? "<th>" : r ? "<td class=\"r\"" : "<td", b->o);
		if (!head && i < b->nhead && b->head[i]) {
			fputs(" data-label=\"", b->o);
			nb_html_text(b->o, b->head[i], strlen(b->head[i]));
			fputs("\">", b->o);
		} else if (!head)
			fputs(">", b->o);
		nb_html_inline(b->o, cell[i], len[i]);
		fputs(head ? "</th>" : "</td>", b->o);
	}
	fputs(head ? "</tr></thead><tbody>\n" : "</tr>\n", b->o);
	b->rows++;
}

static void list_item(struct blocks *b, const char *text, size_t n, int depth)
{
	if (b->para || b->quote || b->table) {
		int keep = b->list;
		b->list = 0;
		close_blocks(b);
		b->list = keep;
	}
	if (depth > b->list) {
		for (; b->list < depth; b->list++)
			fputs("\n<ul><li>", b->o);
	} else {
		for (; b->list > depth; b->list--)
			fputs("</li></ul>\n", b->o);
		fputs("</li>\n<li>", b->o);
	}
	nb_html_inline(b->o, text, n);
}

/* A section's id: its heading in lower case, words joined by "-" ("key-numbers"). */
static void slug(FILE *o, const char *s, size_t n)
{
	bool dash = false, any = false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (isalnum(c)) {
			if (dash && any)
				fputc('-', o);
			fputc(tolower(c), o);
			dash = false;
			any = true;
		} else
			dash = true;
	}
}

static void heading(struct blocks *b, const char *line, size_t n)
{
	int level = 0;
	while ((size_t)level < n && line[level] == '#')
		level++;
	const char *t = line + level + 1;
	size_t tn = n > (size_t)level + 1 ? n - level - 1 : 0;
	close_blocks(b);
	if (level == 2) {
		if (b->section)
			fputs("</section>\n", b->o);
		fputs("<section id=\"", b->o);
		slug(b->o, t, tn);
		fputs("\">\n", b->o);
		b->section = true;
	}
	fprintf(b->o, "<h%d>", level);
	nb_html_inline(b->o, t, tn);
	fprintf(b->o, "</h%d>\n", level);
}

/* "![alt](charts/NAME.png)": the chart drawn inline. */
static bool image(struct blocks *b, const char *line, size_t n)
{
	const char *mid = memchr(line, ']', n);
	if (n < 5 || line[n - 1] != ')' || !mid || mid + 1 >= line + n || mid[1] != '(')
		return false;
	close_blocks(b);
	const char *src = mid + 2;
	b->ctx->chart(b->ctx, b->o, line + 2, (size_t)(mid - line - 2), src,
		      (size_t)(line + n - 1 - src));
	return true;
}

static void line_out(struct blocks *b, const char *line, size_t n)
{
	if (n == 0)
		close_blocks(b);
	else if (line[0] == '#')
		heading(b, line, n);
	else if (n >= 2 && line[0] == '|')
		table_row(b, line, n);
	else if (n > 2 && line[0] == '-' && line[1] == ' ')
		list_item(b, line + 2, n - 2, 1);
	else if (n > 4 && strncmp(line, "  - ", 4) == 0)
		list_item(b, line + 4, n - 4, 2);
	else if (n == 3 && strncmp(line, "---", 3) == 0) {
		close_blocks(b);
		fputs("<hr>\n", b->o);
	} else if (strncmp(line, "<details>", 9) == 0 || strncmp(line, "</details>", 10) == 0) {
		close_blocks(b);
		fputs(line[1] == '/' ? "</details>\n" : "<details>\n", b->o);
	} else if (n > 19 && strncmp(line, "<summary>", 9) == 0 &&
		   strncmp(line + n - 10, "</summary>", 10) == 0) {
		fputs("<summary>", b->o);
		nb_html_inline(b->o, line + 9, n - 19);
		fputs("</summary>\n", b->o);
	} else if (line[0] == '!' && image(b, line, n)) {
	} else if (n > 2 && line[0] == '>' && line[1] == ' ') {
		if (!b->quote) {
			close_blocks(b);
			fputs("<blockquote>", b->o);
			b->quote = true;
		}
		nb_html_inline(b->o, line + 2, n - 2);
	} else {
		if (!b->para && !b->quote) {
			close_blocks(b);
			fputs("<p>", b->o);
			b->para = true;
		} else
			fputc('\n', b->o);
		nb_html_inline(b->o, line, n);
	}
}

void nb_html_from_md(FILE *o, const char *md, const struct nb_html_ctx *ctx)
{
	struct blocks b = { .o = o, .ctx = ctx };
	for (const char *p = md; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		line_out(&b, p, n);
		p += n + (e != NULL);
	}
	close_blocks(&b);
	if (b.section)
		fputs("</section>\n", o);
}

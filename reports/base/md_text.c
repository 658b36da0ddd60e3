/* nbrun — Markdown text that cannot render as anything but text (see md_text.h): every
 * quoted value of the report and of compare's Markdown goes through here. */
#include "md_text.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "fmt.h"

/* The length of the character at s (1 for a byte that is not well-formed UTF-8), and whether
 * it must not reach a reader: a C0 or C1 control, DEL, a bidi control (U+061C, U+200E/F,
 * U+202A-U+202E, U+2066-U+2069: an U+202E reverses what follows), an invisible format
 * character (U+200B-U+200D, U+2060-U+2064, U+FEFF), or a malformed byte. */
static size_t char_at(const unsigned char *s, bool *hidden)
{
	unsigned c = s[0];
	*hidden = c < 0x20 || c == 0x7f;
	if (c < 0x80)
		return 1;
	size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			n = 0;
	*hidden = n == 0;
	if (n == 0)
		return 1;
	unsigned cp = n == 2 ? (c & 0x1f) << 6 | (s[1] & 0x3f)
		    : n == 3 ? (c & 0x0f) << 12 | (s[1] & 0x3f) << 6 | (s[2] & 0x3f) : 0x10000;
	*hidden = (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || (cp >= 0x200b && cp <= 0x200f) ||
		  (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) ||
		  (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff;
	return n;
}

/* A character the caller need not look at: a multibyte one is written whole, a hidden one is
 * dropped (a line break or tab becomes a space), and *p moves past it (false). A printable
 * ASCII byte is left to the caller, which may escape it (true). */
static bool pass_char(FILE *f, const unsigned char **p)
{
	bool hidden;
	size_t n = char_at(*p, &hidden);
	if (hidden && (**p == '\n' || **p == '\r' || **p == '\t'))
		fputc(' ', f);
	else if (!hidden && n > 1)
		fwrite(*p, 1, n, f);
	if (hidden || n > 1) {
		*p += n;
		return false;
	}
	return true;
}

static bool alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Text from a results folder is rendered inert: whatever a peer's facts, an agent's error or a
 * hand-edited plan.csv hold, no HTML (<img ...>), link or image ([x](javascript:...)), entity,
 * emphasis (**bold**), code span or strikethrough comes of it, and no control or bidi character
 * reorders what the reader sees. Escaped: \ | ` * [ ] < & ~, and _ unless between letters or
 * digits (tcp_rmem cannot emphasize). ( ) ! and > open nothing once [ and < are escaped, so
 * they stay as written. A line break or tab is a space. */
void nb_md_text(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		if (!pass_char(f, &p))
			continue;
		char c = (char)*p;
		bool intraword = c == '_' && p != (const unsigned char *)s && alnum((char)p[-1]) &&
				 alnum((char)p[1]);
		if (strchr("\\|`*[]<&~", c) || (c == '_' && !intraword))
			fputc('\\', f);
		fputc(c, f);
		p++;
	}
}

void nb_md_cell(FILE *f, const char *s)
{
	if (!s || !*s) {
		fputs("—", f);
		return;
	}
	nb_md_text(f, s);
}

void nb_md_code(FILE *f, const char *s)
{
	if (!s || !*s) {
		fputs("—", f);
		return;
	}
	fputc('`', f);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		if (!pass_char(f, &p))
			continue;
		if (*p == '|')
			fputc('\\', f);
		fputc(*p == '`' ? '\'' : *p, f);
		p++;
	}
	fputc('`', f);
}

void nb_md_value_cell(FILE *f, double v, const char *unit)
{
	char buf[64];
	if (!isfinite(v)) {
		fputs(" — |", f);
		return;
	}
	nb_fmt_value(v, unit, buf, sizeof(buf));
	fprintf(f, " %s |", buf);
}

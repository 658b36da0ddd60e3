/* nbrun — text that crossed the network: what a decoded string may hold, and how a string
 * from a peer is made safe to print (no terminal escape sequence ever reaches a terminal or
 * a log from the wire). */
#ifndef NB_TEXT_H
#define NB_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/** Whether s[0..n) is valid UTF-8 without control characters (C0, DEL, C1). */
bool nb_text_clean(const char *s, size_t n);
/** Whether s[0..n) is lines of clean text (nb_text_clean), each ending at a '\n' or at n. */
bool nb_text_clean_lines(const char *s, size_t n);
/** Copy src into dst (size n > 0), each control character or byte of invalid UTF-8 replaced by
 *  '?'; never cuts a character in two. Returns dst. */
char *nb_text_sanitize(char *dst, size_t n, const char *src);

#endif

/* nbrun — text that crossed the network (see text.h). */
#include "text.h"

#include <stdint.h>
#include <string.h>

/* Length of the well-formed, printable UTF-8 character at s (left bytes available), or 0 when
 * it is a control character or not well-formed (overlong, surrogate, beyond U+10FFFF). */
static size_t char_len(const unsigned char *s, size_t left)
{
	unsigned c = s[0];
	if (c < 0x80)
		return c >= 0x20 && c != 0x7f;
	size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	if (n == 0 || n > left)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xc2 && s[1] < 0xa0) ||               /* C1 controls U+0080..U+009F */
	    (c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) || /* overlong, surrogates */
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))   /* overlong, > U+10FFFF */
		return 0;
	return n;
}

bool nb_text_clean(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0, k; i < n; i += k)
		if ((k = char_len(p + i, n - i)) == 0)
			return false;
	return true;
}

bool nb_text_clean_lines(const char *s, size_t n)
{
	const char *end = s + n;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *stop = nl ? nl : end;
		if (!nb_text_clean(s, (size_t)(stop - s)))
			return false;
		s = nl ? nl + 1 : end;
	}
	return true;
}

char *nb_text_sanitize(char *dst, size_t n, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t len = strlen(src), out = 0;
	for (size_t i = 0; i < len;) {
		size_t k = char_len(p + i, len - i);
		size_t w = k ? k : 1;
		if (out + w >= n)
			break;
		if (k)
			memcpy(dst + out, p + i, k);
		else
			dst[out] = '?';
		out += w;
		i += w;
	}
	dst[out] = '\0';
	return dst;
}

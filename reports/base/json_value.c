/* nbrun — JSON values of C strings and doubles (see json_value.h). */
#include "json_value.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	if (n == 0 || (n == 3 && s[0] >= 0xf0))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

json_t *nb_json_string(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	size_t len = strlen(s);
	char *buf = malloc(len * 3 + 1), *w = buf;
	if (!buf)
		return json_null();
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_len(p);
		if (n == 0) {
			memcpy(w, "\xef\xbf\xbd", 3);
			w += 3;
			p++;
		} else {
			memcpy(w, p, n);
			w += n;
			p += n;
		}
	}
	*w = '\0';
	j = json_string(buf);
	free(buf);
	return j ? j : json_null();
}

json_t *nb_json_number(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Text from the network: what a decoded string may hold, and what a peer's string looks like
 * once made safe to print. */
#include <criterion/criterion.h>
#include <string.h>

#include "nb_error.h"
#include "text.h"

struct text_case {
	const char *in;
	bool clean;
	const char *printed;  /* nb_text_sanitize of in, into a large buffer */
};

static const struct text_case cases[] = {
	{ "plain ascii, 100 %", true, "plain ascii, 100 %" },
	{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", true, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
	{ "red \x1b[31mtext", false, "red ?[31mtext" },
	{ "tab\there", false, "tab?here" },
	{ "new\nline", false, "new?line" },
	{ "del\x7f", false, "del?" },
	{ "csi \xc2\x9b" "2J", false, "csi ??2J" },     /* U+009B: CSI on 8-bit terminals */
	{ "nbsp \xc2\xa0 ok", true, "nbsp \xc2\xa0 ok" },
	{ "lone \x9b byte", false, "lone ? byte" },
	{ "overlong \xc0\xaf", false, "overlong ??" },
	{ "surrogate \xed\xa0\x80", false, "surrogate ???" },
	{ "cut \xe2\x82", false, "cut ??" },
};

Test(text, clean_means_printable_utf8_and_sanitize_replaces_the_rest)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[128];
		cr_assert_eq(nb_text_clean(cases[i].in, strlen(cases[i].in)), cases[i].clean,
			     "case %zu: clean", i);
		cr_assert_str_eq(nb_text_sanitize(out, sizeof(out), cases[i].in), cases[i].printed,
				 "case %zu", i);
		cr_assert(nb_text_clean(out, strlen(out)), "case %zu: what sanitize gives is clean", i);
	}
}

Test(text, sanitize_never_cuts_a_character_in_two)
{
	char out[6];
	nb_text_sanitize(out, sizeof(out), "abcd\xc3\xa9");   /* room for 5 bytes: 'é' does not fit */
	cr_assert_str_eq(out, "abcd");
	nb_text_sanitize(out, sizeof(out), "abc\xc3\xa9z");
	cr_assert_str_eq(out, "abc\xc3\xa9");
}

/* nb_error_set may be handed its own message as an argument (an error led by where it
 * happened: "host vm2: " + what went wrong): the reason comes out whole, not empty or garbled. */
Test(error, a_message_led_by_its_place_keeps_the_whole_reason)
{
	struct nb_error err = { { 0 } };
	nb_error_set(&err, "cannot run %s: %s", "ssh", "No such file or directory");
	nb_error_set(&err, "host %s: %s", "vm2", err.msg);
	cr_assert_str_eq(err.msg, "host vm2: cannot run ssh: No such file or directory");
	nb_error_set(&err, "%s (and %s)", err.msg, err.msg);
	cr_assert_str_eq(err.msg, "host vm2: cannot run ssh: No such file or directory (and host "
				  "vm2: cannot run ssh: No such file or directory)");
}

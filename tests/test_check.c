/* The preflight check of a host (check.h) says what a run will refuse: a congestion control
 * the kernel has but net.ipv4.tcp_allowed_congestion_control does not list is refused by every
 * run (nb_sock_apply, the agent's SETUP), so the check names it too, even as root, who could
 * set it on a socket. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* The first word of `available` that `allowed` does not list, into out; false when none. */
static bool available_not_allowed(char *out, size_t n)
{
	char avail[512] = "", allowed[512] = "";
	FILE *a = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "r");
	FILE *l = fopen("/proc/sys/net/ipv4/tcp_allowed_congestion_control", "r");
	bool ok = a && l && fgets(avail, sizeof(avail), a) && fgets(allowed, sizeof(allowed), l);
	if (a)
		fclose(a);
	if (l)
		fclose(l);
	for (char *save = NULL, *w = strtok_r(ok ? avail : NULL, " \n", &save); ok && w;
	     w = strtok_r(NULL, " \n", &save)) {
		char padded[520], list[520];
		snprintf(padded, sizeof(padded), " %s ", w);
		snprintf(list, sizeof(list), " %.*s ", (int)strcspn(allowed, "\n"), allowed);
		if (!strstr(list, padded)) {
			snprintf(out, n, "%s", w);
			return true;
		}
	}
	return false;
}

Test(check, a_congestion_control_the_kernel_has_but_does_not_allow_is_named)
{
	char cc[16];
	if (!available_not_allowed(cc, sizeof(cc)))
		cr_skip_test("every available congestion control is allowed here");
	struct nb_msg_check need = { 0 };
	cr_assert(nb_check_add_cc(&need, cc));
	char text[NB_CHECK_TEXT_MAX] = "";
	cr_expect_eq(nb_check_host(&need, NULL, text, sizeof(text)), 1, "%s", text);
	char want[96];
	snprintf(want, sizeof(want), "congestion control '%s' is not", cc);
	cr_expect_not_null(strstr(text, want), "%s", text);
	cr_expect_not_null(strstr(text, "tcp_allowed_congestion_control"), "%s", text);
}

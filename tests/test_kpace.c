/* Which pacing a sender uses (kpace.h): the kernel's only where something enforces it. */
#include <criterion/criterion.h>

#include "kpace.h"

Test(kpace, the_kernel_paces_under_fq_tcp_paces_itself_and_udp_falls_back_to_user_space)
{
	static const struct { bool tcp; uint64_t rate; const char *qdisc; enum nb_pacing want; } cases[] = {
		{ false, 100000000, "fq", NB_PACING_FQ },
		{ true, 100000000, "fq", NB_PACING_FQ },
		{ false, 100000000, "noqueue", NB_PACING_USER },
		{ false, 100000000, "fq_codel", NB_PACING_USER },  /* not fq: no pacing of UDP */
		{ false, 100000000, "", NB_PACING_USER },          /* unknown: our own */
		{ true, 100000000, "pfifo_fast", NB_PACING_TCP },
		{ true, 100000000, "", NB_PACING_TCP },
		{ false, 0, "fq", NB_PACING_NONE },                /* unpaced */
		{ true, 0, "noqueue", NB_PACING_NONE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(nb_pacing_choose(cases[i].tcp, cases[i].rate, cases[i].qdisc), cases[i].want,
			     "case %zu (%s, %s)", i, cases[i].tcp ? "tcp" : "udp", cases[i].qdisc);
}

Test(kpace, each_pacing_has_the_name_rows_show)
{
	cr_expect_str_eq(nb_pacing_name(NB_PACING_USER), "user");
	cr_expect_str_eq(nb_pacing_name(NB_PACING_FQ), "fq");
	cr_expect_str_eq(nb_pacing_name(NB_PACING_TCP), "tcp");
	cr_expect_str_eq(nb_pacing_name(NB_PACING_NONE), "");
	cr_expect_str_eq(nb_pacing_name((enum nb_pacing)99), "");
}

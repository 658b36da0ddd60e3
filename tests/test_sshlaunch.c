/* NBRUN_SSH_COMMAND (sshlaunch.h): how it is split into words, and the scp command --push
 * derives from it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sshlaunch.h"

static const struct {
	const char *text;
	const char *words[6];
} splits[] = {
	{ "ssh", { "ssh" } },
	{ "ssh -F /tmp/lab/ssh_config", { "ssh", "-F", "/tmp/lab/ssh_config" } },
	{ "  ssh\t-F  file \n", { "ssh", "-F", "file" } },
	{ "ssh -i '/my keys/id' -o \"ProxyJump=bastion\"", { "ssh", "-i", "/my keys/id", "-o", "ProxyJump=bastion" } },
	{ "ssh -oUser=x''y", { "ssh", "-oUser=xy" } },
	{ "/usr/local/bin/my-ssh --flag", { "/usr/local/bin/my-ssh", "--flag" } },
};

Test(sshlaunch, nbrun_ssh_command_is_split_on_white_space_with_quotes_keeping_words_whole)
{
	for (size_t i = 0; i < sizeof(splits) / sizeof(splits[0]); i++) {
		struct nb_ssh_cmd cmd;
		struct nb_error err = { { 0 } };
		cr_assert(nb_ssh_split(splits[i].text, &cmd, &err), "%s: %s", splits[i].text, err.msg);
		size_t n = 0;
		while (n < 6 && splits[i].words[n])
			n++;
		cr_assert_eq(cmd.argc, n, "'%s': %zu words", splits[i].text, cmd.argc);
		for (size_t k = 0; k < n; k++)
			cr_expect_str_eq(cmd.argv[k], splits[i].words[k], "'%s' word %zu", splits[i].text, k);
		cr_expect_null(cmd.argv[n]);
	}
}

Test(sshlaunch, an_empty_command_or_an_unclosed_quote_is_refused)
{
	struct nb_ssh_cmd cmd;
	struct nb_error err = { { 0 } };
	cr_expect_not(nb_ssh_split("   ", &cmd, &err));
	cr_expect(strstr(err.msg, "NBRUN_SSH_COMMAND is empty"), "%s", err.msg);
	cr_expect_not(nb_ssh_split("ssh -i 'key", &cmd, &err));
	cr_expect(strstr(err.msg, "unclosed '"), "%s", err.msg);
	char many[256] = "ssh";
	for (int i = 0; i < NB_SSH_ARGS_MAX; i++)
		strcat(many, " -v");
	cr_expect_not(nb_ssh_split(many, &cmd, &err));
	cr_expect(strstr(err.msg, "more than"), "%s", err.msg);
}

Test(sshlaunch, the_ssh_command_is_nbrun_ssh_command_else_ssh)
{
	struct nb_ssh_cmd cmd;
	struct nb_error err = { { 0 } };
	unsetenv("NBRUN_SSH_COMMAND");
	cr_assert(nb_ssh_command(&cmd, &err));
	cr_expect_eq(cmd.argc, 1);
	cr_expect_str_eq(cmd.argv[0], "ssh");
	setenv("NBRUN_SSH_COMMAND", "ssh -F x", 1);
	cr_assert(nb_ssh_command(&cmd, &err));
	cr_expect_eq(cmd.argc, 3);
	unsetenv("NBRUN_SSH_COMMAND");
}

/* argv joined with spaces. */
static const char *joined(const char **argv)
{
	static char buf[512];
	buf[0] = '\0';
	for (size_t i = 0; argv[i]; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "", argv[i]);
	return buf;
}

Test(sshlaunch, push_gives_scp_the_same_program_and_the_options_it_shares_with_ssh)
{
	static const struct {
		const char *ssh, *scp;
	} cases[] = {
		{ "ssh", "scp -o BatchMode=yes -q /bin/nbrun h:nbrun" },
		{ "ssh -F cfg -i key -4", "scp -F cfg -i key -4 -o BatchMode=yes -q /bin/nbrun h:nbrun" },
		{ "ssh -p 2222 -o ProxyJump=b", "scp -P 2222 -o ProxyJump=b -o BatchMode=yes -q /bin/nbrun h:nbrun" },
		{ "/opt/ssh -v", "scp -S /opt/ssh -v -o BatchMode=yes -q /bin/nbrun h:nbrun" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_ssh_cmd cmd;
		struct nb_error err = { { 0 } };
		const char *argv[48];
		cr_assert(nb_ssh_split(cases[i].ssh, &cmd, &err));
		cr_assert(nb_ssh_scp_argv(&cmd, "/bin/nbrun", "h:nbrun", argv, 48, &err), "%s", err.msg);
		cr_expect_str_eq(joined(argv), cases[i].scp, "from '%s'", cases[i].ssh);
	}
}

Test(sshlaunch, push_refuses_an_ssh_option_scp_has_not)
{
	struct nb_ssh_cmd cmd;
	struct nb_error err = { { 0 } };
	const char *argv[48];
	cr_assert(nb_ssh_split("ssh -A -F cfg", &cmd, &err));
	cr_expect_not(nb_ssh_scp_argv(&cmd, "/bin/nbrun", "h:nbrun", argv, 48, &err));
	cr_expect(strstr(err.msg, "'-A' has no scp equivalent"), "%s", err.msg);
	cr_assert(nb_ssh_split("ssh -F", &cmd, &err));
	cr_expect_not(nb_ssh_scp_argv(&cmd, "/bin/nbrun", "h:nbrun", argv, 48, &err),
		      "-F without its file");
}

Test(sshlaunch, the_agent_is_started_with_stdio_after_the_command_s_own_words_and_no_port)
{
	static const struct {
		const char *ssh;
		uint16_t lo, hi;
		const char *argv;
	} cases[] = {
		{ "ssh", 0, 0, "ssh -T -o BatchMode=yes bench@10.0.0.12 -- nbrun serve -q --stdio --secret-stdin" },
		{ "ssh -F /lab/cfg", 7700, 7719, "ssh -F /lab/cfg -T -o BatchMode=yes bench@10.0.0.12 -- "
		  "nbrun serve -q --stdio --secret-stdin --data-ports 7700-7719" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nb_ssh_cmd cmd;
		struct nb_error err = { { 0 } };
		const char *argv[NB_SSH_ARGS_MAX + 16];
		char range[16];
		struct nb_ssh_launch l = { .host = "vm2", .dest = "bench@10.0.0.12", .nbrun = "nbrun",
					   .data_lo = cases[i].lo, .data_hi = cases[i].hi,
					   .secret_line = "00112233445566778899aabbccddeeff" };
		cr_assert(nb_ssh_split(cases[i].ssh, &cmd, &err));
		nb_ssh_serve_argv(&cmd, &l, argv, range);
		cr_expect_str_eq(joined(argv), cases[i].argv);
		cr_expect_null(strstr(joined(argv), l.secret_line), "the secret is on no command line");
	}
}

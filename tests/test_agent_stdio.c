/* serve --stdio (agent_stdio.h): SSH_CONNECTION's words give the client the agent accepts data
 * from and the address its data ports bind to; anything else is refused in one line. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <string.h>

#include "agent_stdio.h"

static const struct {
	const char *text;
	const char *client;     /* the client's address as text */
	unsigned client_port;
	const char *server;
} good[] = {
	{ "10.0.0.1 51234 10.0.0.12 22", "10.0.0.1", 51234, "10.0.0.12" },
	{ "192.0.2.7 1 198.51.100.3 2222", "192.0.2.7", 1, "198.51.100.3" },
	{ "2001:db8::1 40000 2001:db8::12 22", "2001:db8::1", 40000, "2001:db8::12" },
	{ "::1 65535 ::1 22\n", "::1", 65535, "::1" },
};

/* The numeric text of a client address. */
static const char *text_of(const struct sockaddr_storage *ss, unsigned *port)
{
	static char buf[INET6_ADDRSTRLEN];
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		*port = ntohs(a->sin_port);
		return inet_ntop(AF_INET, &a->sin_addr, buf, sizeof(buf));
	}
	const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
	*port = ntohs(a->sin6_port);
	return inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof(buf));
}

Test(agent_stdio, ssh_connection_gives_the_client_address_and_the_data_address)
{
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct nb_agent_stdio_ends e;
		struct nb_error err = { { 0 } };
		unsigned port = 0;
		cr_assert(nb_agent_stdio_ends(good[i].text, &e, &err), "'%s': %s", good[i].text, err.msg);
		cr_expect_str_eq(text_of(&e.client, &port), good[i].client, "'%s'", good[i].text);
		cr_expect_eq(port, good[i].client_port, "'%s'", good[i].text);
		cr_expect_str_eq(e.server, good[i].server, "'%s'", good[i].text);
	}
}

static const char *const garbled[] = {
	"",
	"10.0.0.1 51234 10.0.0.12",              /* three words */
	"10.0.0.1 51234 10.0.0.12 22 extra",     /* five */
	"10.0.0.1 port 10.0.0.12 22",            /* a port that is no number */
	"10.0.0.1 0 10.0.0.12 22",               /* port 0 */
	"10.0.0.1 51234 10.0.0.12 65536",        /* above 65535 */
	"10.0.0.1 -1 10.0.0.12 22",
	"vm1.lab 51234 10.0.0.12 22",            /* a name: sshd writes addresses */
	"10.0.0.1 51234 10.0.0.300 22",
	"10.0.0.1 51234 [2001:db8::12] 22",      /* brackets are not sshd's */
};

Test(agent_stdio, a_garbled_ssh_connection_is_one_line_and_leaves_the_ends_alone)
{
	for (size_t i = 0; i < sizeof(garbled) / sizeof(garbled[0]); i++) {
		struct nb_agent_stdio_ends e = { .server = "sentinel" };
		struct nb_error err = { { 0 } };
		cr_expect_not(nb_agent_stdio_ends(garbled[i], &e, &err), "'%s' taken", garbled[i]);
		cr_expect(strstr(err.msg, "SSH_CONNECTION") && strstr(err.msg, "is garbled (expected "
			  "CLIENT_IP CLIENT_PORT SERVER_IP SERVER_PORT)"), "'%s': %s", garbled[i], err.msg);
		cr_expect_null(strchr(err.msg, '\n'), "one line");
		cr_expect_str_eq(e.server, "sentinel");
	}
}

Test(agent_stdio, no_ssh_connection_says_sshd_sets_it)
{
	struct nb_agent_stdio_ends e;
	struct nb_error err = { { 0 } };
	cr_expect_not(nb_agent_stdio_ends(NULL, &e, &err));
	cr_expect_str_eq(err.msg, "serve --stdio: SSH_CONNECTION is not set (sshd sets it; nbrun "
			 "starts this agent over ssh)");
}

/* nbrun — an agent whose one control session runs over its standard input and output:
 * `nbrun serve --stdio`, which the runner starts over ssh (sshlaunch.h) so that the host needs
 * no open control port, only ssh and its data ports.
 *
 * sshd gives the agent pipes, not a socket: a socketpair stands between them and the agent,
 * one relay thread per direction. The agent serves the socketpair's other end as a connection
 * accepted from the ssh client's address (SSH_CONNECTION's first word), so its data
 * connections are accepted from there only, as from a TCP control peer (no reflection); its
 * data listeners bind to the address the ssh client reached (the third word) unless --bind
 * says otherwise. The handshake is the one of TCP (auth.h). The end of standard input ends
 * the session and the agent. Nothing but protocol bytes goes to standard output; once the
 * agent serves it writes NB_AGENT_STDIO_READY and a newline to standard error, and the runner
 * sends its HELLO after that line (before it, ssh may still be connecting, or failing). */
#ifndef NB_AGENT_STDIO_H
#define NB_AGENT_STDIO_H

#include <stdbool.h>
#include <sys/socket.h>

#include "agent.h"
#include "nb_error.h"

#define NB_AGENT_STDIO_READY "nbrun-agent ready"

/** Both ends of the ssh connection the agent was started through. */
struct nb_agent_stdio_ends {
	struct sockaddr_storage client;  /* the ssh client's address and source port */
	socklen_t client_len;
	char server[64];                 /* the address the client reached, numeric text */
};

/** Parse SSH_CONNECTION's "CLIENT_IP CLIENT_PORT SERVER_IP SERVER_PORT" (numeric addresses);
 *  false with a one-line err when text is NULL (unset) or garbled; e untouched then. */
bool nb_agent_stdio_ends(const char *text, struct nb_agent_stdio_ends *e, struct nb_error *err);
/** Serve a's one session (a made with opts.stdio) over in and out, as a connection from
 *  e->client; returns when it is over, in ended, or a stop was requested. */
bool nb_agent_stdio_serve(struct nb_agent *a, int in, int out,
			  const struct nb_agent_stdio_ends *e, struct nb_error *err);

#endif

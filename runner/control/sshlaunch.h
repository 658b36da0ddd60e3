/* nbrun — agents started over OpenSSH (issue 17).
 *
 * For a host with `ssh:` nbrun runs the system's ssh client — the user's own keys, config and
 * known_hosts; BatchMode=yes so it never asks; host-key checking is never turned off — as
 *
 *     ssh -T -o BatchMode=yes [USER@]HOST -- NBRUN serve -q --stdio --secret-stdin [...]
 *
 * with its stdin and stdout on one end of a socketpair, and its stderr on a pipe. The runner
 * writes a fresh secret's line to that stream (never on a command line, never in a file),
 * waits for the agent's start line on stderr (agent_stdio.h: before it, ssh may still be
 * connecting, or failing with a line worth quoting), and then speaks the control protocol on
 * the same stream, the handshake as on TCP: the host needs no open control port, only ssh
 * and its data ports. The stream is also the agent's lifeline: `serve --stdio` ends with its
 * stdin, so closing it (or ssh dying, or the runner being killed, which closes it too) ends
 * the remote agent. ssh runs in a process group of its own, so a terminal's ^C reaches the
 * runner alone, which stops the run cleanly and then ends its agents.
 *
 * NBRUN_SSH_COMMAND replaces `ssh` (as GIT_SSH_COMMAND does for git): split on white space,
 * with '...' or "..." keeping a word whole, e.g. "ssh -F /path/ssh_config". --push copies
 * this binary with scp, given the same program (scp -S) and the options scp shares with ssh
 * (-F -i -o -J -4 -6 -C -q -v; -p PORT becomes scp's -P PORT).
 */
#ifndef NB_SSHLAUNCH_H
#define NB_SSHLAUNCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nb_error.h"

#define NB_SSH_ARGS_MAX 32
#define NB_SSH_START_MS 30000   /* from ssh's start to the agent's start line */

/** A command split into words: argv points into buf. */
struct nb_ssh_cmd {
	char buf[1024];
	const char *argv[NB_SSH_ARGS_MAX];
	size_t argc;
};

/** What starts one host's agent. */
struct nb_ssh_launch {
	const char *host;            /* the hosts: name (messages) */
	const char *dest;            /* [USER@]HOST */
	const char *nbrun;           /* the remote binary */
	uint16_t data_lo, data_hi;   /* its --data-ports; 0, 0 = its default */
	const char *secret_line;     /* written to ssh's stdin, then a newline */
	const atomic_bool *interrupt; /* set (a signal): give up waiting */
};

/** A started agent: the ssh process, its control stream and its stderr. */
struct nb_ssh_agent {
	pid_t pid;                   /* 0: none */
	int ctl;                     /* our end of ssh's stdin and stdout: the control stream
					(give the client a dup of it); -1 closed */
	int err;                     /* ssh's stderr; -1 closed */
};

/** Split text (NBRUN_SSH_COMMAND) into words; false with err on an unclosed quote, nothing,
 *  or too many words. */
bool nb_ssh_split(const char *text, struct nb_ssh_cmd *cmd, struct nb_error *err);
/** The ssh command: $NBRUN_SSH_COMMAND split, else "ssh". */
bool nb_ssh_command(struct nb_ssh_cmd *cmd, struct nb_error *err);
/** The command line that starts l's agent (see above) into argv (NB_SSH_ARGS_MAX + 16
 *  entries), backed by cmd, l and range. */
void nb_ssh_serve_argv(const struct nb_ssh_cmd *cmd, const struct nb_ssh_launch *l,
		       const char **argv, char range[16]);
/** Start l's agent over ssh and wait for its start line; false with err "host NAME: ..." and
 *  ssh's (or the remote shell's) own last stderr line; nothing is left running then. */
bool nb_ssh_start(const struct nb_ssh_launch *l, struct nb_ssh_agent *a, struct nb_error *err);
/** End the agent: shut its control stream (every copy of it), wait for ssh a moment, then
 *  end ssh. Safe twice. */
void nb_ssh_stop(struct nb_ssh_agent *a);
/** The scp command line that copies local to DEST:remote through ssh (see above) into argv
 *  (backed by ssh and its strings); false when an ssh option has no scp equivalent. */
bool nb_ssh_scp_argv(const struct nb_ssh_cmd *ssh, const char *local, const char *remote_arg,
		     const char **argv, size_t max, struct nb_error *err);
/** Copy this binary (/proc/self/exe) to dest:remote with scp; err names host and scp's line. */
bool nb_ssh_push(const char *host, const char *dest, const char *remote, struct nb_error *err);

#endif

/* nbrun — agents started over OpenSSH (see sshlaunch.h). */
#include "sshlaunch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent_stdio.h"
#include "ctl.h"
#include "text.h"

#define STOP_WAIT_MS 5000     /* for ssh to end after its lifeline closed, before SIGTERM */
#define KILL_WAIT_MS 2000     /* after SIGTERM, before SIGKILL */
#define ERR_KEEP 2048         /* stderr bytes kept to quote ssh's last line */

extern char **environ;

bool nb_ssh_split(const char *text, struct nb_ssh_cmd *cmd, struct nb_error *err)
{
	size_t used = 0;
	memset(cmd, 0, sizeof(*cmd));
	for (const char *s = text; *s;) {
		s += strspn(s, " \t\n");
		if (!*s)
			break;
		if (cmd->argc == NB_SSH_ARGS_MAX - 1)
			return nb_error_set(err, "NBRUN_SSH_COMMAND: more than %d words", NB_SSH_ARGS_MAX - 1);
		cmd->argv[cmd->argc++] = cmd->buf + used;
		while (*s && !strchr(" \t\n", *s)) {
			char q = *s == '\'' || *s == '"' ? *s++ : 0;
			const char *end = q ? strchr(s, q) : s + strcspn(s, " \t\n'\"");
			if (!end)
				return nb_error_set(err, "NBRUN_SSH_COMMAND: unclosed %c in '%s'", q, text);
			if (used + (size_t)(end - s) + 1 >= sizeof(cmd->buf))
				return nb_error_set(err, "NBRUN_SSH_COMMAND: too long");
			memcpy(cmd->buf + used, s, (size_t)(end - s));
			used += (size_t)(end - s);
			s = end + (q != 0);
		}
		cmd->buf[used++] = '\0';
	}
	if (cmd->argc == 0)
		return nb_error_set(err, "NBRUN_SSH_COMMAND is empty (expected e.g. 'ssh -F FILE')");
	return true;
}

bool nb_ssh_command(struct nb_ssh_cmd *cmd, struct nb_error *err)
{
	const char *env = getenv("NBRUN_SSH_COMMAND");
	return nb_ssh_split(env && *env ? env : "ssh", cmd, err);
}

/* Start argv[0] (looked up in PATH) in a process group of its own: its stdin and stdout on io
 * (one end of a socketpair), or on /dev/null when io < 0; its stderr on a pipe whose reading
 * end (close-on-exec) goes to *errfd. Returns the pid, or -1 with err. */
static pid_t spawn(const char *const *argv, int io, int *errfd, struct nb_error *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def;
	pid_t pid = -1;
	int p[2];
	*errfd = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return nb_error_errno(err, errno, "pipe"), -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE); /* ours is ignored; ssh gets the default back */
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
	if (io >= 0) {
		posix_spawn_file_actions_adddup2(&fa, io, 0);
		posix_spawn_file_actions_adddup2(&fa, io, 1);
	} else {
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	}
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	int rc = posix_spawnp(&pid, argv[0], &fa, &at, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		return nb_error_errno(err, rc, "cannot run %s", argv[0]), -1;
	}
	*errfd = p[0];
	return pid;
}

/* Wait up to ms for pid to end: its wait status, or -1 if it still runs. */
static int wait_for(pid_t pid, int ms)
{
	int status;
	for (int waited = 0;; waited += 20) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return r == pid ? status : 0;
		if (waited >= ms)
			return -1;
		nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	}
}

/* End pid for good: wait_ms for it to end alone, then SIGTERM, then SIGKILL. Its status. */
static int reap(pid_t pid, int wait_ms)
{
	int st = wait_for(pid, wait_ms);
	if (st < 0) {
		kill(pid, SIGTERM);
		st = wait_for(pid, KILL_WAIT_MS);
	}
	if (st < 0) {
		kill(pid, SIGKILL);
		st = wait_for(pid, 60000);
	}
	return st;
}

/* The last non-empty line of buf (n bytes), made safe to print. */
static void last_line(const char *buf, size_t n, char *out, size_t len)
{
	char tmp[ERR_KEEP + 1];
	memcpy(tmp, buf, n);
	tmp[n] = '\0';
	while (n > 0 && (tmp[n - 1] == '\n' || tmp[n - 1] == '\r' || tmp[n - 1] == ' '))
		tmp[--n] = '\0';
	char *start = strrchr(tmp, '\n');
	nb_text_sanitize(out, len, start ? start + 1 : tmp);
}

/* Append what fd has to buf (keeping its last ERR_KEEP bytes); false at its end. */
static bool drain(int fd, char *buf, size_t *n)
{
	char chunk[512];
	ssize_t r = read(fd, chunk, sizeof(chunk));
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (r <= 0)
		return false;
	size_t k = (size_t)r;
	if (*n + k > ERR_KEEP) {
		size_t drop = *n + k - ERR_KEEP < *n ? *n + k - ERR_KEEP : *n;
		memmove(buf, buf + drop, *n - drop);
		*n -= drop;
	}
	k = k > ERR_KEEP ? ERR_KEEP : k;
	memcpy(buf + *n, chunk + (size_t)r - k, k);
	*n += k;
	return true;
}

/* Whether buf (n bytes) holds the agent's whole start line (agent_stdio.h). */
static bool ready(const char *buf, size_t n)
{
	char tmp[ERR_KEEP + 1];
	memcpy(tmp, buf, n);
	tmp[n] = '\0';
	return strstr(tmp, NB_AGENT_STDIO_READY "\n") != NULL;
}

/* Read ssh's stderr until the agent's start line, its end, the deadline or a signal: whether
 * the line came (else errbuf holds stderr's tail). */
static bool await_ready(struct nb_ssh_agent *a, const atomic_bool *interrupt, char *errbuf,
			size_t *nerr)
{
	uint64_t deadline = nb_ctl_now_ms() + NB_SSH_START_MS;
	bool open = true;
	while (open && nb_ctl_now_ms() < deadline && !(interrupt && atomic_load(interrupt))) {
		struct pollfd p = { .fd = a->err, .events = POLLIN };
		if (poll(&p, 1, 100) <= 0)
			continue;
		open = drain(a->err, errbuf, nerr);
		if (ready(errbuf, *nerr))
			return true;
	}
	return false;
}

void nb_ssh_serve_argv(const struct nb_ssh_cmd *cmd, const struct nb_ssh_launch *l,
		       const char **argv, char range[16])
{
	size_t n = 0;
	for (size_t i = 0; i < cmd->argc; i++)
		argv[n++] = cmd->argv[i];
	/* -T: no terminal, whatever the user's ssh_config asks, so ssh passes every byte as it is
	 * (no escape character, no line discipline). -q: the agent's stderr is a pipe nobody
	 * reads once it started; a log line per run would fill it in a long batch and stall the
	 * agent. Errors still come through. */
	const char *fixed[] = { "-T", "-o", "BatchMode=yes", l->dest, "--", l->nbrun, "serve", "-q",
				"--stdio", "--secret-stdin" };
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		argv[n++] = fixed[i];
	if (l->data_lo) {
		snprintf(range, 16, "%u-%u", l->data_lo, l->data_hi);
		argv[n++] = "--data-ports";
		argv[n++] = range;
	}
	argv[n] = NULL;
}

/* ssh or the agent ended (or never spoke): name the host and quote stderr's last line. */
static bool start_failed(const struct nb_ssh_launch *l, struct nb_ssh_agent *a, const char *errbuf,
			 size_t nerr, struct nb_error *err)
{
	char line[200];
	bool stopped = l->interrupt && atomic_load(l->interrupt);
	if (stopped && a->pid > 0) /* a signal: no waiting for ssh (its group: a wrapper's too) */
		kill(-a->pid, SIGTERM);
	nb_ssh_stop(a);
	last_line(errbuf, nerr, line, sizeof(line));
	if (stopped)
		return nb_error_set(err, "host %s: interrupted while starting its agent over ssh", l->host);
	return nb_error_set(err, "host %s: ssh %s did not start its agent%s%s", l->host, l->dest,
			    line[0] ? ": " : " (no message; is nbrun on its PATH, or nbrun: set?)",
			    line);
}

bool nb_ssh_start(const struct nb_ssh_launch *l, struct nb_ssh_agent *a, struct nb_error *err)
{
	struct nb_ssh_cmd cmd;
	const char *argv[NB_SSH_ARGS_MAX + 16];
	char range[16], errbuf[ERR_KEEP];
	size_t nerr = 0;
	int sv[2];
	*a = (struct nb_ssh_agent){ .ctl = -1, .err = -1 };
	if (!nb_ssh_command(&cmd, err))
		return false;
	nb_ssh_serve_argv(&cmd, l, argv, range);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return nb_error_errno(err, errno, "host %s: socketpair", l->host);
	pid_t pid = spawn(argv, sv[1], &a->err, err);
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return nb_error_set(err, "host %s: %s", l->host, err->msg);
	}
	a->pid = pid;
	a->ctl = sv[0];
	size_t len = strlen(l->secret_line);
	if (send(a->ctl, l->secret_line, len, MSG_NOSIGNAL) != (ssize_t)len ||
	    send(a->ctl, "\n", 1, MSG_NOSIGNAL) != 1 || !await_ready(a, l->interrupt, errbuf, &nerr))
		return start_failed(l, a, errbuf, nerr, err);
	return true;
}

void nb_ssh_stop(struct nb_ssh_agent *a)
{
	if (a->ctl >= 0) { /* ends the stream for every copy of it: ssh's stdin ends */
		shutdown(a->ctl, SHUT_RDWR);
		close(a->ctl);
	}
	if (a->pid > 0)
		reap(a->pid, STOP_WAIT_MS);
	if (a->err >= 0)
		close(a->err);
	*a = (struct nb_ssh_agent){ .ctl = -1, .err = -1 };
}

/* --- --push: scp through the same command ------------------------------------------------ */

/* ssh options scp takes alike (with their argument or not); -p is scp's -P. */
static const struct {
	const char *opt;
	bool arg;
} scp_same[] = { { "-F", true }, { "-i", true }, { "-o", true }, { "-J", true }, { "-4", false },
		 { "-6", false }, { "-C", false }, { "-q", false }, { "-v", false } };

bool nb_ssh_scp_argv(const struct nb_ssh_cmd *ssh, const char *local, const char *remote_arg,
		     const char **argv, size_t max, struct nb_error *err)
{
	size_t n = 0;
	argv[n++] = "scp";
	if (strcmp(ssh->argv[0], "ssh") != 0) {
		argv[n++] = "-S";
		argv[n++] = ssh->argv[0];
	}
	for (size_t i = 1; i < ssh->argc; i++) {
		const char *o = ssh->argv[i];
		size_t k = 0, nk = sizeof(scp_same) / sizeof(scp_same[0]);
		while (k < nk && strcmp(o, scp_same[k].opt) != 0)
			k++;
		bool port = strcmp(o, "-p") == 0, arg = port || (k < nk && scp_same[k].arg);
		if ((k == nk && !port) || (arg && i + 1 == ssh->argc) || n + 3 >= max)
			return nb_error_set(err, "NBRUN_SSH_COMMAND: '%s' has no scp equivalent for "
					    "--push (use -F FILE, -i, -o, -J, -p, -4, -6, -C, -q, -v; "
					    "or copy nbrun yourself and set nbrun:)", o);
		argv[n++] = port ? "-P" : o;
		if (arg)
			argv[n++] = ssh->argv[++i];
	}
	const char *tail[] = { "-o", "BatchMode=yes", "-q", local, remote_arg };
	for (size_t i = 0; i < 5 && n + 1 < max; i++)
		argv[n++] = tail[i];
	argv[n] = NULL;
	return true;
}

bool nb_ssh_push(const char *host, const char *dest, const char *remote, struct nb_error *err)
{
	struct nb_ssh_cmd cmd;
	char self[4096], target[600], errbuf[ERR_KEEP], line[200];
	const char *argv[NB_SSH_ARGS_MAX + 16];
	size_t nerr = 0;
	int errfd;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return nb_error_errno(err, errno, "--push: /proc/self/exe");
	self[n] = '\0';
	snprintf(target, sizeof(target), "%s:%s", dest, remote);
	if (!nb_ssh_command(&cmd, err) ||
	    !nb_ssh_scp_argv(&cmd, self, target, argv, sizeof(argv) / sizeof(argv[0]), err))
		return false;
	pid_t pid = spawn(argv, -1, &errfd, err);
	if (pid < 0)
		return nb_error_set(err, "host %s: --push: %s", host, err->msg);
	while (drain(errfd, errbuf, &nerr))
		;
	close(errfd);
	int st = reap(pid, NB_SSH_START_MS);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return true;
	last_line(errbuf, nerr, line, sizeof(line));
	return nb_error_set(err, "host %s: --push: scp to %s failed%s%s", host, target,
			    line[0] ? ": " : "", line);
}

/* nbrun — gnuplot: found on PATH, run on a script, and text quoted for its scripts (see
 * gnuplot.h). */
#include "gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void nb_chart_gp_str(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
}

/* NBRUN_GNUPLOT=none (or empty) turns rendering off, e.g. for tests that only need the data. */
static bool disabled(void)
{
	const char *v = getenv("NBRUN_GNUPLOT");
	return v && (*v == '\0' || strcmp(v, "none") == 0);
}

bool nb_chart_gnuplot_available(void)
{
	if (disabled())
		return false;
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		char file[4096];
		snprintf(file, sizeof(file), "%.*s/gnuplot", (int)(len ? len : 1), len ? path : ".");
		if (access(file, X_OK) == 0)
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

/* gnuplot's own quoting: inside single quotes, a quote is doubled. */
static void gp_cd_command(char *buf, size_t len, const char *dir)
{
	size_t n = (size_t)snprintf(buf, len, "cd '");
	for (; *dir && n + 4 < len; dir++) {
		if (*dir == '\'')
			buf[n++] = '\'';
		buf[n++] = *dir;
	}
	snprintf(buf + n, len - n, "'");
}

bool nb_chart_gnuplot_run(const char *workdir, const char *script, const char *log,
			  struct nb_error *err)
{
	char cd[4300];
	gp_cd_command(cd, sizeof(cd), workdir);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	char *argv[] = { "gnuplot", "-e", cd, (char *)script, NULL };
	pid_t pid;
	int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return nb_error_errno(err, rc, "cannot run gnuplot");
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return nb_error_errno(err, errno, "waitpid gnuplot");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return nb_error_set(err, "gnuplot failed on %s/%s (see %s)", workdir, script, log);
	return true;
}

/* The results folder (see results_dir.h). */
#include "working_csv.h"
#include "results_dir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chart.h"
#include "config_copy.h"
#include "env_json.h"
#include "hist_csv.h"
#include "html.h"
#include "intervals_csv.h"
#include "json.h"
#include "markdown.h"
#include "meta_json.h"
#include "plan_csv.h"
#include "runs_csv.h"
#include "runs_jsonl.h"
#include "summary.h"
#include "sweep_latency_csv.h"
#include "sweeps_json.h"

/* The files of a results folder, each named by its module. */
static const char *const results_files[] = {
	NB_CONFIG_COPY_FILE, NB_PLAN_CSV_FILE, NB_ENV_JSON_FILE, NB_META_JSON_FILE,
	NB_RUNS_CSV_FILE, NB_RUNS_JSONL_FILE, NB_INTERVALS_CSV_FILE, NB_SWEEPS_JSON_FILE, NB_SUMMARY_CSV_FILE,
	NB_MARKDOWN_FILE, NB_JSON_FILE, NB_HTML_FILE, NB_WORKING_CSV_FILE,
	NB_SWEEP_LATENCY_CSV_FILE,
};
#define NFILES (sizeof(results_files) / sizeof(results_files[0]))

static bool mkdir_p(const char *path, struct nb_error *err)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return nb_error_errno(err, errno, "cannot create %s", tmp);
		*p = '/';
	}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		return nb_error_errno(err, errno, "cannot create %s", tmp);
	return true;
}

/* results/<name>-<stamp>, or -2, -3 ... after it: mkdir of the last part claims a name. */
static bool create_unique(const char *config_name, char *out, size_t n, struct nb_error *err)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	if (!mkdir_p("results", err))
		return false;
	const char *name = config_name[0] ? config_name : "nbrun";
	for (int k = 1; k < 1000; k++) {
		if (k == 1)
			snprintf(out, n, "results/%s-%s", name, stamp);
		else
			snprintf(out, n, "results/%s-%s-%d", name, stamp, k);
		if (mkdir(out, 0755) == 0)
			return true;
		if (errno != EEXIST)
			return nb_error_errno(err, errno, "cannot create %s", out);
	}
	return nb_error_set(err, "cannot create results/%s-%s: 999 folders by that name", name, stamp);
}

bool nb_results_dir_create(const char *dir, const char *config_name, char *out, size_t n,
			   bool *made, struct nb_error *err)
{
	struct stat st;
	*made = !dir || stat(dir, &st) != 0;
	if (dir) {
		snprintf(out, n, "%s", dir);
		if (!mkdir_p(out, err))
			return false;
	} else if (!create_unique(config_name, out, n, err)) {
		return false;
	}
	char sub[4200];
	snprintf(sub, sizeof(sub), "%s/" NB_HIST_CSV_DIR, out);
	return mkdir_p(sub, err);
}

bool nb_results_dir_in_use(const char *dir, char *what, size_t n)
{
	DIR *d = opendir(dir);
	size_t count = 0;
	what[0] = '\0';
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (count++ < 3)
			snprintf(what + strlen(what), n - strlen(what), "%s%s", count > 1 ? ", " : "",
				 e->d_name);
	}
	if (d)
		closedir(d);
	if (count > 3)
		snprintf(what + strlen(what), n - strlen(what), " and %zu more", count - 3);
	return count > 0;
}

/* Remove name (and name.tmp) in dir; a missing one is fine. */
static bool remove_in(const char *dir, const char *name, struct nb_error *err)
{
	char path[4400];
	if ((size_t)snprintf(path, sizeof(path), "%s/%s.tmp", dir, name) >= sizeof(path))
		return nb_error_set(err, "cannot remove %s/%s: the path is too long", dir, name);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, name); /* shorter than the .tmp one */
	if (unlink(path) != 0 && errno != ENOENT)
		return nb_error_errno(err, errno, "cannot remove %s", path);
	return true;
}

/* Every regular file of dir/sub. */
static bool clear_sub(const char *dir, const char *sub, struct nb_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	DIR *d = opendir(path);
	struct dirent *e;
	bool ok = true;
	while (ok && d && (e = readdir(d)))
		if (e->d_type == DT_REG)
			ok = remove_in(path, e->d_name, err);
	if (d)
		closedir(d);
	return ok;
}

bool nb_results_dir_clear(const char *dir, struct nb_error *err)
{
	for (size_t i = 0; i < NFILES; i++)
		if (!remove_in(dir, results_files[i], err))
			return false;
	return clear_sub(dir, NB_HIST_CSV_DIR, err) && clear_sub(dir, NB_CHART_DIR, err);
}

void nb_results_dir_remove(const char *dir)
{
	char path[4200];
	if (!nb_results_dir_clear(dir, NULL))
		return;
	snprintf(path, sizeof(path), "%s/" NB_HIST_CSV_DIR, dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/" NB_CHART_DIR, dir);
	rmdir(path);
	rmdir(dir);
}

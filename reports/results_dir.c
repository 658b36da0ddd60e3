/* The results folder (see results_dir.h). */
#include "results_dir.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "hist_csv.h"

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

bool nb_results_dir_create(const char *dir, const char *config_name, char *out, size_t n,
			   struct nb_error *err)
{
	if (dir) {
		snprintf(out, n, "%s", dir);
	} else {
		char stamp[32];
		time_t t = time(NULL);
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
		snprintf(out, n, "results/%s-%s", config_name[0] ? config_name : "nbrun", stamp);
	}
	char sub[4200];
	snprintf(sub, sizeof(sub), "%s/" NB_HIST_CSV_DIR, out);
	return mkdir_p(out, err) && mkdir_p(sub, err);
}

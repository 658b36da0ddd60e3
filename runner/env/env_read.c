/* nbrun — reading /proc and /sys under a root prefix for the environment facts. */
#include "env_read.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool nb_env_live(const char *root)
{
	return !root || !root[0] || !strcmp(root, "/");
}

void nb_env_path(char *buf, size_t len, const char *root, const char *rel)
{
	if (nb_env_live(root))
		snprintf(buf, len, "/%s", rel);
	else
		snprintf(buf, len, "%s/%s", root, rel);
}

char *nb_env_slurp(const char *root, const char *rel, int *err)
{
	char path[512];
	nb_env_path(path, sizeof(path), root, rel);
	FILE *f = fopen(path, "r");
	if (!f) {
		*err = errno;
		return NULL;
	}
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (ferror(f) || feof(f) || n < cap - 1)
			break;
		char *more = realloc(buf, cap * 2);
		if (!more) {
			free(buf);
			buf = NULL;
		}
		buf = more;
		cap *= 2;
	}
	*err = !buf ? ENOMEM : ferror(f) ? (errno ? errno : EIO) : 0;
	fclose(f);
	if (*err) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

int nb_env_read(const char *root, const char *rel, char *buf, size_t len)
{
	int err;
	char *s = nb_env_slurp(root, rel, &err);
	if (!s)
		return err;
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	snprintf(buf, len, "%s", s);
	free(s);
	return 0;
}

void nb_env_reason(char *buf, size_t len, int err, const char *rel, const char *missing)
{
	if (err == ENOENT && missing)
		snprintf(buf, len, "%s", missing);
	else if (err == ENOENT)
		snprintf(buf, len, "not exposed: no /%s", rel);
	else if (err == EACCES || err == EPERM)
		snprintf(buf, len, "permission denied (/%s)", rel);
	else
		snprintf(buf, len, "cannot read /%s: %s", rel, strerror(err));
}

bool nb_env_file_fact(struct nb_facts *out, const char *root, const char *group, const char *key,
		      const char *rel, const char *missing)
{
	char v[256], why[256];
	int err = nb_env_read(root, rel, v, sizeof(v));
	if (err) {
		nb_env_reason(why, sizeof(why), err, rel, missing);
		return nb_facts_unknown(out, group, key, "%s", why);
	}
	v[strcspn(v, "\n")] = '\0';
	for (char *t = strchr(v, '\t'); t; t = strchr(t, '\t'))
		*t = ' ';
	return nb_facts_set(out, group, key, "%s", v);
}

void nb_env_cpulist(char *buf, size_t len, const bool *cpus, size_t max)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t c = 0; c < max && used < len; c++) {
		if (!cpus[c])
			continue;
		size_t end = c;
		while (end + 1 < max && cpus[end + 1])
			end++;
		if (end == c)
			used += (size_t)snprintf(buf + used, len - used, "%s%zu", used ? "," : "", c);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%zu-%zu", used ? "," : "", c, end);
		c = end;
	}
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

int nb_env_list_numbered(const char *root, const char *rel, const char *prefix, long *nums,
			 int max, int *err)
{
	char path[512];
	nb_env_path(path, sizeof(path), root, rel);
	DIR *d = opendir(path);
	if (!d) {
		*err = errno;
		return -1;
	}
	int n = 0;
	size_t plen = strlen(prefix);
	for (struct dirent *e; (e = readdir(d)) && n < max;) {
		char *end;
		if (strncmp(e->d_name, prefix, plen) || !e->d_name[plen])
			continue;
		long v = strtol(e->d_name + plen, &end, 10);
		if (!*end && v >= 0)
			nums[n++] = v;
	}
	closedir(d);
	qsort(nums, (size_t)n, sizeof(*nums), cmp_long);
	*err = 0;
	return n;
}

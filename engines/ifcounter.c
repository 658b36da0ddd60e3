/* One interface counter from sysfs: shared by the interface rates (ifstats.c) and the loss
 * budget's drop counters (lossstats.c), which uses neither. */
#include "ifcounter.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ifname_ok(const char *ifname)
{
	size_t n = strlen(ifname);
	if (n == 0 || n >= IFNAMSIZ || strchr(ifname, '/'))
		return false;
	return strcmp(ifname, ".") != 0 && strcmp(ifname, "..") != 0;
}

/* One sysfs counter: decimal digits and a trailing newline, nothing else. */
static bool read_counter(const char *root, const char *ifname, const char *name, uint64_t *v,
			 struct nb_error *err)
{
	char path[512], buf[32];
	snprintf(path, sizeof(path), "%s/%s/statistics/%s", root, ifname, name);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return nb_error_errno(err, errno, "%s", path);
	size_t len = fread(buf, 1, sizeof(buf) - 1, fp);
	bool rd_err = ferror(fp);
	fclose(fp);
	buf[len] = '\0';
	if (rd_err)
		return nb_error_set(err, "%s: read error", path);
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	char *end = NULL;
	errno = 0;
	unsigned long long x = strtoull(buf, &end, 10);
	if (len == 0 || buf[0] < '0' || buf[0] > '9' || *end != '\0' || errno == ERANGE)
		return nb_error_set(err, "%s: expected a decimal counter, got \"%.32s\"", path, buf);
	*v = x;
	return true;
}

bool nb_ifstats_counter(const char *root, const char *ifname, const char *name, uint64_t *v,
			struct nb_error *err)
{
	if (!root)
		root = NB_IFSTATS_ROOT;
	if (!ifname || !ifname_ok(ifname))
		return nb_error_set(err, "bad interface name \"%s\"", ifname ? ifname : "(null)");
	return read_counter(root, ifname, name, v, err);
}


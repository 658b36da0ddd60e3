/* config.yaml, the copy of the config that ran (see config_copy.h). */
#include "config_copy.h"

#include "afile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

bool nb_config_copy_write(const char *dir, const char *text, size_t len, struct nb_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/" NB_CONFIG_COPY_FILE, dir);
	return nb_afile_write(path, text, text ? len : 0, err);
}

char *nb_config_copy_read(const char *dir, size_t *len, struct nb_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/" NB_CONFIG_COPY_FILE, dir);
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f || fstat(fileno(f), &st) != 0) {
		nb_error_errno(err, errno, "cannot open %s", path);
		if (f)
			fclose(f);
		return NULL;
	}
	char *buf = malloc((size_t)st.st_size + 1);
	size_t n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
	bool bad = !buf || ferror(f);
	fclose(f);
	if (bad) {
		nb_error_set(err, "%s: %s", path, buf ? "read error" : "out of memory");
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Building a report and reading its lines (see nbt_report.h). */
#include "nbt_report.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_util.h"
#include "report.h"

char *nbt_report_md(const char *dir)
{
	setenv("NBRUN_GNUPLOT", "none", 1);
	struct nb_report_info info;
	struct nb_error err = { "" };
	cr_assert(nb_report_build(dir, &info, &err), "report: %s", err.msg);
	char path[512];
	snprintf(path, sizeof(path), "%s/report.md", dir);
	char *md = nbt_slurp(path, NULL);
	cr_assert_not_null(md, "%s", path);
	return md;
}

const char *nbt_md_line(const char *md, const char *start)
{
	size_t n = strlen(start);
	for (const char *p = md; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, start, n) == 0)
			return p;
	cr_assert_fail("no line starting %s in\n%s", start, md);
	return NULL;
}

bool nbt_line_has(const char *line, const char *text)
{
	const char *end = strchr(line, '\n'), *hit = strstr(line, text);
	return hit && (!end || hit < end);
}

/* Feeds files to a fuzz harness's entry point without libFuzzer: every file in each folder
 * (or each file) named on the command line, in name order. A unit test of every build runs the
 * seed corpus and every input that ever crashed through it (tests/fuzz/regress). Speaks TAP:
 * one test per folder, failing if a folder is missing or all of them hold no input; a finding
 * aborts the process (or a sanitizer stops it). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int feed_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	static uint8_t buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	uint8_t *copy = malloc(n ? n : 1); /* exactly n bytes: a sanitizer sees any overread */
	if (!copy)
		return -1;
	memcpy(copy, buf, n);
	LLVMFuzzerTestOneInput(copy, n);
	free(copy);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every regular file of dir; how many, or -1. */
static int feed_dir(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, by_name), fed = 0;
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    feed_file(path) == 0)
			fed++;
		free(names[i]);
	}
	free(names);
	return n < 0 ? -1 : fed;
}

int main(int argc, char **argv)
{
	int failed = 0, total = 0;
	printf("1..%d\n", argc);
	for (int i = 1; i < argc; i++) {
		int fed = feed_dir(argv[i]);
		printf("%s %d - %s: %d inputs, no finding\n", fed >= 0 ? "ok" : "not ok", i, argv[i], fed);
		failed |= fed < 0;
		total += fed > 0 ? fed : 0;
	}
	printf("%s %d - %d inputs in all\n", total > 0 ? "ok" : "not ok", argc, total);
	return failed || total == 0;
}

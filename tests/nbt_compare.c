/* Shared by the compare tests: run `nbrun compare` on the fixture folders of
 * tests/fixtures/compare and look at its rows. */
#include "nbt_compare.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_util.h"

void nbt_cmp_fixture(const char *name, char *buf, size_t len)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "compare/%s", name);
	nbt_fixture_path(rel, buf, len);
}

/* Run `nbrun compare` on fixture folders (a name may carry "/runs.csv" and so on); o carries
 * the options, its paths are filled here. */
void nbt_cmp_run(const char *const *names, size_t n, struct nb_compare_opts *o,
		     struct outcome *r)
{
	static char paths[8][512];
	const char *argv[8];
	for (size_t i = 0; i < n; i++) {
		nbt_cmp_fixture(names[i], paths[i], sizeof(paths[i]));
		argv[i] = paths[i];
	}
	o->paths = argv;
	o->npaths = n;
	if (o->threshold == 0.0)
		o->threshold = 0.05;
	FILE *out = open_memstream(&r->out, &r->olen), *err = open_memstream(&r->err, &r->elen);
	cr_assert(out && err);
	r->rc = nb_compare_run(o, out, err);
	fclose(out);
	fclose(err);
}

void nbt_cmp_opts(const char *const *names, size_t n, const char *format, const char *metric,
			 const char *outfile, struct outcome *r)
{
	struct nb_compare_opts o = { .metrics = &metric, .nmetrics = metric != NULL, .format = format,
				     .out = outfile };
	nbt_cmp_run(names, n, &o, r);
}

void nbt_compare2(const char *base, const char *nw, struct outcome *r)
{
	const char *names[] = { base, nw };
	nbt_cmp_opts(names, 2, "md", NULL, NULL, r);
}

void nbt_outcome_free(struct outcome *r)
{
	free(r->out);
	free(r->err);
}

/* The comparison itself, for value checks. */
void nbt_cmp_build(const char *base, const char *nw, const char *metric, struct nb_compare *c)
{
	char a[512], b[512];
	nbt_cmp_fixture(base, a, sizeof(a));
	nbt_cmp_fixture(nw, b, sizeof(b));
	const char *paths[] = { a, b };
	struct nb_compare_opts o = { .paths = paths, .npaths = 2, .threshold = 0.05,
				     .metrics = &metric, .nmetrics = metric != NULL };
	struct nb_error err = { "" };
	cr_assert(nb_compare_build(c, &o, &err), "build: %s", err.msg);
}

const struct nb_cmp_row *nbt_cmp_row(const struct nb_compare *c, const char *case_id)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (strcmp(c->rows[i].case_id, case_id) == 0)
			return &c->rows[i];
	cr_assert_fail("no row for %s", case_id);
	return NULL;
}

void nbt_cmp_setup(void)
{
	setenv("NBRUN_GNUPLOT", "none", 1);
}

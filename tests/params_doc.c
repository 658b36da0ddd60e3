/* docs/config.md's table of parameters, made from the rows of engines/param_defs.c, so the doc
 * cannot drift from what the config takes:
 *
 *     params_doc DOC           exit 0 when DOC's table (between its markers) is this one, else 1
 *                              with the table as it should read
 *     params_doc DOC --write   put this table in DOC between the markers
 *
 * The test params_doc runs the first on docs/config.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_util.h"
#include "param_defs.h"

#define BEGIN "<!-- parameters: made from engines/param_defs.c by tests/params_doc.c -->\n"
#define END "<!-- parameters end -->\n"

/* "all", or the engines whose keys list it ("stream pps"), in registry order. */
static void engines_of(const struct nb_param_def *d, FILE *out)
{
	if (!(d->flags & NB_PF_LISTED)) {
		fputs("all", out);
		return;
	}
	const char *sep = "";
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++)
		if (nb_param_applies(d, *e)) {
			fprintf(out, "%s%s", sep, (*e)->name);
			sep = " ";
		}
}

/* What it takes: the row's words, else an enum's names or an integer's range. */
static void value_of(const struct nb_param_def *d, FILE *out)
{
	if (d->doc_value) {
		fputs(d->doc_value, out);
		return;
	}
	for (unsigned i = 0; d->kind == NB_PK_ENUM && i < d->nnames; i++)
		fprintf(out, "%s`%s`", i ? ", " : "", d->names[i]);
	if (d->kind != NB_PK_ENUM)
		fprintf(out, "%llu..%llu", (unsigned long long)d->min, (unsigned long long)d->max);
}

/* Value v of row d as the config writes it. */
static void spell(const struct nb_param_def *d, int64_t v, FILE *out)
{
	if (d->kind == NB_PK_BOOL)
		fprintf(out, "`%s`", d->names ? d->names[v != 0] : v ? "true" : "false");
	else if (d->kind == NB_PK_ENUM)
		fprintf(out, "`%s`", d->names[v]);
	else if (d->kind == NB_PK_DURATION_MS && v % 1000 == 0)
		fprintf(out, "`%llds`", (long long)v / 1000);
	else if (d->kind == NB_PK_DURATION_US && v && v % 1000 == 0)
		fprintf(out, "`%lldms`", (long long)v / 1000);
	else if (d->kind == NB_PK_DURATION_US)
		fprintf(out, "`%lldus`", (long long)v);
	else
		fprintf(out, d->kind == NB_PK_DURATION_MS ? "`%lldms`" : "`%lld`", (long long)v);
}

/* The default: the row's words, else its value, or each engine's ("stream `auto`, pps `off`"). */
static void default_of(const struct nb_param_def *d, FILE *out)
{
	if (d->doc_default) {
		fputs(d->doc_default, out);
		return;
	}
	if (!d->engine_def) {
		spell(d, d->def, out);
		return;
	}
	const char *sep = "";
	for (const struct nb_engine *const *e = nb_engine_list(); *e; e++)
		if (nb_param_applies(d, *e)) {
			fprintf(out, "%s%s ", sep, (*e)->name);
			spell(d, d->engine_def(*e), out);
			sep = ", ";
		}
}

/* Its plan.csv column, its unit and protocol rule; "—" for none. */
static void column_of(const struct nb_param_def *d, FILE *out)
{
	if (!d->column) {
		fputs("—", out);
		return;
	}
	fprintf(out, "`%s`", d->column);
	if (d->unit)
		fprintf(out, " (%s)", d->unit);
	fputs(d->flags & NB_PF_TCP ? ", TCP only" : d->flags & NB_PF_UDP ? ", UDP only" : "", out);
}

static void table(FILE *out)
{
	fputs("| key | engines | value | default | plan.csv | sets |\n"
	      "|---|---|---|---|---|---|\n", out);
	for (const struct nb_param_def *d = nb_param_defs; d->key; d++) {
		fprintf(out, "| `%s`%s%s%s | ", d->key, d->alias ? " / `" : "",
			d->alias ? d->alias : "", d->alias ? "`" : "");
		engines_of(d, out);
		fputs(" | ", out);
		value_of(d, out);
		fputs(" | ", out);
		default_of(d, out);
		fputs(" | ", out);
		column_of(d, out);
		fprintf(out, " | %s |\n", d->doc ? d->doc : "");
	}
}

int main(int argc, char **argv)
{
	if (argc < 2 || (argc == 3 && strcmp(argv[2], "--write") != 0) || argc > 3) {
		fprintf(stderr, "usage: params_doc DOC [--write]\n");
		return 2;
	}
	char *doc = nbt_slurp(argv[1], NULL), *want = NULL, *b, *e;
	size_t wlen = 0;
	if (!doc || !(b = strstr(doc, BEGIN)) || !(e = strstr(b, END))) {
		fprintf(stderr, "%s: no table between \"%.*s\" and \"%.*s\" (expected both markers)\n",
			argv[1], (int)strlen(BEGIN) - 1, BEGIN, (int)strlen(END) - 1, END);
		free(doc);
		return 2;
	}
	b += strlen(BEGIN);
	FILE *m = open_memstream(&want, &wlen);
	table(m);
	fclose(m);
	bool same = (size_t)(e - b) == wlen && memcmp(b, want, wlen) == 0;
	int rc = same ? 0 : 1;
	if (argc == 3 && !same) {
		char *text = NULL;
		size_t len = 0;
		FILE *t = open_memstream(&text, &len);
		fprintf(t, "%.*s%s%s", (int)(b - doc), doc, want, e);
		fclose(t);
		rc = !nbt_write(argv[1], text, len);
		free(text);
	} else if (!same) {
		fprintf(stderr, "%s: the parameter table is not the one engines/param_defs.c makes "
			"(run: params_doc %s --write); it should read:\n%s", argv[1], argv[1], want);
	}
	free(want);
	free(doc);
	return rc;
}

#include "chart.h"
#include "chart_int.h"

#include <stdlib.h>
#include <string.h>

#include "afile.h"

/* A qualitative palette (Tableau 10): distinct in print and for most colour-blind readers. */
static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

int nb_chart_gp_style(size_t i)
{
	return (int)(i % NPALETTE) + 1;
}

static void preamble(FILE *gp, const struct nb_chart *ch, const char *context)
{
	fprintf(gp, "# nbrun chart: run `gnuplot %s.gp` in this folder to draw %s.png and %s.svg.\n"
		    "reset\nset encoding utf8\n"
		    "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
		    "    set terminal pngcairo size 1280,720 noenhanced font \"DejaVu Sans,13\" "
		    "linewidth 1.2 background rgb \"white\"\n"
		    "} else {\n"
		    "    set terminal png size 1280,720 noenhanced background rgb \"white\"\n"
		    "}\n"
		    "set output \"%s.png\"\n",
		ch->name, ch->name, ch->name, ch->name);
	fprintf(gp, "set title \"");
	nb_chart_gp_str(gp, ch->title);
	if (*context) { /* test, host pair, date and version: a chart seen alone says where it is from */
		fputs("\\n", gp);
		nb_chart_gp_str(gp, context);
	}
	fprintf(gp, "\" font \",17\" offset 0,-0.3\n"
		    "set border 3 lw 1.2 lc rgb \"#404040\"\n"
		    "set tics nomirror out scale 0.6 textcolor rgb \"#303030\"\n"
		    "set grid xtics ytics lt 1 lw 1 lc rgb \"#e6e6e6\"\n"
		    "set key below center horizontal Left reverse spacing 1.15 samplen 3 width 1 nobox\n"
		    "set xlabel offset 0,0.6\n"
		    /* plain tic numbers: gnuplot's default and %g write 1e+06 */
		    "set format x \"%%.10g\"\nset format y \"%%.10g\"\nset format y2 \"%%.10g\"\n"
		    "set lmargin 12\nset rmargin 6\n");
	for (size_t i = 0; i < NPALETTE; i++)
		fprintf(gp, "set linetype %zu lc rgb \"%s\" lw 2.4 pt 7 ps 1.2 dt 1\n", i + 1, palette[i]);
}

static bool grow(struct nb_charts *c)
{
	if (c->n < c->cap)
		return true;
	size_t cap = c->cap ? c->cap * 2 : 16;
	struct nb_chart *v = realloc(c->v, cap * sizeof(*v));
	if (!v)
		return false;
	c->v = v;
	c->cap = cap;
	return true;
}

static void sanitize(char *dst, size_t len, const char *src)
{
	size_t n = 0;
	for (; *src && n + 1 < len; src++) {
		char ch = *src;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			  ch == '.' || ch == '_' || ch == '-';
		if (!ok && n > 0 && dst[n - 1] == '-')
			continue;
		dst[n++] = ok ? ch : '-';
	}
	dst[n] = '\0';
}

/* The two files of the chart being written. */
struct nb_chart_files {
	struct nb_afile dat, gp;
};

static FILE *open_in(struct nb_afile *a, const char *dir, const char *name, const char *ext,
		     struct nb_error *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/" NB_CHART_DIR "/%s.%s", dir, name, ext);
	return nb_afile_open(a, path, err) ? a->f : NULL;
}

struct nb_chart *nb_chart_begin(struct nb_charts *c, const char *dir, enum nb_chart_kind kind,
				const char *stem, const char *title, FILE **dat, FILE **gp,
				struct nb_error *err)
{
	if (!grow(c) || (!c->open && !(c->open = calloc(1, sizeof(*c->open))))) {
		nb_error_set(err, "charts: out of memory");
		return NULL;
	}
	struct nb_chart *ch = &c->v[c->n];
	memset(ch, 0, sizeof(*ch));
	ch->kind = kind;
	sanitize(ch->name, sizeof(ch->name), stem);
	snprintf(ch->title, sizeof(ch->title), "%s", title);
	*dat = open_in(&c->open->dat, dir, ch->name, "dat", err);
	*gp = *dat ? open_in(&c->open->gp, dir, ch->name, "gp", err) : NULL;
	if (!*gp) {
		nb_afile_abort(&c->open->dat);
		return NULL;
	}
	fprintf(*dat, "# nbrun chart data: %s\n", title);
	preamble(*gp, ch, c->context);
	c->n++;
	return ch;
}

bool nb_chart_end(struct nb_charts *c, struct nb_error *err)
{
	fprintf(c->open->gp.f, "set terminal svg size 1280,720 dynamic noenhanced font \"DejaVu "
		"Sans,13\" background rgb \"white\"\nset output \"%s.svg\"\nreplot\nunset output\n",
		c->v[c->n - 1].name);
	if (!nb_afile_commit(&c->open->dat, err)) {
		nb_afile_abort(&c->open->gp);
		return false;
	}
	return nb_afile_commit(&c->open->gp, err);
}

void nb_chart_gp_hover(FILE *gp, const char *name, size_t index, const char *xy, int textcol,
		       int lt)
{
	fprintf(gp, "\"%s.dat\" index %zu using %s:(stringcolumn(%d)) with labels hypertext point "
		    "lt %d pt 7 ps 0.9 notitle", name, index, xy, textcol, lt);
}

void nb_chart_dat_label(FILE *dat, const char *s)
{
	fputc('"', dat);
	for (; *s; s++)
		fputc(*s == '"' || *s == '\n' || *s == '\\' ? '\'' : *s, dat);
	fputc('"', dat);
}

const char *nb_chart_short_label(const struct nb_plan_case *p)
{
	size_t n = strlen(p->test);
	if (n && strncmp(p->case_id, p->test, n) == 0 && p->case_id[n] == '/' && p->case_id[n + 1])
		return p->case_id + n + 1;
	return p->case_id;
}

bool nb_chart_first_of_test(const struct nb_summary *s, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (strcmp(s->c[k].pc->test, s->c[i].pc->test) == 0)
			return false;
	return true;
}

/* report.html: report.md's sections as one self-contained page — inline CSS, every chart's SVG
 * inline (gnuplot's svg terminal, the same drawing as the PNG), one line of script that opens
 * the folded sections for printing, and nothing fetched from anywhere. A point's value shows on
 * hover from the SVG's own <title>, which needs no script: gnuplot's hypertext labels call its
 * gnuplot_svg.js, so each one is turned into a <title> here. */
#include "html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "afile.h"
#include "html_int.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[8192];
	size_t n;
	while (m && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	bool bad = ferror(f);
	fclose(f);
	if (m)
		fclose(m);
	if (bad) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const char css[] =
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1b1b;"
	"max-width:76rem;margin:0 auto;padding:0 1rem 2rem}"
	"h1{font-size:1.6rem;margin:1rem 0 .3rem}h2{font-size:1.3rem;margin-top:2rem;"
	"border-bottom:1px solid #ddd}h3{font-size:1.1rem}h4{font-size:1rem;margin-bottom:.2rem}"
	"code{font:.88em ui-monospace,Menlo,Consolas,monospace;background:#f3f3f3;padding:0 .2em;"
	"overflow-wrap:anywhere}p,li{overflow-wrap:anywhere}"
	".table{overflow-x:auto;max-width:100%}"
	"table{border-collapse:collapse;margin:.5rem 0;font-size:.93em}"
	"th,td{border:1px solid #d5d5d5;padding:.25rem .5rem;vertical-align:top}"
	"th{background:#f4f4f4;text-align:left}td.r{text-align:right;white-space:nowrap}"
	"#key-numbers{border-left:4px solid #1f77b4;padding-left:.8rem}"
	"#key-numbers td strong{font-size:1.1em}"
	"figure.chart{margin:.5rem 0}figure.chart svg{width:100%;height:auto;display:block}"
	"blockquote{border-left:4px solid #d62728;margin:.5rem 0;padding:.2rem .8rem;"
	"background:#fff5f5}"
	"summary{cursor:pointer;font-weight:600}"
	"td code{white-space:nowrap}"
	/* a phone: each key number a card of labelled lines, the other tables scroll sideways */
	"@media (max-width:40rem){body{font-size:14px;padding:0 .5rem}th,td{padding:.2rem .3rem}"
	"#key-numbers thead{display:none}#key-numbers table,#key-numbers tbody,#key-numbers tr,"
	"#key-numbers td{display:block;border:0;text-align:left;white-space:normal}"
	"#key-numbers tr{border:1px solid #d5d5d5;margin:.4rem 0;padding:.3rem}"
	"#key-numbers td::before{content:attr(data-label) ': ';color:#666}}"
	"@media print{body{max-width:none;font-size:11pt}a{color:inherit}"
	"figure.chart,tr{break-inside:avoid}h2,h3,h4{break-after:avoid}.table{overflow:visible}}";

/* The only script: folded sections print open. */
static const char script[] =
	"addEventListener('beforeprint',function(){document.querySelectorAll('details')"
	".forEach(function(d){d.open=true})});";

/* What may not be inlined: anything that runs, fetches or embeds. */
static bool svg_safe(const char *s)
{
	static const char *const bad[] = { "<script", "<image", "<foreignObject", "href=\"http",
					   "href='http", "javascript:", "@import" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (strstr(s, bad[i]))
			return false;
	return true;
}

#define HYPER_ON "onmousemove=\"gnuplot_svg.showHypertext(evt,'"
#define HYPER_OFF "')\" onmouseout=\"gnuplot_svg.hideHypertext()\"><title> </title>"

/* Copy gnuplot's SVG from its <svg> on: ids made unique to chart k, hypertext as <title>. */
static void svg_copy(FILE *o, const char *svg, size_t k, const char *alt, size_t altn)
{
	static const char *const ref[] = { "id='", "id=\"", "href='#", "href=\"#", "url(#" };
	char pre[24];
	snprintf(pre, sizeof(pre), "c%zu-", k);
	const char *p = strstr(svg, "<svg");
	while (p && *p) {
		if (strncmp(p, "<svg", 4) == 0 && p[4] == ' ' ) {
			fputs("<svg role=\"img\" aria-label=\"", o);
			nb_html_text(o, alt, altn);
			fputs("\" ", o);
			p += 5;
			continue;
		}
		if (strncmp(p, "<title>Gnuplot</title>", 22) == 0) {
			fputs("<title>", o);
			nb_html_text(o, alt, altn);
			fputs("</title>", o);
			p += 22;
			continue;
		}
		const char *end;
		if (strncmp(p, HYPER_ON, strlen(HYPER_ON)) == 0 &&
		    (end = strstr(p, HYPER_OFF)) != NULL) {
			const char *t = p + strlen(HYPER_ON);
			fputs("><title>", o); /* the text is gnuplot's, XML-escaped already */
			fwrite(t, 1, (size_t)(end - t), o);
			fputs("</title>", o);
			p = end + strlen(HYPER_OFF);
			if (o && p[-1] == '>' && p[0] == ' ')
				p++;
			continue;
		}
		bool done = false;
		for (size_t i = 0; i < sizeof(ref) / sizeof(ref[0]) && !done; i++)
			if (strncmp(p, ref[i], strlen(ref[i])) == 0) {
				fputs(ref[i], o);
				fputs(pre, o);
				p += strlen(ref[i]);
				done = true;
			}
		if (!done)
			fputc(*p++, o);
	}
}

static void chart(const struct nb_html_ctx *ctx, FILE *o, const char *alt, size_t altn,
		  const char *src, size_t srcn)
{
	/* report.md names charts/NAME.png; the page draws charts/NAME.svg */
	char path[4096], name[256];
	bool ok = srcn > 11 && srcn < sizeof(name) && strncmp(src, "charts/", 7) == 0 &&
		  strncmp(src + srcn - 4, ".png", 4) == 0;
	for (size_t i = 7; ok && i < srcn - 4; i++)
		ok = src[i] != '/' && src[i] != '.' ? true : src[i] == '.' && src[i + 1] != '.';
	char *svg = NULL;
	if (ok) {
		snprintf(name, sizeof(name), "%.*s", (int)(srcn - 11), src + 7);
		snprintf(path, sizeof(path), "%s/charts/%s.svg", ctx->dir, name);
		svg = slurp(path);
	}
	fputs("<figure class=\"chart\">", o);
	if (svg && strstr(svg, "<svg") && svg_safe(svg))
		svg_copy(o, svg, ++*ctx->charts, alt, altn);
	else {
		fputs("<p><em>Chart not drawn here (no usable charts/", o);
		nb_html_text(o, ok ? name : "?", ok ? strlen(name) : 1);
		fputs(".svg).</em></p>", o);
	}
	fputs("</figure>\n", o);
	free(svg);
}

/* The page's <title>: report.md's first heading, as text. */
static void page_title(FILE *o, const char *md)
{
	const char *t = strncmp(md, "# ", 2) == 0 ? md + 2 : "nbrun report";
	size_t n = strcspn(t, "\n");
	for (size_t i = 0; i < n; i++)
		if (!(t[i] == '\\' && i + 1 < n))
			nb_html_text(o, t + i, 1);
}

bool nb_html_write(const char *dir, const char *md_path, const char *html_path,
		   size_t *charts, struct nb_error *err)
{
	char *md = slurp(md_path);
	if (!md)
		return nb_error_set(err, "%s: %s", md_path, strerror(errno ? errno : EIO));
	struct nb_afile a;
	if (!nb_afile_open(&a, html_path, err)) {
		free(md);
		return false;
	}
	*charts = 0;
	struct nb_html_ctx ctx = { .dir = dir, .charts = charts, .chart = chart };
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      a.f);
	page_title(a.f, md);
	fprintf(a.f, "</title>\n<style>%s</style>\n<script>%s</script>\n</head>\n<body>\n", css,
		script);
	nb_html_from_md(a.f, md, &ctx);
	fputs("</body>\n</html>\n", a.f);
	free(md);
	return nb_afile_commit(&a, err);
}

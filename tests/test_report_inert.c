/* Text that came from the other end is inert in report.md and compare's Markdown (issue 28,
 * row 13): the peer's facts (env.json), an agent's error (runs.csv) and a fact quoted in a
 * warning hold HTML, a javascript: link, emphasis and a right-to-left override (U+202E), as a
 * hostile or broken agent could send them. None of it may render as what it is: every <, [, ],
 * *, ` and & is escaped, and no bidi or control character reaches the file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "fixture_util.h"
#include "nbt_report.h"

#define IMG "<img src=x onerror=alert(1)>"
#define LINK "[link](javascript:alert(1))"
#define RLO "\xe2\x80\xae" /* U+202E RIGHT-TO-LEFT OVERRIDE */

static const char env[] =
	"{\"local\": {\"host\": {\"hostname\": \"client-vm\"}, \"cpu\": {\"governor\": \"performance\"}},"
	" \"peer\": {\"host\": {\"hostname\": \"" IMG "\", \"kernel\": \"" LINK "\","
	" \"virtualization\": \"**bold** and `code`\", \"os\": \"abc" RLO "txt.exe &#x202E;\"},"
	" \"cpu\": {\"governor\": \"powersave" IMG "\"},"
	" \"ev<il>\": {\"*key*\": \"x\\u0007y\\u0085z\"}, \"tcp\": {\"tcp_rmem\": \"4096 131072\"}}}\n";

static char dir[256];
static char *md;

static void rewrite(const char *name, const char *from, const char *to)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	char *text = nbt_slurp(path, NULL);
	cr_assert_not_null(text);
	char *at = strstr(text, from);
	cr_assert_not_null(at, "%s not in %s", from, name);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	fclose(f);
	cr_assert(nbt_write(path, out, len));
	free(out);
	free(text);
}

static void setup(void)
{
	cr_assert(nbt_fixture_copy("results-basic", dir, sizeof(dir)));
	char path[512];
	snprintf(path, sizeof(path), "%s/env.json", dir);
	cr_assert(nbt_write(path, env, strlen(env)));
	/* the failed rr run's error, as the agent said it */
	rewrite("runs.csv", "agent said \"\"connection reset, peer gone\"\" | retry later",
		"agent said " IMG " " LINK " **bold** " RLO "lanigiro");
	md = nbt_report_md(dir);
}

static void teardown(void)
{
	free(md);
	nbt_rmtree(dir);
}

TestSuite(report_inert, .init = setup, .fini = teardown);

/* Whether every occurrence of s in text is escaped (a backslash before it). */
static bool all_escaped(const char *text, const char *s)
{
	for (const char *p = strstr(text, s); p; p = strstr(p + 1, s))
		if (p == text || p[-1] != '\\')
			return false;
	return true;
}

/* No active Markdown or HTML is left in text, no hidden character. */
static void expect_inert(const char *text, const char *what)
{
	cr_expect(all_escaped(text, "<img"), "%s: raw HTML", what);
	cr_expect_null(strstr(text, LINK), "%s: a raw link", what);
	cr_expect_null(strstr(text, "**bold**"), "%s: raw emphasis", what);
	cr_expect_null(strstr(text, RLO), "%s: a right-to-left override", what);
	cr_expect_null(strstr(text, "\x07"), "%s: a control character", what);
	cr_expect_null(strstr(text, "\xc2\x85"), "%s: a C1 control (U+0085)", what);
}

Test(report_inert, the_peers_facts_render_as_text)
{
	expect_inert(md, "report.md");
	const char *host = nbt_md_line(md, "| host | hostname |");
	cr_assert(nbt_line_has(host, "| \\<img src=x onerror=alert(1)> |"), "%.200s", host);
	const char *kernel = nbt_md_line(md, "| host | kernel |");
	cr_assert(nbt_line_has(kernel, "| \\[link\\](javascript:alert(1)) |"), "%.200s", kernel);
	const char *virt = nbt_md_line(md, "| host | virtualization |");
	cr_assert(nbt_line_has(virt, "| \\*\\*bold\\*\\* and \\`code\\` |"), "%.200s", virt);
	const char *os = nbt_md_line(md, "| host | os |");
	cr_assert(nbt_line_has(os, "| abctxt.exe \\&#x202E; |"), "the override dropped, the entity "
		  "escaped: %.200s", os);
	const char *odd = nbt_md_line(md, "| ev\\<il> | \\*key\\* |");
	cr_assert(nbt_line_has(odd, "| xyz |"), "a group and key from the peer too: %.200s", odd);
	cr_assert(nbt_line_has(nbt_md_line(md, "| tcp | tcp_rmem |"), "tcp_rmem"),
		  "an underscore inside a word stays as it is");
}

Test(report_inert, an_agents_error_and_a_quoted_fact_render_as_text)
{
	const char *failed = nbt_md_line(md, "- Failed: `tcp-rr/tcp/r32x128/f1` repetition 3: ");
	cr_assert(nbt_line_has(failed, "agent said \\<img src=x onerror=alert(1)> \\[link\\]"
			       "(javascript:alert(1)) \\*\\*bold\\*\\* lanigiro"), "%.300s", failed);
	const char *gov = nbt_md_line(md, "- ⚠️ **governor**: ");
	cr_assert(nbt_line_has(gov, "governor powersave\\<img src=x onerror=alert(1)>;"), "%.300s", gov);
}

Test(report_inert, compare_renders_the_same_text_inert)
{
	char base[256];
	cr_assert(nbt_fixture_copy("results-basic", base, sizeof(base)));
	const char *paths[] = { base, dir };
	struct nb_compare_opts o = { .paths = paths, .npaths = 2, .threshold = 0.05,
				     .allow_missing = true };
	char *out = NULL, *err = NULL;
	size_t olen = 0, elen = 0;
	FILE *fo = open_memstream(&out, &olen), *fe = open_memstream(&err, &elen);
	nb_compare_run(&o, fo, fe);
	fclose(fo);
	fclose(fe);
	expect_inert(out, "compare's Markdown");
	cr_assert(strstr(out, "peer host.kernel: 6.1.0-18-amd64 → \\[link\\](javascript:alert(1))"),
		  "%s", out);
	cr_assert(strstr(out, "peer cpu.governor: unknown (no cpufreq in this VM) → "
			      "powersave\\<img src=x onerror=alert(1)>"), "%s", out);
	free(out);
	free(err);
	nbt_rmtree(base);
}

/* report.html is made from report.md: the same text stays text there, as HTML escapes. */
Test(report_inert, report_html_renders_the_same_text_as_text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/report.html", dir);
	char *html = nbt_slurp(path, NULL);
	cr_assert_not_null(html, "no report.html");
	cr_expect_null(strstr(html, "<img"), "raw HTML in report.html");
	cr_expect_null(strstr(html, "href=\"javascript"), "a javascript: link in report.html");
	cr_expect_null(strstr(html, RLO), "a right-to-left override in report.html");
	cr_assert(strstr(html, "<td data-label=\"Local (client)\">client-vm</td><td data-label=\"Peer "
			       "(agent)\">&lt;img src=x onerror=alert(1)&gt;</td>"), "the hostname");
	cr_assert(strstr(html, "[link](javascript:alert(1))"), "the link as text");
	cr_assert(strstr(html, "**bold** and `code`"), "emphasis and code as text");
	cr_assert(strstr(html, "agent said &lt;img src=x onerror=alert(1)&gt; [link](javascript:"
			       "alert(1)) **bold** lanigiro"), "the agent's error");
	cr_assert(strstr(html, "<td data-label=\"Fact\">tcp_rmem</td>"), "an underscore in a word");
	cr_assert(strstr(html, "<section id=\"key-numbers\">\n<h2>Key numbers</h2>"));
	free(html);
}

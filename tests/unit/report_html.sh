#!/bin/sh
# unit suite: report.html in a real browser (issue 34). The report of a results folder with its
# charts drawn by gnuplot is opened in headless Chromium: no console message (an error, or a
# call to gnuplot's own script), the key-numbers section there, every chart an inline SVG that
# the browser lays out at a non-zero size, each with a value to show on hover, and nothing the
# page would fetch. Skipped without chromium or gnuplot. Speaks TAP. Environment: NBRUN,
# NB_SRCDIR (meson sets them).
set -u
NBRUN=$(realpath "${NBRUN:-build/nbrun}")
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
N=0
FAILED=0
. "$SRC/tests/lib/tap.sh"
if ! command -v chromium >/dev/null || ! command -v gnuplot >/dev/null; then
	skip "report.html in Chromium" "chromium or gnuplot is not installed"
	echo "1..$N"
	exit 0
fi
TMP=$(mktemp -d /tmp/nbt_html.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
D=$TMP/res
cp -r "$SRC/tests/fixtures/results-basic" "$D" || exit 1
"$NBRUN" report "$D" >"$TMP/report.log" 2>&1
check "nbrun report writes report.html beside report.md" "$TMP/report.log" test -s "$D/report.html"
svgs=$(ls "$D"/charts/*.svg 2>/dev/null | wc -l)
check "gnuplot drew the charts ($svgs SVGs)" "$TMP/report.log" test "$svgs" -ge 3
check "one inline SVG per chart" "$D/report.html" \
	test "$(grep -o '<svg ' "$D/report.html" | wc -l)" -eq "$svgs"
# Self-contained: no element that loads anything (the SVG namespace is a name, not a fetch).
check "nothing to fetch: no src=, <link>, <img>, url(http" "$D/report.html" \
	sh -c "! grep -Eq '<(img|link|iframe|object|embed)|src=|url\\((http|//)' '$D/report.html'"

# The probe: the page itself, then a script that writes each chart's laid-out size and how many
# of its elements have a <title> with a value into the DOM that --dump-dom prints.
{ cat "$D/report.html"; cat <<'EOF'
<script>document.body.dataset.sizes=[].map.call(document.querySelectorAll('figure.chart svg'),
function(s){var r=s.getBoundingClientRect();
return Math.round(r.width)+'x'+Math.round(r.height)+'/'+s.querySelectorAll('g:not([id])>title').length}).join(' ');</script>
EOF
} >"$TMP/probe.html"
cp -r "$D/charts" "$TMP/"
browse() { timeout 60 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr \
	--v=0 --window-size=500,900 "$@" 2>>"$TMP/console.log"; }
browse --dump-dom "file://$TMP/probe.html" >"$TMP/dom.html"
check "Chromium rendered the page" "$TMP/console.log" grep -q 'data-sizes=' "$TMP/dom.html"
# the page's console messages (shown on failure); Chromium's own pages (source: chrome://...,
# e.g. "Slow network is detected" on a loaded host) and its log lines are not the page's
check "no console message" "$TMP/console.msgs" sh -c "grep 'CONSOLE' '$TMP/console.log' |
	grep -v 'source: chrome://' >'$TMP/console.msgs'; test ! -s '$TMP/console.msgs'"
check "the key-numbers section comes first" "$TMP/dom.html" \
	sh -c "grep -o '<section id=\"[a-z-]*\"' '$TMP/dom.html' | head -1 | grep -q key-numbers"
sizes=$(sed -n 's/.*data-sizes="\([^"]*\)".*/\1/p' "$TMP/dom.html")
echo "$sizes" | tr ' ' '\n' >"$TMP/sizes"
check "every chart's SVG is laid out at a non-zero size ($sizes)" "$TMP/sizes" \
	sh -c "[ \$(grep -c '^[1-9][0-9]*x[1-9][0-9]*/' '$TMP/sizes') -eq $svgs ]"
check "every chart has points whose value shows on hover (a <title> of their own)" "$TMP/sizes" \
	sh -c "[ \$(grep -c '/[1-9][0-9]*\$' '$TMP/sizes') -eq $svgs ]"
check "a hover text is the point's value" "$TMP/dom.html" \
	grep -q '<title>tcp/s1440/p1/forward, repetition 1: 9.00 Gbit/s</title>' "$TMP/dom.html"
browse --screenshot="$TMP/phone.png" "file://$D/report.html" >/dev/null
check "a screenshot at a phone's width" "$TMP/console.log" test -s "$TMP/phone.png"
[ -n "${NBT_KEEP_SHOT:-}" ] && cp "$TMP/phone.png" "$NBT_KEEP_SHOT"
echo "1..$N"
exit $FAILED

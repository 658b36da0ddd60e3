#!/bin/sh
# unit suite: every number nbrun writes, for people or for machines, reads as a number (issue 28,
# row 5). A results folder of multi-Gbit/s streams whose means are not round (9.3e9 ± noise,
# 16.64 µs) goes through `nbrun report`, every `nbrun export` format and `nbrun compare` (md,
# csv, json, junit); then no file and no warning on stderr holds an exponent (`2.128e+06`,
# `"± 4.42577e+09"`) or the float noise of arithmetic (`16.639999999999997`,
# `0.30000000000000004`), and the texts people read carry units (`16.5 Gbit/s`, not
# `1.653e+10`). Speaks TAP. Environment: NBRUN, NB_SRCDIR (meson sets them).
set -u
NBRUN=$(realpath "${NBRUN:-build/nbrun}")
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
N=0
FAILED=0
. "$SRC/tests/lib/tap.sh"
TMP=$(mktemp -d /tmp/nbt_numbers.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
export NBRUN_GNUPLOT=none
D=$TMP/res
cp -r "$SRC/tests/fixtures/results-basic" "$D" || exit 1
# Means that binary arithmetic cannot hit exactly: the p1 stream at 9.0123, 9.3217, 9.6301
# Gbit/s (one stream, well short of 4), the latency case at 16.63, 16.64, 16.65 µs.
sed -i -e 's/,rx_bps,9e+09,/,rx_bps,9012300000,/' -e 's/,rx_bps,9.3e+09,/,rx_bps,9321700000,/' \
	-e 's/,rx_bps,9.6e+09,/,rx_bps,9630100000,/' \
	-e 's/,lat_p50_us,52,/,lat_p50_us,16.63,/' -e 's/,lat_p50_us,54,/,lat_p50_us,16.64,/' \
	-e 's/,lat_p50_us,50,/,lat_p50_us,16.65,/' "$D/runs.csv"
# The rr case at 1.2 million transactions/s, so that a chart's axis passes 10^6 (gnuplot's %g
# writes that tic as 1e+06): its headline in runs.csv and intervals.csv times 100.
for f in runs.csv intervals.csv; do
	awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "trans_per_s" || $i == "value") c[i] = 1 }
		NR > 1 && $2 ~ /^tcp-rr\// { for (i in c) if ($i != "") $i = $i * 100 } { print }' \
		"$D/$f" >"$TMP/x" && mv "$TMP/x" "$D/$f"
done

"$NBRUN" report "$D" >"$TMP/report.out" 2>"$TMP/report.err"
check "nbrun report builds the folder" "$TMP/report.err" test -s "$D/report.md"
for f in prometheus github-benchmark jsonl csv; do
	"$NBRUN" export "$D" --format "$f" --better bigger -o "$TMP/export.$f" 2>>"$TMP/export.err" ||
		"$NBRUN" export "$D" --format "$f" -o "$TMP/export.$f" 2>>"$TMP/export.err"
done
"$NBRUN" export "$D" --format github-benchmark --better smaller -o "$TMP/export.gh-smaller" \
	2>>"$TMP/export.err"
check "every export format writes its file" "$TMP/export.err" \
	test -s "$TMP/export.prometheus" -a -s "$TMP/export.github-benchmark" -a \
	-s "$TMP/export.jsonl" -a -s "$TMP/export.csv" -a -s "$TMP/export.gh-smaller"
for f in md csv json; do
	"$NBRUN" compare "$D" "$D" --format "$f" --allow-missing >"$TMP/compare.$f" 2>>"$TMP/compare.err"
done
"$NBRUN" compare "$D" "$D" --allow-missing --junit "$TMP/compare.xml" --out "$TMP/cmp.md" \
	>/dev/null 2>>"$TMP/compare.err"
check "nbrun compare writes md, csv, json and junit" "$TMP/compare.err" \
	test -s "$TMP/compare.md" -a -s "$TMP/compare.csv" -a -s "$TMP/compare.json" -a -s "$TMP/compare.xml"

# With gnuplot, the charts as drawn: the SVG's text holds every tic label.
if command -v gnuplot >/dev/null 2>&1; then
	env -u NBRUN_GNUPLOT "$NBRUN" report "$D" >/dev/null 2>>"$TMP/report.err"
	check "gnuplot drew the charts" "$D/charts/gnuplot.log" test -s "$D/charts/ts-tcp-rr-tcp-r32x128-f1.svg"
else
	skip "gnuplot drew the charts" "gnuplot not installed"
fi

# Every file written above, the stderr of each command, the charts' data and scripts.
FILES="$D/report.md $D/summary.csv $D/results.json $D/charts/*.gp $D/charts/*.dat $D/charts/*.svg
	$TMP/export.* $TMP/compare.* $TMP/cmp-charts/compare.gp $TMP/cmp-charts/compare.dat
	$TMP/report.err $TMP/report.out"
# shellcheck disable=SC2086
grep -nE '[0-9]e[+][0-9]' $FILES >"$TMP/exp" 2>&1
check "no exponent in any file or warning (2.128e+06, 4.42577e+09)" "$TMP/exp" test ! -s "$TMP/exp"
# shellcheck disable=SC2086
grep -nE '\.[0-9]*([1-9]0{6,}[1-9]|9{6,})' $FILES >"$TMP/noise" 2>&1
check "no float noise (16.639999999999997, 0.30000000000000004)" "$TMP/noise" test ! -s "$TMP/noise"

check "the single-stream warning gives both rates in Gbit/s" "$D/report.md" \
	grep -q 'one stream reached 9.32 Gbit/s, 39 % of 4 streams (24.0 Gbit/s in' "$D/report.md"
check "github-benchmark's range and stddev carry their unit" "$TMP/export.github-benchmark" \
	grep -q '"range": "± [0-9.]* Mbit/s"' "$TMP/export.github-benchmark"
check "github-benchmark keeps a mean of 16.64 µs as 16.64" "$TMP/export.gh-smaller" \
	grep -q '"value": 16.64,' "$TMP/export.gh-smaller"
check "summary.csv keeps the mean's 15 significant digits" "$D/summary.csv" \
	grep -q ',9321366666.66667,308900134.887205,' "$D/summary.csv"
echo "1..$N"
exit $FAILED

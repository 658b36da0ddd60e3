#!/bin/sh
# unit suite: a compare row shows the statistic its verdict is computed on, and its chart draws
# nothing impossible (issue 28, rows 4 and 10). Folders made from tests/fixtures/compare by
# rewriting runs.csv's value column:
#   - the latency case with 3 runs a side, bimodal (14.9, 14.9, 51.0 µs against 15.4, 15.4,
#     19.1 µs): no 95 % rank CI exists at 3 and 3, so Welch decides on the means (-38 %); the
#     row must show the means, not medians that rose 3 %, and say why the rank test did not
#     decide;
#   - the p1 stream with a wild spread (1 to 30 Gbit/s): Welch's CI reaches past -100 %, a
#     negative throughput; it is cut at -100 % (ratio 0 on the chart) and says n too small.
# Speaks TAP. Environment: NBRUN, NB_SRCDIR (meson sets them).
set -u
NBRUN=$(realpath "${NBRUN:-build/nbrun}")
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
F=$SRC/tests/fixtures/compare
N=0
FAILED=0
. "$SRC/tests/lib/tap.sh"
TMP=$(mktemp -d /tmp/nbt_cmphonest.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
export NBRUN_GNUPLOT=none
P1=tcp-stream/tcp/s128K/p1/forward
LAT=latency/udp/r64/64

# values FOLDER CASE V1 V2 ...: the value of CASE's repetitions 1, 2 ... (kind run); its other
# repetitions are dropped.
values() {
	_d=$1 _c=$2; shift 2
	awk -F, -v OFS=, -v c="$_c" -v list="$*" 'BEGIN { n = split(list, v, " ") }
		NR > 1 && $2 == c && $7 == "run" { if ($6 > n) next; $11 = v[$6] } { print }' \
		"$_d/runs.csv" >"$TMP/x" && mv "$TMP/x" "$_d/runs.csv"
}
cp -r "$F/base" "$TMP/base" && cp -r "$F/same" "$TMP/new" || exit 1
values "$TMP/base" "$LAT" 14.9 14.9 51.0
values "$TMP/new" "$LAT" 15.4 15.4 19.1
values "$TMP/new" "$P1" 1e9 30e9 0.5e9 25e9 1e9
# the dropped repetitions leave the plan's count behind: not a failed batch
"$NBRUN" compare "$TMP/base" "$TMP/new" --allow-missing --out "$TMP/c.md" >/dev/null 2>"$TMP/err"
check "compare writes its Markdown and chart data" "$TMP/err" test -s "$TMP/c.md" -a -s "$TMP/c-charts/compare.dat"
row() { grep -F "| \`$1\` |" "$TMP/c.md"; }
# has FILE TEXT...: FILE holds every TEXT.
has() { _f=$1; shift; for _t; do grep -qF -e "$_t" "$_f" || return 1; done; }
row "$LAT" >"$TMP/lat"
check "a latency row decided by Welch shows the means it compared" "$TMP/lat" \
	grep -qF '| 26.9 ± 20.8 µs | 16.6 ± 2.1 µs | -38.2 %' "$TMP/lat"
check "and never the medians beside a change computed on means" "$TMP/lat" \
	sh -c "! grep -q median '$TMP/lat'"
check "its decided-by cell says why the rank test did not decide" "$TMP/lat" \
	has "$TMP/lat" 'welch t=' '(too few runs for a rank CI: means compared)'
"$NBRUN" compare "$F/base" "$F/same" --out "$TMP/s.md" >/dev/null 2>"$TMP/err2"
grep -F "| \`$LAT\` |" "$TMP/s.md" >"$TMP/lat5"
check "with 5 runs a side the rank test decides and the row shows medians" "$TMP/lat5" \
	grep -qF '| median 45.9 µs | median 45.9 µs |' "$TMP/lat5"

row "$P1" >"$TMP/p1"
check "a CI past -100 % is cut there and says n too small" "$TMP/p1" \
	has "$TMP/p1" '(95 % CI -100.0 to +' ', n too small)'
# compare.dat: case, then ratio lo hi label_y "label" colour per NEW folder
awk -v c="\"$P1" 'index($0, c) == 1' "$TMP/c-charts/compare.dat" >"$TMP/p1dat"
check "the chart's ratio and CI stay at or above 0" "$TMP/p1dat" \
	awk '{ n = split($0, f, "\" "); split(f[2], x, " "); exit !(x[1] >= 0 && x[2] == 0 && x[3] > 1) }' "$TMP/p1dat"
check "the chart's axis starts at 0 at the lowest" "$TMP/c-charts/compare.gp" \
	awk '/^set yrange/ { s = $3; sub(/^\[/, "", s); split(s, r, ":"); lo = r[1] } END { exit !(lo != "" && lo >= 0) }' "$TMP/c-charts/compare.gp"
check "the threshold is named in the key, not by a label that can sit on a bar" "$TMP/c-charts/compare.gp" \
	sh -c "grep -q 'title \"±5 % threshold\"' '$TMP/c-charts/compare.gp' && ! grep -q '^set label' '$TMP/c-charts/compare.gp'"
check "the bars take their verdict's colour, and the key names each colour used" "$TMP/c-charts/compare.gp" \
	sh -c "grep -q 'with boxxyerror fs solid 0.85 lc rgb variable' '$TMP/c-charts/compare.gp' &&
		grep -q 'title \"inconclusive, no data\"' '$TMP/c-charts/compare.gp' &&
		grep -q 'title \"unchanged\"' '$TMP/c-charts/compare.gp'"
echo "1..$N"
exit $FAILED

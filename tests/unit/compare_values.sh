#!/bin/sh
# unit suite: `nbrun compare --names A,B` draws the two systems side by side in real units
# (issue 34): per metric, values-METRIC.dat holds each case's mean and the 95 % CI of that mean
# for each folder, A's bar grey and B's in its verdict's colour (p1 10.5 against 9.41 Gbit/s:
# better beyond 5 %, green; p4 13.9 against 18.6: worse, red), every bar's value as its hover
# text; the Markdown embeds it; a gate comparison draws no such chart. Speaks TAP.
set -u
NBRUN=${NBRUN:-build/nbrun}
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
F=$SRC/tests/fixtures/compare
TMP=$(mktemp -d /tmp/nbcmpab-$$.XXXXXX)
N=0
FAILED=0
export NBRUN_GNUPLOT=none
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
. "$SRC/tests/lib/tap.sh"

# drawn when gnuplot is there: the Markdown embeds a chart only once it is drawn
command -v gnuplot >/dev/null && unset NBRUN_GNUPLOT
"$NBRUN" compare --names A,B "$F/base" "$F/vendor-b" --out "$TMP/ab.md" >"$TMP/out" 2>&1
export NBRUN_GNUPLOT=none
D=$TMP/ab-charts/values-rx_bps.dat
check "neutral compare: exit 0 and a chart of each metric's values" "$TMP/out" \
	test -s "$D" -a -s "$TMP/ab-charts/values-trans_per_s.dat" -a -s "$TMP/ab-charts/values-lat_p50_us.dat"
check "each folder's mean, CI and colour: A grey, B better (green) on p1" "$D" grep -qF \
	'"tcp-stream/tcp/s128K/p1/forward" 9.41 9.36462371 9.45537629 11583173 "A, tcp-stream/tcp/s128K/p1/forward: 9.41 Gbit/s (95 % CI 9.36 – 9.46 Gbit/s), n = 5" 10.5392 10.4883785 10.5900215 3046706 "B, ' "$D"
check "B worse beyond the threshold (red) on p4" "$D" \
	grep -q '^"tcp-stream/tcp/s128K/p4/forward" 18.6 .* 13.95 13.1091403 14.7908597 12986408 "B, ' "$D"
G=$TMP/ab-charts/values-rx_bps.gp
check "bars in their colours, CIs, hover points, the key in neutral words" "$G" sh -c "
	grep -q 'using (\$0-0.2000):2:(0.3600):5 with boxes lc rgb variable' '$G' &&
	grep -q 'using (\$0+0.2000):7:8:9 with yerrorbars' '$G' &&
	grep -q 'using (\$0+0.2000):7:(stringcolumn(11)) with labels hypertext point' '$G' &&
	grep -q 'title \"worse than A beyond the threshold (±5 %)\"' '$G' &&
	grep -q 'set title \"Throughput (received): A vs B, mean and 95 % CI.nA: client-a → 10.0.0.2, 2024-06-01 · B: ' '$G'"
check "the ratio chart's key says it in neutral words too" "$TMP/ab-charts/compare.gp" sh -c "
	grep -q 'title \"worse beyond the threshold\"' '$TMP/ab-charts/compare.gp' &&
	! grep -q 'title \"regression\"' '$TMP/ab-charts/compare.gp'"
if [ -s "$TMP/ab-charts/values-rx_bps.png" ]; then
	check "the Markdown embeds it" "$TMP/ab.md" \
		grep -qF '![rx_bps of each folder](ab-charts/values-rx_bps.png)' "$TMP/ab.md"
else
	skip "the Markdown embeds it" "gnuplot is not installed"
fi
"$NBRUN" compare "$F/base" "$F/vendor-b" --out "$TMP/gate.md" >"$TMP/out2" 2>&1
check "a gate comparison draws no side-by-side chart" "$TMP/out2" \
	sh -c "[ -s '$TMP/gate-charts/compare.dat' ] && ! ls '$TMP/gate-charts/'values-* 2>/dev/null"
echo "1..$N"
exit $FAILED

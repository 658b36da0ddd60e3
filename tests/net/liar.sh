#!/bin/sh
# net suite: impossible counters are refused as results (issue 28 item 9). tests/nb_liar.c is an
# agent that speaks the control protocol through the public calls and runs each test's data
# plane for real, but lies in its INTERVAL and RESULT readings. Against each lie a batch of one
# forward run (the liar receives) must give a row of status suspect (TCP, UDP) or failed
# (nothing received), an error naming the counter and both numbers, no value, no statistic (n
# 0), a warning in the report, and exit 1; against the honest mode, the same harness gives an
# ok row and exit 0. Speaks TAP. Environment: NBRUN, NB_LIAR (paths of the binaries).
set -u
NBRUN=${NBRUN:-build/nbrun}
NB_LIAR=${NB_LIAR:-build/tests/nb_liar}
TMP=$(mktemp -d /tmp/nbt_liar.XXXXXX)
PORT=$((29000 + $$ % 4000))
LIAR_PID=
N=0
FAILED=0
export NBRUN_GNUPLOT=none

cleanup() {
	[ -n "$LIAR_PID" ] && kill "$LIAR_PID" 2>/dev/null && wait "$LIAR_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"

for p in tcp udp; do
	cat >"$TMP/$p.yaml" <<YAML
name: liar-$p
defaults: {duration: 1500ms, warmup: 200ms, interval: 500ms, repetitions: 1}
tests:
  - {name: t, engine: stream, protocol: $p, size: 16K, direction: forward, rate: 200M}
YAML
done
sed -i 's/size: 16K/size: 1400/' "$TMP/udp.yaml"

# against MODE PROTO: a batch against the liar telling MODE lies; its exit code into RC
against() {
	"$NB_LIAR" "$PORT" "$1" 2>"$TMP/liar.err" &
	LIAR_PID=$!
	wait_port "$PORT"
	"$NBRUN" "$TMP/$2.yaml" --peer "127.0.0.1:$PORT" --out "$TMP/$1" -q 2>"$TMP/$1.err"
	RC=$?
	kill "$LIAR_PID"; wait "$LIAR_PID" 2>/dev/null; LIAR_PID=
}

# row DIR STATUS ERROR_PART: the run's row has STATUS, no value, and ERROR_PART in its error;
# summary.csv counts no value for it
row() {
	python3 - "$1" "$2" "$3" <<'PY'
import csv, sys
d, status, part = sys.argv[1:]
r = list(csv.DictReader(open(d + "/runs.csv")))[-1]  # a stalled attempt (busy host) ran again
assert r["status"] == status, (r["status"], r["error"])
assert r["value"] == "", r["value"]
assert part in r["error"], r["error"]
s = next(csv.DictReader(open(d + "/summary.csv")))
assert s["n"] == "0", s["n"]
print(r["error"][:200])
PY
}

echo "1..9"
against honest tcp
check "the honest liar harness: ok row, exit 0 (got $RC)" "$TMP/honest/runs.csv" \
	sh -c "test $RC = 0 && grep -q ',run,,ok,' '$TMP/honest/runs.csv'"

against inflate tcp
check "rx 2000x what was sent: the batch exits 1 (got $RC)" "$TMP/inflate.err" test "$RC" = 1
row "$TMP/inflate" suspect "bytes over the whole flow, more than the client put on the wire" \
	>"$TMP/inflate.row" 2>&1 && ok "... no value, no statistic: $(cat "$TMP/inflate.row")" ||
	nok "inflate row" "$TMP/inflate.row"
check "... and the report warns: impossible counters" "$TMP/inflate/report.md" \
	grep -q "suspect.*impossible counters (1 of 1 runs, status suspect: never a result)" \
	"$TMP/inflate/report.md"

against backwards tcp
row "$TMP/backwards" suspect "went back from" >"$TMP/back.row" 2>&1 &&
	ok "rx_bytes going back: suspect, never a wrap: $(cat "$TMP/back.row")" || nok "backwards row" "$TMP/back.row"
check "... no interval shows a wrapped rate (1e19 bit/s)" "$TMP/backwards/intervals.csv" \
	python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    assert not r["rx_bps"] or float(r["rx_bps"]) < 1e12, r["rx_bps"]' "$TMP/backwards/intervals.csv"

against frozen tcp
row "$TMP/frozen" suspect "counted no byte in the run's window while the senders put" \
	>"$TMP/frozen.row" 2>&1 && ok "rx frozen at 0 while sending: suspect (exit $RC)" ||
	nok "frozen row" "$TMP/frozen.row"
check "... exit 1" "$TMP/frozen.err" test "$RC" = 1

against udp-extra udp
row "$TMP/udp-extra" suspect "datagrams received of the" >"$TMP/udp.row" 2>&1 &&
	ok "UDP: more received than sent: suspect: $(cat "$TMP/udp.row")" || nok "udp row" "$TMP/udp.row"
exit $FAILED

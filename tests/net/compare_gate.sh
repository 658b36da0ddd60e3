#!/bin/sh
# net suite: `nbrun compare` fails closed on results folders that real runs left behind, on
# loopback with the embedded agent:
#  - a NEW batch interrupted (SIGINT) after its first run: exit 3, the folder named;
#  - a NEW batch whose TCP case failed (an MSS the kernel refuses, which only a run finds; an
#    unknown congestion control is refused before the batch by its check): exit 4, the case named;
#  - a NEW batch run with --set mss=536: exit 6, the case and "mss 0 → 536" named;
#  - --allow-missing lets the failed one pass, and each problem still shows in the Markdown.
# Speaks TAP. Environment: NBRUN = path of the nbrun binary (meson sets it).
set -u
NBRUN=${NBRUN:-build/nbrun}
TMP=$(mktemp -d /tmp/nbcmpgate-$$.XXXXXX)
BG_PID=
N=0
FAILED=0
export NBRUN_GNUPLOT=none

cleanup() {
	[ -n "$BG_PID" ] && kill "$BG_PID" 2>/dev/null && wait "$BG_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"

TCP=tp/tcp/s64K/p1/forward
cat >"$TMP/gate.yaml" <<'YAML'
name: gate
defaults: {duration: 1s, warmup: 200ms, interval: 250ms, repetitions: 3}
tests:
  - {name: tp, engine: stream, protocol: tcp, size: 64K, streams: 1}
  - {name: lat, engine: latency, protocol: udp, size: 32, rate: 1000pps}
YAML

# run OUT [ARGS...]: a batch into $TMP/OUT, quiet; its stderr in $TMP/OUT.err. A batch with a
# run that failed on a timeline stall (a starved host: an end's process did not run for a tick)
# runs again, three times in all: the gate's verdicts here are about mss and failures the test
# makes, and a stalled run's exit 4 would come before them.
run() {
	_o=$1; shift
	for _a in 1 2 3; do
		rm -rf "$TMP/$_o"
		"$NBRUN" "$TMP/gate.yaml" --out "$TMP/$_o" -q "$@" 2>"$TMP/$_o.err"
		_rc=$?
		grep -q 'timeline stall' "$TMP/$_o/runs.csv" 2>/dev/null || break
		echo "# $_o: a run failed on a timeline stall: the batch once more"
	done
	return $_rc
}

# compare NEW [ARGS...]: RC, $TMP/cmp.md and $TMP/cmp.err of `nbrun compare base NEW`
compare() {
	_n=$1; shift
	"$NBRUN" compare "$TMP/base" "$TMP/$_n" --out "$TMP/cmp.md" "$@" 2>"$TMP/cmp.err"
	RC=$?
}

echo "1..9"
if run base; then ok "a baseline batch (2 cases x 3 runs)"; else nok "baseline batch" "$TMP/base.err"; fi

# 2-3: interrupted after the first run
"$NBRUN" "$TMP/gate.yaml" --out "$TMP/intr" -q 2>"$TMP/intr.err" &
BG_PID=$!
wait_rows "$TMP/intr/runs.csv" 1
kill -INT "$BG_PID"
wait "$BG_PID"; BG_PID=
compare intr
[ "$RC" -eq 3 ] && ok "an interrupted NEW fails the gate with exit 3" ||
	nok "an interrupted NEW: exit 3 (got $RC)" "$TMP/cmp.err"
grep -q "^nbrun: compare: interrupted: intr: the batch did not finish (meta.json: complete false)" \
	"$TMP/cmp.err" && grep -q '^- \*\*interrupted\*\*: `intr`' "$TMP/cmp.md" &&
	ok "and names the folder on stderr and in the Markdown" || nok "names the interrupted folder" "$TMP/cmp.err"

# 4-6: the TCP case fails in every run (one repetition: a failure takes its time)
run failed --set mss=50 --set repetitions=1
compare failed
[ "$RC" -eq 4 ] && ok "a NEW with a failed case fails the gate with exit 4" ||
	nok "a failed case: exit 4 (got $RC)" "$TMP/cmp.err"
grep -q "^nbrun: compare: failed: $TCP (failed): 1 of 1 runs failed: setsockopt TCP_MAXSEG=50" \
	"$TMP/cmp.err" && grep -q "^- \*\*failed\*\*: \`$TCP\` in \`failed\`: 1 of 1 runs failed" "$TMP/cmp.md" &&
	ok "and names the case on stderr and in the Markdown" || nok "names the failed case" "$TMP/cmp.err"
compare failed --allow-missing
[ "$RC" -ne 3 ] && [ "$RC" -ne 4 ] && [ "$RC" -ne 5 ] && grep -q "allowed by \`--allow-missing\`" "$TMP/cmp.md" &&
	ok "--allow-missing lets it through (exit $RC) and still lists it" ||
	nok "--allow-missing (exit $RC)" "$TMP/cmp.err"

# 7-9: the same case id, another test
run mss --set mss=536 --set repetitions=2
compare mss
[ "$RC" -eq 6 ] && ok "a NEW run with another mss fails the gate with exit 6" ||
	nok "a changed mss: exit 6 (got $RC)" "$TMP/cmp.err"
grep -q "^nbrun: compare: parameters differ: $TCP (mss): mss 0 → 536$" "$TMP/cmp.err" &&
	grep -q "not compared (parameters differ: mss 0 → 536)" "$TMP/cmp.md" &&
	ok "and names the case and the parameter" || nok "names the parameter" "$TMP/cmp.err"
compare mss --expect-diff mss
[ "$RC" -ne 6 ] && ! grep -q "not compared" "$TMP/cmp.md" && grep -q "mss 0 → 536 (expected)" "$TMP/cmp.md" &&
	ok "--expect-diff mss judges it, the difference as context (exit $RC)" ||
	nok "--expect-diff mss (exit $RC)" "$TMP/cmp.err"
exit $FAILED

#!/bin/sh
# net suite: nbrun under a real-time policy on one CPU (`taskset -c 0 chrt -f 20 nbrun ...`, what
# nbrun's own advice for a busy host suggests). A thread under SCHED_FIFO is never preempted by
# one of its own priority: an engine thread that never blocks (an unpaced UDP sender on an
# always-writable socket) would starve the controller thread on that CPU, whose timer ends the
# run and whose handler takes SIGTERM, and the run would never end (it did not, before the
# engines' loops gave their CPU away under such a policy). Every engine, one flow per thread
# and several flows on one thread, runs in process on loopback and must end with its result;
# SIGTERM during an unpaced UDP stream must end the batch (exit 143) with its finished runs on
# disk. A run that does not end is killed after 120 s (a hang, not a timing threshold).
# Speaks TAP. Needs chrt(1) with permission for SCHED_FIFO and taskset(1); skipped otherwise.
# Environment: NBRUN = path of the nbrun binary (meson sets it).
set -u
NBRUN=$(realpath "${NBRUN:-build/nbrun}")
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
TMP=$(mktemp -d /tmp/nbt_rt.XXXXXX)
N=0
FAILED=0
export NBRUN_GNUPLOT=none
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
. "$SRC/tests/lib/tap.sh"

CASES="udp udp2 tcp tcp2 pps pps2 rr udprr crr lat"
echo "1..$(($(echo $CASES | wc -w) + 3))"
if ! taskset -c 0 chrt -f 20 true 2>/dev/null; then
	i=0
	while [ $i -lt $(($(echo $CASES | wc -w) + 3)) ]; do
		skip "runs under SCHED_FIFO on one CPU" "chrt -f or taskset is not available here"
		i=$((i + 1))
	done
	exit 0
fi
RT="taskset -c 0 chrt -f 20"

cat >"$TMP/rt.yaml" <<'YAML'
name: rt-policy
defaults:
  duration: 500ms
  interval: 250ms
  repetitions: 1
tests:
  - { name: udp, engine: stream, protocol: udp, size: 1400 }
  - { name: udp2, engine: stream, protocol: udp, size: 1400, streams: 2, threads: 1 }
  - { name: tcp, engine: stream, protocol: tcp }
  - { name: tcp2, engine: stream, protocol: tcp, streams: 2, threads: 1 }
  - { name: pps, engine: pps }
  - { name: pps2, engine: pps, flows: 2, threads: 1 }
  - { name: rr, engine: rr }
  - { name: udprr, engine: rr, protocol: udp }
  - { name: crr, engine: crr }
  - { name: lat, engine: latency }
YAML
timeout -s KILL 120 $RT "$NBRUN" "$TMP/rt.yaml" --out "$TMP/out" >"$TMP/rt.log" 2>&1
RC=$?
check "the batch ends by itself, exit 0 (exit $RC)" "$TMP/rt.log" test "$RC" = 0
RUNS=$TMP/out/runs.csv
for c in $CASES; do
	check "$c: one run, status ok, a measured value above 0" "$RUNS" awk -F, -v c="$c" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["test"] == c && $col["kind"] == "run" && $col["status"] == "ok" &&
			$col["value"] + 0 > 0 { n++ }
		END { exit !(n == 1) }' "$RUNS"
done

# SIGTERM in the middle of the second case (an unpaced UDP stream of 5 s): the handler runs,
# the batch stops with 143 and the first case's run is on disk.
cat >"$TMP/term.yaml" <<'YAML'
name: rt-term
defaults:
  interval: 250ms
  repetitions: 1
tests:
  - { name: first, engine: stream, protocol: udp, size: 1400, duration: 500ms }
  - { name: long, engine: stream, protocol: udp, size: 1400, duration: 5s }
YAML
timeout -s KILL 120 $RT "$NBRUN" "$TMP/term.yaml" --out "$TMP/term" >"$TMP/term.log" 2>&1 &
PID=$!
i=0
while [ $i -lt 600 ] && ! grep -q '^[0-9]*,long/' "$TMP/term/intervals.csv" 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
kill -TERM $PID 2>/dev/null
wait $PID
RC=$?
check "SIGTERM during an unpaced stream ends the batch (exit $RC, 143 expected)" "$TMP/term.log" \
	test "$RC" = 143
check "the finished case's run is on disk" "$TMP/term/runs.csv" \
	grep -q '^[0-9]*,first/.*,run,,ok,' "$TMP/term/runs.csv"
exit $FAILED

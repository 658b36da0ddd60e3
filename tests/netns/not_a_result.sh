#!/bin/sh
# netns suite: runs that measured but are no result (issue 28 items 1 and 6), across a veth pair
# this test creates. `nbrun serve` runs in one namespace, nbrun in the other.
#  - The client stopped (SIGSTOP) for 2 s in the middle of a TCP reverse run: the run is status
#    invalid with the flag timeline-stall=GAP, its error names the client's late tick, it counts
#    in no statistic, the report's warning names the gap, the catch-up intervals (under half an
#    interval long) have no received rate, and the repetition runs again (that run measures:
#    n 1, exit 0). Then the same with the agent stopped instead: the agent's tick is named.
#  - The agent's end of the veth at MTU 1400, 1400-byte UDP datagrams (1428 B with their
#    headers) from an end at MTU 1500, without GSO: the veth refuses every one (the sender's
#    kernel answers ENOBUFS: sent 0, refused all). (With GSO the segments reached the receiver
#    whole here: a GSO buffer is not held to the peer's MTU.) The run is failed, flagged
#    nothing-received, its jitter empty (not 0 µs), and the warning names the MTU as the likely
#    cause.
# Speaks TAP. Needs root, ip(8) and python3. Environment: NBRUN = path of the nbrun binary.
set -u
NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
veth_test_init nbnr 10.231.97
RUN_PID=

need_root_netns python3
echo "1..14"
trap '[ -n "$RUN_PID" ] && kill -CONT "$RUN_PID" 2>/dev/null; [ -n "$SERVE_PID" ] &&
	kill -CONT "$SERVE_PID" 2>/dev/null; veth_test_cleanup' EXIT
export NBRUN_GNUPLOT=none

veth_pair "$NSA" "$NSB" "$VA" "$VB" "$ADDR_A" "$ADDR_B" &&
	ok "two namespaces joined by a veth pair" || { nok "namespace setup"; exit 1; }
# an agent on a namespace address needs a secret: both ends take it from the environment
make_secret "$TMP/secret" && export NBRUN_SECRET_FILE="$TMP/secret"
serve() {
	ip netns exec "$NSA" "$NBRUN" serve --bind "$ADDR_A" -q 2>>"$TMP/serve.err" &
	SERVE_PID=$!
	wait_listen "$NSA" 7575
}
serve

cat >"$TMP/rev.yaml" <<'YAML'
name: stall
defaults: {duration: 6s, warmup: 500ms, interval: 1s, repetitions: 1}
tests:
  - {name: rev, engine: stream, protocol: tcp, direction: reverse}
YAML

# stall OUT PID: run rev.yaml into $TMP/OUT, stopping process PID (the client's when empty)
# for 2 s once the run's measured window has begun; the run's exit code into RC.
stall() {
	ip netns exec "$NSB" "$NBRUN" "$TMP/rev.yaml" --peer "$ADDR_A" --out "$TMP/$1" -q \
		2>"$TMP/$1.err" &
	RUN_PID=$!
	victim=${2:-$RUN_PID}
	sleep 3
	kill -STOP "$victim"
	sleep 2
	kill -CONT "$victim"
	wait "$RUN_PID"
	RC=$?
	RUN_PID=
}

# field DIR COLUMN: the value of COLUMN in DIR's first runs.csv row
field() {
	python3 -c 'import csv,sys
print(next(csv.DictReader(open(sys.argv[1] + "/runs.csv")))[sys.argv[2]])' "$1" "$2"
}

# judged DIR WHO: the checks of a run whose WHO (client or agent) stopped
judged() {
	d=$TMP/$1
	check "$2 stopped 2 s: the repetition runs again and measures: exit 0 (got $RC)" "$d.err" \
		test "$RC" = 0
	check "$2 stopped: the stalled run is invalid, flagged timeline-stall with the gap, no value" \
		"$d/runs.csv" python3 -c 'import csv,sys
r, *more = list(csv.DictReader(open(sys.argv[1])))
gap = [f for f in r["flags"].split(";") if f.startswith("timeline-stall=")]
assert r["status"] == "invalid" and gap and gap[0].endswith("s"), (r["status"], r["flags"])
assert r["value"] == "", r["value"]
# the attempt that measured; on a busy host a retry may have stalled too
again = more[-1]
assert again["status"] == "ok" and again["rep"] == r["rep"] and again["value"], again
assert all(m["status"] == "invalid" and "timeline-stall=" in m["flags"] for m in more[:-1])' \
	"$d/runs.csv"
	check "$2 stopped: its error names the $2's late tick" "$d/runs.csv" \
		grep -q "timeline stall: the $2's tick [0-9]* came [0-9.]* s late" "$d/runs.csv"
	check "$2 stopped: the statistics count the attempt that measured (n 1), the report warns" \
		"$d/report.md" python3 -c 'import csv,sys
r = next(csv.DictReader(open(sys.argv[1] + "/summary.csv")))
assert r["n"] == "1" and int(r["n_invalid"]) >= 1, (r["n"], r["n_invalid"])
md = open(sys.argv[1] + "/report.md").read()
assert "timeline-stall" in md and "status invalid: left out of the statistics, run again): " \
	"the longest, the '"$2"'" in md, "no warning"' "$d"
}

stall client
judged client client
# the client receives (reverse): its catch-up ticks after the stop come back to back, giving
# intervals of a few milliseconds at most on its clock, whose received rate is no rate
check "client stopped: its catch-up intervals (under half an interval) have no received rate" \
	"$TMP/client/intervals.csv" python3 -c 'import csv,sys
short = [r for r in csv.DictReader(open(sys.argv[1]))
         if r["duration_s"] and float(r["duration_s"]) < 0.5]
assert short, "no catch-up interval"
assert all(r["rx_bps"] == "" and r["rx_bytes"] != "" for r in short), short' \
	"$TMP/client/intervals.csv"
grep '"timeline-stall\|timeline stall' "$TMP/client/runs.csv" | cut -c1-300 | sed 's/^/# /'

stall agent "$SERVE_PID"
judged agent agent

# ---- nothing received: a datagram above the receiving end's MTU ----------------------------
kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null
ip -n "$NSA" link set "$VA" mtu 1400
serve
cat >"$TMP/mtu.yaml" <<'YAML'
name: mtu
defaults: {duration: 2s, warmup: 200ms, interval: 500ms, repetitions: 1}
tests:
  - {name: big, engine: stream, protocol: udp, size: 1400, rate: 10M, gso: off}
YAML
ip netns exec "$NSB" "$NBRUN" "$TMP/mtu.yaml" --peer "$ADDR_A" --out "$TMP/mtu" -q 2>"$TMP/mtu.err"
RC=$?
check "nothing received: the batch exits 1 (got $RC)" "$TMP/mtu.err" test "$RC" = 1
check "nothing received: the run failed, flagged nothing-received, tried and received nothing" \
	"$TMP/mtu/runs.csv" python3 -c 'import csv,sys
r = next(csv.DictReader(open(sys.argv[1])))
assert r["status"] == "failed" and "nothing-received" in r["flags"].split(";"), (r["status"], r["flags"])
tried = float(r["tx_packets"]) + float(r["snd_errs"])
assert tried > 0 and float(r["rx_packets"]) == 0, (r["tx_packets"], r["snd_errs"], r["rx_packets"])
assert r["error"].startswith("nothing received: "), r["error"]' "$TMP/mtu/runs.csv"
check "nothing received: jitter is empty, not 0, in the run and every interval" "$TMP/mtu/runs.csv" \
	python3 -c 'import csv,sys
d = sys.argv[1]
assert next(csv.DictReader(open(d + "/runs.csv")))["jitter_us"] == ""
assert all(r["jitter_us"] == "" for r in csv.DictReader(open(d + "/intervals.csv")))' "$TMP/mtu"
check "nothing received: the warning names the MTU as the likely cause" "$TMP/mtu/report.md" \
	grep -q "nothing-received.*above the MTU 1400 of the peer end" "$TMP/mtu/report.md"
grep -o 'nothing-received[^|]*' "$TMP/mtu/report.md" | head -1 | cut -c1-400 | sed 's/^/# /'
exit $FAILED

#!/bin/sh
# netns suite: `nbrun serve` in one network namespace, `nbrun CONFIG --peer ADDR` in another,
# joined by a veth pair this test creates (and removes on exit). The remote runs must produce
# the same kinds of rows as local mode: TCP forward/reverse and paced UDP, real values, the UDP
# row saying how its rate was kept and with which burst; and every test of
# configs/cloud-vm.yaml (stream, pps, rr, crr, udp rr, latency) must measure.
# Speaks TAP. Needs root and ip(8). Environment: NBRUN = path of the nbrun binary.
set -u
NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
veth_test_init nbst 10.231.78

need_root_netns
echo "1..10"
veth_pair "$NSA" "$NSB" "$VA" "$VB" "$ADDR_A" "$ADDR_B" &&
	ok "two namespaces joined by a veth pair" || { nok "namespace setup"; exit 1; }

ip netns exec "$NSA" "$NBRUN" serve --bind "$ADDR_A" -q 2>"$TMP/serve.err" &
SERVE_PID=$!
wait_listen "$NSA" 7575

cat >"$TMP/veth.yaml" <<'YAML'
name: veth
defaults: {duration: 2s, warmup: 500ms, omit: 500ms, interval: 500ms, repetitions: 1}
tests:
  - {name: tcp, engine: stream, protocol: tcp, size: 64K, streams: 2, direction: [forward, reverse]}
  - {name: udp, engine: stream, protocol: udp, size: 1400, rate: 50M, burst: 100us}
YAML
ip netns exec "$NSB" "$NBRUN" "$TMP/veth.yaml" --peer "$ADDR_A" --out "$TMP/out" -q 2>"$TMP/run.err"
rc=$?
[ $rc -eq 0 ] && ok "nbrun --peer $ADDR_A across the veth pair exits 0" || nok "remote run (rc $rc)" "$TMP/run.err"

# field NAME of the runs.csv row of CASE
field() {
	python3 - "$TMP/out/runs.csv" "$1" "$2" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["case_id"] == sys.argv[2] and r["status"] != "invalid":  # a stalled run ran again
        print(r[sys.argv[3]] or "empty")
PY
}
gt() { python3 -c "import sys; sys.exit(0 if float('$1') > float('$2') else 1)" 2>/dev/null; }

fwd=$(field tcp/tcp/s64K/p2/forward rx_bps)
rev=$(field tcp/tcp/s64K/p2/reverse rx_bps)
gt "$fwd" 0 && ok "TCP forward measured $fwd bit/s" || nok "TCP forward rx_bps = $fwd" "$TMP/out/runs.csv"
gt "$rev" 0 && ok "TCP reverse measured $rev bit/s" || nok "TCP reverse rx_bps = $rev" "$TMP/out/runs.csv"
ach=$(field udp/udp/s1400/p1/forward/r50M achieved_rate)
# A busy host may hold the sender back; then the report must say so (rate-short), never hide it.
if gt "$ach" 48500000; then
	ok "UDP at 50M achieved $ach bit/s"
elif grep -q 'rate-short.*udp/udp/s1400/p1/forward/r50M\|udp/udp/s1400/p1/forward/r50M.*rate-short' "$TMP/out/report.md"; then
	ok "UDP at 50M achieved $ach bit/s, and the report says the sender fell short"
else
	nok "UDP achieved $ach of 50M with no rate-short in the report" "$TMP/out/report.md"
fi
loss=$(field udp/udp/s1400/p1/forward/r50M loss_pct)
[ "$loss" = 0 ] && ok "UDP at 50M over veth lost nothing" || nok "UDP loss $loss %" "$TMP/out/runs.csv"
# A veth has no fq: the pacer of user space kept the rate, with the burst asked for (100 us of
# 50 Mbit/s of 1400 B holds one datagram, 224 us apart: never two at once); plan.csv records it.
python3 - "$TMP/out" >"$TMP/pace.check" 2>&1 <<'PY' && ok "the UDP row says pacing=user with burst=100us, and sent one datagram at a time" || nok "pacing facts" "$TMP/pace.check"
import csv, sys
d = sys.argv[1]
run = [r for r in csv.DictReader(open(d + "/runs.csv")) if r["case_id"] == "udp/udp/s1400/p1/forward/r50M" and r["kind"] == "run"][0]
flags = run["flags"].split(";")
assert "pacing=user" in flags and "burst=100us" in flags, run["flags"]
assert float(run["max_burst"]) == 1, run["max_burst"]
tcp = [r for r in csv.DictReader(open(d + "/runs.csv")) if r["case_id"].startswith("tcp/")]
assert tcp and all(not any(f.startswith(("pacing=", "burst=")) for f in r["flags"].split(";")) for r in tcp), [r["flags"] for r in tcp]
plan = {r["case_id"]: r for r in csv.DictReader(open(d + "/plan.csv"))}
assert plan["udp/udp/s1400/p1/forward/r50M"]["burst_us"] == "100", plan
assert plan["tcp/tcp/s64K/p2/forward"]["burst_us"] == "", plan
PY
python3 - "$TMP/out" <<'PY' && ok "intervals rows per stream and summed; env.json has both ends on the veth" || nok "rows/env" "$TMP/out/intervals.csv"
import csv, json, sys
d = sys.argv[1]
rows = [r for r in csv.DictReader(open(d + "/intervals.csv")) if r["case_id"] == "tcp/tcp/s64K/p2/forward"]
streams = {r["stream"] for r in rows}
assert streams == {"0", "1", "sum"}, streams
env = json.load(open(d + "/env.json"))
assert env["local"]["iface"]["name"].startswith("nbst-"), env["local"]["iface"]["name"]
assert env["peer"]["iface"]["name"].startswith("nbst-"), env["peer"]["iface"]["name"]
PY
# Every test of the vendors' routine, shortened, across the pair.
SRC=${NB_SRCDIR:-$(dirname "$0")/../..}
ip netns exec "$NSB" "$NBRUN" "$SRC/configs/cloud-vm.yaml" --peer "$ADDR_A" --out "$TMP/cloud" -q \
	--set duration=1s --set warmup=200ms --set omit=0s --set interval=500ms --set repetitions=1 \
	2>"$TMP/cloud.err"
rc=$?
[ $rc -eq 0 ] && ok "configs/cloud-vm.yaml runs across the pair" || nok "cloud-vm (rc $rc)" "$TMP/cloud.err"
python3 - "$TMP/cloud/runs.csv" >"$TMP/cloud.check" 2>&1 <<'PY' &&
import csv, math, sys
# a run whose measuring process stalled on a busy host is kept invalid and ran again
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if not (r["status"] == "invalid" and "timeline-stall=" in r["flags"])]
engines = {r["engine"] for r in rows}
assert engines == {"stream", "pps", "rr", "crr", "latency"}, engines
for r in rows:
    v = float(r["value"] or "nan")
    assert r["status"] == "ok" and math.isfinite(v) and v > 0, (r["case_id"], r["status"], r["value"], r["error"])
print(len(rows), "runs")
PY
	ok "every engine measured a real value: $(cat "$TMP/cloud.check")" || nok "cloud-vm rows" "$TMP/cloud.check"
exit $FAILED

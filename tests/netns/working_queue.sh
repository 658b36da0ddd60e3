#!/bin/sh
# netns suite: latency under working conditions against a queue whose delay we know (issue 32).
# client --veth-- router --veth-- server, a tbf of 20 Mbit/s with a 125000-byte queue on the
# router's egress toward the server. A working case: a UDP latency probe alone (idle), then
# beside a loss-based TCP upload (cubic where this host allows it, else reno: both keep the
# queue full) with self probes on its connections, then the same with bbr. The independent measure is the qdisc's own backlog,
# read with `tc -s qdisc` while the load runs: the probe's loaded p50 must be within 20 % of
# its idle p50 + backlog / R (the queue's delay at the rate, a property of the qdisc, not of the
# machine); the load's self probes' loaded p50 at least backlog / R (they wait in the same
# queue, and behind the load's own send buffer); its idle p50 within 1 ms of ping's mean; bbr's inflation below the loss-based one's; the
# load's row names the congestion control that ran; every probe sample in one phase (the
# phases' counts add up to the probe's run). Speaks TAP. Needs root, ip(8), tc(8), python3.
# Environment: NBRUN = path of the nbrun binary (meson sets it), NB_SRCDIR = source root.
set -u
NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
need_root_netns tc python3 ping

P=nbwq-$$
NSC=$P-c NSR=$P-r NSS=$P-s
TMP=$(mktemp -d "/tmp/nbwq-$$.XXXXXX")
SERVE_PID= POLL_PID=
cleanup() {
	[ -n "$POLL_PID" ] && kill "$POLL_PID" 2>/dev/null
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
	for ns in "$NSC" "$NSR" "$NSS"; do ip netns del "$ns" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
RATE=20000000
LIMIT=125000
SERVER=10.232.2.2

echo "1..9"
for ns in "$NSC" "$NSR" "$NSS"; do ip netns add "$ns" && ip -n "$ns" link set lo up; done
veth_link "$NSC" "$NSR" "${P}c" "${P}rc" 10.232.1.2 10.232.1.1 &&
	veth_link "$NSR" "$NSS" "${P}rs" "${P}s" 10.232.2.1 "$SERVER" &&
	ip -n "$NSC" route add default via 10.232.1.1 &&
	ip -n "$NSS" route add default via 10.232.2.1 &&
	ip netns exec "$NSR" sysctl -qw net.ipv4.ip_forward=1 &&
	tc -n "$NSR" qdisc add dev "${P}rs" root tbf rate 20mbit burst 32k limit $LIMIT &&
	ok "client, router and server; tbf 20mbit limit $LIMIT toward the server" ||
	{ nok "namespace setup"; exit 1; }

make_secret "$TMP/secret" && export NBRUN_SECRET_FILE="$TMP/secret"
ip netns exec "$NSS" "$NBRUN" serve --bind "$SERVER" -q 2>"$TMP/serve.err" &
SERVE_PID=$!
wait_listen "$NSS" 7575

LOSSY=reno
grep -qw cubic /proc/sys/net/ipv4/tcp_allowed_congestion_control && LOSSY=cubic
cat >"$TMP/w.yaml" <<YAML
name: working
defaults: {warmup: 500ms, interval: 500ms, repetitions: 1}
tests:
  - name: w
    idle: 1s
    duration: 5s
    omit: 1500ms
    load: {direction: up, streams: 2, congestion: $LOSSY, self: 10}
    probes:
      - {engine: latency, protocol: udp, rate: 50pps}
      - {engine: latency, protocol: tcp, rate: 20pps}
      - {engine: connect, rate: 10pps, port: 7575}
      - {engine: crr, rate: 10pps}
YAML

# the router's queue, every 100 ms while the batch runs (bounded by the batch's end)
( while :; do tc -n "$NSR" -s qdisc show dev "${P}rs"; sleep 0.1; done ) >"$TMP/qdisc.log" 2>&1 &
POLL_PID=$!
NBRUN_GNUPLOT=none ip netns exec "$NSC" "$NBRUN" "$TMP/w.yaml" --peer "$SERVER" \
	--out "$TMP/lossy" -q 2>"$TMP/lossy.err"
rc=$?
kill "$POLL_PID" 2>/dev/null; wait "$POLL_PID" 2>/dev/null; POLL_PID=
[ $rc -eq 0 ] && ok "the $LOSSY working case through the tbf exits 0" || nok "run (rc $rc)" "$TMP/lossy.err"
NBRUN_GNUPLOT=none ip netns exec "$NSC" "$NBRUN" "$TMP/w.yaml" --peer "$SERVER" \
	--set congestion=bbr --out "$TMP/bbr" -q 2>"$TMP/bbr.err"
rc=$?
[ $rc -eq 0 ] && ok "the bbr working case exits 0" || nok "run (rc $rc)" "$TMP/bbr.err"
ip netns exec "$NSC" ping -q -c 20 -i 0.05 "$SERVER" >"$TMP/ping.log" 2>&1

python3 - "$TMP" "$RATE" "$LOSSY" >"$TMP/check.log" 2>&1 <<'PY'
import csv, re, statistics, sys
tmp, rate, lossy = sys.argv[1], float(sys.argv[2]), sys.argv[3]
def rows(d):
    return list(csv.DictReader(open(f"{tmp}/{d}/working.csv")))
def probe(d, phase):
    return next(r for r in rows(d) if r["part"] == "probe1" and r["phase"] == phase)
backlog = [int(m) for m in re.findall(r"backlog (\d+)b", open(f"{tmp}/qdisc.log").read())]
full = [b for b in backlog if b > 0]
q = statistics.median(full) if full else 0.0
idle, loaded = probe("lossy", "idle"), probe("lossy", "loaded")
want = float(idle["p50_us"]) + q * 8 / rate * 1e6
got = float(loaded["p50_us"])
print(f"backlog samples {len(full)} of {len(backlog)}, median {q:.0f} B = {q*8/rate*1e3:.1f} ms at the rate")
print(f"idle p50 {float(idle['p50_us']):.0f} us, loaded p50 {got:.0f} us, expected {want:.0f} us "
      f"({got / want - 1:+.1%})")
assert len(full) >= 10, "the queue was seen holding packets"
open(f"{tmp}/q_ms", "w").write(f"{q * 8 / rate * 1e3}\n")
ok = [abs(got / want - 1) <= 0.20]
# the load's self probes wait in the same queue (and behind the load's own send buffer)
self_p50 = float(next(r for r in rows("lossy") if r["part"] == "self" and r["phase"] == "loaded")["p50_us"])
print(f"self probe loaded p50 {self_p50:.0f} us, the queue alone {q * 8 / rate * 1e6:.0f} us")
ok.append(self_p50 >= q * 8 / rate * 1e6)
assert not any(r["part"] == "self" and r["phase"] == "idle" for r in rows("lossy")), "no idle self probe"
rtt = re.search(r"= [\d.]+/([\d.]+)/", open(f"{tmp}/ping.log").read())
ping_us = float(rtt.group(1)) * 1e3 if rtt else float("nan")
print(f"ping avg {ping_us:.0f} us")
ok.append(abs(float(idle["p50_us"]) - ping_us) <= 1000)
b_loaded = probe("bbr", "loaded")
print(f"inflation p50: {lossy} {float(loaded['inflation_p50_us']):.0f} us, bbr {float(b_loaded['inflation_p50_us']):.0f} us")
ok.append(float(b_loaded["inflation_p50_us"]) < float(loaded["inflation_p50_us"]))
loads = {d: next(r for r in rows(d) if r["part"] == "load") for d in ("lossy", "bbr")}
ok.append(loads["lossy"]["congestion"] == lossy and loads["bbr"]["congestion"] == "bbr")
# every sample in one phase: the phases' counts add up to the probe run's transactions
runs = {r["case_id"]: r for r in csv.DictReader(open(f"{tmp}/lossy/runs.csv"))}
pid = idle["part_case_id"]
total = sum(int(r["samples"]) for r in rows("lossy") if r["part"] == "probe1")
ivals = [r for r in csv.DictReader(open(f"{tmp}/lossy/intervals.csv"))
         if r["case_id"] == pid and r["stream"] == "sum"]
ok.append(total == sum(int(float(r["trans"])) for r in ivals if r["trans"]))
print("checks", ok, "phase samples", total)
sys.exit(0 if all(ok) else 1)
PY
st=$?
sed -n 1,6p "$TMP/check.log" | sed 's/^/# /'
[ $st -eq 0 ] && ok "loaded p50 = idle p50 + backlog/R within 20 %; the self probe's loaded p50 at least backlog/R; idle within 1 ms of ping; bbr inflates less; the rows name the congestion control; phases add up" ||
	nok "the queue's ground truth" "$TMP/check.log"
grep -q "^1,.*,probe1,.*,loaded," "$TMP/lossy/working.csv" && ok "working.csv has the probe's loaded row" ||
	nok "working.csv" "$TMP/lossy/working.csv"
grep -q "w.p1/udp" "$TMP/lossy/runs.csv" && ok "runs.csv has the probe's own row" ||
	nok "runs.csv probe row" "$TMP/lossy/runs.csv"
# the report answers first with the inflation (the worst probe's, from working.csv)
grep -q "^\*\*Under working conditions\*\* \`w/tcp/.*\`: latency +[0-9.]* ms at p50" "$TMP/lossy/report.md" &&
	grep -q "congestion control \`$LOSSY\`" "$TMP/lossy/report.md" &&
	ok "report.md opens its working section with the inflation and names the congestion control" ||
	nok "report.md working section" "$TMP/lossy/report.md"
# (a value under 10 ms is written in µs: bbr's inflation often is)
# compare judges each probe's inflation and the RPM (TCP) of both folders (one run each: the
# change, no CI); the congestion control is the difference meant (without --expect-diff the
# rows are not compared, the parameters differing)
NBRUN_GNUPLOT=none "$NBRUN" compare "$TMP/lossy" "$TMP/bbr" --expect-diff congestion \
	--out "$TMP/compare.md" >"$TMP/cmp.log" 2>&1
grep -q "^## Latency under working conditions" "$TMP/compare.md" &&
	grep -q "^| \`w/tcp/.*\` | bbr | \`w.p1/udp/s32/f1/r50pps\`: inflation p50, lower is better | [^|]* \(ms\|µs\) | [^|]* \(ms\|µs\) | -[0-9.]* % | inconclusive (one run on each side[^|]*) | 1/1 |" "$TMP/compare.md" &&
	ok "compare.md: the probe's inflation in both folders, bbr's below" ||
	nok "compare working section" "$TMP/compare.md"
# RPM (TCP) from the connect, crr and TCP latency probes: under the load each of its round
# trips waits at least once in the full queue, so it is at most 60000 / (backlog/R in ms), 25 %
# allowed (a probe's SYN or segment the full queue drops waits for a retransmission: lower)
python3 - "$TMP/lossy/working.csv" "$TMP/q_ms" >"$TMP/rpm.log" 2>&1 <<'PY'
import csv, sys
r = next(r for r in csv.DictReader(open(sys.argv[1])) if r["part"] == "case")
rpm, idle, q_ms = float(r["rpm_tcp"]), float(r["idle_rpm_tcp"]), float(open(sys.argv[2]).read())
want = 60000 / q_ms
print(f"RPM (TCP) loaded {rpm:.0f} (the queue alone: {want:.0f}, {rpm / want - 1:+.1%}), idle {idle:.0f}")
# crr at 10 transactions/s: 10 x (idle 1 s + duration 5 s) of them, the last maybe in flight
crr = sum(int(x["samples"]) for x in csv.DictReader(open(sys.argv[1]))
          if x["part"] == "probe4" and x["run_id"] == r["run_id"])
print(f"crr transactions {crr} (schedule: 60)")
print("self term from", r["rpm_self"])  # the load runs self probes
sys.exit(0 if 0 < rpm <= 1.25 * want and idle > rpm and 58 <= crr <= 60 and r["rpm_self"] == "self"
         else 1)
PY
st=$?
sed 's/^/# /' "$TMP/rpm.log"
[ $st -eq 0 ] && ok "RPM (TCP) under the load is at most 60000 / the queue's delay (+25 %), below the idle RPM; crr kept its rate" ||
	nok "RPM (TCP)" "$TMP/rpm.log"
exit $FAILED

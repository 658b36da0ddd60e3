#!/bin/sh
# netns suite: a working case (issue 32) beyond one --peer, and its resume. A runner namespace
# joined to two agent namespaces by a veth pair each, an `nbrun serve` in each; what B
# receives goes through a tbf of 10 Mbit/s with a 62500-byte queue (its veth's ingress
# redirected to an ifb), a queue of 50 ms at that rate; A's path has none.
#  - hosts: and paths: local->a, local->b (both address hosts): the load (40 Mbit/s a path, so
#    A's path keeps no queue and B's fills) runs on both paths
#    and each probe on each path's agent: runs.csv has each path's load row and their sum
#    (the parts add up exactly) and each probe run's row, working.csv a probe row per probe and path, naming its path,
#    each probe's phase samples add up to its run's, the load row's throughput is the two
#    paths' flows added up; the probes on B wait in B's queue under the load (loaded p50 at
#    least a quarter of its 50 ms: reno's sawtooth keeps it part full), those on A do not;
#  - a working case with a path between two agents, or an icmp probe on two paths (paths: or
#    --peer twice): one line (the config's line and column for paths:), exit 2, no folder;
#  - resume: a batch of 2 working repetitions (--peer a, a host of hosts:: its probes on
#    companion sessions of a's agent, as with --peer ADDRESS) cut by SIGTERM after the first
#    resumes with the finished repetition's rows kept byte for byte and the rest run:
#    working.csv's runs are the runs that measured before the cut plus the new ones, each repetition ok in runs.csv,
#    and each probe's phase samples add up to its run's.
# Speaks TAP. Needs root, ip(8), tc(8) and python3.
# Environment: NBRUN = path of the nbrun binary (meson sets it), NB_SRCDIR = source root.
set -u
NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
need_root_netns tc python3
P=nbwp-$$
NSR=$P-r NSA=$P-a NSB=$P-b
A=10.234.1.2 B=10.234.2.2
TMP=$(mktemp -d "/tmp/nbwp-$$.XXXXXX")
A_PID= B_PID= BG_PID=
cleanup() {
	for p in $BG_PID $A_PID $B_PID; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for ns in $NSR $NSA $NSB; do ip netns del "$ns" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
export NBRUN_GNUPLOT=none
echo "1..8"

ip netns add "$NSR" && ip netns add "$NSA" && ip netns add "$NSB" &&
	ip -n "$NSR" link set lo up && ip -n "$NSA" link set lo up && ip -n "$NSB" link set lo up &&
	veth_link "$NSR" "$NSA" "${P}ra" "${P}a" 10.234.1.1 "$A" &&
	veth_link "$NSR" "$NSB" "${P}rb" "${P}b" 10.234.2.1 "$B" &&
	ip -n "$NSB" link add "${P}i" type ifb && ip -n "$NSB" link set "${P}i" up &&
	tc -n "$NSB" qdisc add dev "${P}b" handle ffff: ingress &&
	tc -n "$NSB" filter add dev "${P}b" parent ffff: protocol all u32 match u32 0 0 \
		action mirred egress redirect dev "${P}i" &&
	tc -n "$NSB" qdisc add dev "${P}i" root tbf rate 10mbit burst 16kb limit 62500 &&
	ok "a runner namespace and two agent namespaces, B's link a tbf of 10 Mbit/s" || { nok "namespace setup"; exit 1; }
make_secret "$TMP/secret" && export NBRUN_SECRET_FILE="$TMP/secret"
ip netns exec "$NSA" "$NBRUN" serve --bind "$A" -q 2>"$TMP/serve-a.err" &
A_PID=$!
ip netns exec "$NSB" "$NBRUN" serve --bind "$B" -q 2>"$TMP/serve-b.err" &
B_PID=$!
wait_listen "$NSA" 7575
wait_listen "$NSB" 7575

# --- resume: cut after the first of 2 repetitions, then the rest ----------------------------
cat >"$TMP/cut.yaml" <<YAML
name: cut
hosts:
  a: {address: $A}
defaults: {warmup: 0s, interval: 250ms, repetitions: 2}
tests:
  - name: w
    idle: 500ms
    duration: 1s
    omit: 250ms
    load: {direction: up, streams: 1}
    probes:
      - {engine: latency, protocol: udp, rate: 40pps}
      - {engine: latency, protocol: tcp, rate: 20pps}
YAML
ip netns exec "$NSR" "$NBRUN" "$TMP/cut.yaml" --peer a --out "$TMP/cut" -q 2>"$TMP/cut.err" &
BG_PID=$!
wait_rows "$TMP/cut/working.csv" 1
kill -TERM "$BG_PID"; wait "$BG_PID"; rc=$?; BG_PID=
cp "$TMP/cut/working.csv" "$TMP/working.before"
cp "$TMP/cut/runs.csv" "$TMP/runs.before"
ip netns exec "$NSR" "$NBRUN" resume "$TMP/cut" -q 2>"$TMP/resume.err"; rc2=$?
[ "$rc" -eq 143 ] && [ "$rc2" -eq 0 ]
that "a working batch on --peer a (hosts:) cut by SIGTERM (exit 143), then resume: exit 0 (got $rc, $rc2)" "$TMP/resume.err"
python3 - "$TMP" >"$TMP/resume.log" 2>&1 <<'PY'
import csv, sys
t = sys.argv[1]
def rd(p):
    return list(csv.DictReader(open(p)))
before, after = rd(t + "/working.before"), rd(t + "/cut/working.csv")
runs_before, runs = rd(t + "/runs.before"), rd(t + "/cut/runs.csv")
load = "w/tcp/s128K/p1/forward"
# a run that measured (ok, or invalid when a busy host stalled it and it ran again) has its
# working.csv rows; the cut one (interrupted) has none
measured = lambda rows: {r["run_id"] for r in rows if r["case_id"] == load
                         and r["status"] not in ("interrupted", "failed")}
done = measured(runs_before)
last = max(int(r["run_id"]) for r in runs_before)
new = {r for r in measured(runs) if int(r) > last}
oks = sorted(r["rep"] for r in runs if r["case_id"] == load and r["status"] == "ok")
have = {r["run_id"] for r in after}
print("finished", sorted(done), "new", sorted(new), "working.csv", sorted(have), "ok reps", oks)
assert done and new, (done, new)
assert after[:len(before)] == before, "the finished rows are kept as they were"
assert have == done | new, (have, done, new)
assert oks == ["1", "2"], oks
# no self probes on this load: RPM's self term is the TCP latency probe's, and the row says so
assert {x["rpm_self"] for x in after if x["part"] == "case"} == {"standin"}, after
# each probe's phase rows in working.csv add up to its run's samples in intervals.csv
iv = rd(t + "/cut/intervals.csv")
for r in have:
    for p in ("w.p1/udp/s32/f1/r40pps", "w.p2/tcp/s32/f1/r20pps"):
        w = sum(int(x["samples"]) for x in after if x["run_id"] == r and x["part_case_id"] == p)
        i = sum(int(float(x["trans"])) for x in iv if x["run_id"] == r and x["case_id"] == p
                and x["stream"] == "sum" and x["trans"])
        assert w == i and w > 0, (r, p, w, i)
PY
that "resume: working.csv = the finished runs (rows kept) + the new ones, reps 1-2 ok in runs.csv; phases add up" "$TMP/resume.log"

# --- hosts: and paths: the load on both paths, each probe on each ----------------------------
cat >"$TMP/two.yaml" <<YAML
name: two
hosts:
  a: {address: $A}
  b: {address: $B}
defaults: {warmup: 0s, interval: 250ms, repetitions: 1}
tests:
  - name: w
    idle: 500ms
    duration: 2s
    omit: 500ms
    paths: [{from: local, to: a}, {from: local, to: b}]
    load: {direction: up, streams: 1, congestion: reno, rate: 40M}
    probes:
      - {engine: latency, protocol: udp, rate: 40pps}
      - {engine: latency, protocol: tcp, rate: 20pps}
YAML
ip netns exec "$NSR" "$NBRUN" "$TMP/two.yaml" --out "$TMP/two" -q 2>"$TMP/two.err"
rc=$?
[ $rc -eq 0 ] && ok "a working case over hosts: a and b on two paths exits 0" || nok "run (rc $rc)" "$TMP/two.err"
python3 - "$TMP/two" >"$TMP/two.log" 2>&1 <<'PY'
import csv, sys
d = sys.argv[1]
rd = lambda f: list(csv.DictReader(open(f"{d}/{f}")))
runs = rd("runs.csv")
# the last run (a busy host may have stalled an earlier one, run again)
rid = [r["run_id"] for r in runs if r["path"] == "all"][-1]
load = next(r["case_id"] for r in runs if r["path"] == "all")
runs = [r for r in runs if r["run_id"] == rid]
w = [r for r in rd("working.csv") if r["run_id"] == rid]
iv = [r for r in rd("intervals.csv") if r["run_id"] == rid]
lr = {r["path"]: r for r in runs if r["case_id"] == load}
pa, pb, s = lr["local->a"], lr["local->b"], lr["all"]
ra, rb, rs = (float(x["rx_bps"]) for x in (pa, pb, s))
print("load rx_bps a", ra, "b", rb, "all", rs)
assert ra > 0 and rb > 0 and abs(rs - (ra + rb)) <= 1e-6 * rs, "the sum of the paths"
wl = next(r for r in w if r["part"] == "load")
# working.csv's throughput: each path's flow over the loaded intervals, added up
print("working.csv up_bps", wl["up_bps"], "jain", wl["jain"])
assert abs(float(wl["up_bps"]) - (ra + rb)) <= 0.02 * (ra + rb), ("up_bps", wl["up_bps"], ra + rb)
probes = {}
for r in w:
    if r["part"].startswith("probe"):
        probes.setdefault(r["part"], set()).add((r["part_case_id"], r["path"]))
print(probes)
want = {"probe1": ("w.p1/udp/s32/f1/r40pps", "local->a"), "probe2": ("w.p2/tcp/s32/f1/r20pps", "local->a"),
        "probe3": ("w.p1/udp/s32/f1/r40pps", "local->b"), "probe4": ("w.p2/tcp/s32/f1/r20pps", "local->b")}
assert probes == {k: {v} for k, v in want.items()}, probes
for part, (pid, path) in want.items():
    n = sum(int(r["samples"]) for r in w if r["part"] == part)
    t = sum(int(float(r["trans"])) for r in iv if r["case_id"] == pid and r["path"] == part
            and r["stream"] == "sum" and r["trans"])
    print(part, path, "samples", n, "intervals", t)
    assert n == t and n > 0, (part, n, t)
    assert any(r["case_id"] == pid and r["path"] == part for r in runs), part
# each probe on its own path: B's queue holds 62500 B = 50 ms at 10 Mbit/s under the load
q_ms = 62500 * 8 / 10e6 * 1e3
p50 = {p: float(next(r for r in w if r["part"] == p and r["phase"] == "loaded")["p50_us"]) / 1e3
       for p in want}
print("loaded p50 ms", p50, "B's queue", q_ms)
assert p50["probe3"] >= q_ms / 4 and p50["probe4"] >= q_ms / 4, "B's probes in B's queue"
assert p50["probe1"] < q_ms / 4 and p50["probe2"] < q_ms / 4, "A's probes not in B's queue"
# report.md's probe table: a row per probe and path, the path named
md = open(d + "/report.md").read()
for part, (pid, path) in want.items():
    assert "| `%s` | `%s` |" % (pid, path) in md, (part, md)
PY
that "two paths: the load's rows add up, a probe row per probe and path, phases add up, each probe on its own path's queue" "$TMP/two.log"
grep "^loaded p50" "$TMP/two.log" | sed 's/^/# /'

# --- refused before any folder: a path between two agents; an icmp probe on two paths ---------
sed 's/{from: local, to: b}\]/{from: a, to: b}]/' "$TMP/two.yaml" >"$TMP/relay.yaml"
ip netns exec "$NSR" "$NBRUN" "$TMP/relay.yaml" --check --out "$TMP/relay" 2>"$TMP/relay.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/relay.err")" -eq 1 ] && [ ! -e "$TMP/relay" ] &&
	grep -q "relay.yaml:[0-9]*:[0-9]*: a working case measures its probes' round trips on this host: its paths start at local, not at a" "$TMP/relay.err"
that "a working case from a to b: one line with its line and column, exit 2, no folder" "$TMP/relay.err"
sed 's/{engine: latency, protocol: tcp, rate: 20pps}/{engine: icmp, rate: 5pps}/' "$TMP/two.yaml" >"$TMP/icmp.yaml"
ip netns exec "$NSR" "$NBRUN" "$TMP/icmp.yaml" --out "$TMP/icmp" 2>"$TMP/icmp.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/icmp.err")" -eq 1 ] && [ ! -e "$TMP/icmp" ] &&
	grep -q "probe 2 (engine icmp) reaches one host by itself" "$TMP/icmp.err"
that "an icmp probe on two paths: one line, exit 2, no folder" "$TMP/icmp.err"
sed '/paths:/d' "$TMP/icmp.yaml" >"$TMP/peers.yaml"
ip netns exec "$NSR" "$NBRUN" "$TMP/peers.yaml" --peer "$A" --peer "$B" --out "$TMP/peers" 2>"$TMP/peers.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/peers.err")" -eq 1 ] && [ ! -e "$TMP/peers" ] &&
	grep -q "probe 2 (engine icmp) reaches one host by itself, not each of 2 --peer" "$TMP/peers.err"
that "... and on --peer given twice: one line, exit 2, no folder" "$TMP/peers.err"
exit $FAILED

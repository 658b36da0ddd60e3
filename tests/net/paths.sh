#!/bin/sh
# net suite: one case on several paths at once (issue 17): `--peer A --peer B` against two real
# agents on loopback addresses of their own (127.0.0.2, 127.0.0.3), and a third that refuses.
#  - runs.csv has each path's row (path local->HOST) and the run's row over all paths (path
#    all), whose bytes and packets are the paths' added up exactly, run and interval alike;
#  - every path's intervals have the same tick times as the sum's (one start for all);
#  - summary.csv counts the sum only; meta.json names each path with its agent's clock offset
#    and control round trip; the report has the Paths section and the stacked chart's files;
#  - env.json has every agent host's facts by the name its paths use, and the report names them;
#  - a path whose agent cannot take the run fails it, naming that path and why, and the other
#    path's rows are kept (exit 1): its data port range has 2 ports, and a UDP run of 2 flows
#    needs 3 (the hello port and one per flow), which the check, binding one, does not see;
#  - paths between two agents (va->vb, vb->va) and different paths per test in one batch: the
#    sending agent connects on its one-time grant, every datagram is counted (sent = received
#    + lost), each test's rows name its own path; rr between two agents is refused when the
#    config loads (no histograms cross yet), an agent without a secret refuses to send; a
#    sweep on two paths judges the sum.
# Speaks TAP. Environment: NBRUN = path of the nbrun binary (meson sets it).
set -u
NBRUN=$(realpath "${NBRUN:-build/nbrun}")
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
TMP=$(mktemp -d /tmp/nbt_paths.XXXXXX)
BASE=$((29000 + $$ % 3000))
A_PID= B_PID= C_PID= D_PID= E_PID=
N=0
FAILED=0
export NBRUN_GNUPLOT=none

cleanup() {
	for p in $A_PID $B_PID $C_PID $D_PID $E_PID; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "$SRC/tests/lib/tap.sh"
cd "$TMP" || exit 1

# serve ADDR PORT [OPTIONS]: an agent on ADDR:PORT with 20 data ports after PORT
serve() {
	_a=$1 _p=$2; shift 2
	"$NBRUN" serve --bind "$_a" --port "$_p" --data-ports "$((_p + 1))-$((_p + 20))" "$@" \
		2>"$TMP/serve-$_p.err" &
}
serve 127.0.0.2 "$BASE"; A_PID=$!
serve 127.0.0.3 "$((BASE + 30))"; B_PID=$!
serve 127.0.0.4 "$((BASE + 60))" --data-ports "$((BASE + 61))-$((BASE + 62))"; C_PID=$!
wait_port "$BASE"; wait_port "$((BASE + 30))"; wait_port "$((BASE + 60))"
A="127.0.0.2:$BASE" B="127.0.0.3:$((BASE + 30))" C="127.0.0.4:$((BASE + 60))"

cat >"$TMP/paths.yaml" <<'YAML'
name: paths
defaults: {duration: 2s, warmup: 0s, interval: 500ms, repetitions: 1}
tests:
  - {name: u, engine: stream, protocol: udp, size: 1000, rate: 20M}
  - {name: t, engine: stream, protocol: tcp, size: 16K}
YAML
"$NBRUN" "$TMP/paths.yaml" --peer "$A" --peer "$B" --out "$TMP/two" -q 2>"$TMP/two.err"
check "two paths: the batch succeeds (exit 0)" "$TMP/two.err" test $? -eq 0

# py NAME SCRIPT: run a python check over the results folder $TMP/two (argv[1])
py() { python3 - "$TMP/two" "$A" "$B" >"$TMP/py.out" 2>&1 <<PY
import csv, json, sys
d, A, B = sys.argv[1], sys.argv[2], sys.argv[3]
runs = list(csv.DictReader(open(d + "/runs.csv")))
# a run whose measuring process stalled on a busy host is kept invalid and ran again: leave it
stalled = {r["run_id"] for r in runs if r["path"] == "all" and r["status"] == "invalid" and
           "timeline-stall=" in r["flags"]}
runs = [r for r in runs if r["run_id"] not in stalled]
ivs = [i for i in csv.DictReader(open(d + "/intervals.csv")) if i["run_id"] not in stalled]
$2
PY
check "$1" "$TMP/py.out" test $? -eq 0
}

py "runs.csv: every case has one row per path and one over all paths (path all)" '
for rid in {r["run_id"] for r in runs}:
    paths = sorted(r["path"] for r in runs if r["run_id"] == rid)
    assert paths == sorted(["all", "local->" + A, "local->" + B]), paths
assert all(r["status"] == "ok" for r in runs), [r["error"] for r in runs]'

py "UDP: the sum row's bytes and packets are the paths' added up exactly" '
cols = ["tx_bytes", "rx_bytes", "tx_packets", "rx_packets", "lost"]
u = [r for r in runs if r["engine"] == "stream" and r["protocol"] == "udp"]
s = [r for r in u if r["path"] == "all"][0]
parts = [r for r in u if r["path"] != "all"]
for c in cols:
    assert float(s[c]) == sum(float(p[c]) for p in parts), (c, s[c], [p[c] for p in parts])
assert all(float(p["tx_packets"]) > 0 for p in parts), "a path sent nothing"'

py "UDP: each interval of the sum is its paths' intervals added up exactly" '
rid = [r for r in runs if r["protocol"] == "udp" and r["path"] == "all"][0]["run_id"]
rows = [i for i in ivs if i["run_id"] == rid and i["stream"] == "sum"]
sums = [i for i in rows if i["path"] == "all"]
assert len(sums) == 4, len(sums)
for s in sums:
    parts = [i for i in rows if i["path"] != "all" and i["t_start"] == s["t_start"]]
    assert len(parts) == 2, parts
    for c in ["tx_packets", "rx_packets", "tx_bytes"]:
        assert float(s[c]) == sum(float(p[c]) for p in parts), (c, s["t_start"])'

py "every path has the same tick times as the sum (one start for all)" '
for rid in {r["run_id"] for r in runs}:
    ticks = {}
    for i in ivs:
        if i["run_id"] == rid and i["stream"] == "sum":
            ticks.setdefault(i["path"], []).append((i["t_start"], i["t_end"]))
    assert len(ticks) == 3, ticks.keys()
    first = sorted(ticks["all"])
    assert all(sorted(t) == first for t in ticks.values()), ticks'

py "summary.csv counts the sum only (n = 1 per case)" '
rows = list(csv.DictReader(open(d + "/summary.csv")))
assert len(rows) == 2 and all(r["n"] == "1" for r in rows), rows'

py "meta.json: each path with its agent clock offset and control round trip" '
m = json.load(open(d + "/meta.json"))
names = [p["name"] for p in m["paths"]]
assert names == ["local->" + A, "local->" + B], names
for p in m["paths"]:
    assert isinstance(p["clock_offset_us"], float), p
    assert p["control_rtt_us"] > 0, p
    assert abs(p["clock_offset_us"]) < p["control_rtt_us"] / 2 + 1000, p  # one host, one clock'

py "results.json: per-path values of each case" '
r = json.load(open(d + "/results.json"))
for c in r["summary"]:
    assert [p["path"] for p in c["paths"]] == ["local->" + A, "local->" + B], c["paths"]
    assert all(p["n"] == 1 for p in c["paths"])'

py "env.json: both agent hosts by name, with facts; peer is the first; differences a list" '
e = json.load(open(d + "/env.json"))
assert list(e["hosts"]) == [A, B], list(e["hosts"])
for h in (A, B):
    assert e["hosts"][h]["host"]["kernel"] == e["local"]["host"]["kernel"], h  # one machine
assert e["peer"] == e["hosts"][A]
assert isinstance(e["differences"], list)
assert all(set(x["values"]) == {"local", A, B} for x in e["differences"]), e["differences"]'

check "the report names both hosts and their differences (or that there are none)" \
	"$TMP/two/report.md" sh -c "grep -qF '**Hosts:** local (runner); agents: \`$A\`, \`$B\`.' \
	'$TMP/two/report.md' && grep -q '^### Differences between hosts' '$TMP/two/report.md'"

check "the report has the Paths section and the stacked chart files" "$TMP/two/report.md" \
	sh -c "grep -q '^## Paths' '$TMP/two/report.md' && ls '$TMP/two/charts/'paths-u-*.gp >/dev/null"

# --- a path that fails ---------------------------------------------------------------------
cat >"$TMP/wide.yaml" <<'YAML'
name: wide
defaults: {duration: 1s, warmup: 0s, interval: 500ms, repetitions: 1}
tests:
  - {name: w, engine: stream, protocol: udp, size: 1000, rate: 10M, streams: 2}
YAML
"$NBRUN" "$TMP/wide.yaml" --peer "$A" --peer "$C" --out "$TMP/fail" -q 2>"$TMP/fail.err"
check "a refused path fails the run: exit 1" "$TMP/fail.err" test $? -eq 1
python3 - "$TMP/fail" "$A" "$C" >"$TMP/py.out" 2>&1 <<'PY'
import csv, sys
d, A, C = sys.argv[1], sys.argv[2], sys.argv[3]
runs = {r["path"]: r for r in csv.DictReader(open(d + "/runs.csv"))}
why = runs["local->" + C]["error"]
assert runs["local->" + C]["status"] == "failed", runs
assert "UDP data hello to " + C.split(":")[0] in why, why
assert runs["all"]["status"] == "failed"
assert runs["all"]["error"] == "path local->" + C + ": " + why, runs["all"]["error"]
good = runs["local->" + A]
assert float(good["tx_packets"]) > 0, good
PY
check "the failed path is named with its reason, the other path's row kept" "$TMP/py.out" \
	test $? -eq 0

# --- interrupted, then resumed on the same paths ------------------------------------------
cat >"$TMP/four.yaml" <<'YAML'
name: four
defaults: {duration: 1s, warmup: 0s, interval: 250ms, repetitions: 4}
tests:
  - {name: u, engine: stream, protocol: udp, size: 1000, rate: 10M}
YAML
"$NBRUN" "$TMP/four.yaml" --peer "$A" --peer "$B" --out "$TMP/cut" -q 2>"$TMP/cut.err" &
BG=$!
wait_rows "$TMP/cut/runs.csv" 6
kill -TERM "$BG"; wait "$BG"; rc=$?
check "SIGTERM stops every path of the run: exit 143" "$TMP/cut.err" test $rc -eq 143
"$NBRUN" resume "$TMP/cut" -q 2>"$TMP/resume.err"
python3 - "$TMP/cut" "$A" "$B" >"$TMP/py.out" 2>&1 <<'PY'
import csv, sys
d, A, B = sys.argv[1], sys.argv[2], sys.argv[3]
rows = list(csv.DictReader(open(d + "/runs.csv")))
ok = [r for r in rows if r["status"] == "ok"]
for p in ("all", "local->" + A, "local->" + B):
    assert sum(r["path"] == p for r in ok) == 4, (p, [(r["run_id"], r["path"], r["status"]) for r in rows])
assert all(r["status"] in ("ok", "interrupted") or "timeline-stall=" in r["flags"] for r in rows), rows
PY
check "nbrun resume goes on on both recorded paths: 4 ok rows per path and for the sum" \
	"$TMP/py.out" test $? -eq 0

# --- the same paths from the config: hosts: and paths: instead of --peer ---------------------
cat >"$TMP/cfgpaths.yaml" <<YAML
name: cfgpaths
hosts:
  va: { address: 127.0.0.2, port: $BASE }
  vb: { address: 127.0.0.3, port: $((BASE + 30)) }
defaults: {duration: 1s, warmup: 0s, interval: 500ms, repetitions: 1}
tests:
  - name: u
    engine: stream
    protocol: udp
    size: 1000
    rate: 10M
    paths: [{from: local, to: va}, {from: local, to: vb}]
YAML
"$NBRUN" "$TMP/cfgpaths.yaml" --out "$TMP/cfgpaths" -q 2>"$TMP/cfgpaths.err"
check "paths: from the config run without --peer (exit 0)" "$TMP/cfgpaths.err" test $? -eq 0
python3 - "$TMP/cfgpaths" >"$TMP/py.out" 2>&1 <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/runs.csv")))
stalled = {r["run_id"] for r in rows if r["status"] == "invalid" and "timeline-stall=" in r["flags"]}
rows = [r for r in rows if r["run_id"] not in stalled]  # ran again: the retry is the run
assert sorted(r["path"] for r in rows) == ["all", "local->va", "local->vb"], rows
assert all(r["status"] == "ok" for r in rows), rows
by = {r["path"]: r for r in rows}
assert float(by["all"]["rx_packets"]) == float(by["local->va"]["rx_packets"]) + float(by["local->vb"]["rx_packets"])
import json
assert list(json.load(open(sys.argv[1] + "/env.json"))["hosts"]) == ["va", "vb"]
PY
check "each config path has its rows, named by host, the sum adds them, env.json names both hosts" "$TMP/py.out" test $? -eq 0
# --- between two agents, and different paths per test in one batch -------------------------
# rr between two agents is refused when the config loads (its histograms do not cross), at the
# path's place, before any host is reached.
cat >"$TMP/r2r-rr.yaml" <<YAML
name: r2r-rr
hosts:
  va: { address: 127.0.0.5, port: 9 }
  vb: { address: 127.0.0.6, port: 9 }
tests:
  - {name: rtt, engine: rr, protocol: tcp, paths: [{from: va, to: vb}]}
YAML
"$NBRUN" "$TMP/r2r-rr.yaml" --out "$TMP/r2r-rr" -q 2>"$TMP/r2r-rr.err"
check "rr on a path between two agents is refused at file:line:col before anything runs (exit 2)" \
	"$TMP/r2r-rr.err" sh -c "test $? -eq 2 && grep -qxF 'nbrun: $TMP/r2r-rr.yaml:6:52: engine rr \
measures round trips at its client end: it runs on paths from local only, not from va (expected \
from: local)' '$TMP/r2r-rr.err' && ! test -e '$TMP/r2r-rr/runs.csv'"
# Two agents with a secret (an agent sends to an address a client names only then), and C
# without one: it may receive, and refuses to send.
head -c 32 /dev/urandom | base64 >"$TMP/secret"
chmod 600 "$TMP/secret"
serve 127.0.0.5 "$((BASE + 90))" --secret-file "$TMP/secret"; D_PID=$!
serve 127.0.0.6 "$((BASE + 120))" --secret-file "$TMP/secret"; E_PID=$!
wait_port "$((BASE + 90))"; wait_port "$((BASE + 120))"
cat >"$TMP/r2r.yaml" <<YAML
name: r2r
hosts:
  va: { address: 127.0.0.5, port: $((BASE + 90)), secret_file: $TMP/secret }
  vb: { address: 127.0.0.6, port: $((BASE + 120)), secret_file: $TMP/secret }
  vc: { address: 127.0.0.4, port: $((BASE + 60)) }
defaults: {duration: 1s, warmup: 0s, interval: 500ms, repetitions: 1}
tests:
  - name: sweep
    engine: stream
    protocol: udp
    size: 1000
    sweep: {rate: {steps: [2M, 4M]}, trial: 1s}
    paths: [{from: va, to: vb}, {from: local, to: vc}]
  - {name: relay, engine: stream, protocol: udp, size: 1000, rate: 10M, paths: [{from: va, to: vb}]}
  - {name: back, engine: stream, protocol: tcp, size: 16K, paths: [{from: vb, to: va}]}
  - {name: out, engine: stream, protocol: udp, size: 1000, rate: 5M, paths: [{from: local, to: vb}]}
  - {name: open, engine: stream, protocol: udp, size: 1000, rate: 1M, paths: [{from: vc, to: va}]}
YAML
"$NBRUN" "$TMP/r2r.yaml" --out "$TMP/r2r" -q 2>"$TMP/r2r.err"
check "paths between two agents and different paths per test run in one batch (exit 1: refusals)" \
	"$TMP/r2r.err" test $? -eq 1
python3 - "$TMP/r2r" >"$TMP/py.out" 2>&1 <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/runs.csv")))
by = {(r["test"], r["path"]): r for r in rows}
assert sorted(by) == sorted([("relay", "va->vb"), ("relay", "all"), ("back", "vb->va"),
    ("back", "all"), ("out", "local->vb"), ("out", "all"), ("sweep", "all"), ("sweep", "va->vb"),
    ("sweep", "local->vc"), ("open", "vc->va"), ("open", "all")]), sorted(by)
u = by[("relay", "va->vb")]
assert u["status"] == "ok", u["error"]
tx, rx, lost = float(u["tx_packets"]), float(u["rx_packets"]), float(u["lost"])
assert tx > 1000 and tx == rx + lost, (tx, rx, lost)
assert float(u["tx_bytes"]) == tx * 1000, u["tx_bytes"]
assert float(by[("relay", "all")]["rx_packets"]) == rx
t = by[("back", "vb->va")]
assert t["status"] == "ok" and float(t["rx_bytes"]) > 0, t
assert float(by[("out", "local->vb")]["rx_packets"]) > 0
o = by[("open", "vc->va")]  # no secret: any client could make vc send anywhere
assert o["status"] == "failed" and o["error"].startswith("agent vc (127.0.0.4:") and "was reached without a secret: it sends to no address a runner names" in o["error"], o["error"]
import json
e = json.load(open(sys.argv[1] + "/env.json"))
assert sorted(e["hosts"]) == ["va", "vb", "vc"], list(e["hosts"])  # a sending agent is a host too
PY
check "a path between two agents counts every datagram, its own rows; an agent without a secret refuses to send" \
	"$TMP/py.out" test $? -eq 0
python3 - "$TMP/r2r" >"$TMP/py.out" 2>&1 <<'PY'
import csv, json, sys
d = sys.argv[1]
rows = [r for r in csv.DictReader(open(d + "/runs.csv")) if r["test"] == "sweep"]
trials = [r for r in rows if r["path"] == "all"]
# each trial has a row per path beside the sum's: same run, rate and status, its own counts,
# and the sum's are theirs added up exactly
for r in trials:
    parts = [p for p in rows if p["run_id"] == r["run_id"] and p["path"] != "all"]
    assert sorted(p["path"] for p in parts) == ["local->vc", "va->vb"], parts
    for p in parts:
        assert (p["kind"], p["offered_rate"], p["status"]) == ("trial", r["offered_rate"], r["status"]), p
        assert float(p["tx_packets"]) > 0, p
        assert "pacing=" in p["flags"], p["flags"]  # its own sender's facts, path 0's too
    for col in ("tx_packets", "rx_packets", "lost", "tx_bytes"):
        assert float(r[col]) == sum(float(p[col]) for p in parts), (col, r[col], [p[col] for p in parts])
# Each step in order: invalid trials (a sender stall on a busy machine) retried at the same
# rate until one is ok, or until the retries are spent (then the step has no ok trial: on a
# machine too busy to pace 2 Mbit/s the sweep says so instead of passing a stalled trial).
steps = []
for r in trials:
    if not steps or steps[-1][0] != r["offered_rate"] or steps[-1][1][-1]["status"] == "ok":
        steps.append((r["offered_rate"], []))
    steps[-1][1].append(r)
assert [rate for rate, _ in steps] == ["2000000", "4000000"], [(r["offered_rate"], r["status"]) for r in trials]
# A rate above one whose every attempt fell short is tried once (the generator's limit is below it).
unreached = False
for rate, tries in steps:
    assert all(t["status"] == "invalid" for t in tries[:-1]), (rate, [t["status"] for t in tries])
    assert tries[-1]["status"] == "ok" or len(tries) == (1 if unreached else 3), \
        (rate, [t["status"] for t in tries], [(r["offered_rate"], r["status"]) for r in trials])
    unreached = unreached or tries[-1]["status"] != "ok"
# A trial a sender stall made invalid (a busy machine) is retried at the same rate: the search
# is not fooled by it, and its row is counted exactly all the same.
for i, r in enumerate(trials):
    tx, rx, lost = float(r["tx_packets"]), float(r["rx_packets"]), float(r["lost"])
    assert tx > 0 and tx == rx + lost, r
    if r["status"] != "ok":
        nxt = trials[i + 1]
        assert r["status"] == "invalid" and nxt["offered_rate"] == r["offered_rate"] and \
            "retry=" in nxt["flags"], (r["status"], r["flags"], nxt["flags"])
s = json.load(open(d + "/sweeps.json"))["sweeps"][0]
assert s["flows"] == 2 and "2 paths" in s["sentence"], s
PY
check "a sweep on two paths offers every flow of both the rate; each trial has a row per path and the sum of them, exact" \
	"$TMP/py.out" test $? -eq 0
check "the report's sweep section has each trial on each path" "$TMP/r2r/report.md" \
	sh -c "grep -q '^Each trial on each path' '$TMP/r2r/report.md' &&
	test \$(grep -c '^| [0-9]* | va->vb | ' '$TMP/r2r/report.md') -ge 2 &&
	test \$(grep -c '^| [0-9]* | local->vc | ' '$TMP/r2r/report.md') -ge 2"
check "both agents log the relay run as ok: va sent it on its grant, vb received it" \
	"$TMP/serve-$((BASE + 90)).err" sh -c "grep -q 'run [0-9]* relay/udp.*: ok' \
	'$TMP/serve-$((BASE + 90)).err' && grep -q 'run [0-9]* relay/udp.*: ok' \
	'$TMP/serve-$((BASE + 120)).err'"

# Every agent ends cleanly on SIGTERM; under scripts/sanitize an agent's ASan/UBSan report
# (its stderr, not the runner's) would otherwise go unseen.
for p in $A_PID $B_PID $C_PID $D_PID $E_PID; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
A_PID= B_PID= C_PID= D_PID= E_PID=
cat "$TMP"/serve-*.err >"$TMP/serve-all.err"
check "no agent reported a sanitizer finding or a runtime error" "$TMP/serve-all.err" \
	sh -c "! grep -q -E 'Sanitizer|runtime error' '$TMP/serve-all.err'"

echo "1..$N"
exit $FAILED

#!/bin/sh
# net suite: the shipped configs/working.yaml, shortened, against the embedded agent on
# loopback (issue 32): the load on the agent's session, the UDP and TCP latency probes on
# companion sessions beside it, the ICMP probe with no agent. Every probe has its own row in
# runs.csv and its idle and loaded rows in working.csv, the load its row with both directions
# and Jain's index, the case its row; report.md opens its working section with the inflation.
# Speaks TAP. Environment: NBRUN = path of the nbrun binary (meson sets it), NB_SRCDIR.
set -u
NBRUN=$(realpath "${NBRUN:-build/nbrun}")
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
TMP=$(mktemp -d /tmp/nbt_working.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
N=0
FAILED=0
export NBRUN_GNUPLOT=none
. "$SRC/tests/lib/tap.sh"
echo "1..3"

"$NBRUN" -q "$SRC/configs/working.yaml" --set idle=1s --set duration=2s --set omit=500ms \
	--set repetitions=1 --set warmup=0s --set streams=1 --out "$TMP/out" 2>"$TMP/run.err"
rc=$?
# a busy host may leave a probe run invalid (a stalled tick): exit 1 then, its rows still there
[ $rc -eq 0 ] || [ $rc -eq 1 ] && ok "the working case runs on the embedded agent (exit $rc)" ||
	nok "run (rc $rc)" "$TMP/run.err"

python3 - "$TMP/out" >"$TMP/check.log" 2>&1 <<'PY'
import csv, sys
d = sys.argv[1]
w = list(csv.DictReader(open(d + "/working.csv")))
runs = list(csv.DictReader(open(d + "/runs.csv")))
probes = {r["part_case_id"] for r in w if r["part"].startswith("probe")}
print(probes)
assert probes == {"rrul.p1/udp/s32/f1/r20pps", "rrul.p2/tcp/s32/f1/r20pps",
                  "rrul.p3/icmp/s56/f1/r5pps"}, probes
for p in probes:
    phases = {r["phase"] for r in w if r["part_case_id"] == p}
    assert {"idle", "loaded"} <= phases, (p, phases)
    assert any(r["case_id"] == p and r["path"].startswith("probe") for r in runs), p
load = next(r for r in w if r["part"] == "load")
assert float(load["up_bps"]) > 0 and float(load["down_bps"]) > 0, load
assert 0.5 <= float(load["jain"]) <= 1.0, load
assert any(r["part"] == "case" for r in w)
PY
[ $? -eq 0 ] && ok "runs.csv has each probe's row, working.csv its phases, the load both ways" ||
	nok "rows" "$TMP/check.log"
grep -q '^\*\*Under working conditions\*\* `rrul/tcp/s128K/p1/bidir`: latency +' "$TMP/out/report.md" &&
	ok "report.md opens its working section with the inflation" || nok "report.md" "$TMP/out/report.md"
exit $FAILED

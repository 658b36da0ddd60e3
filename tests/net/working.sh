#!/bin/sh
# net suite: the shipped configs/working.yaml, shortened, against the embedded agent on
# loopback (issue 32): the load on the agent's session, the UDP and TCP latency probes on
# companion sessions beside it, the ICMP probe with no agent, the connect probe (no port:) to
# the agent's control port, so the case has its RPM (TCP). Every probe has its own row in
# runs.csv and its idle and loaded rows in working.csv, the load its row with both directions
# and Jain's index, the case its row; report.md opens its working section with the inflation.
# Two repetitions, so the report has its box plots and each probe's CDF from the phase
# histograms it keeps (latency/run-<id>-probeN.csv), and compare judges inflation with a CI.
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
echo "1..13"

# A busy host may stall a repetition (a late tick with the process descheduled): the batch runs
# it again, twice at most, and exits 1 when every attempt stalled; then the whole batch runs
# again, three times in all, since the checks below want both repetitions measured.
for attempt in 1 2 3; do
	rm -rf "$TMP/out"
	"$NBRUN" -q "$SRC/configs/working.yaml" --set idle=1s --set duration=2s --set omit=500ms \
		--set repetitions=2 --set warmup=0s --set streams=1 --out "$TMP/out" 2>"$TMP/run.err"
	rc=$?
	[ $rc -eq 1 ] && grep -q 'timeline stall' "$TMP/out/runs.csv" 2>/dev/null || break
	echo "# attempt $attempt: a repetition stalled in every attempt: once more"
done
[ $rc -eq 0 ] && ok "the working case runs on the embedded agent" || nok "run (rc $rc)" "$TMP/run.err"

python3 - "$TMP/out" >"$TMP/check.log" 2>&1 <<'PY'
import csv, sys
d = sys.argv[1]
w = list(csv.DictReader(open(d + "/working.csv")))
runs = list(csv.DictReader(open(d + "/runs.csv")))
probes = {r["part_case_id"] for r in w if r["part"].startswith("probe")}
print(probes)
assert probes == {"rrul.p1/udp/s32/f1/r20pps", "rrul.p2/tcp/s32/f1/r20pps",
                  "rrul.p3/icmp/s56/f1/r5pps", "rrul.p4/tcp/portagent/f1/r5pps",
                  "rrul.p5/tcp/q32r128/f1/r5pps"}, probes
# the connect probe without port: handshakes with the embedded agent's control port
conn = [r for r in w if r["part_case_id"] == "rrul.p4/tcp/portagent/f1/r5pps"]
assert all(int(r["samples"]) > 0 for r in conn), conn
case = [r for r in w if r["part"] == "case"]
assert all(float(r["rpm_tcp"]) > 0 for r in case), case
for p in probes:
    phases = {r["phase"] for r in w if r["part_case_id"] == p}
    assert {"idle", "loaded"} <= phases, (p, phases)
    assert any(r["case_id"] == p and r["path"].startswith("probe") for r in runs), p
load = next(r for r in w if r["part"] == "load")
assert float(load["up_bps"]) > 0 and float(load["down_bps"]) > 0, load
assert 0.5 <= float(load["jain"]) <= 1.0, load
# the shipped load runs self probes (self: 10): RPM's self term is theirs, and the row says so
assert [r["rpm_self"] for r in w if r["part"] == "case"] == ["self"] * len(
    {r["run_id"] for r in w}), [r for r in w if r["part"] == "case"]
PY
[ $? -eq 0 ] && ok "runs.csv has each probe's row, working.csv its phases, the load both ways" ||
	nok "rows" "$TMP/check.log"
grep -q '^\*\*Under working conditions\*\* `rrul/tcp/s128K/p1/bidir/self10`: latency +' "$TMP/out/report.md" &&
	ok "report.md opens its working section with the inflation" || nok "report.md" "$TMP/out/report.md"

# The phase histograms on disk are the rows' own samples; each probe's CDF chart comes from them.
python3 - "$TMP/out" >"$TMP/cdf.log" 2>&1 <<'PY'
import csv, glob, math, os, sys
d = sys.argv[1]
w = list(csv.DictReader(open(d + "/working.csv")))
runs = {r["run_id"] for r in csv.DictReader(open(d + "/runs.csv"))
        if r["status"] == "ok" and r["kind"] == "run" and r["path"] in ("", "all")}
for r in w:
    if not r["part"].startswith("probe") or r["phase"] not in ("idle", "loaded"):
        continue
    rows = [x for x in csv.DictReader(open("%s/latency/run-%s-%s.csv" % (d, r["run_id"], r["part"])))
            if x["phase"] == r["phase"] and x["bucket_lower_ns"]]
    n = sum(int(x["count"]) for x in rows)
    assert n == int(r["samples"]), (r, n)
    # the p50 of working.csv lies in the bucket where the counts reach rank ceil(n/2)
    p50, cum = float(r["p50_us"]) * 1e3, 0
    for x in sorted(rows, key=lambda x: int(x["bucket_lower_ns"])):
        cum += int(x["count"])
        if cum >= math.ceil(n / 2):
            break
    below = [int(x["bucket_lower_ns"]) for x in rows if int(x["bucket_lower_ns"]) <= p50]
    assert max(below) == int(x["bucket_lower_ns"]), (r, x, p50)
def blocks(path):
    out, cur = [], None
    for line in open(path):
        if line.startswith(("# series:", "# hover:", "# the boxes")):
            cur = []; out.append(cur)
        elif line.strip() and not line.startswith("#") and cur is not None:
            cur.append(line.split(None, 2))
    return out
for p in ("probe1", "probe2", "probe3"):
    dat = glob.glob(d + "/charts/working-cdf-*-%s.dat" % p)
    assert len(dat) == 1 and os.path.getsize(dat[0]) > 0, dat
    assert os.path.getsize(dat[0][:-4] + ".gp") > 0
    b = blocks(dat[0])
    for k, phase in ((0, "idle"), (1, "loaded")):
        cdf, hover = b[k], b[2 + k]
        assert float(cdf[-1][1]) == 1.0, (p, phase, cdf[-1])
        # its points are the merged histograms' buckets: as many as the runs' files have
        buckets = set()
        total = 0
        for rid in runs:
            f = "%s/latency/run-%s-%s.csv" % (d, rid, p)
            for x in csv.DictReader(open(f)):
                if x["phase"] == phase and x["bucket_lower_ns"]:
                    buckets.add(x["bucket_lower_ns"]); total += int(x["count"])
        assert len(cdf) == len(buckets), (p, phase, len(cdf), len(buckets))
        # the marked p50 is the CDF's first point at or above one half
        first = next(c for c in cdf if float(c[1]) >= 0.5)
        assert hover[0][1] == "0.5" and float(hover[0][0]) == float(first[0]), (hover, first)
        assert str(total) in hover[0][2], (hover, total)
for kind in ("latency", "throughput"):
    dat = glob.glob(d + "/charts/working-%s-*-repetitions.dat" % kind)
    assert len(dat) == 1 and os.path.getsize(dat[0]) > 0, (kind, dat)
    boxes = blocks(dat[0])[:-1]
    assert all(len(x) == 2 for x in boxes), (kind, boxes)  # a point per repetition
PY
[ $? -eq 0 ] && ok "each probe's CDF, idle and loaded, comes from the phase histograms; box plots per repetition" ||
	nok "cdf" "$TMP/cdf.log"
grep -q 'working-cdf-rrul-tcp-s128K-p1-bidir-self10-probe1' "$TMP/out/report.md" &&
	ok "report.md shows each probe's CDF" || nok "report.md charts" "$TMP/out/report.md"

# compare judges inflation with a CI: 50 ms more of it in NEW is worse, in BASE better, none
# when both sides are the same runs
cp -r "$TMP/out" "$TMP/worse"
python3 - "$TMP/worse/working.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r["phase"] == "loaded" and r["inflation_p50_us"]:
        r["inflation_p50_us"] = str(float(r["inflation_p50_us"]) + 50000)
w = csv.DictWriter(open(sys.argv[1], "w", newline=""), fieldnames=list(rows[0]), lineterminator="\n")
w.writeheader(); w.writerows(rows)
PY
"$NBRUN" compare "$TMP/out" "$TMP/worse" --junit "$TMP/c1.xml" >"$TMP/c1.md" 2>/dev/null
rc1=$?
"$NBRUN" compare "$TMP/worse" "$TMP/out" >"$TMP/c2.md" 2>/dev/null
rc2=$?
"$NBRUN" compare "$TMP/out" "$TMP/out" >"$TMP/c3.md" 2>"$TMP/c3.err"
rc3=$?
"$NBRUN" compare "$TMP/out" "$TMP/worse" --format csv >"$TMP/c1.csv" 2>/dev/null
"$NBRUN" compare "$TMP/worse" "$TMP/out" --format csv >"$TMP/c2.csv" 2>/dev/null
[ "$(grep -c 'inflation p50, lower is better .*| \*\*worse\*\* (' "$TMP/c1.md")" -eq 5 ] &&
[ "$(grep -c 'inflation p50, lower is better .*| \*\*better\*\* (' "$TMP/c2.md")" -eq 5 ] &&
[ "$(grep -c 'inflation p50, lower is better .*| \*\*\(better\|worse\)\*\* (' "$TMP/c3.md")" -eq 0 ] &&
	ok "compare's verdict on inflation: worse, better, neither on the same runs" ||
	nok "compare verdicts" "$TMP/c1.md"
# the gate: more inflation is a regression (exit 1), less or the same passes (the headlines of
# runs.csv are the same runs on both sides); the CSV and JUnit carry a row per probe
[ "$rc1" -eq 1 ] && [ "$rc2" -eq 0 ] && [ "$rc3" -eq 0 ] &&
	ok "more inflation fails the gate (exit $rc1), less or the same passes ($rc2, $rc3)" ||
	nok "inflation gate: exit $rc1 $rc2 $rc3" "$TMP/c1.md"
python3 - "$TMP/c1.csv" "$TMP/c1.xml" "$TMP/c2.csv" >"$TMP/c1.log" 2>&1 <<'PY'
import csv, sys, xml.etree.ElementTree as ET
# an inflation can be below 0 (loopback's noise): a change below -100 % is not cut there
back = [r for r in csv.DictReader(open(sys.argv[3])) if r["metric"] == "inflation_p50_us"]
assert len(back) == 5 and all(r["verdict"] == "improvement" for r in back), back
assert all(float(r["ci_lo_pct"]) <= float(r["change_pct"]) for r in back), back
assert any(float(r["change_pct"]) < -100 for r in back) == any(
    float(r["new_mean"]) < 0 for r in back), back
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["metric"] == "inflation_p50_us"]
assert len(rows) == 5, rows
assert all(r["better"] == "lower" and r["verdict"] == "regression" and r["unit"] == "us"
           and float(r["change_pct"]) > 0 and r["case_id"].startswith("rrul.p") for r in rows), rows
suite = [s for s in ET.parse(sys.argv[2]).getroot() if s.get("name") == "inflation_p50_us"]
assert len(suite) == 1 and len(suite[0].findall("testcase/failure")) == 5, suite
PY
[ $? -eq 0 ] && ok "CSV and JUnit carry each probe's inflation_p50_us, lower is better, failed" ||
	nok "inflation rows in CSV/JUnit" "$TMP/c1.log"
# and RPM the other way round: higher is better (loopback's RPM is whatever the host gives:
# each side is given two, 1000 apart)
for side in lo:1000 hi:2000; do
	cp -r "$TMP/out" "$TMP/rpm-${side%%:*}"
	python3 - "$TMP/rpm-${side%%:*}/working.csv" "${side#*:}" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r["part"] == "case":
        r["rpm_tcp"] = str(float(sys.argv[2]) + 50 * int(r["rep"]))
w = csv.DictWriter(open(sys.argv[1], "w", newline=""), fieldnames=list(rows[0]), lineterminator="\n")
w.writeheader(); w.writerows(rows)
PY
done
"$NBRUN" compare "$TMP/rpm-lo" "$TMP/rpm-hi" >"$TMP/c4.md" 2>/dev/null
rc4=$?
"$NBRUN" compare "$TMP/rpm-hi" "$TMP/rpm-lo" >"$TMP/c5.md" 2>/dev/null
rc5=$?
"$NBRUN" compare "$TMP/rpm-hi" "$TMP/rpm-lo" --format json >"$TMP/c5.json" 2>/dev/null
grep -q 'RPM (TCP), higher is better | .* | \*\*better\*\* (' "$TMP/c4.md" &&
grep -q 'RPM (TCP), higher is better | .* | \*\*worse\*\* (' "$TMP/c5.md" &&
	ok "compare's verdict on RPM: more round trips per minute are better" ||
	nok "compare RPM verdicts" "$TMP/c4.md"
python3 - "$TMP/c5.json" >"$TMP/c5.log" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = [r for r in doc["cases"] if r["metric"] == "rpm_tcp"]
assert len(rows) == 1 and rows[0]["better"] == "higher" and rows[0]["unit"] == "RPM", rows
assert rows[0]["new"][0]["verdict"] == "regression" and rows[0]["working_case"], rows
PY
[ $? -eq 0 ] && [ "$rc4" -eq 0 ] && [ "$rc5" -eq 1 ] &&
	ok "fewer round trips per minute fail the gate (exit $rc5), more pass ($rc4); JSON has rpm_tcp" ||
	nok "RPM gate: exit $rc4 $rc5" "$TMP/c5.log"
# each probe is a case of its own with its runs (its row's path names its part), not a case
# without a run
! grep -q 'no run recorded' "$TMP/c3.err" &&
	ok "each probe's runs are runs of its own case in compare" ||
	nok "probe runs" "$TMP/c3.err"
# a case on several paths has up to 16 probe runs: the same runs with probe3 as probe12 keep
# its CDF and its row in the report
cp -r "$TMP/out" "$TMP/p12"
sed -i 's/,probe3,/,probe12,/' "$TMP/p12/working.csv"
for f in "$TMP"/p12/latency/run-*-probe3.csv; do mv "$f" "${f%probe3.csv}probe12.csv"; done
rm -rf "$TMP/p12/charts"
"$NBRUN" report "$TMP/p12" >/dev/null 2>"$TMP/p12.err" &&
[ -s "$(ls "$TMP"/p12/charts/working-cdf-*-probe12.dat)" ] &&
grep -q '^| `rrul.p3/icmp/s56/f1/r5pps` |' "$TMP/p12/report.md" &&
	ok "probe12's CDF and table row, as probe3's" || nok "probe12" "$TMP/p12.err"

# A repetition whose measuring process stalled (stopped for 1.2 s in its loaded phase) is no
# result: its case's row is invalid, naming the stall, as are its probes' that stalled, and it
# runs again.
"$NBRUN" -q "$SRC/configs/working.yaml" --set idle=1s --set duration=2s --set omit=500ms \
	--set repetitions=1 --set warmup=0s --set streams=1 --out "$TMP/stall" 2>"$TMP/stall.err" &
PID=$!
sleep 2.2 && kill -STOP $PID && sleep 1.2 && kill -CONT $PID
wait $PID
echo "# exit $?"
python3 - "$TMP/stall" >"$TMP/stall.log" 2>&1 <<'PY'
import csv, sys
d = sys.argv[1]
runs = list(csv.DictReader(open(d + "/runs.csv")))
case = [r for r in runs if r["case_id"] == "rrul/tcp/s128K/p1/bidir/self10"]
print([(r["run_id"], r["status"], r["error"][:80]) for r in case])
assert case[0]["status"] == "invalid" and "timeline stall" in case[0]["error"], case[0]
assert len(case) >= 2 and all(r["rep"] == "1" for r in case), case
first = case[0]["run_id"]
probes = [r for r in runs if r["run_id"] == first and r["path"].startswith("probe")]
assert len(probes) == 5 and any(r["status"] == "invalid" for r in probes), probes
PY
[ $? -eq 0 ] && ok "a working repetition that stalled is invalid, its probes too, and runs again" ||
	nok "stalled repetition" "$TMP/stall.log"
exit $FAILED

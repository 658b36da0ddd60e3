#!/bin/sh
# unit suite: `nbrun compare --junit FILE --summary FILE` on the fixture pairs of
# tests/fixtures/compare. The JUnit file is read with python3's XML parser: each testsuite's
# counts match its testcases, and the failures (and skips) are exactly the cases the exit code
# fails on. Speaks TAP. Environment: NBRUN = path of the nbrun binary (meson sets it).
set -u
NBRUN=${NBRUN:-build/nbrun}
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
F=$SRC/tests/fixtures/compare
TMP=$(mktemp -d /tmp/nbcmpci-$$.XXXXXX)
N=0
FAILED=0
export NBRUN_GNUPLOT=none
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
. "$SRC/tests/lib/tap.sh"

P1=tcp-stream/tcp/s128K/p1/forward
P4=tcp-stream/tcp/s128K/p4/forward
UDP=udp-stream/udp/s1400/p1/forward
verdict() { if [ $? -eq 0 ]; then ok "$1"; else nok "$1 (exit $RC)" "$TMP/err"; fi; }

# cmp NEW [ARGS...]: compare base with NEW, JUnit in $TMP/j.xml, its outline in $TMP/j.txt:
# one "SUITE tests/failures/skipped" line per testsuite and one "  SUITE CASE TAG TYPE" line per
# failure or skip. The parser exits non-zero when a suite's counts disagree with its testcases.
cmp() {
	_n=$1; shift
	rm -f "$TMP/j.xml"
	"$NBRUN" compare "$F/base" "$F/$_n" --junit "$TMP/j.xml" "$@" >/dev/null 2>"$TMP/err"
	RC=$?
	python3 - "$TMP/j.xml" >"$TMP/j.txt" 2>>"$TMP/err" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites"
for s in root.findall("testsuite"):
    cases = s.findall("testcase")
    fail = [c for c in cases if c.find("failure") is not None]
    skip = [c for c in cases if c.find("skipped") is not None]
    assert (int(s.get("tests")), int(s.get("failures")), int(s.get("skipped"))) == \
        (len(cases), len(fail), len(skip)), s.get("name")
    print(f"{s.get('name')} {len(cases)}/{len(fail)}/{len(skip)}")
    for c in cases:
        for e in c:
            if e.tag in ("failure", "skipped"):
                print(f"  {s.get('name')} {c.get('name')} {e.tag} {e.get('type')}")
PY
}
# bad: the failure and skip lines of the outline
bad() { grep '^  ' "$TMP/j.txt"; }

cmp drop
[ "$RC" -eq 1 ] && [ "$(grep -v '^  ' "$TMP/j.txt" | tr '\n' ' ')" = \
	"rx_bps 3/1/0 trans_per_s 1/0/0 lat_p50_us 1/0/0 folders 2/0/0 " ] &&
	[ "$(bad)" = "  rx_bps $P1 failure regression" ]
verdict "a 20 % drop: a testsuite per headline metric, a testcase per case, one failure (exit 1)"
python3 - "$TMP/j.xml" "$P1" <<'PY'
import sys, xml.etree.ElementTree as ET
f = [c for c in ET.parse(sys.argv[1]).iter("testcase") if c.get("name") == sys.argv[2]][0]
f = f.find("failure")
assert f.get("message").startswith("regression: rx_bps -20.0 % (95 % CI -20.5 to -19.5 %), "
                                   "threshold ±5 %"), f.get("message")
for line in ("base: 9.410 ± 0.037 Gbit/s, n = 5", "new: 7.528 ± 0.029 Gbit/s, n = 5",
             "change: -20.0 % (95 % CI -20.5 to -19.5 %)", "threshold: ±5 %"):
    assert line in f.text.split("\n"), (line, f.text)
PY
verdict "the regression's failure carries base, new, change with its CI and the threshold"

cmp drop --metric all --metric lat_p99_us
[ "$RC" -eq 1 ] && grep -q '^lat_p99_us 5/0/0$' "$TMP/j.txt" && [ "$(bad | wc -l)" -eq 1 ]
verdict "--metric all --metric lat_p99_us: a testsuite for the extra column too"

cmp mismatch
[ "$RC" -eq 5 ] && [ "$(bad)" = "  rx_bps $UDP failure missing" ]
verdict "a case of base missing from new: a failure (exit 5)"
cmp mismatch --allow-missing
[ "$RC" -eq 0 ] && [ "$(bad)" = "  rx_bps $UDP skipped missing" ]
verdict "--allow-missing: the missing case is skipped, not failed (exit 0)"

cmp failed
[ "$RC" -eq 4 ] && [ "$(bad | tr '\n' ' ')" = \
	"  rx_bps $P4 failure failed   rx_bps $UDP failure failed " ]
verdict "cases with failed runs in new: a failure each (exit 4)"

cmp params
[ "$RC" -eq 6 ] && [ "$(bad | tr '\n' ' ')" = \
	"  rx_bps $P1 failure parameters differ   rx_bps $P4 failure parameters differ " ]
verdict "cases run with other parameters: a failure each (exit 6)"

cmp interrupt
[ "$RC" -eq 3 ] && [ "$(bad)" = "  folders interrupt batch complete failure interrupted" ]
verdict "an interrupted new batch: a failure in the folders testsuite (exit 3)"

cmp same
[ "$RC" -eq 0 ] && [ -z "$(bad)" ]
verdict "identical folders: no failure, the inconclusive case passes (exit 0)"
cmp same --fail-on-inconclusive
[ "$RC" -eq 7 ] && [ "$(bad)" = "  rx_bps $P4 failure inconclusive" ]
verdict "--fail-on-inconclusive: the inconclusive case is a failure (exit 7)"

cmp vendor-b --neutral
[ "$RC" -eq 0 ] && [ -z "$(bad)" ]
verdict "--neutral: a slower side is no failure (exit 0, as the gate)"

# --summary: appended, the gate line first, then only the rows that are not unchanged
S=$TMP/summary.md
echo "earlier step" >"$S"
"$NBRUN" compare "$F/base" "$F/drop" --summary "$S" >/dev/null 2>"$TMP/err"
RC=$?
[ "$RC" -eq 1 ] && [ "$(sed -n 2p "$S")" = "**Gate: fail** (exit 1: a regression beyond the \
threshold) · 1 regression, 0 improvements, 3 unchanged, 1 inconclusive" ] &&
	sed -n 4p "$S" | grep -q '^### Changes$' && grep -q "^| \`$P1\` | rx_bps .*\*\*regression\*\*" "$S" &&
	grep -q "^| \`$P4\` |.*inconclusive" "$S" && ! grep -q "^| \`$UDP\`" "$S" &&
	[ "$(head -1 "$S")" = "earlier step" ]
verdict "--summary: appended, the gate line first, then the changed rows only"
"$NBRUN" compare "$F/base" "$F/same" --threshold 50% --summary "$TMP/s2.md" >/dev/null 2>"$TMP/err"
RC=$?
[ "$RC" -eq 0 ] && [ "$(tail -1 "$TMP/s2.md")" = "Every case is unchanged: the whole 95 % CI of \
each change lies within ±50 %." ]
verdict "--summary with nothing changed says so in one line"

"$NBRUN" compare "$F/base" "$F/drop" --junit "$TMP/no/such/dir/j.xml" >/dev/null 2>"$TMP/err"
RC=$?
[ "$RC" -eq 2 ] && grep -q "^nbrun: compare: cannot write $TMP/no/such/dir/j.xml" "$TMP/err"
verdict "--junit into a folder that does not exist: exit 2, the file named"

# labels (meta.json "labels") that differ are listed like environment facts
cp -r "$F/base" "$TMP/lb" && cp -r "$F/same" "$TMP/ln"
python3 - "$TMP/lb/meta.json" "$TMP/ln/meta.json" <<'PY'
import json, sys
for path, labels in zip(sys.argv[1:], ({"region": "eu-west-1", "build": "41"},
                                       {"region": "us-east-1", "build": "41", "pr": "7"})):
    m = json.load(open(path))
    m["labels"] = labels
    json.dump(m, open(path, "w"))
PY
"$NBRUN" compare "$TMP/lb" "$TMP/ln" --threshold 50% >"$TMP/out" 2>"$TMP/err"
RC=$?
[ "$RC" -eq 0 ] && grep -qx -- "- label.region: eu-west-1 → us-east-1" "$TMP/out" &&
	grep -qx -- "- label.pr: absent → 7" "$TMP/out" && ! grep -q "label.build" "$TMP/out" &&
	grep -q "different conditions (2 differences" "$TMP/err"
verdict "labels that differ are listed under Differences (changed, added), equal ones are not"
"$NBRUN" compare "$TMP/lb" "$TMP/ln" --threshold 50% --expect-diff label.region \
	--expect-diff label.pr >"$TMP/out" 2>"$TMP/err"
RC=$?
[ "$RC" -eq 0 ] && grep -qx -- "- label.region: eu-west-1 → us-east-1 (expected)" "$TMP/out" &&
	! grep -q "different conditions" "$TMP/err"
verdict "--expect-diff label.KEY declares a label difference"

echo "1..$N"
exit $FAILED

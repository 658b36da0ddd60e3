#!/bin/sh
# unit suite: a loss-threshold search's goals by name in export and compare. Two folders made
# from tests/fixtures/results-udp with a sweeps.json of one search (NDR and PDR in MLRsearch's
# words; B's PDR 280 Mbit/s against A's 298.8): export's csv, prometheus and github-benchmark,
# and compare's Markdown, csv and json carry ndr/pdr_conditional_throughput with its value.
# Speaks TAP. Environment: NBRUN, NB_SRCDIR (meson sets them).
set -u
NBRUN=$(realpath "${NBRUN:-build/nbrun}")
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
N=0
FAILED=0
. "$SRC/tests/lib/tap.sh"
TMP=$(mktemp -d /tmp/nbt_searches.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
export NBRUN_GNUPLOT=none
C=udp-rate/udp/s1400/p1/forward/r2.5G

cp -r "$SRC/tests/fixtures/results-udp" "$TMP/a"
cat >"$TMP/a/sweeps.json" <<JSON
{"sweeps": [
{"case_id": "$C", "rep": 0, "search": true, "unit": "bit/s", "loss": 0, "threshold": 250000000,
 "status": "found", "complete": true, "goal": "NDR", "exceed_ratio": 0, "final_trial_s": 1,
 "duration_sum_s": 1, "relevant_lower_bound": 250000000, "relevant_upper_bound": 260000000,
 "conditional_throughput": 250000000},
{"case_id": "$C", "rep": 0, "search": true, "unit": "bit/s", "loss": 0.005, "threshold": 300000000,
 "status": "found", "complete": true, "goal": "PDR", "exceed_ratio": 0, "final_trial_s": 1,
 "duration_sum_s": 1, "relevant_lower_bound": 300000000, "relevant_upper_bound": null,
 "conditional_throughput": 298800000}]}
JSON
cp -r "$TMP/a" "$TMP/b"
sed -i 's/"conditional_throughput": 298800000/"conditional_throughput": 280000000/' "$TMP/b/sweeps.json"

echo "1..6"
"$NBRUN" export "$TMP/a" --format csv >"$TMP/x.csv" 2>&1
check "export csv: a row per goal after its case" "$TMP/x.csv" \
	grep -q "^$C,udp-rate,stream,udp,pdr_conditional_throughput,bit/s,higher,1,298800000," "$TMP/x.csv"
"$NBRUN" export "$TMP/a" --format prometheus >"$TMP/x.prom" 2>&1
check "prometheus: the goal's series in bytes/s" "$TMP/x.prom" \
	grep -q '^nbrun_conditional_throughput_bytes_per_second{.*goal="NDR"} 31250000$' "$TMP/x.prom"
"$NBRUN" export "$TMP/a" --format github-benchmark --better bigger >"$TMP/x.gh" 2>"$TMP/x.err"
check "github-benchmark: 'CASE PDR' with its value" "$TMP/x.gh" python3 -c '
import json, sys
e = [x for x in json.load(open(sys.argv[1])) if x["name"] == sys.argv[2] + " PDR"]
assert len(e) == 1 and e[0]["value"] == 298800000 and "RFC 9971" in e[0]["extra"], e' "$TMP/x.gh" "$C"
"$NBRUN" compare "$TMP/a" "$TMP/b" >"$TMP/cmp.md" 2>&1
check "compare: the searches' section, PDR 6.3 % lower" "$TMP/cmp.md" \
	grep -q "^| \`$C\` | PDR | 299 Mbit/s | 280 Mbit/s (-6.3 %) |" "$TMP/cmp.md"
"$NBRUN" compare "$TMP/a" "$TMP/b" --format csv >"$TMP/cmp.csv" 2>&1
check "compare csv: the goal's row, not judged" "$TMP/cmp.csv" \
	grep -q "^$C,udp-rate,ndr_conditional_throughput,bit/s,higher,a,b,1,250000000,.*,not judged," "$TMP/cmp.csv"
"$NBRUN" compare "$TMP/a" "$TMP/b" --format json >"$TMP/cmp.json" 2>"$TMP/cmp.err"
check "compare json: searches with each side's value and change" "$TMP/cmp.json" python3 -c '
import json, sys
s = {x["goal"]: x for x in json.load(open(sys.argv[1]))["searches"]}
assert s["NDR"]["metric"] == "ndr_conditional_throughput" and s["PDR"]["conditional_throughput"] == 298800000
assert s["PDR"]["new"][0]["conditional_throughput"] == 280000000
assert abs(s["PDR"]["new"][0]["change_pct"] - 100 * (280000000 - 298800000) / 298800000) < 1e-9' "$TMP/cmp.json"
exit $FAILED

#!/bin/sh
# net suite: a results folder where fleets and CI look (issue 16), from one real batch on
# loopback with labels from the config and --label:
#  - runs.jsonl holds one valid JSON object per runs.csv row, with the labels (--label wins);
#  - `nbrun export --format prometheus` passes `promtool check metrics` with no lint warning;
#  - a real prometheus-pushgateway on a free loopback port takes the export (curl
#    --data-binary) and serves it back on /metrics with the labels intact;
#  - github-benchmark keeps bigger- and smaller-is-better apart; jsonl and csv carry labels.
# Speaks TAP. Environment: NBRUN = path of the nbrun binary (meson sets it).
set -u
NBRUN=${NBRUN:-build/nbrun}
TMP=$(mktemp -d /tmp/nbexports-$$.XXXXXX)
PG_PID=
N=0
FAILED=0
export NBRUN_GNUPLOT=none

cleanup() {
	[ -n "$PG_PID" ] && kill "$PG_PID" 2>/dev/null && wait "$PG_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"

cat >"$TMP/x.yaml" <<'YAML'
name: exports
labels: {region: eu-west-1, build: 'v1 "quoted" \ back', team: net}
defaults: {duration: 400ms, warmup: 0ms, interval: 100ms, repetitions: 2}
tests:
  - {name: tp, engine: stream, protocol: tcp, size: 64K, streams: 1}
  - {name: lat, engine: latency, protocol: udp, size: 32, rate: 1000pps}
YAML
R=$TMP/r

echo "1..9"
if "$NBRUN" "$TMP/x.yaml" --out "$R" -q --label team=perf --label zone=a 2>"$TMP/run.err"; then
	ok "a batch with labels from the config and --label"
else
	nok "a batch with labels" "$TMP/run.err"
fi

# 2: runs.jsonl row for row
python3 - "$R" >"$TMP/jsonl.out" 2>&1 <<'PY'
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/runs.csv")))
recs = [json.loads(l) for l in open(d + "/runs.jsonl")]
# 4 runs, and a repetition whose measuring process stalled on a busy host ran again (its row kept)
assert len(rows) == len(recs) >= 4, (len(rows), len(recs))
assert sum(r["status"] == "ok" for r in rows) == 4, [r["status"] for r in rows]
for row, rec in zip(rows, recs):
    assert rec["run_id"] == int(row["run_id"]) and rec["case_id"] == row["case_id"], rec
    assert rec["status"] == row["status"] and isinstance(rec["rep"], int)
    if row["status"] == "ok":
        assert abs(rec["value"] / float(row["value"]) - 1) < 1e-6, (rec["value"], row["value"])
    assert rec["labels"] == {"region": "eu-west-1", "build": 'v1 "quoted" \\ back',
                             "team": "perf", "zone": "a"}, rec["labels"]
    assert rec["config_name"] == "exports" and len(rec["config_sha256"]) == 64
PY
check "runs.jsonl: one valid object per runs.csv row, typed, labels with --label winning" \
	"$TMP/jsonl.out" [ ! -s "$TMP/jsonl.out" ]

# 3: promtool
"$NBRUN" export "$R" --format prometheus -o "$TMP/x.prom" 2>"$TMP/prom.err" &&
	promtool check metrics <"$TMP/x.prom" >"$TMP/promtool.out" 2>&1 && [ ! -s "$TMP/promtool.out" ] &&
	ok "the prometheus export passes promtool check metrics with no lint warning" ||
	{ cat "$TMP/prom.err" >>"$TMP/promtool.out"; nok "promtool check metrics" "$TMP/promtool.out"; }

# 4-5: a real Pushgateway on a free loopback port, bounded, killed on EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
prometheus-pushgateway --web.listen-address="127.0.0.1:$PORT" >"$TMP/pg.log" 2>&1 &
PG_PID=$!
wait_port "$PORT"
URL="http://127.0.0.1:$PORT"
curl -sS --max-time 10 --fail --data-binary @"$TMP/x.prom" "$URL/metrics/job/nbrun/instance/ci" \
	>"$TMP/push.out" 2>&1 && ok "the Pushgateway takes the export (curl --data-binary)" ||
	nok "push to the Pushgateway" "$TMP/push.out"
curl -sS --max-time 10 --fail "$URL/metrics" >"$TMP/pg.metrics" 2>"$TMP/pg.err"
python3 - "$TMP/pg.metrics" >"$TMP/pg.out" 2>&1 <<'PY'
import re, sys
lines = [l for l in open(sys.argv[1]) if l.startswith("nbrun_throughput_bytes_per_second{")]
mean = [l for l in lines if 'statistic="mean"' in l and 'case_id="tp/tcp/s64K/p1/forward"' in l]
assert len(mean) == 1, lines
l = mean[0]
for want in ('build="v1 \\"quoted\\" \\\\ back"', 'region="eu-west-1"', 'team="perf"', 'zone="a"',
             'job="nbrun"', 'instance="ci"', 'engine="stream"', 'direction="forward"'):
    assert want in l, (want, l)
assert float(l.rsplit(" ", 1)[1]) > 0, l
lat = open(sys.argv[1]).read()
assert re.search(r'nbrun_latency_seconds\{[^}]*quantile="0.5"', lat), "no latency summary"
PY
check "read back from the gateway's /metrics with every label intact" "$TMP/pg.out" [ ! -s "$TMP/pg.out" ]

# 6-7: github-benchmark, one direction per file
"$NBRUN" export "$R" --format github-benchmark -o "$TMP/gh.json" 2>"$TMP/gh.err"
RC=$?
[ "$RC" -eq 2 ] && grep -q "bigger- and smaller-is-better" "$TMP/gh.err" &&
	ok "github-benchmark refuses to mix directions in one file (exit 2)" ||
	nok "github-benchmark mixing (exit $RC)" "$TMP/gh.err"
"$NBRUN" export "$R" --format github-benchmark --better bigger -o "$TMP/big.json" &&
	"$NBRUN" export "$R" --format github-benchmark --better smaller -o "$TMP/small.json" &&
	python3 - "$TMP/big.json" "$TMP/small.json" >"$TMP/gh.out" 2>&1 <<'PY'
import json, sys
big, small = (json.load(open(p)) for p in sys.argv[1:3])
assert [e["name"] for e in big] == ["tp/tcp/s64K/p1/forward"], big
assert [e["name"] for e in small] == ["lat/udp/s32/f1/r1kpps"], small
for e in big + small:
    assert set(e) == {"name", "unit", "value", "range", "extra"} and e["value"] > 0, e
    assert "region=eu-west-1" in e["extra"], e
assert big[0]["unit"] == "bit/s" and small[0]["unit"] == "us"
PY
check "--better bigger and smaller: the throughput and the latency case apart" "$TMP/gh.out" \
	[ ! -s "$TMP/gh.out" ]

# 8-9: jsonl and csv
"$NBRUN" export "$R" --format jsonl -o "$TMP/x.jsonl" && python3 - "$TMP/x.jsonl" "$R/runs.jsonl" \
	>"$TMP/jl.out" 2>&1 <<'PY'
import json, sys
a, b = ([json.loads(l) for l in open(p)] for p in sys.argv[1:3])
assert len(a) == len(b) >= 4
for x, y in zip(a, b):
    assert x.keys() == y.keys(), set(x) ^ set(y)
    for k in x:
        if isinstance(x[k], float) and isinstance(y[k], float):
            assert abs(x[k] - y[k]) <= 1e-6 * max(abs(x[k]), abs(y[k])), (k, x[k], y[k])
        else:
            assert x[k] == y[k], (k, x[k], y[k])
PY
check "export jsonl makes runs.jsonl's records again from runs.csv" "$TMP/jl.out" [ ! -s "$TMP/jl.out" ]
"$NBRUN" export "$R" --format csv >"$TMP/x.csv" &&
	python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); assert len(r)==2 and all(x["zone"]=="a" and x["build"]==chr(118)+"1 \"quoted\" \\ back" for x in r), r' \
		"$TMP/x.csv" 2>"$TMP/csv.err" && ok "export csv: one row per case with a column per label" ||
	nok "export csv" "$TMP/csv.err"
exit $FAILED

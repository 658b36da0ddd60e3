#!/bin/sh
# net suite: `--json-stream` and `--live` (issue 34), against two agents on loopback addresses
# of their own (127.0.0.2, 127.0.0.3).
#  - a batch on two paths (a case with two flows, a sweep): every line is one JSON object with
#    "schema" 1; batch_start first, batch_end (exit 0) last, a case_start per case; the
#    interval events are intervals.csv's rows, the run events runs.csv's (trials and each
#    path's part included), in order, cell for cell in the same text;
#  - a reader sends SIGTERM when it reads the second interval of the first run: the batch stops
#    (exit 143, batch_end says SIGTERM, not every planned run ran): the interval reached the
#    reader while the batch ran. `nbrun resume` of that folder streams the rest: batch_start
#    names the resume, its events are the rows it appended;
#  - a reader that closes the pipe after the first interval: one line on stderr, the batch
#    goes on to exit 0 with every run and its report; --live (not a terminal) shows each
#    interval of the statistics' rows under its header and the run's line; so does -v on a
#    terminal (script(1));
#  - a reader that reads nothing until runs.csv has every run: the batch never waits for it
#    (its events are queued, not written in the measuring thread) and it gets every event;
#  - the agent killed at the first interval: exit 3, an error event naming the peer, batch_end;
#  - --json-stream to a path that cannot be written: one line, exit 2, no folder; a peer that
#    cannot be reached: exit 3, and the stream's only event is the error naming it.
# Speaks TAP. Environment: NBRUN = path of the nbrun binary (meson sets it).
set -u
NBRUN=$(realpath "${NBRUN:-build/nbrun}")
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
TMP=$(mktemp -d /tmp/nbt_jstream.XXXXXX)
BASE=$((33000 + $$ % 3000))
A_PID= B_PID=
N=0
FAILED=0
export NBRUN_GNUPLOT=none

cleanup() {
	for p in $A_PID $B_PID; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "$SRC/tests/lib/tap.sh"
cd "$TMP" || exit 1

serve() {
	"$NBRUN" serve --bind "$1" --port "$2" --data-ports "$(($2 + 1))-$(($2 + 20))" -q \
		2>"$TMP/serve-$2.err" &
}
serve 127.0.0.2 "$BASE"; A_PID=$!
serve 127.0.0.3 "$((BASE + 30))"; B_PID=$!
wait_port "$BASE"; wait_port "$((BASE + 30))"
A="127.0.0.2:$BASE" B="127.0.0.3:$((BASE + 30))"

cat >"$TMP/two.yaml" <<'YAML'
name: two
defaults: {duration: 500ms, warmup: 0s, interval: 250ms, repetitions: 1}
tests:
  - {name: t, engine: stream, protocol: tcp, size: 16K, streams: 2}
  - {name: s, engine: stream, protocol: udp, size: 1000, sweep: {rate: {steps: [5M, 10M]}}}
YAML
cat >"$TMP/reps.yaml" <<'YAML'
name: reps
defaults: {duration: 500ms, warmup: 0s, interval: 125ms, repetitions: 3}
tests:
  - {name: t, engine: stream, protocol: tcp, size: 16K}
YAML

# same.py STREAM DIR [FROM_RUN]: the stream's events are well formed and its interval and run
# events are DIR's intervals.csv and runs.csv rows (those of run ids >= FROM_RUN), in order,
# each value in the same text (an empty cell is null).
cat >"$TMP/same.py" <<'PY'
import csv, json, sys
path, d = sys.argv[1], sys.argv[2]
first = int(sys.argv[3]) if len(sys.argv) > 3 else 1
events = []
for no, line in enumerate(open(path, encoding="utf-8"), 1):
    ev = json.loads(line, parse_float=str, parse_int=str)   # numbers as written
    assert isinstance(ev, dict) and ev.get("schema") == "1", f"line {no}: {line[:80]}"
    assert ev["event"] in ("batch_start", "case_start", "interval", "run", "error",
                           "batch_end"), ev["event"]
    events.append(ev)
assert events[0]["event"] == "batch_start" and events[-1]["event"] == "batch_end", "first, last"
def rows(name):
    return [r for r in csv.DictReader(open(f"{d}/{name}", newline="")) if int(r["run_id"]) >= first]
def text(v):
    return "" if v is None else v
for kind, name in (("interval", "intervals.csv"), ("run", "runs.csv")):
    evs, want = [e for e in events if e["event"] == kind], rows(name)
    assert len(evs) == len(want), f"{kind}: {len(evs)} events, {len(want)} rows"
    for i, (e, r) in enumerate(zip(evs, want)):
        assert list(e)[2:] == list(r), f"{kind} {i}: columns differ"
        for k, v in r.items():
            assert text(e[k]) == v, f"{kind} {i} {k}: {e[k]!r} != {v!r}"
    print(kind, len(evs))
# a repetition that stalled runs again under the same case and rep: one case_start each time
print("case_start", len({(e["case_id"], e["rep"]) for e in events if e["event"] == "case_start"}))
print("exit", events[-1]["exit"], "resumed", events[0]["resumed_utc"] is not None)
PY

# reader.py MODE OUT -- CMD...: run CMD with its standard output a pipe of one page read here
# line by line into OUT; MODE term: SIGTERM to CMD at the second interval event of run 1;
# close: close the pipe after the first interval event; kill:PID: SIGKILL to PID (an agent)
# at the first interval event; late:DIR: read nothing until DIR's
# runs.csv has 3 rows (60 s at most). Prints CMD's exit code.
cat >"$TMP/reader.py" <<'PY'
import fcntl, json, os, signal, subprocess, sys, time
mode, out, cmd = sys.argv[1], sys.argv[2], sys.argv[4:]
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: a page; the stream of a batch is many
p = subprocess.Popen(cmd, stdout=w, stderr=open(out + ".err", "w"))
os.close(w)
if mode.startswith("late:"):
    runs = mode[5:] + "/runs.csv"
    for _ in range(600):
        if os.path.exists(runs) and len(open(runs).readlines()) > 3:
            break
        time.sleep(0.1)
    else:
        print("runs.csv never had 3 rows", file=sys.stderr)
seen = 0
with open(out, "w") as f, os.fdopen(r) as src:
    for line in src:
        f.write(line)
        if json.loads(line)["event"] != "interval":
            continue
        seen += 1
        if mode == "close":
            break
        if mode.startswith("kill:") and seen == 1:
            os.kill(int(mode[5:]), signal.SIGKILL)
        if mode == "term" and seen == 2:
            p.send_signal(signal.SIGTERM)
print(p.wait())
PY

# --- two paths, two flows, a sweep: the events are the files' rows --------------------------
"$NBRUN" "$TMP/two.yaml" --peer "$A" --peer "$B" --out "$TMP/two" -q \
	--json-stream "$TMP/two.ndjson" 2>"$TMP/two.err"
check "two paths: the batch succeeds (exit 0)" "$TMP/two.err" test $? -eq 0
python3 "$TMP/same.py" "$TMP/two.ndjson" "$TMP/two" >"$TMP/same.out" 2>&1
that "every line one object of schema 1; interval and run events are the CSV rows, same text" \
	"$TMP/same.out"
grep -qx "exit 0 resumed False" "$TMP/same.out" && grep -qx "case_start 2" "$TMP/same.out"
that "batch_start first, a case_start per case, batch_end last with exit 0" "$TMP/same.out"
python3 - "$TMP/two" >"$TMP/cover.out" 2>&1 <<'PY'
import csv, sys
iv = list(csv.DictReader(open(sys.argv[1] + "/intervals.csv")))
runs = list(csv.DictReader(open(sys.argv[1] + "/runs.csv")))
assert any(r["path"] != "all" for r in iv) and any(r["stream"] == "1" for r in iv), "paths, flows"
assert sum(r["kind"] == "trial" and r["path"] == "all" for r in runs) >= 2, "sweep trials"
assert any(r["kind"] == "trial" and r["path"] != "all" for r in runs), "a trial's path part"
PY
that "the rows compared hold each path's and each flow's intervals and the sweep's trials" \
	"$TMP/cover.out"

# --- a reader that stops the batch from what it read; resume streams the rest --------------
rc=$(python3 "$TMP/reader.py" term "$TMP/term.ndjson" -- "$NBRUN" "$TMP/reps.yaml" --peer "$A" \
	--out "$TMP/term" -q --json-stream - 2>"$TMP/reader.err")
[ "$rc" = 143 ] && tail -n 1 "$TMP/term.ndjson" | grep -q '"event":"batch_end","exit":143,' &&
	tail -n 1 "$TMP/term.ndjson" | grep -q '"stopped_by":"SIGTERM"'
that "SIGTERM sent on reading run 1's second interval stops the batch (exit $rc, batch_end 143)" \
	"$TMP/term.ndjson"
[ "$(grep -c ',run,,ok,' "$TMP/term/runs.csv")" -lt 3 ]
that "the batch was cut before its three runs: the interval was read while it ran" "$TMP/term/runs.csv"
python3 "$TMP/same.py" "$TMP/term.ndjson" "$TMP/term" >"$TMP/term.out" 2>&1
that "the cut batch's stream is its rows" "$TMP/term.out"
last=$(tail -n 1 "$TMP/term/runs.csv" | cut -d, -f1)
"$NBRUN" resume "$TMP/term" -q --json-stream "$TMP/resume.ndjson" 2>"$TMP/resume.err"
check "resume: exit 0" "$TMP/resume.err" test $? -eq 0
python3 "$TMP/same.py" "$TMP/resume.ndjson" "$TMP/term" "$((last + 1))" >"$TMP/resume.out" 2>&1 &&
	grep -qx "exit 0 resumed True" "$TMP/resume.out"
that "resume streams the rows it appended, batch_start naming the resume" "$TMP/resume.out"

# --- a reader that goes away: the batch goes on; --live lines ------------------------------
rc=$(python3 "$TMP/reader.py" close "$TMP/close.ndjson" -- "$NBRUN" "$TMP/reps.yaml" --peer "$A" \
	--out "$TMP/close" --live --json-stream - 2>"$TMP/reader.err")
[ "$rc" = 0 ] && [ "$(grep -c ',run,,ok,' "$TMP/close/runs.csv")" -ge 3 ] &&
	[ -s "$TMP/close/report.md" ]
that "the reader closed the pipe: exit $rc, every run and the report kept" "$TMP/close.ndjson.err"
stopped='^nbrun: cannot write --json-stream -: Broken pipe: the stream stops here'
[ "$(grep -c "$stopped" "$TMP/close.ndjson.err")" = 1 ]
that "one line says the stream stopped" "$TMP/close.ndjson.err"
# the sum rows over the flows: path `all` (the engines' own columns, stream's self_*, after it)
sums=$(python3 -c 'import csv, sys; print(sum(r["stream"] == "sum" and r["path"] == "all" for r in csv.DictReader(open(sys.argv[1]))))' "$TMP/close/intervals.csv")
lines=$(grep -Ec '^ +[0-9.]+-[0-9.]+ s  ' "$TMP/close.ndjson.err")
heads=$(grep -Ec '^ +Interval  Transfer +Bitrate +Retr$' "$TMP/close.ndjson.err")
runs=$(grep -c ',run,,' "$TMP/close/runs.csv")
[ "$lines" -eq "$((sums + runs))" ] && [ "$heads" -eq "$runs" ] &&
	grep -Eq '^ +0\.00-0\.50 s  .* ok$' "$TMP/close.ndjson.err"
that "--live: a header per run (its columns), a line per interval, the run's ($lines lines)" \
	"$TMP/close.ndjson.err"

# --- a reader that reads nothing until the batch measured everything --------------------
rc=$(python3 "$TMP/reader.py" "late:$TMP/late" "$TMP/late.ndjson" -- "$NBRUN" "$TMP/reps.yaml" \
	--peer "$A" --out "$TMP/late" -q --json-stream - 2>"$TMP/reader.err")
[ "$rc" = 0 ] && ! grep -q "never" "$TMP/reader.err"
that "the batch measured every run while its reader read nothing (exit $rc; failed before: it waited)" \
	"$TMP/reader.err"
python3 "$TMP/same.py" "$TMP/late.ndjson" "$TMP/late" >"$TMP/late.out" 2>&1
that "the late reader still gets every event, in order" "$TMP/late.out"

# --- -v on a terminal is --live -------------------------------------------------------------
if command -v script >/dev/null 2>&1; then
	script -qec "'$NBRUN' '$TMP/reps.yaml' --peer '$A' --out '$TMP/tty' -v --set repetitions=1" \
		"$TMP/tty.log" >/dev/null 2>&1
	tr '\r' '\n' <"$TMP/tty.log" | tr -d '\033' | sed 's/^\[K//' |
		grep -Ec '^ +0\.(00-0\.12|12-0\.25|25-0\.38|38-0\.50) s  ' >"$TMP/tty.n"
	check "-v on a terminal: a line per interval, as --live (got $(cat "$TMP/tty.n"))" \
		"$TMP/tty.log" test "$(cat "$TMP/tty.n")" -ge 4
else
	skip "-v on a terminal: a line per interval" "no script(1)"
fi

# --- a stream that cannot be written --------------------------------------------------------
"$NBRUN" "$TMP/reps.yaml" --peer "$A" --out "$TMP/never" --json-stream "$TMP/no/such.ndjson" \
	2>"$TMP/never.err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/never.err")" -eq 1 ] && [ ! -e "$TMP/never" ] &&
	grep -qx "nbrun: cannot write --json-stream $TMP/no/such.ndjson: No such file or directory" \
		"$TMP/never.err"
that "an unwritable --json-stream: one line, exit 2 (got $rc), no folder" "$TMP/never.err"

# --- the agent dies mid-run: the error, then batch_end -------------------------------------
rc=$(python3 "$TMP/reader.py" "kill:$B_PID" "$TMP/lost.ndjson" -- "$NBRUN" "$TMP/reps.yaml" \
	--peer "$B" --out "$TMP/lost" -q --json-stream - 2>"$TMP/reader.err")
wait "$B_PID" 2>/dev/null; B_PID=
[ "$rc" = 3 ] && tail -n 2 "$TMP/lost.ndjson" | head -n 1 |
	grep -q '^{"schema":1,"event":"error","message":"peer 127.0.0.3:[0-9]* ' &&
	tail -n 1 "$TMP/lost.ndjson" | grep -q '"event":"batch_end","exit":3,'
that "the agent killed mid-run: exit $rc, an error event naming the peer, then batch_end 3" \
	"$TMP/lost.ndjson"

# --- a batch that never starts: its error is the stream's one event --------------------------
"$NBRUN" "$TMP/reps.yaml" --peer 127.0.0.1:1 --out "$TMP/unreach" -q \
	--json-stream "$TMP/unreach.ndjson" 2>"$TMP/unreach.err"
rc=$?
[ "$rc" -eq 3 ] && [ "$(wc -l <"$TMP/unreach.ndjson")" -eq 1 ] &&
	grep -q '^{"schema":1,"event":"error","message":"[^"]*127.0.0.1:1' "$TMP/unreach.ndjson"
that "an unreachable peer: exit 3 (got $rc), one error event naming it, no batch_start" \
	"$TMP/unreach.ndjson"

echo "1..$N"
exit $FAILED

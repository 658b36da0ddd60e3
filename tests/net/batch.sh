#!/bin/sh
# net suite: a batch's life against a separate `nbrun serve` on loopback, as issue 15 asks.
#  - SIGTERM (and SIGHUP) mid-batch: exit 143 (129), the cut run is "interrupted" (not failed),
#    every finished row kept, a complete report, meta.json says what stopped it;
#  - nbrun resume completes a batch cut after 2 of 4 runs to 4 ok rows, fresh run ids; a
#    config.yaml edited since is refused;
#  - --check (and every batch) catches a missing congestion control and a nonexistent CPU with
#    one line each, exit 5, no folder, and the agent ran nothing; agentless cases toward a
#    --peer check this host once;
#  - the agent's console names each session and run;
#  - a peer that is not nbrun is named so;
#  - a full disk (a small tmpfs this test mounts) and a read-only folder: exit 4, one line
#    naming the file, nothing said after it, no temporary file left (skipped without root).
# Speaks TAP. Environment: NBRUN = path of the nbrun binary (meson sets it).
set -u
NBRUN=$(realpath "${NBRUN:-build/nbrun}")
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
TMP=$(mktemp -d /tmp/nbt_batch.XXXXXX)
PORT=$((25000 + $$ % 4000))
DATA="$((PORT + 1))-$((PORT + 20))"
FAKE=$((PORT + 30))
SERVE_PID= BG_PID= FAKE_PID= MNT=
N=0
FAILED=0
export NBRUN_GNUPLOT=none

cleanup() {
	for p in $BG_PID $SERVE_PID $FAKE_PID; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "$SRC/tests/lib/tap.sh"
cd "$TMP" || exit 1

# the agent at its default verbosity: its console is checked below
serve() { # appended: the checks below empty the file while the agent still writes to it
	"$NBRUN" serve --bind 127.0.0.1 --port "$PORT" --data-ports "$DATA" 2>>"$TMP/serve.err" &
	SERVE_PID=$!
	wait_port "$PORT"
}

# rows FILE STATUS: how many runs.csv rows have that status
rows() { grep -c ",run,,$2," "$1"; }

cat >"$TMP/four.yaml" <<'YAML'
name: four
defaults: {duration: 1s, warmup: 0s, interval: 250ms, repetitions: 4}
tests:
  - {name: t, engine: stream, protocol: tcp, size: 16K}
YAML
serve

# --- SIGTERM mid-batch ---------------------------------------------------------------------
"$NBRUN" "$TMP/four.yaml" --peer "127.0.0.1:$PORT" --out "$TMP/term" 2>"$TMP/term.err" &
BG_PID=$!
wait_ok_runs "$TMP/term/runs.csv" 2
kill -TERM "$BG_PID"; wait "$BG_PID"; rc=$?; BG_PID=
[ "$rc" -eq 143 ]
that "SIGTERM mid-batch: exit 143 (got $rc)" "$TMP/term.err"
ok_rows=$(rows "$TMP/term/runs.csv" ok)
[ "$ok_rows" -ge 2 ] && [ "$(rows "$TMP/term/runs.csv" failed)" -eq 0 ]
that "every finished run is kept ($ok_rows ok rows), none recorded as failed" "$TMP/term/runs.csv"
[ -s "$TMP/term/report.md" ] && [ -s "$TMP/term/summary.csv" ] && [ -s "$TMP/term/results.json" ]
that "the report, summary and results.json are written" "$TMP/term.err"
grep -q '"stopped_by": "SIGTERM"' "$TMP/term/meta.json"
that "meta.json: incomplete, stopped by SIGTERM" "$TMP/term/meta.json"
grep -q "interrupted by SIGTERM" "$TMP/term/report.md"
that "the report says the batch was interrupted by SIGTERM" "$TMP/term/report.md"
grep -q "^nbrun: interrupted by SIGTERM: [0-9]* finished runs\? kept in $TMP/term (nbrun resume" \
	"$TMP/term.err"
that "stderr ends with where the finished runs are and how to resume" "$TMP/term.err"

# --- resume: a batch cut after 2 of 4 runs ends with 4 ok rows -----------------------------
before=$(($(wc -l <"$TMP/term/runs.csv") - 1))
"$NBRUN" resume "$TMP/term" -q 2>"$TMP/resume.err"; rc=$?
[ "$rc" -eq 0 ]
that "resume: exit 0 (got $rc)" "$TMP/resume.err"
[ "$(rows "$TMP/term/runs.csv" ok)" -eq 4 ] &&
	[ "$(grep ',run,,ok,' "$TMP/term/runs.csv" | cut -d, -f6 | sort -u | tr '\n' ' ')" = "1 2 3 4 " ]
that "resume: 4 ok rows, one per repetition" "$TMP/term/runs.csv"
ids=$(tail -n +2 "$TMP/term/runs.csv" | cut -d, -f1 | sort -n | uniq -d)
[ -z "$ids" ]
that "resume: fresh run ids (no id twice), appended after the $before rows" "$TMP/term/runs.csv"
grep -q '"complete": true' "$TMP/term/meta.json" && ! grep -q '"resumed_utc": ""' "$TMP/term/meta.json"
that "resume: meta.json complete, with the time it resumed" "$TMP/term/meta.json"
grep -q ' | 4 |$' "$TMP/term/report.md"
that "resume: the report is rebuilt with n = 4" "$TMP/term/report.md"
printf '# edited\n' >>"$TMP/term/config.yaml"
"$NBRUN" resume "$TMP/term" 2>"$TMP/edit.err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "config.yaml changed since the batch started" "$TMP/edit.err"
that "resume of an edited config.yaml: exit 2, says it changed" "$TMP/edit.err"

# --- resume of a cut sweep and of auto repetitions -----------------------------------------
cat >"$TMP/sweep.yaml" <<'YAML'
name: sweep
defaults: {warmup: 0s, interval: 250ms}
tests:
  - name: s
    engine: pps
    sweep: {rate: {steps: [1kpps, 2kpps, 4kpps, 8kpps]}, trial: 1s}
  - name: a
    engine: rr
    duration: 500ms
    repetitions: {auto: true, min: 3, max: 4}
YAML
"$NBRUN" "$TMP/sweep.yaml" --peer "127.0.0.1:$PORT" --out "$TMP/sw" -q 2>"$TMP/sw.err" &
BG_PID=$!
wait_rows "$TMP/sw/runs.csv" 1
kill -TERM "$BG_PID"; wait "$BG_PID"; rc=$?; BG_PID=
"$NBRUN" resume "$TMP/sw" -q 2>"$TMP/swr.err"; rc2=$?
[ "$rc" -eq 143 ] && [ "$rc2" -eq 0 ]
that "a batch cut in its sweep: exit 143, then resume: exit 0 (got $rc, $rc2)" "$TMP/swr.err"
entries=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(str(e["interrupted"]).lower() for e in d["sweeps"]))' "$TMP/sw/sweeps.json")
[ "$entries" = "false" ]
that "resume: sweeps.json holds the finished sweep only (got: $entries)" "$TMP/sw/sweeps.json"
[ "$(grep -c ',trial,[0-9]*,\(ok\|invalid\),' "$TMP/sw/runs.csv")" -ge 5 ] &&
	grep -q "of an earlier, interrupted attempt" "$TMP/sw/report.md" &&
	[ "$(grep -c '^| [1-4] | ' "$TMP/sw/report.md")" -eq 4 ]
that "resume: the sweep ran again whole; the report shows its 4 trials, the cut ones named" "$TMP/sw/report.md"
ok_a=$(grep ',a/tcp/q32r128/f1,.*,run,,ok,' "$TMP/sw/runs.csv" | cut -d, -f6 | sort -u | wc -l)
[ "$ok_a" -ge 3 ] && [ "$ok_a" -le 4 ] && [ "$(grep -c ',a/tcp/q32r128/f1,.*,run,,ok,' "$TMP/sw/runs.csv")" -eq "$ok_a" ]
that "resume: repetitions: auto ran 3 to 4 distinct repetitions in all (got $ok_a)" "$TMP/sw/runs.csv"

# --- SIGINT in a loss search: where it stopped, in rates; nothing claimed done -------------
cat >"$TMP/search.yaml" <<'YAML'
name: search
defaults: {warmup: 0s, interval: 250ms}
tests:
  - name: s
    engine: pps
    sweep: {rate: {from: 1kpps, to: 64kpps, loss: 0.1%}, trial: 1s}
YAML
"$NBRUN" "$TMP/search.yaml" --peer "127.0.0.1:$PORT" --out "$TMP/si" 2>"$TMP/si.err" &
BG_PID=$!
# A trial whose sender fell short of its rate (a busy host) bounds nothing: the SIGINT waits for
# one that kept it (20 s at most), and what the search says depends on whether one did.
wait_rows "$TMP/si/runs.csv" 2
_i=0
while [ $_i -lt 200 ] && ! grep -q ',trial,[0-9.]*,ok,' "$TMP/si/runs.csv"; do
	sleep 0.1; _i=$((_i + 1))
done
if ! kill -0 "$BG_PID" 2>/dev/null && grep -q "fell short in every attempt" "$TMP/si.err"; then
	# a starved host: the search ended at its first rate, every attempt short, before the SIGINT
	wait "$BG_PID"; BG_PID=
	skip "SIGINT in a search: exit 130, it names the bracket in rates" "every attempt at the first rate fell short: the search ended before the SIGINT"
	skip "SIGINT in a search: its line says interrupted, none measured" "the search ended before the SIGINT"
else
kill -INT "$BG_PID"; wait "$BG_PID"; rc=$?; BG_PID=
want="the threshold lies between [0-9.]* kpps and 64 kpps"
grep -q ',trial,[0-9.]*,ok,' "$TMP/si/runs.csv" || want="no trial bounded the threshold"
[ "$rc" -eq 130 ] && grep -q "incomplete (interrupted): $want" "$TMP/si.err" &&
	! grep -q " and to\b" "$TMP/si.err"
that "SIGINT in a search: exit 130, it names the bracket in rates up to to (got $rc)" "$TMP/si.err"
grep -q "rep 1: search interrupted$" "$TMP/si.err" && ! grep -q "search done" "$TMP/si.err" &&
	grep -q "^0 of 1 run measured, 1 interrupted in " "$TMP/si.err"
that "SIGINT in a search: its line says interrupted, the end line counts it interrupted, none measured" "$TMP/si.err"
fi

# --- SIGHUP: the same, exit 129 ------------------------------------------------------------
"$NBRUN" "$TMP/four.yaml" --peer "127.0.0.1:$PORT" --out "$TMP/hup" -q 2>"$TMP/hup.err" &
BG_PID=$!
wait_rows "$TMP/hup/runs.csv" 1
kill -HUP "$BG_PID"; wait "$BG_PID"; rc=$?; BG_PID=
[ "$rc" -eq 129 ] && [ -s "$TMP/hup/report.md" ]
that "SIGHUP mid-batch: exit 129 (got $rc), report written" "$TMP/hup.err"

# --- the check: what the plan needs, before any run ----------------------------------------
cat >"$TMP/needs.yaml" <<'YAML'
name: needs
defaults: {duration: 1s, warmup: 0s}
tests:
  - {name: t, engine: stream, congestion: bbr2, cpus: [0, 999]}
YAML
: >"$TMP/serve.err"
"$NBRUN" "$TMP/needs.yaml" --peer "127.0.0.1:$PORT" --check 2>"$TMP/check.err"; rc=$?
[ "$rc" -eq 5 ]
that "--check: exit 5 (got $rc)" "$TMP/check.err"
grep -q "^nbrun: check: local: congestion control 'bbr2' is not available" "$TMP/check.err" &&
	grep -q "^nbrun: check: peer 127.0.0.1:$PORT: congestion control 'bbr2' is not available" "$TMP/check.err"
that "--check names the missing congestion control on each end" "$TMP/check.err"
grep -q "^nbrun: check: peer 127.0.0.1:$PORT: CPU 999 does not exist" "$TMP/check.err"
that "--check names the CPU that does not exist" "$TMP/check.err"
[ "$(wc -l <"$TMP/check.err")" -eq 4 ]
that "--check: one line per problem, nothing else" "$TMP/check.err"
# agentless cases toward --peer's host: this host is all there is to check, and it says so once
printf 'name: far\ndefaults: {duration: 1s, warmup: 0s}\ntests:\n  - {name: p, engine: icmp, cpus: [999]}\n' >"$TMP/far.yaml"
"$NBRUN" "$TMP/far.yaml" --peer "127.0.0.1:$PORT" --check 2>"$TMP/far.err"; rc=$?
[ "$rc" -eq 5 ] && grep -q "^nbrun: check: this host: CPU 999 does not exist" "$TMP/far.err" &&
	[ "$(wc -l <"$TMP/far.err")" -eq 1 ]
that "--check of agentless cases toward a --peer: this host's problem, once (exit 5, got $rc)" "$TMP/far.err"
"$NBRUN" "$TMP/needs.yaml" --peer "127.0.0.1:$PORT" --out "$TMP/needs" 2>"$TMP/needs.err"; rc=$?
[ "$rc" -eq 5 ] && [ ! -e "$TMP/needs" ]
that "a batch checks first: exit 5, no results folder" "$TMP/needs.err"
# the agent logs a check after answering it: its line may trail the client's exit a little
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(grep -ac ': check: 2 problems' "$TMP/serve.err")" -eq 2 ] && break
	sleep 0.2
done
[ "$(grep -ac ': check: 2 problems' "$TMP/serve.err")" -eq 2 ] && ! grep -aq ': run [0-9]' "$TMP/serve.err"
that "the agent ran nothing for either (its console has check lines, no run line)" "$TMP/serve.err"

# --- the agent's console: who, which case, the result --------------------------------------
grep -q "^nbrun serve: session from 127.0.0.1:[0-9]* (nbrun " "$TMP/serve.err"
that "the agent's console names each session" "$TMP/serve.err"
: >"$TMP/serve.err"
printf 'name: one\ndefaults: {duration: 300ms, warmup: 0s, interval: 100ms}\ntests:\n  - {name: o, engine: rr}\n' >"$TMP/one.yaml"
"$NBRUN" "$TMP/one.yaml" --peer "127.0.0.1:$PORT" -q 2>/dev/null
grep -q "^nbrun serve: 127.0.0.1:[0-9]*: run 1 o/tcp/q32r128/f1: ok$" "$TMP/serve.err" &&
	grep -q "^nbrun serve: 127.0.0.1:[0-9]*: session #[0-9]* ended after 1 run$" "$TMP/serve.err"
that "the agent's console: each run with its case and result, and the session's end" "$TMP/serve.err"

# --- a peer that is not nbrun --------------------------------------------------------------
python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4)
while True:
    c, _ = s.accept(); c.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n"); c.close()
' "$FAKE" &
FAKE_PID=$!
wait_port "$FAKE"
"$NBRUN" "$TMP/one.yaml" --peer "127.0.0.1:$FAKE" --out "$TMP/http" 2>"$TMP/http.err"; rc=$?
[ "$rc" -eq 3 ] && [ ! -e "$TMP/http" ] &&
	[ "$(cat "$TMP/http.err")" = "nbrun: the peer at 127.0.0.1:$FAKE does not speak the nbrun protocol" ]
that "an HTTP server as the peer: exit 3, 'does not speak the nbrun protocol', no folder" "$TMP/http.err"

# --- a full disk and a read-only folder ----------------------------------------------------
if [ "$(id -u)" != 0 ]; then
	skip "a full disk: exit 4, one line naming the file" "needs root to mount a tmpfs"
	skip "a read-only folder: exit 4" "needs root to mount a tmpfs"
else
	MNT=$TMP/mnt
	mkdir "$MNT" && mount -t tmpfs -o size=160k nbt_full "$MNT"
	head -c 100000 /dev/zero >"$MNT/filler"
	# paced: the CPUs stay free, so rows come every 10 ms and fill the disk within a second
	printf 'name: full\ndefaults: {duration: 10s, warmup: 0s, interval: 10ms}\ntests:\n  - {name: f, engine: stream, streams: 8, rate: 10M}\n' >"$TMP/full.yaml"
	"$NBRUN" "$TMP/full.yaml" --peer "127.0.0.1:$PORT" --out "$MNT/r" 2>"$TMP/full.err"; rc=$?
	last=$(tail -n 1 "$TMP/full.err")
	[ "$rc" -eq 4 ] && echo "$last" | grep -q "^nbrun: cannot write $MNT/r/[a-z./-]*: No space left on device$"
	that "a full disk: exit 4 (got $rc), the last line names the file and the reason" "$TMP/full.err"
	! grep -q "results in" "$TMP/full.err" && [ -z "$(find "$MNT" -name '*.tmp')" ]
	that "a full disk: no 'results in' line, no temporary file left" "$TMP/full.err"
	umount "$MNT" && mount -t tmpfs -o ro,size=64k nbt_ro "$MNT"
	"$NBRUN" "$TMP/one.yaml" --peer "127.0.0.1:$PORT" --out "$MNT/r" 2>"$TMP/ro.err"; rc=$?
	[ "$rc" -eq 4 ] && [ "$(cat "$TMP/ro.err")" = "nbrun: cannot create $MNT/r: Read-only file system" ]
	that "a read-only folder: exit 4, one line naming it" "$TMP/ro.err"
	umount "$MNT"; MNT=
fi
echo "1..$N"
exit $FAILED

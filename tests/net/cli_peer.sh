#!/bin/sh
# net suite: nbrun against a separate `nbrun serve` process on loopback, as a user runs it.
#  - a second client that will not wait (--queue-timeout 0) while a test runs gets "busy" and
#    exit 6 (agent_queue.sh: one that waits);
#  - the agent killed mid-run: the client exits 3 with "stopped answering", and the runs that
#    finished before are in runs.csv (and a report was still written);
#  - a bad config and a bad flag: exit 2 with a one-line message.
# Speaks TAP. Environment: NBRUN = path of the nbrun binary (meson sets it).
set -u
NBRUN=${NBRUN:-build/nbrun}
TMP=$(mktemp -d /tmp/nbcli-$$.XXXXXX)
PORT=$((21000 + $$ % 4000))
DATA="$((PORT + 1))-$((PORT + 20))"
SERVE_PID=
BG_PID=
N=0
FAILED=0

cleanup() {
	for p in $BG_PID $SERVE_PID; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"

serve() {
	"$NBRUN" serve --bind 127.0.0.1 --port "$PORT" --data-ports "$DATA" -q 2>"$TMP/serve.err" &
	SERVE_PID=$!
	wait_port "$PORT"
}

cat >"$TMP/three.yaml" <<'YAML'
name: three
defaults: {duration: 2s, warmup: 200ms, interval: 500ms, repetitions: 1}
tests:
  - {name: t, engine: stream, protocol: tcp, size: 64K, streams: [1, 2, 3]}
YAML

echo "1..9"
serve

# 1-2: busy
"$NBRUN" "$TMP/three.yaml" --peer "127.0.0.1:$PORT" --out "$TMP/first" -q 2>"$TMP/first.err" &
BG_PID=$!
wait_rows "$TMP/first/intervals.csv" 1
"$NBRUN" "$TMP/three.yaml" --peer "127.0.0.1:$PORT" --out "$TMP/second" -q --queue-timeout 0 \
	2>"$TMP/second.err"
rc=$?
[ $rc -eq 6 ] && ok "a second client that will not wait exits 6" ||
	nok "a second client that will not wait exits 6 (got $rc)" "$TMP/second.err"
grep -q "busy" "$TMP/second.err" && ok "and says the agent is busy" || nok "and says the agent is busy" "$TMP/second.err"
wait "$BG_PID"; rc=$?; BG_PID=
[ $rc -eq 0 ] && ok "the first client finished its runs" || nok "the first client finished (rc $rc)" "$TMP/first.err"

# 4-7: the agent dies mid-run
"$NBRUN" "$TMP/three.yaml" --peer "127.0.0.1:$PORT" --out "$TMP/dies" -q 2>"$TMP/dies.err" &
BG_PID=$!
wait_ok_runs "$TMP/dies/runs.csv" 1
kill -9 "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null; SERVE_PID=
wait "$BG_PID"; rc=$?; BG_PID=
[ $rc -eq 3 ] && ok "the client exits 3 when the agent dies" || nok "exit 3 when the agent dies (got $rc)" "$TMP/dies.err"
grep -q "peer 127.0.0.1:$PORT stopped answering during t/tcp/s64K/p2/forward" "$TMP/dies.err" &&
	ok "and names the peer and the case" || nok "and names the peer and the case" "$TMP/dies.err"
ok_rows=$(grep -c ',run,,ok,' "$TMP/dies/runs.csv")
[ "$ok_rows" -ge 1 ] && ok "the finished run is kept in runs.csv ($ok_rows)" || nok "the finished run is kept" "$TMP/dies/runs.csv"
[ -s "$TMP/dies/report.md" ] && grep -q "incomplete" "$TMP/dies/report.md" &&
	ok "a report of the partial results says it is incomplete" || nok "partial report" "$TMP/dies.err"

# 8-9: bad input
printf 'name: x\ntests:\n  - name: a\n    engine: stream\n    sizes: 64\n' >"$TMP/bad.yaml"
"$NBRUN" "$TMP/bad.yaml" --dry-run 2>"$TMP/bad.err"; rc=$?
[ $rc -eq 2 ] && grep -q "bad.yaml:5:5: .*did you mean 'size'" "$TMP/bad.err" &&
	ok "a bad config: exit 2 with file:line:col and a suggestion" || nok "bad config (rc $rc)" "$TMP/bad.err"
"$NBRUN" --peer 2>"$TMP/flag.err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/flag.err")" -eq 1 ] &&
	ok "a flag without its argument: exit 2, one line" || nok "bad flag (rc $rc)" "$TMP/flag.err"
exit $FAILED

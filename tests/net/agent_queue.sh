#!/bin/sh
# net suite: runners waiting in line for one `nbrun serve` on loopback (issue 35), as users
# meet it. Ordering and counts only: every wait below is for a line of the agent's log.
#  - two runners at once: the second is told "1st in line", waits, and completes after the
#    first; both measured what they asked (a paced rate);
#  - with a session held: a runner with --queue-timeout 1s behind one already waiting is told
#    "2nd in line" and gives up with exit 6 and no results folder;
#  - a waiting runner killed (SIGKILL) leaves the line: the next one is 2nd (behind the one
#    still waiting), not 3rd; a silent, unauthenticated connection holds no place either;
#  - --max-queue 2 full: the next runner exits 6 at once, saying the queue is full;
#  - the agent's log: sessions begin and end in turn, never two at once, and every run line
#    is inside its session.
# Speaks TAP. Environment: NBRUN = path of the nbrun binary (meson sets it).
set -u
NBRUN=$(realpath "${NBRUN:-build/nbrun}")
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
TMP=$(mktemp -d /tmp/nbt_queue.XXXXXX)
PORT=$((29000 + $$ % 4000))
DATA="$((PORT + 1))-$((PORT + 20))"
SERVE_PID= HOLD_PID= B_PID= D_PID= E_PID= U_PID= A_PID= Q_PID=
N=0
FAILED=0
export NBRUN_GNUPLOT=none

cleanup() {
	for p in $A_PID $Q_PID $HOLD_PID $B_PID $D_PID $E_PID $U_PID $SERVE_PID; do
		kill "$p" 2>/dev/null; wait "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "$SRC/tests/lib/tap.sh"
cd "$TMP" || exit 1

printf 'a secret for the queue test only\n' >"$TMP/secret"
chmod 600 "$TMP/secret"
export NBRUN_SECRET_FILE="$TMP/secret"

# log_has N PATTERN: until the agent's log has N lines matching PATTERN (60 s at most)
log_has() {
	_i=0
	while [ $_i -lt 600 ]; do
		[ "$(grep -c -- "$2" "$TMP/serve.err")" -ge "$1" ] && return 0
		sleep 0.1; _i=$((_i + 1))
	done
	return 1
}

# rate_ok DIR: one ok row, its rx_bps within 20 % of the 20 Mbit/s it was paced at
rate_ok() {
	awk -F, 'NR > 1 && $7 == "run" { n++; if ($9 == "ok" && $11 > 16e6 && $11 < 24e6) good++ }
		END { exit !(n == 1 && good == 1) }' "$1/runs.csv"
}

# the sessions in the log: each "#K" begins, then ends, before the next begins; K counts up;
# every run line falls inside a session. Prints how many sessions.
sessions_in_turn() {
	awk '/: session from .*, #[0-9]+$/ { k = $NF; sub("#", "", k)
			if (open || k != last + 1) bad = 1; open = 1; last = k; next }
		/: session #[0-9]+ ended after/ { for (i = 1; i <= NF; i++) if ($i ~ /^#/) k = $i
			sub("#", "", k); if (!open || k != last) bad = 1; open = 0; next }
		/: run [0-9]+ / { if (!open) bad = 1 }
		END { if (bad || open) exit 1; print last }' "$TMP/serve.err"
}

cat >"$TMP/paced.yaml" <<'YAML'
name: paced
defaults: {duration: 2s, warmup: 0s, interval: 500ms}
tests:
  - {name: t, engine: stream, protocol: tcp, size: 16K, rate: 20M}
YAML
cat >"$TMP/long.yaml" <<'YAML'
name: long
defaults: {duration: 60s, warmup: 0s, interval: 1s}
tests:
  - {name: hold, engine: stream, protocol: tcp, size: 16K, rate: 1M}
YAML

"$NBRUN" serve --bind 127.0.0.1 --port "$PORT" --data-ports "$DATA" --max-queue 2 \
	2>"$TMP/serve.err" &
SERVE_PID=$!
wait_port "$PORT"
peer="127.0.0.1:$PORT"

# --- two runners at once: the second waits, then both measure -----------------------------
"$NBRUN" "$TMP/paced.yaml" --peer "$peer" --out "$TMP/a" 2>"$TMP/a.err" &
A_PID=$!
log_has 1 ": session from .*, #1$"
"$NBRUN" "$TMP/paced.yaml" --peer "$peer" --out "$TMP/q" 2>"$TMP/q.err" &
Q_PID=$!
wait "$A_PID"; rc_a=$?; A_PID=
wait "$Q_PID"; rc_q=$?; Q_PID=
[ "$rc_a" -eq 0 ] && [ "$rc_q" -eq 0 ]
that "two runners at once: both exit 0 (got $rc_a, $rc_q)" "$TMP/q.err"
grep -q "^nbrun: waiting for the agent at $peer: 1st in line, about [0-9]* s$" "$TMP/q.err"
that "the second was told it is 1st in line and about how long" "$TMP/q.err"
grep -q ": queued: 1st in line (its plan: 3 s)$" "$TMP/serve.err"
that "the agent queued it with its batch's plan" "$TMP/serve.err"
check "the first measured its 20 Mbit/s" "$TMP/a/runs.csv" rate_ok "$TMP/a"
check "the second measured its 20 Mbit/s too" "$TMP/q/runs.csv" rate_ok "$TMP/q"
[ "$(sessions_in_turn)" = 2 ]
that "the agent's log: session 2 began after session 1 ended" "$TMP/serve.err"

# --- a session held: give up, vanish, no place for the unauthenticated, a full line ---------
"$NBRUN" "$TMP/long.yaml" --peer "$peer" --out "$TMP/hold" -q 2>"$TMP/hold.err" &
HOLD_PID=$!
log_has 1 ": session from .*, #3$"
"$NBRUN" "$TMP/paced.yaml" --peer "$peer" --out "$TMP/b" 2>"$TMP/b.err" &
B_PID=$!
log_has 2 ": queued: 1st in line"

"$NBRUN" "$TMP/paced.yaml" --peer "$peer" --out "$TMP/c" --queue-timeout 1s 2>"$TMP/c.err"; rc=$?
[ "$rc" -eq 6 ] && [ ! -e "$TMP/c" ]
that "--queue-timeout 1s behind a waiting runner: exit 6, no results folder (got $rc)" "$TMP/c.err"
grep -q "^nbrun: waiting for the agent at $peer: 2nd in line, " "$TMP/c.err" &&
	grep -q "gave up waiting for peer $peer after [0-9]* s (--queue-timeout): 2nd in line" "$TMP/c.err"
that "it was told 2nd in line, and says it gave up" "$TMP/c.err"
log_has 1 ": left the queue: gone$"

"$NBRUN" "$TMP/paced.yaml" --peer "$peer" --out "$TMP/d" 2>"$TMP/d.err" &
D_PID=$!
log_has 2 ": queued: 2nd in line"
kill -KILL "$D_PID"; wait "$D_PID" 2>/dev/null; D_PID=
log_has 2 ": left the queue: gone$"
that "a waiting runner killed: the agent says it left the line" "$TMP/serve.err"

# a connection that never says a word (no HELLO, no secret): it must hold no place
python3 -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
open(sys.argv[2], "w").close()
time.sleep(30)' "$PORT" "$TMP/u.connected" &
U_PID=$!
_i=0; while [ ! -e "$TMP/u.connected" ] && [ $_i -lt 300 ]; do sleep 0.1; _i=$((_i + 1)); done
"$NBRUN" "$TMP/paced.yaml" --peer "$peer" --out "$TMP/e" 2>"$TMP/e.err" &
E_PID=$!
log_has 3 ": queued: 2nd in line"
grep -q "^nbrun: waiting for the agent at $peer: 2nd in line, " "$TMP/e.err" &&
	! grep -q "3rd in line" "$TMP/e.err"
that "the next runner is 2nd, not 3rd: the killed one and the silent one hold no place" "$TMP/e.err"

"$NBRUN" "$TMP/paced.yaml" --peer "$peer" --out "$TMP/f" 2>"$TMP/f.err"; rc=$?
[ "$rc" -eq 6 ] && grep -q "agent is busy with another client, and its queue is full" "$TMP/f.err"
that "--max-queue 2 full: the next runner exits 6 at once, saying so (got $rc)" "$TMP/f.err"

kill -INT "$HOLD_PID"; wait "$HOLD_PID"; HOLD_PID=
wait "$B_PID"; rc_b=$?; B_PID=
wait "$E_PID"; rc_e=$?; E_PID=
[ "$rc_b" -eq 0 ] && [ "$rc_e" -eq 0 ] && rate_ok "$TMP/b" && rate_ok "$TMP/e"
that "once the session is free, both waiting runners measure in turn (exit $rc_b, $rc_e)" "$TMP/e.err"
grep -q "^nbrun: waiting for the agent at $peer: 1st in line, " "$TMP/e.err"
that "the second waiter moved up to 1st when the first took the session" "$TMP/e.err"
[ "$(sessions_in_turn)" = 5 ]
that "the agent's log: five sessions, each begun after the last one ended" "$TMP/serve.err"
kill "$U_PID" 2>/dev/null; wait "$U_PID" 2>/dev/null; U_PID=

echo "1..$N"
exit $FAILED

#!/bin/sh
# netns suite: the control connection cannot be altered after the handshake (issue 29 item 1).
# In a namespace of its own (its loopback only), `nbrun serve --secret-file` and the runner talk
# through nb_meddle, an on-path relay that passes the handshake through untouched. First it
# changes nothing: the run is ok (the relay itself is transparent). Then it flips one bit of one
# frame the agent sends during the run (the receiver's byte counter of the last interval, in
# protocol 5's layout, where it turned a run into an absurd rate reported "ok"): the runner
# must say the control connection was altered in transit, exit 3, and keep no ok row.
# Speaks TAP. Needs root and ip(8). Environment: NBRUN, NB_MEDDLE, NB_SRCDIR.
set -u
NBRUN=${NBRUN:-build/nbrun}
NB_MEDDLE=${NB_MEDDLE:-build/tests/nb_meddle}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
need_root_netns
NS=nbint-$$
TMP=$(mktemp -d /tmp/nbint-$$.XXXXXX)
SERVE_PID= RELAY_PID=
cleanup() {
	[ -n "$RELAY_PID" ] && kill "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
echo "1..7"
ip netns add "$NS" && ip -n "$NS" link set lo up && ok "a namespace of its own" ||
	{ nok "namespace setup"; exit 1; }
in_ns() { ip netns exec "$NS" "$@"; }

head -c 32 /dev/urandom | base64 >"$TMP/secret" && chmod 600 "$TMP/secret"
ip netns exec "$NS" "$NBRUN" serve --bind 127.0.0.1 --port 7575 --data-ports 7600-7620 \
	--secret-file "$TMP/secret" 2>"$TMP/serve.err" &
SERVE_PID=$!
cat >"$TMP/t.yaml" <<'YAML'
name: integrity
defaults: {duration: 3s, warmup: 0s, omit: 0s, interval: 1s, repetitions: 1}
tests:
  - {name: fwd, engine: stream, protocol: tcp, direction: forward, rate: 100M}
YAML

# relay FRAME BYTE: nb_meddle on 7576 toward the agent, flipping that bit of that frame of 300
# bytes or more (FRAME -1: none).
relay() {
	[ -n "$RELAY_PID" ] && kill "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null
	ip netns exec "$NS" "$NB_MEDDLE" 7576 127.0.0.1 7575 "$1" "$2" 300 2>"$TMP/relay-$1.err" &
	RELAY_PID=$!
	ip netns exec "$NS" sh -c ". '${NB_SRCDIR:-.}/tests/lib/tap.sh'; wait_port 7575; wait_port 7576"
}
# statuses CSV: the status column of every row.
statuses() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") s = i; next } { print $s }' "$1"; }
# run OUT: the batch through the relay; its exit code in RC.
run() {
	NBRUN_GNUPLOT=none in_ns "$NBRUN" "$TMP/t.yaml" --peer 127.0.0.1:7576 \
		--secret-file "$TMP/secret" --out "$TMP/$1" -q 2>"$TMP/$1.err"
	RC=$?
}

relay -1 0
run clean
[ "$RC" -eq 0 ] && [ "$(statuses "$TMP/clean/runs.csv")" = ok ] &&
	ok "through a relay that changes nothing: exit 0, an ok row" || nok "clean run (rc $RC)" "$TMP/clean.err"
# The agent's frames of 300 bytes or more: 0 FACTS, then one INTERVAL per tick (1 .. 5: ticks
# 0 .. 4; tick 3 closes the last interval, tick 4 settles it), then RESULT. Byte 110 of an
# INTERVAL's body is the third byte of flow 0's received bytes in protocol 5's layout.
[ "$(grep -c "flipped" "$TMP/relay--1.err")" -eq 0 ] && grep -q "a2c frame 1[0-9]:" "$TMP/relay--1.err" &&
	ok "the relay saw the run's frames and changed none" || nok "relay log" "$TMP/relay--1.err"

relay 4 110
run altered
[ "$RC" -eq 3 ] && ok "one bit flipped in an interval frame: exit 3" || nok "altered run (rc $RC)" "$TMP/altered.err"
grep -q "the control connection was altered in transit" "$TMP/altered.err" &&
	ok "the runner says the control connection was altered in transit" || nok "message" "$TMP/altered.err"
! statuses "$TMP/altered/runs.csv" 2>/dev/null | grep -qx ok && ok "and keeps no ok row" ||
	nok "an ok row was kept" "$TMP/altered/runs.csv"
grep -q "flipped a bit of byte 110 of frame" "$TMP/relay-4.err" && grep -q "session #[0-9]* ended" "$TMP/serve.err" &&
	ok "the relay did flip it, and the agent ended that session" || nok "agent log" "$TMP/serve.err"
exit $FAILED

#!/bin/sh
# net suite: `nbrun serve --secret-file` and the client as a user runs them, on loopback.
#  - the right secret (--secret-file, or NBRUN_SECRET_FILE) runs;
#  - a wrong and a missing secret: exit 3, one line on the client, a log line on the agent,
#    nothing runs and no results folder is left;
#  - a client with a secret refuses an agent without one;
#  - the agent says its limits at start, and loudly when it has no secret;
#  - a test beyond a limit fails with the limit named, and the batch goes on.
# Speaks TAP. Environment: NBRUN = path of the nbrun binary (meson sets it).
set -u
NBRUN=${NBRUN:-build/nbrun}
TMP=$(mktemp -d /tmp/nbsecret-$$.XXXXXX)
PORT=$((25000 + $$ % 4000))
DATA="$((PORT + 1))-$((PORT + 20))"
SERVE_PID=
N=0
FAILED=0

cleanup() {
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"

# serve LOG ARGS...: `nbrun serve` on PORT with ARGS, its stderr in LOG, until it listens.
serve() {
	_log=$1
	shift
	"$NBRUN" serve --bind 127.0.0.1 --port "$PORT" --data-ports "$DATA" "$@" 2>"$_log" &
	SERVE_PID=$!
	wait_port "$PORT"
}
unserve() { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; SERVE_PID=; }

# run NAME ARGS...: the one-test config against the agent; exit code in RC, stderr in NAME.err
run() {
	_n=$1
	shift
	"$NBRUN" "$TMP/one.yaml" --peer "127.0.0.1:$PORT" --out "$TMP/$_n" -q "$@" 2>"$TMP/$_n.err"
	RC=$?
}

cat >"$TMP/one.yaml" <<'YAML'
name: one
defaults: {duration: 500ms, warmup: 0s, interval: 250ms, repetitions: 1}
tests:
  - {name: t, engine: stream, protocol: tcp, size: 16K, streams: [1, 4]}
YAML
head -c 32 /dev/urandom | base64 >"$TMP/secret"
head -c 32 /dev/urandom | base64 >"$TMP/other"
chmod 600 "$TMP/secret" "$TMP/other"

echo "1..19"
serve "$TMP/serve.err" --secret-file "$TMP/secret" --max-streams 2 -v

run right --secret-file "$TMP/secret" --filter 't/tcp/s16K/p1/*'
# The banner is whole once a client was served: the agent prints it before it takes one.
grep -q "limits per test: --max-streams 2, --max-message 1M, --max-duration 3600 s, --max-rate none" \
	"$TMP/serve.err" && ok "the agent says its limits at start" || nok "limits at start" "$TMP/serve.err"
! grep -q WARNING "$TMP/serve.err" && ok "and, with a secret, no warning" || nok "no warning" "$TMP/serve.err"
[ $RC -eq 0 ] && grep -q ',run,,ok,' "$TMP/right/runs.csv" &&
	ok "the right secret runs" || nok "right secret (rc $RC)" "$TMP/right.err"
run limit --secret-file "$TMP/secret"
[ $RC -eq 5 ] && [ ! -e "$TMP/limit" ] &&
	grep -q "t/tcp/s16K/p4/forward: limit: 4 flows, above this agent's --max-streams 2" "$TMP/limit.err" &&
	ok "the 4-stream case is named by the check, beyond --max-streams (exit 5, no folder)" ||
	nok "limit named (rc $RC)" "$TMP/limit.err"
tests_before=$(grep -c ": run [0-9]" "$TMP/serve.err")

run wrong --secret-file "$TMP/other"
[ $RC -eq 3 ] && ok "a wrong secret: exit 3" || nok "a wrong secret: exit 3 (got $RC)" "$TMP/wrong.err"
[ "$(wc -l <"$TMP/wrong.err")" -eq 1 ] && grep -q "^nbrun: peer 127.0.0.1:$PORT: authentication failed" \
	"$TMP/wrong.err" && ok "one line says authentication failed" || nok "one line" "$TMP/wrong.err"
[ ! -e "$TMP/wrong" ] && ok "no results folder" || nok "no results folder" "$TMP/wrong.err"

run missing
[ $RC -eq 3 ] && [ "$(wc -l <"$TMP/missing.err")" -eq 1 ] &&
	grep -q "requires a shared secret: give --secret-file FILE" "$TMP/missing.err" &&
	ok "a missing secret: exit 3, one line saying what to give" || nok "missing secret (rc $RC)" "$TMP/missing.err"

NBRUN_SECRET_FILE=$TMP/secret run env_secret --filter 't/tcp/s16K/p1/*'
[ $RC -eq 0 ] && grep -q ',run,,ok,' "$TMP/env_secret/runs.csv" &&
	ok "NBRUN_SECRET_FILE works as --secret-file" || nok "NBRUN_SECRET_FILE (rc $RC)" "$TMP/env_secret.err"

[ "$(grep -c "^nbrun serve: [0-9.]*:[0-9]*: refused: " "$TMP/serve.err")" -eq 2 ] &&
	grep -q "refused: authentication failed" "$TMP/serve.err" &&
	ok "the agent logged one line per refused client" || nok "agent log" "$TMP/serve.err"
[ "$(grep -c ": run [0-9]" "$TMP/serve.err")" -eq $((tests_before + 1)) ] &&
	ok "nothing ran for the refused clients" || nok "tests run" "$TMP/serve.err"
unserve

serve "$TMP/open.err"
run refuse --secret-file "$TMP/secret"
[ $RC -eq 3 ] && grep -q "has no shared secret (start it with --secret-file); refusing" "$TMP/refuse.err" &&
	ok "a client with a secret refuses an agent without one" || nok "client refuses (rc $RC)" "$TMP/refuse.err"
grep -q "WARNING: no --secret-file: anyone who can reach port $PORT can make this host send traffic" \
	"$TMP/open.err" && ok "without a secret the agent warns at start" || nok "warning" "$TMP/open.err"
unserve

# --allow (issue 27): a client from elsewhere is told it was refused by the allow list, a run and
# env alike (exit 3); the agent logs it at its default verbosity, a line per client at first
# (10 a minute), then how many more it refused (said at the latest when it stops).
serve "$TMP/allow.err" --allow 127.0.0.2/32
run notallowed
[ $RC -eq 3 ] && [ ! -e "$TMP/notallowed" ] && [ "$(cat "$TMP/notallowed.err")" = \
	"nbrun: peer 127.0.0.1:$PORT: refused: this client's address is not in the agent's --allow list" ] &&
	ok "outside --allow: a run is told so in one line, exit 3, no folder" ||
	nok "outside --allow, a run (rc $RC)" "$TMP/notallowed.err"
for _i in 1 2 3 4 5 6 7 8 9 10 11; do
	"$NBRUN" env --peer "127.0.0.1:$PORT" >/dev/null 2>"$TMP/envallow.err"
	RC=$?
done
[ $RC -eq 3 ] && grep -q "refused: this client's address is not in the agent's --allow list" \
	"$TMP/envallow.err" && ok "outside --allow: env is told the same" || nok "env (rc $RC)" "$TMP/envallow.err"
unserve
[ "$(grep -c "^nbrun serve: 127.0.0.1:[0-9]*: refused: not in --allow$" "$TMP/allow.err")" -eq 10 ] &&
	ok "the agent logged the first 10 refused clients, at its default verbosity" ||
	nok "a line per refused client" "$TMP/allow.err"
grep -qx "nbrun serve: refused 2 more clients not in --allow in the last 60 s" "$TMP/allow.err" &&
	ok "... and then how many more it refused" || nok "the summary" "$TMP/allow.err"

# A swept case is held to the agent's limits as its highest rate, not its start (the check).
serve "$TMP/rate.err" --max-rate 500M
cat >"$TMP/sweep.yaml" <<'YAML'
name: sweep
defaults: {warmup: 0s, repetitions: 1}
tests:
  - name: s
    engine: stream
    protocol: udp
    size: 1000
    sweep: { rate: { from: 10M, to: 1G, loss: 0% }, trial: 1s }
YAML
"$NBRUN" "$TMP/sweep.yaml" --peer "127.0.0.1:$PORT" --check 2>"$TMP/sweep.err"
RC=$?
[ $RC -eq 5 ] && grep -q "s/udp/s1000/p1/forward/search: limit: the test offers 1000000000 bit/s over its flows, above this agent's --max-rate 500000000 bit/s" "$TMP/sweep.err" &&
	ok "a sweep to 1G against --max-rate 500M: the check names it (exit 5)" ||
	nok "sweep beyond --max-rate (rc $RC)" "$TMP/sweep.err"
unserve

printf 'short\n' >"$TMP/short"
"$NBRUN" serve --secret-file "$TMP/short" --port "$PORT" 2>"$TMP/short.err"
rc=$?
[ $rc -eq 2 ] && grep -q "secret file $TMP/short: 5 bytes (expected 16" "$TMP/short.err" &&
	ok "a secret too short: exit 2, says so" || nok "short secret (rc $rc)" "$TMP/short.err"
exit $FAILED

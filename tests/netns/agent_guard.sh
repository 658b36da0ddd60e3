#!/bin/sh
# netns suite: `nbrun serve` as a user starts it on a public address (issue 29 items 6 and 7).
# An agent in namespace A, its clients in namespace B across a veth pair. Without a secret on an
# address beyond loopback, serve refuses to start unless --insecure, and then takes conservative
# limits; on loopback it starts as before. A secret file its group or others can change is
# refused by both ends; a weak secret is warned about. Wrong secrets from a client in a loop
# make a few log lines at default verbosity, not one each.
# Speaks TAP. Needs root and ip(8). Environment: NBRUN, NB_SRCDIR.
set -u
NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
veth_test_init nbag 10.229.17

need_root_netns
echo "1..14"
veth_pair "$NSA" "$NSB" "$VA" "$VB" "$ADDR_A" "$ADDR_B" && ok "a veth pair" ||
	{ nok "namespace setup"; exit 1; }
in_a() { ip netns exec "$NSA" "$@"; }
in_b() { ip netns exec "$NSB" "$@"; }

# serve_bg LOG ARGS...: the agent in A in the background, until it listens on 7575 (or exits).
serve_bg() {
	_log=$1; shift
	ip netns exec "$NSA" "$NBRUN" serve --port 7575 "$@" 2>"$_log" &
	SERVE_PID=$!
	wait_listen "$NSA" 7575
}
unserve() { [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; SERVE_PID=; }

# --- no secret beyond loopback ---------------------------------------------------------------
timeout 5 ip netns exec "$NSA" "$NBRUN" serve --bind "$ADDR_A" 2>"$TMP/open.err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/open.err")" -eq 1 ] && grep -q -- "--secret-file" "$TMP/open.err" &&
	grep -q -- "--insecure" "$TMP/open.err" &&
	ok "no secret on $ADDR_A: refused, exit 2, one line naming --secret-file and --insecure" ||
	nok "no secret on a public address (rc $rc)" "$TMP/open.err"
timeout 5 ip netns exec "$NSA" "$NBRUN" serve 2>"$TMP/all.err"; rc=$?
[ $rc -eq 2 ] && grep -q "every address" "$TMP/all.err" &&
	ok "no secret on every address: refused too" || nok "no secret, no --bind (rc $rc)" "$TMP/all.err"
serve_bg "$TMP/lo.err" --bind 127.0.0.1
listening_a() { ip netns exec "$NSA" sh -c ". '${NB_SRCDIR:-.}/tests/lib/tap.sh'; listening 7575"; }
listening_a && grep -q WARNING "$TMP/lo.err" &&
	ok "no secret on loopback: it serves, with its warning" || nok "loopback" "$TMP/lo.err"
unserve

serve_bg "$TMP/insecure.err" --bind "$ADDR_A" --insecure
grep -q -- "--max-streams 8, --max-message 1M, --max-duration 60 s, --max-rate 1G" "$TMP/insecure.err" &&
	ok "--insecure: it serves, with conservative limits" || nok "--insecure limits" "$TMP/insecure.err"
cat >"$TMP/unpaced.yaml" <<'YAML'
name: guard
defaults: {duration: 1s, warmup: 0s, omit: 0s, interval: 500ms, repetitions: 1}
tests:
  - {name: fwd, engine: stream, protocol: tcp}
YAML
NBRUN_GNUPLOT=none in_b "$NBRUN" "$TMP/unpaced.yaml" --peer "$ADDR_A" --out "$TMP/u" -q 2>"$TMP/u.err"
rc=$?
# --check, which every batch runs first, holds each case to the agent's limits: exit 5, no run
[ $rc -eq 5 ] && grep -q "unpaced TCP test has no rate bound.*--max-rate" "$TMP/u.err" &&
	[ ! -e "$TMP/u/runs.csv" ] &&
	ok "--insecure: an unpaced test is refused before any run, naming --max-rate (exit 5)" ||
	nok "unpaced (rc $rc)" "$TMP/u.err"
unserve
serve_bg "$TMP/given.err" --bind "$ADDR_A" --insecure --max-rate 0 --max-streams 16
grep -q -- "--max-streams 16, --max-message 1M, --max-duration 60 s, --max-rate none" "$TMP/given.err" &&
	ok "--insecure: the limits given on the command line are kept" || nok "given limits" "$TMP/given.err"
unserve

# --- the secret file -------------------------------------------------------------------------
head -c 32 /dev/urandom | base64 >"$TMP/secret" && chmod 600 "$TMP/secret"
cp "$TMP/secret" "$TMP/loose" && chmod 602 "$TMP/loose"
timeout 5 ip netns exec "$NSA" "$NBRUN" serve --bind "$ADDR_A" --secret-file "$TMP/loose" \
	2>"$TMP/loose.err"; rc=$?
[ $rc -eq 2 ] && grep -q "can be changed by other users" "$TMP/loose.err" &&
	ok "a secret file others can write (602): serve refuses it" || nok "602 serve (rc $rc)" "$TMP/loose.err"
chmod 620 "$TMP/loose"
in_b "$NBRUN" env --peer "$ADDR_A" --secret-file "$TMP/loose" >/dev/null 2>"$TMP/loose-c.err"; rc=$?
[ $rc -eq 2 ] && grep -q "can be changed by its group" "$TMP/loose-c.err" &&
	ok "a secret file its group can write (620): the client refuses it" || nok "620 client (rc $rc)" "$TMP/loose-c.err"
printf 'aaaaaaaaaaaaaaaa\n' >"$TMP/weak" && chmod 600 "$TMP/weak"
serve_bg "$TMP/weak.err" --bind "$ADDR_A" --secret-file "$TMP/weak"
in_b "$NBRUN" env --peer "$ADDR_A" --secret-file "$TMP/weak" >/dev/null 2>"$TMP/weak-c.err"; rc=$?
grep -q "looks weak" "$TMP/weak.err" && [ $rc -eq 0 ] && grep -q "looks weak" "$TMP/weak-c.err" &&
	ok "a weak secret works and is warned about on both ends" || nok "weak (rc $rc)" "$TMP/weak.err"
unserve

# --- wrong secrets in a loop -----------------------------------------------------------------
head -c 32 /dev/urandom | base64 >"$TMP/wrong" && chmod 600 "$TMP/wrong"
serve_bg "$TMP/flood.err" --bind "$ADDR_A" --secret-file "$TMP/secret"
i=0 refused=0
while [ $i -lt 40 ]; do
	in_b "$NBRUN" env --peer "$ADDR_A" --secret-file "$TMP/wrong" >/dev/null 2>&1
	[ $? -eq 3 ] && refused=$((refused + 1))
	i=$((i + 1))
done
lines=$(grep -c "refused: authentication failed" "$TMP/flood.err")
[ "$refused" -eq 40 ] && ok "40 wrong secrets in a row: each refused (exit 3)" || nok "refused $refused of 40"
[ "$lines" -le 5 ] && [ "$lines" -ge 1 ] &&
	ok "and the agent logged $lines lines of them, not 40" || nok "$lines log lines" "$TMP/flood.err"
in_b "$NBRUN" env --peer "$ADDR_A" --secret-file "$TMP/secret" >/dev/null 2>"$TMP/right.err" &&
	ok "the right secret is served right after" || nok "right secret" "$TMP/right.err"
unserve
grep -q -E "Sanitizer|runtime error" "$TMP"/*.err &&
	nok "a sanitizer finding in an agent or client" || ok "no sanitizer finding or runtime error"
exit $FAILED

#!/bin/sh
# netns suite (issue 27): `--check` proves the data path. Two namespaces joined by a veth pair;
# `nbrun serve` runs in NSA as the README starts it (no --bind: dual-stack, default ports and
# limits) with a secret; nftables drops the data ports between the ends: TCP only, UDP only,
# both, or (in the client's namespace) the UDP that comes back from the agent. Each time
# `--check` (and a batch, which checks first) exits 5 with one line per blocked protocol naming
# it, the port range and what to open, and writes nothing. A case above the agent's default
# --max-streams is named by --check before any folder exists. Speaks TAP. Needs root, ip(8),
# nft(8). Environment: NBRUN (meson sets it).
set -u

NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
veth_test_init nbchk 10.231.93

need_root_netns nft
echo "1..17"

setup() {
	veth_pair "$NSA" "$NSB" "$VA" "$VB" "$ADDR_A" "$ADDR_B" &&
	head -c 32 /dev/urandom | base64 >"$TMP/secret" && chmod 600 "$TMP/secret"
}
if setup >"$TMP/setup.log" 2>&1; then ok "veth pair $VA/$VB"; else nok "veth pair set up" "$TMP/setup.log"; fi
ip netns exec "$NSA" "$NBRUN" serve --secret-file "$TMP/secret" >"$TMP/serve.log" 2>&1 &
SERVE_PID=$!
wait_listen "$NSA" 7575

cat >"$TMP/three.yaml" <<YAML
name: three
defaults: { duration: 1s, warmup: 0s, interval: 500ms, repetitions: 1 }
tests:
  - { name: tcp, engine: stream, protocol: tcp }
  - { name: udp, engine: stream, protocol: udp, size: 1400, rate: 10M }
  - { name: rr, engine: rr, protocol: tcp }
YAML

# firewall NS RULES...: a table nbchk in NS with an input chain holding RULES (none: no table).
firewall() {
	_ns=$1; shift
	ip netns exec "$NSA" nft delete table inet nbchk 2>/dev/null
	ip netns exec "$NSB" nft delete table inet nbchk 2>/dev/null
	[ $# -eq 0 ] && return 0
	{
		echo "table inet nbchk {"
		echo "  chain input { type filter hook input priority 0; policy accept;"
		for _r in "$@"; do echo "    $_r"; done
		echo "  }"
		echo "}"
	} | ip netns exec "$_ns" nft -f -
}

# check_run NAME ARGS...: `nbrun CONFIG --peer ADDR_A ARGS` in NSB from an empty folder of its
# own; RC, $TMP/NAME.err (stderr), and the time it took as a TAP comment (not judged).
check_run() {
	_name=$1; shift
	mkdir -p "$TMP/cwd-$_name"
	_t0=$(date +%s%N)
	(cd "$TMP/cwd-$_name" && ip netns exec "$NSB" timeout 60 "$NBRUN" "$TMP/three.yaml" \
		--peer "$ADDR_A" --secret-file "$TMP/secret" "$@") >"$TMP/$_name.out" 2>"$TMP/$_name.err"
	RC=$?
	echo "# $_name: exit $RC after $((($(date +%s%N) - _t0) / 1000000)) ms"
}
# says FILE LINE...: exit 5, and FILE holds exactly these lines (regular expressions), in order.
says() {
	_f=$1; shift
	[ "$RC" = 5 ] && [ "$(wc -l <"$_f")" -eq $# ] || return 1
	_k=0
	for _l in "$@"; do
		_k=$((_k + 1))
		sed -n "${_k}p" "$_f" | grep -qx -- "$_l" || return 1
	done
}
# written NAME: nothing but stdout/stderr came of check run NAME (no results folder anywhere).
written() { [ -z "$(ls -A "$TMP/cwd-$1")" ] && [ ! -e "$TMP/out-$1" ]; }

TCP_LINE="nbrun: check: peer $ADDR_A: TCP data port 76[0-9][0-9]: no data connection came from the client within 1800 ms (a firewall drops it?): open TCP 7600-7699 to this host"
UDP_LINE="nbrun: check: peer $ADDR_A: UDP data port 76[0-9][0-9]: no data hello came from the client within 1800 ms (a firewall drops it?): open UDP 7600-7699 to this host"
BACK_LINE="nbrun: check: peer $ADDR_A: UDP data port 76[0-9][0-9]: the hello came, the echo of this host's challenge did not within 1800 ms: the client's end must let in UDP from this host's ports 7600-7699"

# ---- an open path ------------------------------------------------------------------------
firewall none
check_run open --check
check "open path: --check exits 0, saying the data path works" "$TMP/open.err" \
	sh -c "[ $RC = 0 ] && grep -qx 'nbrun: check: both ends have what the 3 cases need, and the data path to the agent works' '$TMP/open.err'"
check "... and says the agent's flow threads default, from its CPUs" "$TMP/open.err" \
	grep -qx "nbrun: check: peer $ADDR_A: flow threads per end: min(flows, $(nproc)) (threads: 0)" "$TMP/open.err"
check "... the agent proved both protocols and logged it" "$TMP/serve.log" \
	sh -c "grep -q 'check: TCP data path: ok' '$TMP/serve.log' && grep -q 'check: UDP data path: ok' '$TMP/serve.log'"

# ---- TCP, UDP, both dropped at the agent -------------------------------------------------
firewall "$NSA" "tcp dport 7600-7699 drop"
check_run tcp --check
check "TCP dropped: exit 5, one line naming TCP 7600-7699 and what to open" "$TMP/tcp.err" \
	says "$TMP/tcp.err" "$TCP_LINE"
check "TCP dropped: nothing written" "$TMP/tcp.err" written tcp

firewall "$NSA" "udp dport 7600-7699 drop"
check_run udp --check
check "UDP dropped: exit 5, one line naming UDP 7600-7699 and what to open" "$TMP/udp.err" \
	says "$TMP/udp.err" "$UDP_LINE"
check "UDP dropped: nothing written" "$TMP/udp.err" written udp

firewall "$NSA" "tcp dport 7600-7699 drop" "udp dport 7600-7699 drop"
check_run both --check
check "both dropped: exit 5, a line for TCP and one for UDP" "$TMP/both.err" \
	says "$TMP/both.err" "$TCP_LINE" "$UDP_LINE"
check "both dropped: nothing written" "$TMP/both.err" written both
check "... the agent logged what did not come" "$TMP/serve.log" \
	sh -c "grep -q 'check: TCP data path: nothing came' '$TMP/serve.log' && grep -q 'check: UDP data path: nothing came' '$TMP/serve.log'"

# A batch checks first: the same lines, exit 5, and no --out folder made.
check_run batch --out "$TMP/out-batch"
check "both dropped, a batch: exit 5 before any folder, the same two lines" "$TMP/batch.err" \
	says "$TMP/batch.err" "$TCP_LINE" "$UDP_LINE"
check "... and no results folder" "$TMP/batch.err" written batch

# ---- the way back: the client's end drops the UDP the agent answers with -----------------
firewall "$NSB" "udp sport 7600-7699 drop"
check_run back --check
check "UDP back dropped at the client: exit 5, the line says to let in UDP from 7600-7699" "$TMP/back.err" \
	says "$TMP/back.err" "$BACK_LINE"

# ---- a case above the agent's default limits ---------------------------------------------
firewall none
cat >"$TMP/wide.yaml" <<YAML
name: wide
defaults: { duration: 1s, warmup: 0s, repetitions: 1 }
tests:
  - { name: wide, engine: stream, protocol: tcp, streams: 64, direction: bidir }
  - { name: narrow, engine: stream, protocol: tcp, streams: 2 }
YAML
WIDE_LINE="nbrun: check: peer $ADDR_A: wide/tcp/s128K/p64/bidir: limit: 128 flows, above this agent's --max-streams 64"
WIDE_RE=$(printf '%s' "$WIDE_LINE" | sed 's/[.]/[.]/g')
ip netns exec "$NSB" "$NBRUN" "$TMP/wide.yaml" --peer "$ADDR_A" --secret-file "$TMP/secret" \
	--check >"$TMP/wide.out" 2>"$TMP/wide.err"
RC=$?
check "64-stream bidir vs the default --max-streams 64: --check exits 5 naming the case" "$TMP/wide.err" \
	says "$TMP/wide.err" "$WIDE_RE"
ip netns exec "$NSB" "$NBRUN" "$TMP/wide.yaml" --peer "$ADDR_A" --secret-file "$TMP/secret" \
	--out "$TMP/out-wide" >"$TMP/wide2.out" 2>"$TMP/wide2.err"
RC=$?
check "... a batch of it: exit 5, the same line, before any folder exists" "$TMP/wide2.err" \
	sh -c "[ $RC = 5 ] && grep -qxF -- \"\$1\" '$TMP/wide2.err' && [ ! -e '$TMP/out-wide' ]" _ "$WIDE_LINE"
"$NBRUN" validate "$TMP/wide.yaml" >"$TMP/validate.out" 2>&1
RC=$?
check "validate: ok (exit 0), with a note that the case exceeds an agent's default limits" "$TMP/validate.out" \
	sh -c "[ $RC = 0 ] && grep -qF 'note: wide/tcp/s128K/p64/bidir: limit: 128 flows, above nbrun serve'\''s --max-streams 64' '$TMP/validate.out' && ! grep -q narrow '$TMP/validate.out'"
exit $FAILED

#!/bin/sh
# netns suite: two namespaces joined by a veth pair with MTU 9000 on one end and 1500 on the
# other, TSO off on the 1500 end. `nbrun serve --once` runs in one namespace (bound to its
# address, then as the README starts it: no --bind, dual-stack), `nbrun env --peer` in the
# other; the facts of each end and the MTU/offload mismatch warnings must show.
# Speaks TAP. Needs root, ip(8) and ethtool(8) (ethtool only to *set* the offload).
# Environment: NBRUN = path of the nbrun binary (meson sets it).
# `nbrun env --peer ADDR --json FILE` prints both ends' facts side by side and the pitfalls,
# and writes env.json.
set -u

NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
# agent end (NSA): MTU 9000, TSO on; client end (NSB): MTU 1500, TSO off
veth_test_init nbenv 10.231.77

need_root_netns ethtool
echo "1..14"

# ---- the pair ------------------------------------------------------------------
setup() {
	veth_pair "$NSA" "$NSB" "$VA" "$VB" "$ADDR_A" "$ADDR_B" &&
	ip -n "$NSA" link set "$VA" mtu 9000 && ip -n "$NSB" link set "$VB" mtu 1500 &&
	ip netns exec "$NSB" ethtool -K "$VB" tso off
}
if setup >"$TMP/setup.log" 2>&1; then ok "veth pair $VA/$VB in $NSA/$NSB"; else nok "veth pair set up" "$TMP/setup.log"; fi

ip -n "$NSA" -o link show "$VA" >"$TMP/links" 2>&1
ip -n "$NSB" -o link show "$VB" >>"$TMP/links" 2>&1
ip netns exec "$NSB" ethtool -k "$VB" >"$TMP/features" 2>&1
if grep -q "$VA.* mtu 9000 " "$TMP/links" && grep -q "$VB.* mtu 1500 " "$TMP/links" &&
   grep -q '^tcp-segmentation-offload: off' "$TMP/features"; then
	ok "kernel state: MTU 9000 / 1500, TSO off on $VB"
else
	cat "$TMP/features" >>"$TMP/links"
	nok "kernel state: MTU 9000 / 1500, TSO off on $VB" "$TMP/links"
fi

# ---- nbrun ---------------------------------------------------------------------

# an agent on a namespace address needs a secret: both ends take it from the environment
make_secret "$TMP/secret" && export NBRUN_SECRET_FILE="$TMP/secret"

# facts_of LABEL SERVE-ARGS...: `nbrun serve --once SERVE-ARGS` in NSA, `nbrun env --peer ADDR_A
# --json` in NSB; each end's facts, the mismatch warnings and the peer's iface facts in env.json.
facts_of() {
	_l=$1 _o=$TMP/env-$1.out _j=$TMP/env-$1.json
	shift
	ip netns exec "$NSA" "$NBRUN" serve --once "$@" >"$TMP/serve-$_l.log" 2>&1 &
	SERVE_PID=$!
	wait_listen "$NSA" 7575
	ip netns exec "$NSB" "$NBRUN" env --peer "$ADDR_A" --json "$_j" >"$_o" 2>&1
	echo "# nbrun env exit status $?" >>"$_o"
	wait "$SERVE_PID" 2>/dev/null
	SERVE_PID=
	# "  mtu   <local>   <peer>   <- differs" (nb_env_print's side-by-side form)
	check "$_l: local MTU 1500, peer MTU 9000" "$_o" grep -Eq '^ +mtu +1500 +9000 +<- differs' "$_o"
	check "$_l: local TSO off, peer TSO on" "$_o" \
		grep -Eq '^ +offload\.tso +off +on +<- differs' "$_o"
	check "$_l: MTU mismatch warning" "$_o" \
		grep -q 'MTU differs between the ends: local 1500, peer 9000' "$_o"
	check "$_l: offload mismatch warning" "$_o" \
		grep -q 'offload settings differ between the ends: tso off here, on at the peer' "$_o"
	check "$_l: path MTU 1500 on the client end" "$_o" grep -Eq '^ +path_mtu +1500 ' "$_o"
	if ! command -v python3 >/dev/null 2>&1; then
		skip "$_l: env.json holds each end's values" "no python3 to read it"
		return
	fi
	check "$_l: env.json holds each end's iface name, address, MTU and TSO" "$_o" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
l, p = e["local"]["iface"], e["peer"]["iface"]
assert (l["name"], p["name"]) == (sys.argv[2], sys.argv[3]), (l["name"], p["name"])
assert p["local_addr"] == sys.argv[4], p["local_addr"]
assert (l["mtu"], p["mtu"]) == ("1500", "9000"), (l["mtu"], p["mtu"])
assert (l["offload.tso"], p["offload.tso"]) == ("off", "on"), (l["offload.tso"], p["offload.tso"])
' "$_j" "$VB" "$VA" "$ADDR_A"
}

facts_of bound --bind "$ADDR_A"
# The agent as the README starts it: a dual-stack listener sees the IPv4 client as
# ::ffff:ADDR_B; the peer's facts must still be those of the interface holding ADDR_A.
facts_of default
exit $FAILED

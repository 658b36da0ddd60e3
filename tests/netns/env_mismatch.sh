#!/bin/sh
# netns suite: two namespaces joined by a veth pair with MTU 9000 on one end and 1500 on the
# other, TSO off on the 1500 end. `nbrun serve --once` runs in one namespace, `nbrun env
# --peer` in the other; the facts of each end and the MTU/offload mismatch warnings must show.
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
echo "1..8"

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
ip netns exec "$NSA" "$NBRUN" serve --bind "$ADDR_A" --once >"$TMP/serve.log" 2>&1 &
SERVE_PID=$!
wait_listen "$NSA" 7575
JSON_ARG="--json $TMP/env.json"
# shellcheck disable=SC2086
ip netns exec "$NSB" "$NBRUN" env --peer "$ADDR_A" $JSON_ARG >"$TMP/env.out" 2>&1
echo "# nbrun env exit status $?" >>"$TMP/env.out"

# "  mtu   <local>   <peer>   <- differs" (nb_env_print's side-by-side form)
check "local MTU 1500, peer MTU 9000" "$TMP/env.out" \
	grep -Eq '^ +mtu +1500 +9000 +<- differs' "$TMP/env.out"
check "local TSO off, peer TSO on" "$TMP/env.out" \
	grep -Eq '^ +offload\.tso +off +on +<- differs' "$TMP/env.out"
check "MTU mismatch warning" "$TMP/env.out" \
	grep -q 'MTU differs between the ends: local 1500, peer 9000' "$TMP/env.out"
check "offload mismatch warning" "$TMP/env.out" \
	grep -q 'offload settings differ between the ends: tso off here, on at the peer' "$TMP/env.out"
check "path MTU 1500 on the client end" "$TMP/env.out" \
	grep -Eq '^ +path_mtu +1500 ' "$TMP/env.out"

if ! command -v python3 >/dev/null 2>&1; then
	skip "env.json holds each end's values" "no python3 to read it"
else
	check "env.json holds each end's values" "$TMP/env.out" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
l, p = e["local"]["iface"], e["peer"]["iface"]
assert (l["mtu"], p["mtu"]) == ("1500", "9000"), (l["mtu"], p["mtu"])
assert (l["offload.tso"], p["offload.tso"]) == ("off", "on"), (l["offload.tso"], p["offload.tso"])
' "$TMP/env.json"
fi
exit $FAILED

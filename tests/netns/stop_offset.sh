#!/bin/sh
# netns suite: the senders stop only once both ends closed their last tick (issue 12 item 11).
# The agent starts its clock when START reaches it, so its ticks trail the client's by the
# control path's one-way delay. Here that delay is made real: on the client's side of the veth
# pair an htb sends the control connection (port 7575) through a 4 kbit/s class — START takes
# about a third of a second to cross — while data goes through a 50 Mbit/s class. A client
# that stopped its senders at its own last tick left the agent's last interval without data
# for that time (it read 10 % of the others here); stopping only after the agent's last tick
# is in keeps it whole. Checks: the forward TCP run's last interval carries as much
# as the median of the others (at least 90 % of it) — a comparison within one run, not a speed.
# Speaks TAP. Needs root, ip(8), tc(8) and python3. Environment: NBRUN, NB_SRCDIR.
set -u
NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
veth_test_init nbso 10.231.94

need_root_netns tc python3
echo "1..3"
slow_control() {
	tc -n "$NSB" qdisc add dev "$VB" root handle 1: htb default 20 &&
	tc -n "$NSB" class add dev "$VB" parent 1: classid 1:10 htb rate 4kbit ceil 4kbit burst 200 cburst 200 quantum 1514 &&
	tc -n "$NSB" class add dev "$VB" parent 1: classid 1:20 htb rate 50mbit ceil 50mbit quantum 60000 &&
	tc -n "$NSB" filter add dev "$VB" parent 1: protocol ip u32 match ip dport 7575 0xffff flowid 1:10
}
veth_pair "$NSA" "$NSB" "$VA" "$VB" "$ADDR_A" "$ADDR_B" && slow_control &&
	ok "a veth pair whose control path toward the agent is slow (4 kbit/s)" ||
	{ nok "namespace setup"; exit 1; }

# an agent on a namespace address needs a secret: both ends take it from the environment
make_secret "$TMP/secret" && export NBRUN_SECRET_FILE="$TMP/secret"
ip netns exec "$NSA" "$NBRUN" serve --bind "$ADDR_A" -q 2>"$TMP/serve.err" &
SERVE_PID=$!
wait_listen "$NSA" 7575

cat >"$TMP/s.yaml" <<'YAML'
name: offset
defaults: {duration: 4s, warmup: 1s, omit: 0s, interval: 1s, repetitions: 1}
tests:
  - {name: fwd, engine: stream, protocol: tcp, direction: forward}
YAML
NBRUN_GNUPLOT=none ip netns exec "$NSB" "$NBRUN" "$TMP/s.yaml" --peer "$ADDR_A" --out "$TMP/out" \
	-q 2>"$TMP/run.err"
rc=$?
[ $rc -eq 0 ] && ok "forward TCP across the slow control path exits 0" || nok "run (rc $rc)" "$TMP/run.err"

python3 - "$TMP/out" >"$TMP/check" 2>&1 <<'PY' &&
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1] + "/intervals.csv")) if r["stream"] == "sum"]
rx = [float(r["rx_bytes"]) for r in rows]
print("rx bytes per interval:", rx)
assert len(rx) == 4, len(rx)
median = statistics.median(rx[:-1])
print("last / median of the others: %.3f" % (rx[-1] / median))
assert rx[-1] >= 0.9 * median, "the last interval lost the control delay's worth of data"
PY
	ok "the last interval carries as much as the others" || nok "last interval short" "$TMP/check"
sed 's/^/# /' "$TMP/check"
exit $FAILED

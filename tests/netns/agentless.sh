#!/bin/sh
# netns suite: tests with no agent. Two namespaces joined by a veth pair: the target (NSA) runs
# no nbrun at all for the agentless tests, only a TCP listener, a closed port and an nftables
# rule that drops SYNs; the client (NSB) runs nbrun. Checks: connect counts handshakes,
# refusals and timeouts apart; a config that mixes agentless and agent tests runs both against
# one `nbrun serve`; icmp's p50 falls within the spread of iputils ping run side by side; icmp
# as a non-root user works where net.ipv4.ping_group_range allows it and fails saying so where
# it does not. Speaks TAP. Needs root, ip(8), nft(8), ping(8), setpriv(1), python3.
set -u

NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
veth_test_init nbagl 10.231.91
LISTEN_PID=

need_root_netns nft ping setpriv python3
echo "1..23"
trap 'kill "$LISTEN_PID" 2>/dev/null; veth_test_cleanup' EXIT

# col RUNS_CSV TEST COLUMN: the value of COLUMN in the row of test TEST (not a run whose
# measuring process stalled on a busy host: that one ran again).
col() {
	python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["test"] == sys.argv[2] and r["status"] != "invalid": print(r[sys.argv[3]]); break' \
		"$1" "$2" "$3"
}
# num_ok EXPR: a python comparison of numbers, e.g. "3 > 0".
num_ok() { python3 -c "import sys; sys.exit(0 if ($1) else 1)" 2>/dev/null; }

setup() {
	veth_pair "$NSA" "$NSB" "$VA" "$VB" "$ADDR_A" "$ADDR_B" &&
	ip netns exec "$NSA" nft add table inet nbagl &&
	ip netns exec "$NSA" nft add chain inet nbagl in '{ type filter hook input priority 0; }' &&
	ip netns exec "$NSA" nft add rule inet nbagl in tcp dport 8082 drop &&
	ip netns exec "$NSA" nft add rule inet nbagl in tcp dport 8083 'tcp flags syn numgen inc mod 2 == 0 reject with tcp reset'
}
if setup >"$TMP/setup.log" 2>&1; then ok "veth pair, SYN drop on $ADDR_A:8082, every other SYN to 8083 reset"; else nok "set up" "$TMP/setup.log"; fi

# A listener on 8080 and 8083 that accepts and closes (nothing listens on 8081).
ip netns exec "$NSA" python3 -c 'import select, socket
ls = []
for port in (8080, 8083):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("'"$ADDR_A"'", port)); s.listen(4096); ls.append(s)
while True:
    for s in select.select(ls, [], [])[0]: s.accept()[0].close()' >"$TMP/listen.log" 2>&1 &
LISTEN_PID=$!
wait_listen "$NSA" 8080 && wait_listen "$NSA" 8083

# ---- connect, no agent anywhere ------------------------------------------------------

cat >"$TMP/connect.yaml" <<YAML
name: connect
defaults: { engine: connect, duration: 2s, warmup: 0s, interval: 1s, rate: 50pps, timeout: 200ms }
tests:
  - { name: open, port: 8080 }
  - { name: closed, port: 8081 }
  - { name: dropped, port: 8082 }
  - { name: halfway, port: 8083 }
YAML
ip netns exec "$NSB" "$NBRUN" "$TMP/connect.yaml" --peer "$ADDR_A" --out "$TMP/c" >"$TMP/c.log" 2>&1
RC=$?
echo "# exit $RC" >>"$TMP/c.log"
R=$TMP/c/runs.csv
check "open port: handshakes timed, none refused or timed out" "$R" \
	num_ok "$(col "$R" open trans) > 0 and $(col "$R" open lat_p50_us) > 0 and $(col "$R" open refused) == 0 and $(col "$R" open timeouts) == 0"
check "closed port: every attempt refused, none connected" "$R" \
	num_ok "$(col "$R" closed refused) > 0 and $(col "$R" closed trans) == 0 and $(col "$R" closed timeouts) == 0"
check "SYNs dropped: every attempt timed out, none refused" "$R" \
	num_ok "$(col "$R" dropped timeouts) > 0 and $(col "$R" dropped trans) == 0 and $(col "$R" dropped refused) == 0"
check "closed port: the run failed: all N attempts refused, nothing listens on ADDR:8081" "$R" \
	num_ok "'$(col "$R" closed status)' == 'failed' and '$(col "$R" closed error)' == 'all $(col "$R" closed refused) attempts refused: nothing listens on $ADDR_A:8081'"
check "SYNs dropped: the run failed: all N attempts timed out after 200 ms" "$R" \
	num_ok "'$(col "$R" dropped status)' == 'failed' and '$(col "$R" dropped error)'.startswith('all $(col "$R" dropped timeouts) attempts timed out after 200 ms: nothing answers on $ADDR_A:8082')"
check "every other SYN reset: ok, some refused, some connected" "$R" \
	num_ok "'$(col "$R" halfway status)' == 'ok' and $(col "$R" halfway refused) > 0 and $(col "$R" halfway trans) > 0"
check "... and a warning with the count of refused attempts" "$TMP/c.log" \
	grep -q "warning: refused halfway/.*: up to $(col "$R" halfway refused) connection attempts of a run were refused" "$TMP/c.log"
check "two of four measured: exit 1, the closing count says so" "$TMP/c.log" \
	sh -c "[ $RC = 1 ] && grep -q '^2 of 4 runs measured, 2 failed in ' '$TMP/c.log'"
check "connect at a rate records how far behind its schedule each attempt left" "$R" \
	num_ok "$(col "$R" open sched_lag_max_us) >= 0"
check "no agent: the report says the facts are the local end's only" "$TMP/c/report.md" \
	grep -qF "peer $ADDR_A (no agent: agentless tests; environment facts of the local end only)" "$TMP/c/report.md"

# ---- agentless and agent tests in one batch ------------------------------------------

make_secret "$TMP/secret" # the agent is on a namespace address
ip netns exec "$NSA" "$NBRUN" serve --bind "$ADDR_A" --once --secret-file "$TMP/secret" \
	>"$TMP/serve.log" 2>&1 &
SERVE_PID=$!
wait_listen "$NSA" 7575
cat >"$TMP/mixed.yaml" <<YAML
name: mixed
defaults: { duration: 1s, warmup: 0s, interval: 500ms }
tests:
  - { name: handshake, engine: connect, port: 8080, rate: 50pps }
  - { name: rtt, engine: latency, protocol: udp }
YAML
ip netns exec "$NSB" "$NBRUN" "$TMP/mixed.yaml" --peer "$ADDR_A" --secret-file "$TMP/secret" \
	--out "$TMP/m" -q >"$TMP/m.log" 2>&1
echo "# exit $?" >>"$TMP/m.log"
R=$TMP/m/runs.csv
check "mixed batch: the agentless test measured" "$R" \
	num_ok "'$(col "$R" handshake status)' == 'ok' and $(col "$R" handshake trans) > 0"
check "mixed batch: the agent test measured against nbrun serve" "$R" \
	num_ok "'$(col "$R" rtt status)' == 'ok' and $(col "$R" rtt trans) > 0 and $(col "$R" rtt cpu_peer_pct) >= 0"

# ---- icmp beside iputils ping --------------------------------------------------------
# Both at 20 requests/s (a 3 s window holds 60 due times, 59 by its phase). nbrun times each
# request from its due time and wakes early by twice its timer's measured lateness, so its own
# wake-up does not count; a sender the scheduler holds back on a busy host still does (ping's
# does not). rate 0 is no fairer: back to back, the echo completes inside sendto on a hot cache
# (~5 us, below ping's minimum).

cat >"$TMP/icmp.yaml" <<YAML
name: icmp
tests:
  - { name: echo, engine: icmp, duration: 3s, warmup: 0s, interval: 1s, rate: 20pps }
YAML
ip netns exec "$NSB" ping -n -q -c 60 -i 0.05 "$ADDR_A" >"$TMP/ping.log" 2>&1 &
PING_PID=$!
ip netns exec "$NSB" "$NBRUN" "$TMP/icmp.yaml" --peer "$ADDR_A" --out "$TMP/i" -q >"$TMP/i.log" 2>&1
wait "$PING_PID"
R=$TMP/i/runs.csv
# "rtt min/avg/max/mdev = 0.031/0.052/0.120/0.010 ms"
SPREAD=$(sed -n 's#^rtt min/avg/max/mdev = \([0-9.]*\)/[0-9.]*/\([0-9.]*\)/.*#\1 \2#p' "$TMP/ping.log")
MIN_US=$(echo "$SPREAD" | awk '{ print $1 * 1000 }')
MAX_US=$(echo "$SPREAD" | awk '{ print $2 * 1000 }')
P50=$(col "$R" echo lat_p50_us)
cat "$TMP/ping.log" >>"$R"
echo "# ping min $MIN_US us, max $MAX_US us; nbrun p50 $P50 us" >>"$R"
check "icmp: every request answered, none lost" "$R" \
	num_ok "$(col "$R" echo trans) >= 59 and $(col "$R" echo lost) == 0"
# nbrun's own schedule lag (how late its sender was, which its latencies include by design) on
# top of ping's spread: on a busy host ping's own late wake-ups are not in ping's numbers.
LAG=$(col "$R" echo sched_lag_max_us)
check "icmp: p50 within the spread of ping run side by side (+ nbrun's own schedule lag, $LAG us)" "$R" \
	num_ok "$MIN_US <= $P50 <= $MAX_US + ${LAG:-0}"
check "icmp at a rate records its schedule lag (max; p99 needs 100 requests)" "$R" \
	num_ok "$(col "$R" echo sched_lag_max_us) >= 0 and '$(col "$R" echo sched_lag_p99_us)' == ''"

# ---- icmp as non-root ------------------------------------------------------------------

chmod 755 "$TMP" && mkdir -p "$TMP/u" && chmod 777 "$TMP/u"
cp "$TMP/icmp.yaml" "$TMP/u/icmp.yaml" && chmod 644 "$TMP/u/icmp.yaml"
as_nobody() {
	ip netns exec "$NSB" setpriv --reuid=nobody --regid=nogroup --clear-groups \
		--inh-caps=-all --bounding-set=-all "$NBRUN" "$TMP/u/icmp.yaml" --peer "$ADDR_A" \
		--set duration=1s --out "$1" -q
}
ip netns exec "$NSB" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
as_nobody "$TMP/u/yes" >"$TMP/yes.log" 2>&1
R=$TMP/u/yes/runs.csv
check "non-root, group in ping_group_range: measured over the ping socket" "$R" \
	num_ok "'$(col "$R" echo status)' == 'ok' and $(col "$R" echo trans) > 0 and 'icmp-ping-socket' in '$(col "$R" echo flags)'.split(';')"
ip netns exec "$NSB" sysctl -qw net.ipv4.ping_group_range="1 0"
as_nobody "$TMP/u/no" >"$TMP/no.log" 2>&1
R=$TMP/u/no/runs.csv
check "non-root, ping_group_range excludes us: the run fails" "$R" \
	num_ok "'$(col "$R" echo status)' == 'failed'"
check "... saying the group is outside ping_group_range and raw needs CAP_NET_RAW" "$R" \
	grep -q 'outside net.ipv4.ping_group_range = 1 0) and no raw socket.*CAP_NET_RAW' "$R"
check "root in the same namespace falls back to a raw socket" "$TMP/i/runs.csv" \
	num_ok "'icmp-raw-socket' in '$(col "$TMP/i/runs.csv" echo flags)'.split(';')"

# ---- cooldown: the tail of the window left out, shaded, flagged ------------------------

cat >"$TMP/cool.yaml" <<YAML
name: cool
tests:
  - { name: tail, engine: connect, port: 8080, rate: 50pps, duration: 3s, warmup: 0s, interval: 1s, cooldown: 1s }
YAML
ip netns exec "$NSB" "$NBRUN" "$TMP/cool.yaml" --peer "$ADDR_A" --out "$TMP/cd" -q >"$TMP/cd.log" 2>&1
R=$TMP/cd/runs.csv
check "cooldown 1s of 3s: the run's window is the first 2 s" "$R" \
	num_ok "1.9 < $(col "$R" tail duration_s) < 2.1"
# the sum rows: t_end 1, 2 kept; t_end 3 is cool-down
check "cooldown: the last interval row says cool-down, the others do not" "$TMP/cd/intervals.csv" \
	python3 -c 'import csv,sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["stream"] == "sum"]
sys.exit(0 if [r["cooldown"] for r in rows] == ["0", "0", "1"] else 1)' "$TMP/cd/intervals.csv"
check "cooldown: the time-series chart shades it" "$TMP/cd.log" \
	sh -c "grep -l 'cool-down' '$TMP'/cd/charts/ts-*.gp"
exit $FAILED

#!/bin/sh
# netns suite: the loss budget says where the datagrams were lost (issue 36). `nbrun serve` in
# namespace A, nbrun in namespace B, routed through namespace R; each case puts the loss at one
# known place, and its budget must hold all of it there, in the run's row and every interval:
#   path      a tbf on R's egress toward A (the router drops): lb_path = lost, every other part 0
#   socket    `window: 4k` on the UDP receiver B (reverse, unshaped): rcvbuf_drops = lost, but
#             for the window's edges (below)
#   qdisc     a tbf with a 3000-byte queue on B's own veth: the qdisc's drops come back to the
#             socket as ENOBUFS, so lost = 0 and lb_tx_qdisc_drops = snd_errs, but for the edges
#   mtu       R's link toward A at MTU 1280 and R's ICMP "fragmentation needed" dropped (an MTU
#             black hole): 1400-byte datagrams all lost, lb_path = lost = tx_packets, and the
#             report names the path and the MTU (its verdict, and the nothing-received warning)
# Each case's report.md has it in "Where the packets were lost" and names that place as the
# bottleneck.
# The control connection (port 7575) passes the shapers in a class of its own, and A advertises
# an MSS below 1280 so it passes the black hole too. Speaks TAP. Needs root, ip, tc, nft, python3.
# Environment: NBRUN = path of the nbrun binary (meson sets it), NB_SRCDIR = source root.
set -u
NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
veth_test_init nblb 10.231.96
need_root_netns tc nft python3
echo "1..5"
NSR=nblb-$$-r RA=nblb-${$}ra RB=nblb-${$}rb ADDR_B=10.231.97.2
router() {
	ROUTE_A_OPTS="advmss 1200" routed_netns 10.231.96 10.231.97
}
trap 'veth_test_cleanup; ip netns del "$NSR" 2>/dev/null; ip link del "$VB" 2>/dev/null' EXIT
router && ok "A and B routed through R" || { nok "namespace setup"; exit 1; }

make_secret "$TMP/secret" && export NBRUN_SECRET_FILE="$TMP/secret"
ip netns exec "$NSA" "$NBRUN" serve --bind "$ADDR_A" -q 2>"$TMP/serve.err" &
SERVE_PID=$!
wait_listen "$NSA" 7575

# run NAME TEST: one case (2 s, 1 s intervals) against the agent, its folder $TMP/NAME, its report
run() {
	cat >"$TMP/$1.yaml" <<YAML
name: $1
defaults: {duration: 2s, warmup: 0s, omit: 0s, interval: 1s, repetitions: 1}
tests:
  - $2
YAML
	NBRUN_GNUPLOT=none ip netns exec "$NSB" "$NBRUN" "$TMP/$1.yaml" --peer "$ADDR_A" \
		--out "$TMP/$1" -q 2>"$TMP/$1.err"
	NBRUN_GNUPLOT=none "$NBRUN" report "$TMP/$1" >>"$TMP/$1.err" 2>&1
}
# budget NAME EXPR...: python asserts over the run's row and each interval's sum row; an EXPR
# "run: ..." holds for the run's row only. Every row that is not noisy adds up to its loss.
budget() {
	_n=$1; shift
	python3 - "$TMP/$_n" "$@" >"$TMP/$_n.check" 2>&1 <<'PY'
import csv, sys
d = sys.argv[1]
run = next(r for r in csv.DictReader(open(d + "/runs.csv")) if r["kind"] == "run")
rows = [r for r in csv.DictReader(open(d + "/intervals.csv"))
        if r["run_id"] == run["run_id"] and r["stream"] == "sum"]
assert rows, "no interval rows"
keys = ("tx_packets", "lost", "snd_errs", "rcvbuf_drops", "lb_tx_qdisc_drops", "lb_tx_if_drops",
        "lb_rx_if_drops", "lb_rx_ip_drops", "lb_rx_udp_errs", "lb_path", "lb_excess")
for r in [run] + rows:
    print(" ".join("%s=%s" % (k, r[k]) for k in keys))
for k in keys[:-2]:
    assert sum(float(r[k]) for r in rows) == float(run[k]), "the intervals' %s add up to the run's" % k
for r in [run] + rows:
    v = {k: float(r[k]) if r[k] != "" else None for k in keys}
    if v["lb_excess"] == 0:
        parts = (max(0, v["lb_tx_qdisc_drops"] - v["snd_errs"]) + v["lb_tx_if_drops"] +
                 v["lb_rx_if_drops"] + v["lb_rx_ip_drops"] + v["lb_rx_udp_errs"] +
                 v["rcvbuf_drops"] + v["lb_path"])
        assert parts == v["lost"], "the parts add up to %g, lost %g" % (parts, v["lost"])
    else:
        assert v["lb_excess"] > 0 and v["lb_path"] is None, "noisy: no path figure"
    for e in sys.argv[2:]:
        if e.startswith("run:") and r is not run:
            continue
        assert eval(e.replace("run:", ""), {}, v), e
import json
c = json.load(open(d + "/results.json"))["summary"][0]
lb = c["loss_budget"]
print("results.json:", lb, c["bottleneck"])
assert lb["runs"] == 1 and lb["lost"] == float(run["lost"]) and lb["sent"] == float(run["tx_packets"])
assert lb["rx_socket"] == float(run["rcvbuf_drops"]) and lb["refused"] == float(run["snd_errs"])
assert lb["path"] == float(run["lb_path"] or 0) and c["bottleneck"]
PY
}
# verdict NAME TEXT: report.md's table has the case, and its bottleneck sentence begins with TEXT
verdict() {
	grep -q "^| \`$1/" "$TMP/$1/report.md" &&
	grep -q "^- \`$1/[^\`]*\`: $2" "$TMP/$1/report.md" ||
	{ echo "report.md does not say: $2"; sed -n '/^## Where the packets/,/^## W/p' "$TMP/$1/report.md"; false; } >>"$TMP/$1.check"
}

shape_past_control "$NSR" "$RA" 20mbit 16kb 64kb
run path '{name: path, engine: stream, protocol: udp, size: 1000, rate: 40M}'
budget path 'run: lost > 0' 'lb_excess == 0' 'lb_path == lost' 'rcvbuf_drops == 0' 'lb_tx_qdisc_drops == 0' &&
	verdict path "the path: "
that "a tbf on the router: the path holds every lost datagram" "$TMP/path.check"

run socket '{name: socket, engine: stream, protocol: udp, size: 1400, rate: 400M, direction: reverse, window: 4k}'
# Every part is read at its end's ticks, lost by the sender's epochs: the drops of datagrams in
# flight at a tick (the agent's ticks run a control one-way delay after the client's; the host
# counters are read a few hundred µs after the flows') fall in the next interval, or outside the
# window. So the place holds the run's loss but for its edges (within 5 %), and a row whose parts
# overshoot says by how much (lb_excess) instead of giving a path figure.
budget socket 'run: lost > 0' 'run: abs(rcvbuf_drops - lost) <= 0.05 * lost' &&
	verdict socket "the receiver's socket buffer: "
that "a 4k receive buffer: the receiver's socket holds the loss (all but the window's edge)" "$TMP/socket.check"

shape_past_control "$NSB" "$VB" 10mbit 16kb 3000
run qdisc '{name: qdisc, engine: stream, protocol: udp, size: 1000, rate: 40M}'
budget qdisc 'run: snd_errs > 0' 'lost == 0' 'run: abs(lb_tx_qdisc_drops - snd_errs) <= 0.05 * snd_errs' &&
	verdict qdisc "the sender's qdisc: "
that "a tbf on the sender's veth: its qdisc's drops are the socket's ENOBUFS, none lost" "$TMP/qdisc.check"
tc -n "$NSB" qdisc del dev "$VB" root

ip -n "$NSR" link set "$RA" mtu 1280 &&
ip netns exec "$NSR" nft -f - <<NFT
table ip nblb {
	chain out { type filter hook output priority 0; icmp type destination-unreachable drop; }
}
NFT
run mtu '{name: mtu, engine: stream, protocol: udp, size: 1400, rate: 5M}'
budget mtu 'run: lost > 0' 'lost == tx_packets' 'lb_excess == 0' 'lb_path == lost' &&
	verdict mtu "the path: .*every datagram was lost: .*an MTU black hole" &&
	grep -q "nothing-received.*smaller MTU inside the path" "$TMP/mtu/report.md"
that "an MTU black hole: every datagram lost, all of it on the path" "$TMP/mtu.check"
exit $FAILED

#!/bin/sh
# netns suite: the loss budget says where the datagrams were lost (issue 36). `nbrun serve` in
# namespace A, nbrun in namespace B, routed through namespace R; each case puts the loss at one
# known place, and the run's budget (the whole test's: each end's counters from before START to
# after the drain, against every datagram sent and not received) must hold all of it there,
# exactly; each interval's budget adds up too, where it is not noisy (its edges cut datagrams in
# flight, docs/reports.md):
#   path      a tbf on R's egress toward A (the router drops): lb_path = lb_lost, every other part
#             0, in the run's row and every interval
#   socket    `window: 4k` on the UDP receiver B (reverse, unshaped): lb_rcvbuf_drops = lb_lost
#   qdisc     a tbf with a 3000-byte queue on B's own veth: the qdisc's drops come back to the
#             socket as ENOBUFS, so lb_lost = 0 and lb_tx_qdisc_drops = lb_snd_errs
#   mtu       R's link toward A at MTU 1280 and R's ICMP "fragmentation needed" dropped (an MTU
#             black hole): 1400-byte datagrams all lost, lb_path = lb_lost = lb_sent, and the
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
echo "1..6"
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
# "run: ..." holds for the run's row only. Every row that is not noisy adds up to its lb_lost,
# the run's row is never noisy.
budget() {
	_n=$1; shift
	python3 - "$TMP/$_n" "$@" >"$TMP/$_n.check" 2>&1 <<'PY'
import csv, sys
d = sys.argv[1]
runs = [r for r in csv.DictReader(open(d + "/runs.csv")) if r["kind"] == "run"]
run = runs[-1]
rows = [r for r in csv.DictReader(open(d + "/intervals.csv"))
        if r["run_id"] == run["run_id"] and r["stream"] == "sum"]
assert rows, "no interval rows"
keys = ("tx_packets", "lost", "snd_errs", "rcvbuf_drops", "lb_sent", "lb_lost", "lb_snd_errs",
        "lb_rcvbuf_drops", "lb_tx_qdisc_drops", "lb_tx_if_drops", "lb_rx_if_drops",
        "lb_rx_ip_drops", "lb_rx_udp_errs", "lb_path", "lb_excess")
for r in [run] + rows:
    print(" ".join("%s=%s" % (k, r[k]) for k in keys))
for k in keys[:4]:
    assert sum(float(r[k]) for r in rows) == float(run[k]), "the intervals' %s add up to the run's" % k
for r in rows:
    for a, b in (("lb_sent", "tx_packets"), ("lb_lost", "lost"), ("lb_snd_errs", "snd_errs"),
                 ("lb_rcvbuf_drops", "rcvbuf_drops")):
        assert r[a] == r[b], "an interval's budget covers the interval: %s = %s" % (a, b)
assert float(run["lb_sent"]) >= float(run["tx_packets"]), "the whole test holds the window"
for r in runs:
    assert r["lb_excess"] != "" and float(r["lb_excess"]) == 0, "each run's budget adds up exactly"
for r in [run] + rows:
    v = {k: float(r[k]) if r[k] != "" else None for k in keys}
    if v["lb_excess"] == 0:
        parts = (max(0, v["lb_tx_qdisc_drops"] - v["lb_snd_errs"]) + v["lb_tx_if_drops"] +
                 v["lb_rx_if_drops"] + v["lb_rx_ip_drops"] + v["lb_rx_udp_errs"] +
                 v["lb_rcvbuf_drops"] + v["lb_path"])
        assert parts == v["lb_lost"], "the parts add up to %g, lost %g" % (parts, v["lb_lost"])
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
tot = lambda k: sum(float(r[k] or 0) for r in runs)
assert lb["runs"] == len(runs) and lb["lost"] == tot("lb_lost") and lb["sent"] == tot("lb_sent")
assert lb["rx_socket"] == tot("lb_rcvbuf_drops") and lb["refused"] == tot("lb_snd_errs")
assert lb["path"] == tot("lb_path") and lb["noisy_runs"] == 0 and c["bottleneck"]
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
budget path 'run: lb_lost > 0' 'lb_excess == 0' 'lb_path == lb_lost' 'lb_rcvbuf_drops == 0' 'lb_tx_qdisc_drops == 0' &&
	verdict path "the path: "
that "a tbf on the router: the path holds every lost datagram" "$TMP/path.check"

# RFC 6349 (docs/reports.md): one batch through the same tbf of 20 Mbit/s. A TCP case told
# `bottleneck: 20M` (the tbf's rate) has a TCP Transfer Time Ratio above 1: the tbf counts
# Ethernet frames, so TCP's payload cannot reach 20 Mbit/s. A UDP case measures the path's RFC 9097
# capacity, which a TCP case without `bottleneck` takes as its own (its ratio is a number; how
# near 1 depends on what the loaded host let the UDP case measure). A TCP case given `window: 4k`
# and `bottleneck: 40G` (a bottleneck the config claims: any RTT above 1 µs makes its BDP larger
# than 4 KiB) is named in the window-below-BDP pitfall; the UDP case has no TCP numbers.
cat >"$TMP/rfc.yaml" <<YAML
name: rfc
defaults: {duration: 1s, warmup: 0s, omit: 0s, interval: 1s, repetitions: 1}
tests:
  - {name: cap, engine: stream, protocol: udp, size: 1000, rate: 40M}
  - {name: ttr, engine: stream, bottleneck: 20M}
  - {name: cap2, engine: stream}
  - {name: small, engine: stream, window: 4k, bottleneck: 40G}
YAML
NBRUN_GNUPLOT=none ip netns exec "$NSB" "$NBRUN" "$TMP/rfc.yaml" --peer "$ADDR_A" --out "$TMP/rfc" \
	-q 2>"$TMP/rfc.err"
NBRUN_GNUPLOT=none "$NBRUN" report "$TMP/rfc" >>"$TMP/rfc.err" 2>&1
python3 - "$TMP/rfc/report.md" >"$TMP/rfc.check" 2>&1 <<'PY'
import re, sys
md = open(sys.argv[1]).read()
sec = md[md.index("## TCP in RFC 6349's terms"):]
sec = sec[:sec.index("\n## ")] if "\n## " in sec else sec
print(sec)
rows = {l.split("`")[1].split("/")[0]: [c.strip() for c in l.split("|")] for l in sec.splitlines()
        if l.startswith("| `")}
assert set(rows) == {"ttr", "cap2", "small"}, rows.keys()
assert "20.0 Mbit/s (`bottleneck`)" in rows["ttr"][10], rows["ttr"][10]
assert float(rows["ttr"][11]) > 1, "the transfer takes longer than its bytes at the tbf's rate"
assert "IP capacity of `cap/" in rows["cap2"][10] and float(rows["cap2"][11]) > 0, rows["cap2"]
assert "`bottleneck`" in rows["small"][10] and rows["small"][9] == "4096", rows["small"]
below = sec.split("Window below")[1:]
assert len(below) == 1 and "(`small/" in below[0], "only the 4k window is below its BDP"
# results.json's rfc6349 object carries the same numbers as the section
import json
js = {c["case_id"].split("/")[0]: c["rfc6349"] for c in
      json.load(open(sys.argv[1].replace("report.md", "results.json")))["summary"]}
assert js["cap"] is None, js["cap"]
for name, r in rows.items():
    k = js[name]
    assert r[11] == "%.3f" % k["transfer_time_ratio"], (name, r[11], k)
    bdp = k["bottleneck_bps"] / 8 * k["baseline_rtt_us"] / 1e6
    assert abs(k["bdp_bottleneck_bytes"] - bdp) <= 1e-6 * bdp, k
assert js["ttr"]["bottleneck_source"] == "bottleneck" and js["ttr"]["bottleneck_bps"] == 20e6
assert js["ttr"]["bottleneck_case_id"] is None and js["ttr"]["window_below_bdp"] is None
assert js["cap2"]["bottleneck_source"] == "ip_capacity" and js["cap2"]["window_bytes"] is None
assert "`" + js["cap2"]["bottleneck_case_id"] + "`" in rows["cap2"][10], js["cap2"]
assert js["small"]["window_bytes"] == 4096 and js["small"]["window_below_bdp"] is True, js["small"]
PY
that "RFC 6349: the Transfer Time Ratio at the batch's IP capacity, a window below the BDP" "$TMP/rfc.check"

run socket '{name: socket, engine: stream, protocol: udp, size: 1400, rate: 400M, direction: reverse, window: 4k}'
budget socket 'run: lb_lost > 0' 'run: lb_rcvbuf_drops == lb_lost' 'run: lb_path == 0' &&
	verdict socket "the receiver's socket buffer: "
that "a 4k receive buffer: the receiver's socket holds every lost datagram" "$TMP/socket.check"

shape_past_control "$NSB" "$VB" 10mbit 16kb 3000
run qdisc '{name: qdisc, engine: stream, protocol: udp, size: 1000, rate: 40M}'
budget qdisc 'run: lb_snd_errs > 0' 'lb_lost == 0' 'run: lb_tx_qdisc_drops == lb_snd_errs' &&
	verdict qdisc "the sender's qdisc: "
that "a tbf on the sender's veth: its qdisc's drops are the socket's ENOBUFS, one each, none lost" "$TMP/qdisc.check"
tc -n "$NSB" qdisc del dev "$VB" root

ip -n "$NSR" link set "$RA" mtu 1280 &&
ip netns exec "$NSR" nft -f - <<NFT
table ip nblb {
	chain out { type filter hook output priority 0; icmp type destination-unreachable drop; }
}
NFT
run mtu '{name: mtu, engine: stream, protocol: udp, size: 1400, rate: 5M}'
budget mtu 'run: lb_lost > 0' 'lb_lost == lb_sent' 'lb_excess == 0' 'lb_path == lb_lost' &&
	verdict mtu "the path: .*every datagram was lost: .*an MTU black hole" &&
	grep -q "nothing-received.*smaller MTU inside the path" "$TMP/mtu/report.md"
that "an MTU black hole: every datagram lost, all of it on the path" "$TMP/mtu.check"
exit $FAILED

#!/bin/sh
# netns suite: the pps engine's `datapath: xdp` (issue 33) between `nbrun serve` in one namespace
# and `nbrun --peer` in another, joined by a veth pair with two queues this test creates.
#   - counts exact: tx = rx + lost, no dup, no reorder, forward (the agent receives) and reverse
#     (this host receives); the receiving interface agrees: what it received less what the XDP
#     program passed to the stack (an nftables ingress counter) is what the run's sockets took
#   - two flows send on two queues and the row says which carried traffic (xdp_used=0,1)
#   - a paced rate honoured by count: tx <= rate x duration + two bursts, and tx plus the send
#     times the pacer forgave reaches rate x duration less two bursts and its 10 ms of debt
#   - during a run the control connection (the run ends with its rows), an unrelated UDP port
#     between the receiving flows' two ports (the program takes exactly the flows' ports, not
#     their range) and a TCP port of the receiving end answer
#   - the XDP program is gone after a normal exit, and after SIGTERM and SIGKILL of either end
#   - refusals before any folder exists (exit 5), naming what is missing: an end without
#     CAP_NET_ADMIN/CAP_BPF, more sending flows than queues at either end, and a path over
#     loopback (not Ethernet)
# Speaks TAP. Needs root, ip(8), nft(8), python3 and setpriv. Environment: NBRUN.
set -u
NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
need_root_netns nft python3 setpriv
veth_test_init nbpx 10.244.33
CLI_PID= ECHO_PID=
cleanup() {
	for p in $CLI_PID $ECHO_PID; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	veth_test_cleanup
}
trap cleanup EXIT
if ! "$NBRUN" --version 2>&1 | grep -qv 'without xdp'; then
	echo "1..0 # SKIP this nbrun has no AF_XDP data path"
	exit 0
fi
echo "1..17"

ip netns add "$NSA" && ip netns add "$NSB" && ip -n "$NSA" link set lo up &&
	ip -n "$NSB" link set lo up &&
	ip link add "$VA" numtxqueues 2 numrxqueues 2 type veth peer name "$VB" numtxqueues 2 numrxqueues 2 &&
	ip link set "$VA" netns "$NSA" && ip link set "$VB" netns "$NSB" &&
	ip -n "$NSA" addr add "$ADDR_A/24" dev "$VA" && ip -n "$NSB" addr add "$ADDR_B/24" dev "$VB" &&
	ip -n "$NSA" link set "$VA" up && ip -n "$NSB" link set "$VB" up
that "two namespaces joined by a two-queue veth pair"

make_secret "$TMP/secret" && export NBRUN_SECRET_FILE="$TMP/secret"
start_agent() {
	ip netns exec "$NSA" "$NBRUN" serve --bind "$ADDR_A" -q 2>>"$TMP/serve.err" &
	SERVE_PID=$!
	wait_listen "$NSA" 7575
}
attached() { ip -n "$1" link show "$2" 2>/dev/null | grep -q 'prog/xdp'; }
# ingress counters of both ends: every frame the XDP program passed to the stack
for ns in "$NSA" "$NSB"; do
	dev=$VA; [ "$ns" = "$NSB" ] && dev=$VB
	ip netns exec "$ns" nft add table netdev nbpx &&
		ip netns exec "$ns" nft add chain netdev nbpx in "{ type filter hook ingress device $dev priority 0; }" &&
		ip netns exec "$ns" nft add rule netdev nbpx in counter
done
passed() { ip netns exec "$1" nft list chain netdev nbpx in | sed -n 's/.*counter packets \([0-9]*\).*/\1/p'; }
rxpk() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/rx_packets"; }
start_agent

# An unrelated UDP echo and a TCP listener on each end, asked during the run.
cat >"$TMP/echo.py" <<'PY'
import socket, sys, threading
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind((sys.argv[1], 7602))
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind((sys.argv[1], 9998)); t.listen(8)
def tcp():
    while True:
        c, _ = t.accept(); c.sendall(b"tcp-ok"); c.close()
threading.Thread(target=tcp, daemon=True).start()
while True:
    d, a = u.recvfrom(100); u.sendto(b"udp-ok:" + d, a)
PY
cat >"$TMP/ask.py" <<'PY'
import socket, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(0.3)
for _ in range(5):
    u.sendto(b"x", (sys.argv[1], 7602))
    try:
        print(u.recvfrom(100)[0].decode()); break
    except socket.timeout:
        pass
print(socket.create_connection((sys.argv[1], 9998), timeout=5).recv(10).decode())
PY

cat >"$TMP/x.yaml" <<'YAML'
name: xdp
defaults: {duration: 1s, warmup: 300ms, interval: 500ms, repetitions: 1}
tests:
  - {name: paced, engine: pps, datapath: xdp, streams: 2, rate: 10kpps, duration: 3s}
  - {name: x, engine: pps, datapath: xdp, streams: 2, direction: [forward, reverse]}
YAML
ip netns exec "$NSA" python3 "$TMP/echo.py" "$ADDR_A" &
ECHO_PID=$!
wait_listen "$NSA" 9998 # its UDP port is bound before its TCP one
rxa0=$(rxpk "$NSA" "$VA") pa0=$(passed "$NSA") rxb0=$(rxpk "$NSB" "$VB") pb0=$(passed "$NSB")
ip netns exec "$NSB" "$NBRUN" "$TMP/x.yaml" --peer "$ADDR_A" --out "$TMP/out" -q 2>"$TMP/run.err" &
CLI_PID=$!
i=0
while [ $i -lt 100 ] && ! attached "$NSA" "$VA"; do sleep 0.05; i=$((i + 1)); done
attached "$NSA" "$VA"
that "while the agent receives, the XDP program is on its interface"
ip netns exec "$NSB" python3 "$TMP/ask.py" "$ADDR_A" >"$TMP/ask.out" 2>&1
ip netns exec "$NSA" ss -Huan >>"$TMP/ask.out"
# the agent's flows took 7601 and 7603 (the hello socket 7600, the echo 7602: sequential ports)
check "UDP port 7602 between the flows' ports 7601 and 7603, and a TCP port, answer during the run" \
	"$TMP/ask.out" sh -c "grep -qx 'udp-ok:x' '$TMP/ask.out' && grep -qx 'tcp-ok' '$TMP/ask.out' &&
		grep -q '$ADDR_A:7601 ' '$TMP/ask.out' && grep -q '$ADDR_A:7603 ' '$TMP/ask.out'"
wait $CLI_PID
rc=$?
CLI_PID=
rxa1=$(rxpk "$NSA" "$VA") pa1=$(passed "$NSA") rxb1=$(rxpk "$NSB" "$VB") pb1=$(passed "$NSB")
[ $rc -eq 0 ]
that "the runs end with their rows over the control connection (exit 0)" "$TMP/run.err"
! attached "$NSA" "$VA" && ! attached "$NSB" "$VB"
that "after the runs no XDP program is left on either interface"

# Per run: the counts, and what the rows say.
python3 - "$TMP/out/runs.csv" >"$TMP/rows.check" 2>&1 <<'PY'
import csv, sys
rows = {r["case_id"]: r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "run"}
for cid in ("x/udp/s64/p2/forward", "x/udp/s64/p2/reverse", "paced/udp/s64/p2/forward/r10kpps"):
    r = rows[cid]
    tx, rx, lost = (int(float(r[k])) for k in ("tx_packets", "rx_packets", "lost"))
    assert r["status"] == "ok", (cid, r["status"], r["error"])
    assert rx > 0 and tx == rx + lost and r["dup"] == "0" and r["reorder"] == "0", (cid, tx, rx, lost, r["dup"], r["reorder"])
    assert r["jitter_us"] == "", (cid, "no receive time of its own: no jitter", r["jitter_us"])
    flags = r["flags"].split(";")
    assert "xdp=copy" in flags and "xdp_attach=driver" in flags and "xdp_queues=2" in flags, (cid, flags)
for cid in ("x/udp/s64/p2/forward", "x/udp/s64/p2/reverse", "paced/udp/s64/p2/forward/r10kpps"):
    assert "xdp_used=0,1" in rows[cid]["flags"].split(";"), (cid, rows[cid]["flags"])
print("ok")
PY
check "tx = rx + lost, no dup or reorder, and the rows say xdp=copy, driver XDP, 2 queues, both used" \
	"$TMP/rows.check" grep -qx ok "$TMP/rows.check"

python3 - "$TMP/out/plan.csv" >"$TMP/plan.check" 2>&1 <<'PY'
import csv, sys
plan = {r["case_id"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert all(r["datapath"] == "xdp" for r in plan.values()), plan
print("ok")
PY
check "plan.csv records datapath=xdp" "$TMP/plan.check" grep -qx ok "$TMP/plan.check"

# The receiving interfaces: every frame they took is either one the program passed to the stack
# (nftables' ingress counter: control, ARP, the echo's, test frames that came before the program
# was attached, which the receiver then reads from its kernel socket) or one the program
# redirected to an AF_XDP socket; what the rows count is within that (the window is part of
# the run).
python3 - "$TMP/out/runs.csv" $((rxa1 - rxa0)) $((pa1 - pa0)) $((rxb1 - rxb0)) $((pb1 - pb0)) \
	>"$TMP/if.check" 2>&1 <<'PY'
import csv, sys
rows = {r["case_id"]: r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "run"}
ifa, pa, ifb, pb = (int(v) for v in sys.argv[2:])
fwd = sum(int(float(rows[c]["rx_packets"])) + int(float(rows[c]["rcvbuf_drops"]))
          for c in ("x/udp/s64/p2/forward", "paced/udp/s64/p2/forward/r10kpps"))
rev = int(float(rows["x/udp/s64/p2/reverse"]["rx_packets"])) + int(float(rows["x/udp/s64/p2/reverse"]["rcvbuf_drops"]))
# the stack's: control, ARP, the echo's, and what came before a program was attached
assert pa < 0.05 * ifa and pb < 0.05 * ifb, ("the program passes little", pa, ifa, pb, ifb)
assert ifa - pa >= fwd > 0.5 * (ifa - pa), ("agent's interface: redirected vs counted", ifa - pa, fwd)
assert ifb - pb >= rev > 0.5 * (ifb - pb), ("client's interface: redirected vs counted", ifb - pb, rev)
print("ok")
PY
check "each receiving interface's frames are the stack's (nftables) plus the run's AF_XDP frames" \
	"$TMP/if.check" grep -qx ok "$TMP/if.check"

python3 - "$TMP/out/runs.csv" >"$TMP/pace.check" 2>&1 <<'PY'
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1])) if r["case_id"] == "paced/udp/s64/p2/forward/r10kpps" and r["kind"] == "run"][0]
tx, forgiven, burst = int(float(r["tx_packets"])), int(float(r["pace_forgiven"])), int(float(r["max_burst"]))
rate = 2 * 10000  # two flows
due = rate * float(r["duration_s"])
assert "pacing=user" in r["flags"].split(";"), r["flags"]
# each flow's window starts and ends at a tick: at most a burst of each on either side
assert tx <= due + 2 * 2 * burst, ("never ahead of the schedule", tx, due, burst)
assert tx + forgiven >= due - 2 * 2 * burst - rate * 0.010, ("the schedule kept, or forgiven", tx, forgiven, due)
print("ok")
PY
check "the paced run sent rate x duration by the pacer's rule" "$TMP/pace.check" grep -qx ok "$TMP/pace.check"

# Signals: the receiving end ends by SIGTERM or SIGKILL mid-run; its program goes with it.
cat >"$TMP/long.yaml" <<'YAML'
name: long
defaults: {duration: 20s, warmup: 0s, interval: 1s, repetitions: 1}
tests:
  - {name: x, engine: pps, datapath: xdp, rate: 1kpps, direction: DIR}
YAML
# kill_end WHO SIG: run a long case whose receiver is WHO (agent: forward; client: reverse),
# signal WHO once its program is attached; true when the program left.
kill_end() {
	dir=forward ns=$NSA dev=$VA
	[ "$1" = client ] && dir=reverse ns=$NSB dev=$VB
	sed "s/DIR/$dir/" "$TMP/long.yaml" >"$TMP/long-$dir.yaml"
	ip netns exec "$NSB" "$NBRUN" "$TMP/long-$dir.yaml" --peer "$ADDR_A" --out "$TMP/long-$1-$2" \
		-q 2>"$TMP/long.err" &
	CLI_PID=$!
	i=0
	while [ $i -lt 100 ] && ! attached "$ns" "$dev"; do sleep 0.05; i=$((i + 1)); done
	attached "$ns" "$dev" || return 1
	if [ "$1" = agent ]; then kill -"$2" "$SERVE_PID"; wait "$SERVE_PID"; SERVE_PID=; fi
	if [ "$1" = client ]; then kill -"$2" "$CLI_PID"; fi
	i=0
	while [ $i -lt 50 ] && attached "$ns" "$dev"; do sleep 0.1; i=$((i + 1)); done
	! attached "$ns" "$dev"
	r=$?
	[ "$1" = agent ] && kill -9 "$CLI_PID" 2>/dev/null
	wait "$CLI_PID" 2>/dev/null
	CLI_PID=
	[ -z "$SERVE_PID" ] && start_agent
	return $r
}
for who in agent client; do
	for sig in TERM KILL; do
		kill_end $who $sig
		that "SIG$sig of the receiving $who mid-run: its XDP program is gone"
	done
done

# Refusals before any folder exists.
ip netns exec "$NSB" setpriv --bounding-set=-net_admin,-bpf,-sys_admin --inh-caps=-all -- \
	"$NBRUN" "$TMP/x.yaml" --peer "$ADDR_A" --out "$TMP/nocap" >"$TMP/nocap.err" 2>&1
rc=$?
check "without CAP_NET_ADMIN/CAP_BPF this host refuses (exit 5), naming it, no folder" "$TMP/nocap.err" \
	sh -c "[ $rc -eq 5 ] && [ ! -e '$TMP/nocap' ] && grep -q 'this host: datapath xdp: .*CAP_' '$TMP/nocap.err'"
sed 's/streams: 2,/streams: 3,/' "$TMP/x.yaml" >"$TMP/three.yaml"
ip netns exec "$NSB" "$NBRUN" "$TMP/three.yaml" --peer "$ADDR_A" --check >"$TMP/three.err" 2>&1
rc=$?
check "3 flows on 2 queues: --check names both ends (exit 5)" "$TMP/three.err" \
	sh -c "[ $rc -eq 5 ] && grep -q 'this host: datapath xdp: 3 sending flows, but $VB has 2 queues' '$TMP/three.err' &&
		grep -q 'peer $ADDR_A: datapath xdp: 3 sending flows, but $VA has 2 queues' '$TMP/three.err'"
ip netns exec "$NSB" "$NBRUN" "$TMP/three.yaml" --peer "$ADDR_A" --out "$TMP/three" >"$TMP/three-run.err" 2>&1
rc=$?
check "and a batch of it stops there, making no folder" "$TMP/three-run.err" \
	sh -c "[ $rc -eq 5 ] && [ ! -e '$TMP/three' ]"
sed 's/streams: 2, //' "$TMP/x.yaml" >"$TMP/lo.yaml"
ip netns exec "$NSB" "$NBRUN" "$TMP/lo.yaml" --out "$TMP/lo" >"$TMP/lo.err" 2>&1
rc=$?
check "over loopback (the embedded agent) the check names it: not Ethernet (exit 5, no folder)" \
	"$TMP/lo.err" sh -c "[ $rc -eq 5 ] && [ ! -e '$TMP/lo' ] && grep -q 'datapath xdp: lo is not an Ethernet interface' '$TMP/lo.err'"
exit $FAILED

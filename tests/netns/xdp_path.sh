#!/bin/sh
# netns suite: the AF_XDP data path's modules (engines/xdp/, issue 33) across a veth pair, through
# build/tests/nb_xdp_tool: A sends with its AF_XDP socket, B's XDP program steers the test's
# port to B's socket and B counts with the socket path's own sequence accounting.
#   - counts exact, v4 and v6, driver and generic XDP: the program redirected every frame, and
#     tx = rx + what B's socket dropped (its XDP_STATISTICS), no dup, no reorder; B's interface
#     counted every frame and the same drops
#   - while attached, a TCP connection and an unrelated UDP port of B still answer; an ordinary
#     datagram to the test port goes to the AF_XDP socket, not to B's UDP socket
#   - the program leaves the interface after a normal close, SIGTERM and SIGKILL; a netlink
#     attach outlives SIGKILL and the next start removes it; a live one is never taken over
#   - busy polling asked for: counts as exact; with a bpffs mounted, nothing is pinned in it
#   - one socket per queue: on a two-queue veth, frames sent on queue 1 arrive on B's queue 1
#   - refusals that name what is missing: the interface down, zero-copy on veth, no
#     CAP_NET_ADMIN/CAP_BPF, no CAP_NET_RAW; the check before a run says the same, attaching
#     nothing
# Speaks TAP. Needs root, ip(8), python3 and setpriv. Environment: NB_BUILDDIR (meson sets it).
set -u
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
need_root_netns python3 setpriv
TOOL=${NB_BUILDDIR:-build}/tests/nb_xdp_tool
[ -x "$TOOL" ] || { echo "1..0 # SKIP this build has no AF_XDP path (nb_xdp_tool not built)"; exit 0; }
veth_test_init nbxp 10.243.33
HOLD_PID= SRV_PID=
cleanup() {
	for p in $HOLD_PID $SRV_PID; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	veth_test_cleanup
}
trap cleanup EXIT
echo "1..28"

veth_pair "$NSA" "$NSB" "$VA" "$VB" "$ADDR_A" "$ADDR_B" &&
	ip -n "$NSA" addr add fd33::1/64 dev "$VA" nodad && ip -n "$NSB" addr add fd33::2/64 dev "$VB" nodad
that "two namespaces joined by a veth pair, IPv4 and IPv6"

# Skip (not fail) where this kernel cannot attach XDP at all: the rest would say nothing.
ip netns exec "$NSB" "$TOOL" hold "$ADDR_A" 7600 >"$TMP/probe" 2>&1 </dev/null &
HOLD_PID=$!
sleep 1
kill "$HOLD_PID" 2>/dev/null; wait "$HOLD_PID" 2>/dev/null; HOLD_PID=
if ! grep -q '^ready' "$TMP/probe"; then
	echo "# $(cat "$TMP/probe")"
	for i in $(seq 2 28); do skip "xdp case $i" "XDP cannot attach here: $(head -1 "$TMP/probe")"; done
	exit 0
fi

st() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"; }
field() { tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | head -1; }
attached() { ip -n "$NSB" link show "$VB" 2>/dev/null | grep -q 'prog/xdp'; }

# transfer NAME PEER_OF_B PEER_OF_A COUNT [rx options]: B receives COUNT datagrams from A.
transfer() {
	ip netns exec "$NSB" "$TOOL" rx "$2" 7600 --count "$4" --secs 10 ${5:-} >"$TMP/$1.rx" 2>&1 &
	_rx=$!
	_i=0
	while [ $_i -lt 50 ] && ! grep -q "^ready" "$TMP/$1.rx" 2>/dev/null; do sleep 0.1; _i=$((_i + 1)); done
	before_xdp_start
	ip netns exec "$NSA" "$TOOL" tx "$3" 7600 --count "$4" >"$TMP/$1.tx" 2>&1
	wait $_rx
	before_xdp_end "$1"
}

# A sender faster than the receiving veth's NAPI fills veth's ring, and veth drops what does not
# fit before any program sees it (A's tx_dropped, or B's rx_dropped beyond its socket's drops):
# PRE, those drops during a transfer, counted by the interfaces (noted in NAME.rx); XA and XB
# name another pair than VA and VB.
before_xdp_start() {
	a_txd=$(st "$NSA" "${XA:-$VA}" tx_dropped) b_rxd=$(st "$NSB" "${XB:-$VB}" rx_dropped)
}
# In driver mode B's rx_dropped counts its socket's drops too; in generic (skb) mode it does not.
before_xdp_end() {
	_sock=$(field "$TMP/$1.rx" sock_dropped)
	grep -q '^ready xdp=[a-z]* generic ' "$TMP/$1.rx" && _sock=0
	PRE=$(($(st "$NSA" "${XA:-$VA}" tx_dropped) - a_txd + $(st "$NSB" "${XB:-$VB}" rx_dropped) - b_rxd - _sock))
	echo "# dropped before XDP $PRE (A tx_dropped, B rx_dropped beyond the socket's)" >>"$TMP/$1.rx"
}

# exact NAME COUNT: every identity of a transfer of COUNT datagrams: the program redirected each
# one veth did not drop before it (PRE), each was received or dropped by B's socket (its ring
# full: B's CPU fell behind), none twice or out of order. The receiver's live gap count (lost)
# sees a drop only once a later datagram arrives, so it is at most the drops (the engine
# settles loss as tx - rx by epoch).
exact() {
	tx=$(field "$TMP/$1.tx" tx) rx=$(field "$TMP/$1.rx" rx) lost=$(field "$TMP/$1.rx" lost)
	red=$(field "$TMP/$1.rx" redirected) drop=$(field "$TMP/$1.rx" sock_dropped)
	[ "$tx" = "$2" ] && [ "$PRE" -ge 0 ] && [ "$((red + PRE))" = "$tx" ] && [ "$((rx + drop))" = "$red" ] &&
		[ "$lost" -le "$((drop + PRE))" ] &&
		[ "$(field "$TMP/$1.rx" dup)" = 0 ] && [ "$(field "$TMP/$1.rx" reorder)" = 0 ] &&
		[ "$(field "$TMP/$1.rx" rejected)" = 0 ]
}

# 1. Counts exact, and B's interface agrees. Static neighbours and no IPv6 on the link: nothing
# but the test's frames crosses it, so the counters must match to the frame.
ip -n "$NSA" neigh replace "$ADDR_B" lladdr "$(ip netns exec "$NSB" cat "/sys/class/net/$VB/address")" dev "$VA" nud permanent
ip -n "$NSB" neigh replace "$ADDR_A" lladdr "$(ip netns exec "$NSA" cat "/sys/class/net/$VA/address")" dev "$VB" nud permanent
ip netns exec "$NSA" sysctl -qw "net.ipv6.conf.$VA.disable_ipv6=1"
ip netns exec "$NSB" sysctl -qw "net.ipv6.conf.$VB.disable_ipv6=1"
sleep 0.5
b_rx=$(st "$NSB" "$VB" rx_packets) b_drop=$(st "$NSB" "$VB" rx_dropped) a_tx=$(st "$NSA" "$VA" tx_packets)
transfer v4 "$ADDR_A" "$ADDR_B" 20000
exact v4 20000
that "IPv4, driver mode: every frame redirected, tx = rx + the socket's drops" "$TMP/v4.rx"
grep -q '^ready xdp=copy driver ' "$TMP/v4.rx"
that "veth runs the program in driver mode, the socket in copy mode (no zero-copy on veth)" "$TMP/v4.rx"
v4_pre=$PRE
[ "$(($(st "$NSA" "$VA" tx_packets) - a_tx + $(st "$NSA" "$VA" tx_dropped) - a_txd))" = 20000 ] &&
	[ "$(($(st "$NSB" "$VB" rx_packets) - b_rx))" = "$((20000 - v4_pre))" ] &&
	[ "$(field "$TMP/v4.rx" passed)" = 0 ]
that "the interfaces agree: A sent 20000 frames, B received them all but what veth dropped ($v4_pre), and counts the socket's drops" "$TMP/v4.rx"
! attached
that "the program is gone after a normal close"
ip netns exec "$NSA" sysctl -qw "net.ipv6.conf.$VA.disable_ipv6=0"
ip netns exec "$NSB" sysctl -qw "net.ipv6.conf.$VB.disable_ipv6=0"
ip -n "$NSA" addr add fd33::1/64 dev "$VA" nodad 2>/dev/null
ip -n "$NSB" addr add fd33::2/64 dev "$VB" nodad 2>/dev/null

# 2. The same over IPv6 (the MAC from neighbour discovery, resolved by the sender), and in
# generic mode.
transfer v6 fd33::1 fd33::2 20000
exact v6 20000
that "IPv6: counts exact (the peer's MAC resolved by the sender)" "$TMP/v6.rx"
ip -n "$NSA" neigh flush dev "$VA"
transfer gen "$ADDR_A" "$ADDR_B" 20000 "--mode generic"
exact gen 20000 && grep -q '^ready xdp=copy generic ' "$TMP/gen.rx"
that "generic (skb) mode when asked, counts exact; ARP resolved after a flush" "$TMP/gen.rx"

# With busy polling preferred, B's NAPI runs when B's thread polls: a thread the host holds off
# its CPU lets veth's ring fill, and veth drops what does not fit before any program sees it
# (A's tx_dropped, or B's rx_dropped beyond its socket's drops). Those are counted too: tx =
# redirected + dropped before XDP, redirected = rx + the socket's drops.
transfer busy "$ADDR_A" "$ADDR_B" 20000 "--busy-poll 50"
exact busy 20000
that "with busy polling (SO_PREFER_BUSY_POLL, SO_BUSY_POLL 50 us): counts exact, drops before XDP counted by the interfaces" "$TMP/busy.rx"

# A namespace with a bpffs (ip netns exec gives each command a mount namespace of its own).
# A fresh bpffs may hold the kernel's own preloaded entries (maps.debug, progs.debug): compare.
ip netns exec "$NSB" sh -c 'mount -t bpf bpf /sys/fs/bpf && b=$(ls -A /sys/fs/bpf | wc -l) &&
	"$1" rx "$2" 7600 --count 5000 --secs 10 && echo "pinned=$(($(ls -A /sys/fs/bpf | wc -l) - b))"' \
	sh "$TOOL" "$ADDR_A" >"$TMP/bpffs.rx" 2>&1 &
_rx=$!
_i=0
while [ $_i -lt 50 ] && ! grep -q '^ready' "$TMP/bpffs.rx" 2>/dev/null; do sleep 0.1; _i=$((_i + 1)); done
before_xdp_start
ip netns exec "$NSA" "$TOOL" tx "$ADDR_B" 7600 --count 5000 >"$TMP/bpffs.tx" 2>&1
wait $_rx
before_xdp_end bpffs
exact bpffs 5000 && grep -qx 'pinned=0' "$TMP/bpffs.rx"
that "with a bpffs mounted: counts exact, and nothing was pinned in it" "$TMP/bpffs.rx"

# 3. While attached: the control connection and another UDP port still work; the test port's
# datagrams go to the AF_XDP socket only.
cat >"$TMP/serve.py" <<'PY'
import socket, sys, threading
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("0.0.0.0", 7575)); t.listen(4)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("0.0.0.0", 7700))
w = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); w.bind(("0.0.0.0", 7600))
def tcp():
    while True:
        c, _ = t.accept(); c.sendall(c.recv(64)); c.close()
def udp(s, tag):
    while True:
        d, a = s.recvfrom(64)
        s.sendto(d, a)
        open(sys.argv[1], "a").write("%s %s\n" % (tag, d.decode()))
threading.Thread(target=tcp, daemon=True).start()
threading.Thread(target=udp, args=(w, "test-port"), daemon=True).start()
udp(u, "other-port")
PY
cat >"$TMP/ask.py" <<'PY'
import socket, sys
host, what = sys.argv[1], sys.argv[2]
if what == "tcp":
    c = socket.create_connection((host, 7575), timeout=2); c.sendall(b"ctl"); print(c.recv(64).decode())
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(1)
    s.sendto(what.encode(), (host, 7700 if what == "other" else 7600))
    try: print(s.recv(64).decode())
    except socket.timeout: print("timeout")
PY
ip netns exec "$NSB" python3 "$TMP/serve.py" "$TMP/served" &
SRV_PID=$!
wait_listen "$NSB" 7575
ip netns exec "$NSB" "$TOOL" hold "$ADDR_A" 7600 >"$TMP/hold" 2>&1 &
HOLD_PID=$!
sleep 1
attached && [ "$(ip netns exec "$NSA" python3 "$TMP/ask.py" "$ADDR_B" tcp)" = ctl ]
that "while attached: a TCP connection to B (the control connection) is answered" "$TMP/hold"
[ "$(ip netns exec "$NSA" python3 "$TMP/ask.py" "$ADDR_B" other)" = other ]
that "while attached: an unrelated UDP port of B answers" "$TMP/served"
[ "$(ip netns exec "$NSA" python3 "$TMP/ask.py" "$ADDR_B" test)" = timeout ] && ! grep -q test-port "$TMP/served"
that "while attached: a datagram to the test port reaches the AF_XDP socket, not B's UDP socket" "$TMP/served"

# 4. Exits: SIGTERM, SIGKILL; a second start while one is live is refused.
ip netns exec "$NSB" "$TOOL" hold "$ADDR_A" 7600 >"$TMP/second" 2>&1
[ $? = 1 ] && grep -q "in use by another nbrun" "$TMP/second" && attached
that "a second attach on a live one is refused, naming it, and leaves it attached" "$TMP/second"
kill -TERM "$HOLD_PID"; wait "$HOLD_PID"; HOLD_PID=
! attached && grep -q '^closed' "$TMP/hold"
that "the program is gone after SIGTERM" "$TMP/hold"
[ "$(ip netns exec "$NSA" python3 "$TMP/ask.py" "$ADDR_B" test)" = test ]
that "detached: the test port is B's UDP socket's again" "$TMP/served"
ip netns exec "$NSB" "$TOOL" hold "$ADDR_A" 7600 >"$TMP/hold" 2>&1 &
HOLD_PID=$!
sleep 1
attached && kill -KILL "$HOLD_PID"; wait "$HOLD_PID" 2>/dev/null; HOLD_PID=
sleep 0.2
! attached
that "the program is gone after SIGKILL: the BPF link dies with the process"
ip netns exec "$NSB" "$TOOL" hold "$ADDR_A" 7600 --attach netlink >"$TMP/hold" 2>&1 &
HOLD_PID=$!
sleep 1
kill -KILL "$HOLD_PID"; wait "$HOLD_PID" 2>/dev/null; HOLD_PID=
sleep 0.2
attached
that "a netlink attach outlives SIGKILL (the fallback for kernels without XDP links)"
transfer stale "$ADDR_A" "$ADDR_B" 1000
exact stale 1000 && ! attached
that "the next start removes the program left behind, runs, and leaves nothing" "$TMP/stale.rx"

# 5. One socket per queue: a second veth pair with two queues each way.
VA2=nbxq${$}a VB2=nbxq${$}b
ip link add "$VA2" numtxqueues 2 numrxqueues 2 type veth peer name "$VB2" numtxqueues 2 numrxqueues 2 &&
	ip link set "$VA2" netns "$NSA" && ip link set "$VB2" netns "$NSB" &&
	ip -n "$NSA" addr add 10.243.36.1/24 dev "$VA2" && ip -n "$NSB" addr add 10.243.36.2/24 dev "$VB2" &&
	ip -n "$NSA" link set "$VA2" up && ip -n "$NSB" link set "$VB2" up
ip netns exec "$NSB" "$TOOL" rx 10.243.36.1 7600 --count 5000 --secs 10 >"$TMP/mq.rx" 2>&1 &
_rx=$!
_i=0
while [ $_i -lt 50 ] && ! grep -q '^ready' "$TMP/mq.rx" 2>/dev/null; do sleep 0.1; _i=$((_i + 1)); done
XA=$VA2 XB=$VB2
before_xdp_start
ip netns exec "$NSA" "$TOOL" tx 10.243.36.2 7600 --count 5000 --queue 1 >"$TMP/mq.tx" 2>&1
wait $_rx
before_xdp_end mq
XA= XB=
exact mq 5000 && grep -q "^ready xdp=copy driver $VB2 queues=2" "$TMP/mq.rx" &&
	grep -q " queues=0,$(field "$TMP/mq.rx" rx)\$" "$TMP/mq.rx"
that "two queues, two sockets: what A sent on queue 1 arrived, exactly, on B's queue 1 only" "$TMP/mq.rx"

# 6. Refusals, one line each, naming what is missing.
ip -n "$NSB" link set "$VB" down
ip netns exec "$NSB" "$TOOL" rx "$ADDR_A" 7600 --count 1 >"$TMP/down" 2>&1
[ $? = 1 ] && grep -q "$VB, the interface toward the peer, is down" "$TMP/down" && ! attached
that "an interface that is down: refused, naming it" "$TMP/down"
ip -n "$NSB" link set "$VB" up
sleep 1
ip netns exec "$NSB" "$TOOL" rx "$ADDR_A" 7600 --count 1 --copy zerocopy >"$TMP/zc" 2>&1
[ $? = 1 ] && grep -q "the driver has no zero-copy AF_XDP" "$TMP/zc" && ! attached
that "zero-copy asked for on veth: refused (auto falls back to copy), nothing left attached" "$TMP/zc"
ip netns exec "$NSB" "$TOOL" rx "$ADDR_A" 7600 --count 1 --mode driver --secs 0.1 >"$TMP/drv" 2>&1
grep -q '^ready xdp=copy driver' "$TMP/drv"
that "driver mode when asked for on veth" "$TMP/drv"
ip netns exec "$NSB" setpriv --bounding-set=-net_admin,-bpf,-sys_admin --inh-caps=-all -- \
	"$TOOL" rx "$ADDR_A" 7600 --count 1 >"$TMP/nocap" 2>&1
[ $? = 1 ] && grep -q "needs CAP_BPF and CAP_NET_ADMIN" "$TMP/nocap" && [ "$(wc -l <"$TMP/nocap")" = 1 ]
that "without CAP_NET_ADMIN and CAP_BPF: one line naming them" "$TMP/nocap"
ip netns exec "$NSA" setpriv --bounding-set=-net_raw --inh-caps=-all -- \
	"$TOOL" tx "$ADDR_B" 7600 --count 1 >"$TMP/noraw" 2>&1
[ $? = 1 ] && grep -q "needs CAP_NET_RAW" "$TMP/noraw"
that "a sender without CAP_NET_RAW: one line naming it" "$TMP/noraw"
ip netns exec "$NSB" "$TOOL" check "$ADDR_A" 7600 >"$TMP/check" 2>&1 &&
	grep -qx "ok $VB queues=1" "$TMP/check" && ! attached
that "the check before a run: this end can receive over $VB, and nothing was attached" "$TMP/check"
ip netns exec "$NSB" setpriv --bounding-set=-net_admin,-bpf,-sys_admin --inh-caps=-all -- \
	"$TOOL" check "$ADDR_A" 7600 >"$TMP/check" 2>&1
[ $? = 1 ] && grep -q "needs CAP_BPF and CAP_NET_ADMIN" "$TMP/check"
that "the check without CAP_BPF: refused the same way" "$TMP/check"
ip netns exec "$NSA" setpriv --bounding-set=-net_raw --inh-caps=-all -- \
	"$TOOL" check "$ADDR_B" 7600 --tx >"$TMP/check" 2>&1
[ $? = 1 ] && grep -q "needs CAP_NET_RAW" "$TMP/check"
that "the check of a sender without CAP_NET_RAW: refused, naming it" "$TMP/check"
! attached && ! ip -n "$NSA" link show "$VA" 2>/dev/null | grep -q 'prog/xdp'
that "no program left on either end" "$TMP/noraw"
exit $FAILED

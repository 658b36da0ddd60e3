# Shared by the shell tests (sourced, POSIX sh): TAP output, waiting for a listener or for
# rows, and network-namespace helpers.
# A test sets N=0 FAILED=0, sources this file, and exits with $FAILED.

ok()   { N=$((N + 1)); echo "ok $N - $1"; }
# nok DESCRIPTION [FILE]: a failed check; FILE's lines go to the TAP stream as diagnostics and its
# last 40 to stderr too (a failed test's stderr is what a CI log shows).
nok()  {
	N=$((N + 1)); FAILED=1; echo "not ok $N - $1"
	[ -n "${2:-}" ] && [ -f "$2" ] || return 0
	sed 's/^/# /' "$2"
	{ echo "not ok $N - $1: $2 ends with:"; tail -n 40 "$2" | sed 's/^/  /'; } >&2
}
skip() { N=$((N + 1)); echo "ok $N - $1 # SKIP $2"; }
# todo DESCRIPTION REASON COMMAND...: a known gap, as a TAP TODO test. While COMMAND fails meson
# counts an expected failure; once it succeeds, an unexpected pass tells to drop the TODO.
todo() {
	_d=$1 _r=$2; shift 2
	N=$((N + 1))
	if "$@" >/dev/null 2>&1; then echo "ok $N - $_d # TODO $_r"; else echo "not ok $N - $_d # TODO $_r"; fi
}
# that DESCRIPTION FILE-TO-SHOW-ON-FAILURE: ok when the command just before succeeded.
that() { if [ $? -eq 0 ]; then ok "$1"; else nok "$1" "${2:-}"; fi; }
# check DESCRIPTION FILE-TO-SHOW-ON-FAILURE COMMAND...
check() {
	_d=$1 _f=$2; shift 2
	if "$@" >/dev/null 2>&1; then ok "$_d"; else nok "$_d" "$_f"; fi
}

# listening PORT: a TCP socket LISTENs on PORT in this namespace (state 0A: a connection of an
# earlier agent on that port, in TIME_WAIT, must not count).
listening() {
	awk -v p=":$(printf %04X "$1")" '$2 ~ p "$" && $4 == "0A" { f = 1 } END { exit !f }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# wait_port PORT: until a TCP socket listens on PORT in this namespace (5 s at most).
wait_port() {
	_i=0
	while [ $_i -lt 50 ] && ! listening "$1"; do
		sleep 0.1; _i=$((_i + 1))
	done
}

# wait_rows FILE N: until FILE holds N rows after its header line (20 s at most).
wait_rows() {
	_i=0
	while [ $_i -lt 200 ]; do
		[ -f "$1" ] && [ "$(($(wc -l <"$1") - 1))" -ge "$2" ] && return 0
		sleep 0.1; _i=$((_i + 1))
	done
	return 1
}

# wait_ok_runs FILE N: until runs.csv FILE holds N rows of runs (kind run) with status ok (20 s at
# most): on a busy host a run whose measuring process stalled is kept invalid and run again.
wait_ok_runs() {
	_i=0
	while [ $_i -lt 200 ]; do
		[ -f "$1" ] && [ "$(grep -c ',run,,ok,' "$1")" -ge "$2" ] && return 0
		sleep 0.1; _i=$((_i + 1))
	done
	return 1
}

# Print the TAP plan "1..0 # SKIP" and exit unless we are root with ip(8) (and the extra tools).
need_root_netns() {
	if [ "$(id -u)" != 0 ]; then echo "1..0 # SKIP needs root for network namespaces"; exit 0; fi
	for _t in ip "$@"; do
		command -v "$_t" >/dev/null 2>&1 || { echo "1..0 # SKIP $_t not installed"; exit 0; }
	done
}

# veth_pair NSA NSB VA VB ADDR_A ADDR_B: two namespaces joined by a veth pair, /24 addresses, up.
veth_pair() {
	ip netns add "$1" && ip netns add "$2" &&
	ip -n "$1" link set lo up && ip -n "$2" link set lo up &&
	veth_link "$@"
}

# veth_link NSA NSB VA VB ADDR_A ADDR_B: the same between two namespaces that exist already.
veth_link() {
	ip link add "$3" type veth peer name "$4" &&
	ip link set "$3" netns "$1" && ip link set "$4" netns "$2" &&
	ip -n "$1" addr add "$5/24" dev "$3" && ip -n "$2" addr add "$6/24" dev "$4" &&
	ip -n "$1" link set "$3" up && ip -n "$2" link set "$4" up
}

# wait_listen NS PORT: until a TCP socket listens on PORT inside namespace NS (5 s at most).
wait_listen() {
	_hex=$(printf ':%04X ' "$2")
	_i=0
	while [ $_i -lt 50 ]; do
		ip netns exec "$1" cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep " 0A " | grep -q "$_hex" && return 0
		sleep 0.1; _i=$((_i + 1))
	done
	return 1
}

# make_secret FILE: a random shared secret in FILE, mode 600 (`nbrun serve` on an address beyond
# loopback needs one, or --insecure).
make_secret() {
	head -c 32 /dev/urandom | base64 >"$1" && chmod 600 "$1"
}

# routed_netns NETA NETB: namespaces NSA and NSB routed through NSR (a veth each: VA-RA on
# NETA.0/24, VB-RB on NETB.0/24, R at .254 of each, A at ADDR_A, B at ADDR_B), forwarding on.
# A's default route is added with ROUTE_A_OPTS appended (e.g. "advmss 1200").
routed_netns() {
	ip netns add "$NSA" && ip netns add "$NSB" && ip netns add "$NSR" &&
	ip link add "$VA" type veth peer name "$RA" && ip link add "$VB" type veth peer name "$RB" &&
	ip link set "$VA" netns "$NSA" && ip link set "$RA" netns "$NSR" &&
	ip link set "$VB" netns "$NSB" && ip link set "$RB" netns "$NSR" &&
	ip -n "$NSA" addr add "$ADDR_A/24" dev "$VA" && ip -n "$NSR" addr add "$1.254/24" dev "$RA" &&
	ip -n "$NSB" addr add "$ADDR_B/24" dev "$VB" && ip -n "$NSR" addr add "$2.254/24" dev "$RB" &&
	for _l in "$NSA $VA" "$NSB $VB" "$NSR $RA" "$NSR $RB" "$NSA lo" "$NSB lo" "$NSR lo"; do
		ip -n "${_l% *}" link set "${_l#* }" up || return 1
	done &&
	ip -n "$NSA" route add default via "$1.254" ${ROUTE_A_OPTS:-} &&
	ip -n "$NSB" route add default via "$2.254" &&
	ip netns exec "$NSR" sysctl -qw net.ipv4.ip_forward=1
}

# shape_past_control NS DEV RATE BURST LIMIT: a tbf at RATE (BURST, LIMIT bytes) as DEV's egress,
# the control connection (port 7575) past it in an htb class of its own (htb only sorts: both
# classes may take 1 Gbit/s), so that a test about the data is not one about a control path
# that loses a share of its segments.
shape_past_control() {
	tc -n "$1" qdisc add dev "$2" root handle 1: htb default 20 &&
	tc -n "$1" class add dev "$2" parent 1: classid 1:10 htb rate 1gbit quantum 60000 prio 0 &&
	tc -n "$1" class add dev "$2" parent 1: classid 1:20 htb rate 1gbit quantum 60000 prio 1 &&
	tc -n "$1" qdisc add dev "$2" parent 1:20 handle 20: tbf rate "$3" burst "$4" limit "$5" &&
	tc -n "$1" filter add dev "$2" parent 1: protocol ip prio 1 u32 match ip sport 7575 0xffff flowid 1:10 &&
	tc -n "$1" filter add dev "$2" parent 1: protocol ip prio 1 u32 match ip dport 7575 0xffff flowid 1:10
}

# veth_test_init PREFIX NET: the names, addresses and scratch folder of a two-namespace test
# (NSA/NSB, VA/VB, ADDR_A=NET.1, ADDR_B=NET.2, TMP), and an EXIT trap that kills SERVE_PID and
# removes exactly those namespaces, that link and that folder.
veth_test_init() {
	NSA=$1-$$-a NSB=$1-$$-b VA=$1-${$}a VB=$1-${$}b
	ADDR_A=$2.1 ADDR_B=$2.2
	TMP=$(mktemp -d "/tmp/$1-$$.XXXXXX")
	SERVE_PID=
	trap veth_test_cleanup EXIT
	trap 'exit 1' INT TERM
}

veth_test_cleanup() {
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	ip link del "$VA" 2>/dev/null
	rm -rf "$TMP"
}

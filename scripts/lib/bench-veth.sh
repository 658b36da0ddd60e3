# Sourced by scripts/bench-pps: its veth section (issue 33). Two namespaces joined by a veth
# pair; A sends 64-byte UDP datagrams to B. Side by side in one run, ROUNDS_VETH rounds each:
#   socket  nbrun's pps engine over sockets (`nbrun serve` in B, `nbrun CONFIG --peer` in A)
#   min     the least AF_XDP loop (build/tests/nb_xdp_min: libxdp alone)
#   modules nbrun's xdp path's modules (build/tests/nb_xdp_tool: engines/xdp/ without the engine)
#   xdp     nbrun's pps engine with `datapath: xdp` (the same agent and client as socket)
#   xdp-spin  the same with `wait: spin` (its receiver looks at an empty ring again, with no
#           syscall, until 200 us after its last frame, before it sleeps in poll)
#   min-spin  the least AF_XDP loop with its receiver waiting the same way
#   min-nap   the least AF_XDP loop with its receiver sleeping on a timer while frames flow, as
#           nbrun's default (`wait: block`) does; `min` sleeps in poll
# Each row: the median and best rx pps, and the median CPU per packet: user+system time of the
# sending and the receiving process (from /proc and getrusage) over the packets B received.
# Softirq work the kernel does in ksoftirqd is in no process's time: see host_cpu in nbrun's rows.
# Uses BUILD, NBRUN, SECS, SIZE, ROUNDS_VETH, TMP, PIDS and VETH_NS of bench-pps.

veth_up() {
	VA=nbbp${$}a VB=nbbp${$}b NSA=nbbp-$$-a NSB=nbbp-$$-b
	VETH_NS+=("$NSA" "$NSB")
	ip netns add "$NSA" && ip netns add "$NSB" &&
		ip -n "$NSA" link set lo up && ip -n "$NSB" link set lo up &&
		ip link add "$VA" type veth peer name "$VB" &&
		ip link set "$VA" netns "$NSA" && ip link set "$VB" netns "$NSB" &&
		ip -n "$NSA" addr add 10.243.34.1/24 dev "$VA" && ip -n "$NSB" addr add 10.243.34.2/24 dev "$VB" &&
		ip -n "$NSA" link set "$VA" up && ip -n "$NSB" link set "$VB" up
}

# cpu_of PID: user+system seconds of a live process (/proc/PID/stat fields 14 and 15).
cpu_of() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.3f\n", ($12 + $13) / hz }' "/proc/$1/stat"
}

# Each runner prints "PPS NS_PER_PACKET" (or nothing when it failed).
# veth_nbrun DATAPATH [WAIT]: one pps run of nbrun's, agent in B, client in A.
veth_nbrun() {
	cat >"$TMP/veth.yaml" <<YAML
name: bench-veth
defaults: {duration: ${SECS}s, warmup: 0s, omit: 0s, interval: 1s, repetitions: 1}
tests:
  - {name: b, engine: pps, protocol: udp, size: $SIZE, streams: 1, datapath: $1, wait: ${2:-block}}
YAML
	rm -rf "$TMP/veth-out"
	local agent0 client
	agent0=$(cpu_of "$AGENT_PID")
	# The client's own user+system time: python waits for it and reads its rusage.
	client=$(ip netns exec "$NSA" python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f" % (r.ru_utime + r.ru_stime))' "$NBRUN" -q "$TMP/veth.yaml" --peer 10.243.34.2 --out "$TMP/veth-out") || return 0
	local cpu pps pkts
	cpu=$(awk -v a="$agent0" -v b="$(cpu_of "$AGENT_PID")" -v c="$client" 'BEGIN { print b - a + c }')
	read -r pps pkts <<<"$(nb_field "$TMP/veth-out" rx_pps rx_packets)"
	[[ -n "${pps:-}" && "$pps" != nan ]] || return 0
	awk -v p="$pps" -v n="$pkts" -v c="$cpu" 'BEGIN { printf "%d %.0f\n", p, (n > 0 ? c * 1e9 / n : 0) }'
}
veth_socket() { veth_nbrun socket; }
veth_xdp() { veth_nbrun xdp; }
veth_xdp-spin() { veth_nbrun xdp spin; }

# veth_pair_run RX_CMD... -- TX_CMD...: B runs the receiver, A the sender; both print
# "rx=N ... pps=N ... cpu_s=S" / "... cpu_s=S" (nb_xdp_min, nb_xdp_tool).
veth_pair_run() {
	local rx=() tx=()
	while [[ $1 != -- ]]; do rx+=("$1"); shift; done
	shift
	tx=("$@")
	ip netns exec "$NSB" timeout $((SECS + 10)) "${rx[@]}" >"$TMP/vrx" 2>/dev/null &
	local rpid=$!
	sleep 1 # the receiver is bound before the first frame
	ip netns exec "$NSA" timeout $((SECS + 10)) "${tx[@]}" >"$TMP/vtx" 2>/dev/null || true
	wait "$rpid" || true
	python3 - "$TMP/vrx" "$TMP/vtx" <<'PY'
import sys
def kv(path):
    out = {}
    for line in open(path):
        for w in line.split():
            if "=" in w:
                k, v = w.split("=", 1)
                try: out[k] = float(v)
                except ValueError: pass
    return out
r, t = kv(sys.argv[1]), kv(sys.argv[2])
n = r.get("rx", 0)
secs = r.get("secs")
pps = n / secs if secs else r.get("pps", 0)
if n > 0:
    print("%d %.0f" % (pps, (r.get("cpu_s", 0) + t.get("cpu_s", 0)) * 1e9 / n))
PY
}

veth_min() {
	veth_pair_run "$BUILD/tests/nb_xdp_min" rx "$VB" $((SECS + 2)) ${1:-} -- \
		"$BUILD/tests/nb_xdp_min" tx "$VA" "$SECS" "$MAC_B" "$SIZE"
}
veth_min-spin() { veth_min spin; }
veth_min-nap() { veth_min nap; }

veth_modules() {
	veth_pair_run "$BUILD/tests/nb_xdp_tool" rx 10.243.34.1 7800 --secs $((SECS + 2)) -- \
		"$BUILD/tests/nb_xdp_tool" tx 10.243.34.2 7800 --secs "$SECS" --size "$SIZE"
}

veth_section() {
	if [[ $(id -u) != 0 ]]; then
		echo; echo "veth section: skipped (needs root for network namespaces)"; return 0
	fi
	veth_up || { echo "veth section: could not set up the namespaces" >&2; return 1; }
	MAC_B=$(ip netns exec "$NSB" cat "/sys/class/net/$VB/address")
	# an agent on a namespace address needs a secret: both ends read it from the environment
	head -c 32 /dev/urandom | base64 >"$TMP/secret" && chmod 600 "$TMP/secret"
	export NBRUN_SECRET_FILE="$TMP/secret"
	ip netns exec "$NSB" "$NBRUN" serve --bind 10.243.34.2 -q 2>"$TMP/agent.err" &
	AGENT_PID=$!
	PIDS+=("$AGENT_PID")
	sleep 0.5
	kill -0 "$AGENT_PID" 2>/dev/null || { echo "veth section: the agent did not start: $(cat "$TMP/agent.err")" >&2; return 1; }
	local tools=(socket) have_xdp=1
	[[ -x "$BUILD/tests/nb_xdp_min" && -x "$BUILD/tests/nb_xdp_tool" ]] || have_xdp=0
	((have_xdp)) && tools+=(xdp min min-nap modules xdp-spin min-spin)
	declare -A pps cpu
	local r t v
	for ((r = 1; r <= ROUNDS_VETH; r++)); do
		for t in "${tools[@]}"; do
			v=$("veth_$t" || true)
			pps[$t]="${pps[$t]:-} ${v%% *}"
			cpu[$t]="${cpu[$t]:-} ${v##* }"
			printf 'round %d  %-8s %10s pps %8s ns/pkt\n' "$r" "$t" "${v%% *}" "${v##* }" >&2
		done
	done
	echo
	echo "UDP $SIZE B on a veth pair between two namespaces, $SECS s per run, $ROUNDS_VETH rounds," \
		"$(nproc) CPUs, kernel $(uname -r)"
	printf '%-44s %12s %12s %14s\n' "path" "median rx-pps" "best" "CPU ns/packet"
	declare -A label=([socket]="nbrun pps, sockets" [min]="minimal AF_XDP loop (nb_xdp_min)"
		[modules]="nbrun xdp modules (nb_xdp_tool)" [xdp]="nbrun pps, datapath: xdp"
		[xdp-spin]="nbrun pps, datapath: xdp, wait: spin" [min-spin]="minimal AF_XDP loop, rx spin"
		[min-nap]="minimal AF_XDP loop, rx naps")
	for t in "${tools[@]}"; do
		printf '%-44s %12s %12s %14s\n' "${label[$t]}" "$(median "${pps[$t]}")" "$(best "${pps[$t]}")" \
			"$(median "${cpu[$t]}")"
	done
	((have_xdp)) || { echo "xdp rows: this build has no AF_XDP path"; return 0; }
	local d s x w y z
	d=$(median "${pps[xdp]}") s=$(median "${pps[socket]}") x=$(median "${pps[min]}")
	w=$(median "${pps[xdp-spin]}") y=$(median "${pps[min-spin]}") z=$(median "${pps[min-nap]}")
	echo "xdp/socket   = $(ratio "$d" "$s")   (goal: >= 2.00)"
	echo "xdp/min-loop = $(ratio "$d" "$x")   (goal: >= 0.90)"
	echo "CPU per packet, xdp/min-loop = $(ratio "$(median "${cpu[xdp]}")" "$(median "${cpu[min]}")")   (goal: <= 1.00)"
	echo "CPU per packet, xdp/socket   = $(ratio "$(median "${cpu[xdp]}")" "$(median "${cpu[socket]}")")"
	echo "min-loop/socket = $(ratio "$x" "$s")   (the least loop, its receiver sleeping in poll)"
	echo "the same way of waiting: xdp/min-nap = $(ratio "$d" "$z")   (goal: >= 0.90)," \
		"CPU per packet $(ratio "$(median "${cpu[xdp]}")" "$(median "${cpu[min-nap]}")")   (goal: <= 1.00)"
	echo "wait: spin: xdp-spin/socket = $(ratio "$w" "$s")   (goal: >= 2.00)," \
		"xdp-spin/min-spin = $(ratio "$w" "$y")   (goal: >= 0.90)"
	echo "wait: spin: CPU per packet, xdp-spin/min-spin = $(ratio "$(median "${cpu[xdp-spin]}")" "$(median "${cpu[min-spin]}")")   (goal: <= 1.00)," \
		"xdp-spin/xdp = $(ratio "$(median "${cpu[xdp-spin]}")" "$(median "${cpu[xdp]}")")"
}

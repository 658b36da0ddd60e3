#!/usr/bin/env bash
# scripts/bench-stream veth: nbrun's TCP streams vs iperf3 -P N on a veth pair between two
# namespaces (see scripts/bench-stream). Usage: bench-stream-veth.sh [SECONDS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-4}
rounds=${2:-5}
NBRUN=${NBRUN:-build/nbrun}
STREAMS=${STREAMS:-1 2 4 8}
[ "$(id -u)" = 0 ] || { echo "bench-stream veth: needs root (namespaces)" >&2; exit 1; }
command -v iperf3 >/dev/null || { echo "bench-stream: iperf3 not installed (apt-get install iperf3)" >&2; exit 1; }
. scripts/lib/bench.sh

NS_C=nbstr-c$$ NS_S=nbstr-s$$ VC=nbsc$$ VS=nbss$$ C=10.213.0.1 S=10.213.0.2
tmp=$(mktemp -d /tmp/nbbench-stream-veth.XXXXXX)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	ip netns del "$NS_C" 2>/dev/null || true
	ip netns del "$NS_S" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
ip netns add "$NS_C"
ip netns add "$NS_S"
ip link add "$VC" netns "$NS_C" type veth peer name "$VS" netns "$NS_S"
ip -n "$NS_C" addr add $C/24 dev "$VC"
ip -n "$NS_S" addr add $S/24 dev "$VS"
for ns in "$NS_C" "$NS_S"; do ip -n "$ns" link set lo up; done
ip -n "$NS_C" link set "$VC" up
ip -n "$NS_S" link set "$VS" up
# the agent is on a namespace address: a secret, which the client takes from the environment too
head -c 32 /dev/urandom | base64 >"$tmp/secret" && chmod 600 "$tmp/secret"
export NBRUN_SECRET_FILE="$tmp/secret"
ip netns exec "$NS_S" "$NBRUN" serve --bind $S -q >"$tmp/serve.log" 2>&1 & pids="$pids $!"
ip netns exec "$NS_S" iperf3 -s -B $S >"$tmp/iperf3-s.log" 2>&1 & pids="$pids $!"
sleep 0.5

# nb STREAMS [THREADS]: nbrun's rx_bps (TCP 128 KiB), its default threads without THREADS.
nb() {
	local th=${2:+, threads: $2}
	cat >"$tmp/nb.yaml" <<YAML
name: bench
defaults: {duration: ${secs}s, warmup: 1s, omit: 0s, interval: 1s, repetitions: 1}
tests:
  - {name: b, engine: stream, protocol: tcp, size: 128K, streams: $1$th}
YAML
	rm -rf "$tmp/nb"
	timeout $((secs + 30)) ip netns exec "$NS_C" "$NBRUN" -q "$tmp/nb.yaml" --peer $S \
		--out "$tmp/nb" >"$tmp/nb.log" 2>&1 || true
	local v
	v=$(nb_field "$tmp/nb" rx_bps 2>/dev/null || true)
	echo "${v:-nan}"
}

# ip3 STREAMS: iperf3's received bit/s (TCP 128 KiB, -P STREAMS, the first second omitted).
ip3() {
	timeout $((secs + 30)) ip netns exec "$NS_C" iperf3 -c $S -l 128K -P "$1" -t "$secs" -O 1 -J \
		>"$tmp/i.json" 2>/dev/null || true
	python3 - "$tmp/i.json" <<'PY'
import json, sys
try:
    print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"])
except Exception:
    print("nan")
PY
}

declare -A d t i
for ((r = 1; r <= rounds; r++)); do     # interleaved, so drift hits every tool alike
	for n in $STREAMS; do
		d[$n]="${d[$n]:-} $(nb "$n")"
		t[$n]="${t[$n]:-} $(nb "$n" "$n")"
		i[$n]="${i[$n]:-} $(ip3 "$n")"
		echo "round $r, $n streams: default ${d[$n]##* }  threads=$n ${t[$n]##* }  iperf3 ${i[$n]##* }" >&2
	done
done

med() { python3 -c "import sys,statistics; v=[float(x) for x in sys.argv[1:] if x != 'nan']; print(statistics.median(v) if v else float('nan'))" "$@"; }
cpus=$(nproc)
echo
echo "TCP 128 KiB on a veth pair between two namespaces; nbrun's default threads: min(streams, $cpus) per end"
printf '%-8s %12s %12s %12s %10s %10s\n' streams "nbrun Gb/s" "threads=N" "iperf3 -P N" "nb/ip3" "thrN/ip3"
for n in $STREAMS; do
	# shellcheck disable=SC2086
	a=$(med ${d[$n]}) b=$(med ${t[$n]}) c=$(med ${i[$n]})
	python3 -c "print('%-8s %12.2f %12.2f %12.2f %10.3f %10.3f' % ('$n', $a/1e9, $b/1e9, $c/1e9, $a/$c, $b/$c))"
done
echo "(medians of $rounds interleaved rounds of ${secs} s each; $cpus CPUs; kernel $(uname -r);" \
	"load $(cut -d' ' -f1-3 /proc/loadavg); $(iperf3 --version | head -1 | cut -d' ' -f1-2))"

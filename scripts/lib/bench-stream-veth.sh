#!/usr/bin/env bash
# scripts/bench-stream veth: nbrun's TCP streams vs iperf3 -P N on a veth pair between two
# namespaces (see scripts/bench-stream). Usage: bench-stream-veth.sh [SECONDS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-4}
rounds=${2:-8}
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

# one C STREAMS: one run of column C, kept: 0 nbrun default, 1 threads=min(STREAMS, CPUs) (the
# flows over threads, one thread per CPU), 2 threads=STREAMS (a thread per stream), 3 iperf3.
cpus=$(nproc)
declare -A d f t i
one() {
	case $1 in
	0) d[$2]="${d[$2]:-} $(nb "$2")" ;;
	1) f[$2]="${f[$2]:-} $(nb "$2" $(($2 < cpus ? $2 : cpus)))" ;;
	2) t[$2]="${t[$2]:-} $(nb "$2" "$2")" ;;
	3) i[$2]="${i[$2]:-} $(ip3 "$2")" ;;
	esac
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# Interleaved, so drift hits every tool alike; and the order within a round rotates (round r,
# case k starts with column (r + k) mod 4), so no column is always the one after another
# tool's run or the first of a round.
for ((r = 1; r <= rounds; r++)); do
	k=0
	for n in $STREAMS; do
		for j in 0 1 2 3; do one $(((r + k + j) % 4)) "$n"; done
		# each run's place in its group of 4 and its rate over the group's mean: the order's own cost
		python3 -c "import sys; v=[float(x) for x in sys.argv[2:]]; m=sum(v)/4; f=int(sys.argv[1])
print('\n'.join('%d %f' % ((c - f) % 4, v[c] / m) for c in range(4)))" $(((r + k) % 4)) \
			"${d[$n]##* }" "${f[$n]##* }" "${t[$n]##* }" "${i[$n]##* }" >>"$tmp/order" || true
		echo "round $r, $n streams (first: column $(((r + k) % 4))): default ${d[$n]##* }" \
			"threads=$((n < cpus ? n : cpus)) ${f[$n]##* } threads=$n ${t[$n]##* } iperf3 ${i[$n]##* }" >&2
		k=$((k + 1))
	done
done

med() { python3 -c "import sys,statistics; v=[float(x) for x in sys.argv[1:] if x != 'nan']; print(statistics.median(v) if v else float('nan'))" "$@"; }
echo
echo "TCP 128 KiB on a veth pair between two namespaces; $cpus CPUs; default: nbrun without threads:"
printf '%-8s %10s %12s %10s %12s %8s %9s %9s\n' streams "default" "thr=min(N,$cpus)" "thr=N" "iperf3 -P N" \
	"def/ip3" "min/ip3" "thrN/ip3"
for n in $STREAMS; do
	# shellcheck disable=SC2086
	a=$(med ${d[$n]}) b=$(med ${f[$n]}) c=$(med ${t[$n]}) e=$(med ${i[$n]})
	python3 -c "print('%-8s %10.2f %12.2f %10.2f %12.2f %8.3f %9.3f %9.3f' % ('$n', $a/1e9, $b/1e9, $c/1e9, $e/1e9, $a/$e, $b/$e, $c/$e))"
done
python3 - "$tmp/order" <<'PY'
import statistics, sys
by = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    by.setdefault(int(k), []).append(float(v))
print("a run's rate over its group's mean by its place in the group (median): " +
      ", ".join("%d: %.3f" % (k + 1, statistics.median(by[k])) for k in sorted(by)))
PY
echo "(medians of $rounds interleaved rounds of ${secs} s each; $cpus CPUs; kernel $(uname -r);" \
	"load $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; $(iperf3 --version | head -1 | cut -d' ' -f1-2))"

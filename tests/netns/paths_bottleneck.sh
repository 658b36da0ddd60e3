#!/bin/sh
# netns suite: one case on two paths whose links differ (issue 17). A runner namespace joined
# to two agent namespaces by a veth pair each; a tbf on what the first agent receives (its
# veth's ingress redirected to an ifb: a bottleneck that drops, where a tbf on the sender's own
# interface would push back on its socket) holds that path to SHAPE. One UDP case offers RATE on each path at once (--peer A --peer B):
# the shaped path's received rate stays under what the shaper lets through, the other's goes
# above it, the sum is the two added up, and the report's per-path table names the shaped path
# with the smaller share, shows each path's loss and warns that the loss is on that path
# (issue 28). Speaks TAP. Needs root, ip(8), tc(8) and python3.
# Environment: NBRUN = path of the nbrun binary (meson sets it), NB_SRCDIR = source root.
set -u
NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
need_root_netns tc python3
NSR=nbpb-$$-r NSA=nbpb-$$-a NSB=nbpb-$$-b
VRA=nbpb${$}ra VA=nbpb${$}a VRB=nbpb${$}rb VB=nbpb${$}b IFB=nbpb${$}i
TMP=$(mktemp -d "/tmp/nbpb-$$.XXXXXX")
A_PID= B_PID=
RATE=20000000     # offered on each path, bit/s
SHAPE=5000000     # path A's link, bit/s of frames
cleanup() {
	for p in $A_PID $B_PID; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	for ns in $NSR $NSA $NSB; do ip netns del "$ns" 2>/dev/null; done
	ip link del "$VRA" 2>/dev/null
	ip link del "$VRB" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
echo "1..6"

ip netns add "$NSR" && ip netns add "$NSA" && ip netns add "$NSB" &&
	ip -n "$NSR" link set lo up && ip -n "$NSA" link set lo up && ip -n "$NSB" link set lo up &&
	veth_link "$NSR" "$NSA" "$VRA" "$VA" 10.233.1.1 10.233.1.2 &&
	veth_link "$NSR" "$NSB" "$VRB" "$VB" 10.233.2.1 10.233.2.2 &&
	ip -n "$NSA" link add "$IFB" type ifb && ip -n "$NSA" link set "$IFB" up &&
	tc -n "$NSA" qdisc add dev "$VA" handle ffff: ingress &&
	tc -n "$NSA" filter add dev "$VA" parent ffff: protocol all u32 match u32 0 0 \
		action mirred egress redirect dev "$IFB" &&
	tc -n "$NSA" qdisc add dev "$IFB" root tbf rate "$SHAPE" burst 16kb limit 64kb &&
	ok "a runner namespace, two agent namespaces, path A's link shaped to $SHAPE bit/s" ||
	{ nok "namespace setup"; exit 1; }

# an agent on a namespace address needs a secret: both ends take it from the environment
make_secret "$TMP/secret" && export NBRUN_SECRET_FILE="$TMP/secret"
ip netns exec "$NSA" "$NBRUN" serve --bind 10.233.1.2 -q 2>"$TMP/serve-a.err" &
A_PID=$!
ip netns exec "$NSB" "$NBRUN" serve --bind 10.233.2.2 -q 2>"$TMP/serve-b.err" &
B_PID=$!
wait_listen "$NSA" 7575
wait_listen "$NSB" 7575

cat >"$TMP/two.yaml" <<YAML
name: bottleneck
defaults: {duration: 3s, warmup: 1s, omit: 0s, interval: 500ms, repetitions: 1}
tests:
  - {name: u, engine: stream, protocol: udp, size: 1000, rate: $RATE}
YAML
NBRUN_GNUPLOT=none ip netns exec "$NSR" "$NBRUN" "$TMP/two.yaml" --peer 10.233.1.2 \
	--peer 10.233.2.2 --out "$TMP/out" -q 2>"$TMP/run.err"
rc=$?
[ $rc -eq 0 ] && ok "one case on both paths at once exits 0" || nok "run (rc $rc)" "$TMP/run.err"

python3 - "$TMP/out" "$SHAPE" >"$TMP/runs.check" 2>&1 <<'PY' &&
import csv, sys
d, shape = sys.argv[1], float(sys.argv[2])
runs = {r["path"]: r for r in csv.DictReader(open(d + "/runs.csv"))}
a, b, s = runs["local->10.233.1.2"], runs["local->10.233.2.2"], runs["all"]
ra, rb, rs = float(a["rx_bps"]), float(b["rx_bps"]), float(s["rx_bps"])
print(ra, rb, rs)
# tbf passes SHAPE bit/s of frames (payload 1000 of 1042 bytes on the wire) plus its 16 kB
# bucket once: over the 3 s window that is at most SHAPE + 16384 * 8 / 3 bit/s
ceiling = shape + 16384 * 8 / 3
assert 0 < ra <= ceiling, ("shaped path above its link", ra, ceiling)
assert rb > ceiling, ("the other path is not held by that link", rb)
assert rs == ra + rb or abs(rs - (ra + rb)) <= 1e-6 * rs, ("the sum", rs, ra + rb)
PY
	ok "the shaped path stays under its link's rate, the other goes above it, the sum adds" ||
	nok "per-path rates" "$TMP/runs.check"

python3 - "$TMP/out" >"$TMP/ivs.check" 2>&1 <<'PY' &&
import csv, sys
ivs = [i for i in csv.DictReader(open(sys.argv[1] + "/intervals.csv")) if i["stream"] == "sum"]
by = {}
for i in ivs:
    by.setdefault(i["path"], []).append((i["t_start"], i["t_end"]))
assert set(by) == {"all", "local->10.233.1.2", "local->10.233.2.2"}, by.keys()
assert by["local->10.233.1.2"] == by["local->10.233.2.2"] == by["all"], by
PY
	ok "both paths' intervals have the sum's tick times" || nok "interval ticks" "$TMP/ivs.check"

python3 - "$TMP/out" >"$TMP/report.check" 2>&1 <<'PY' &&
import json, sys, re
d = sys.argv[1]
paths = json.load(open(d + "/results.json"))["summary"][0]["paths"]
share = {p["path"]: p["share_pct"] for p in paths}
print(share)
assert share["local->10.233.1.2"] < share["local->10.233.2.2"], share
md = open(d + "/report.md").read()
assert "## Paths" in md and "| local->10.233.1.2 |" in md, "no per-path table"
PY
	ok "results.json and the report's Paths table name the shaped path with the smaller share" ||
	nok "per-path breakdown" "$TMP/report.check"

python3 - "$TMP/out" >"$TMP/loss.check" 2>&1 <<'PY' &&
import csv, re, sys
d = sys.argv[1]
runs = {r["path"]: r for r in csv.DictReader(open(d + "/runs.csv"))}
la, lb = float(runs["local->10.233.1.2"]["loss_pct"]), float(runs["local->10.233.2.2"]["loss_pct"])
print(la, lb)
assert la > 50 and lb < 1, ("20 Mbit/s into a 5 Mbit/s link loses most of it", la, lb)
md = open(d + "/report.md").read()
assert "| Loss | Lost | Jitter |" in md, "the Paths table has no loss columns"
row = re.search(r"^\| local->10\.233\.1\.2 \|.*$", md, re.M).group(0)
cells = [c.strip() for c in row.split("|")]
assert cells[4] == "%.3g %%" % la, ("the shaped path's loss cell", cells, la)
assert "**path-loss** (`u/udp/" in md and "look for the bottleneck on local->10.233.1.2" in md, \
    "no path-loss warning naming the shaped path"
PY
	ok "the Paths table gives each path's loss, and a path-loss warning names the shaped path" ||
	nok "per-path loss" "$TMP/loss.check"
exit $FAILED

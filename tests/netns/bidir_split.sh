#!/bin/sh
# netns suite: UDP bidir with one direction held back (issue 21). `nbrun serve` in one
# namespace, nbrun in another, joined by a veth pair; a tbf on the agent's own veth holds its
# sending side (the reverse direction) to about half the offered rate, pushing back on its
# socket. The run offers RATE each way: the reverse direction must show its shortfall in its
# own columns of runs.csv, summary.csv, results.json and report.md, with a rate-short warning
# naming that direction, while the forward direction keeps its rate; intervals.csv labels each
# stream with its direction. Speaks TAP. Needs root, ip(8) and tc(8).
# Environment: NBRUN = path of the nbrun binary (meson sets it), NB_SRCDIR = source root.
set -u
NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
. "${NB_SRCDIR:-$(dirname "$0")/../..}/tests/lib/tap.sh"
veth_test_init nbbd 10.231.91
RATE=20000000   # offered per direction, bit/s
SHAPE=10mbit    # the agent's egress: about half of RATE

need_root_netns tc python3
echo "1..6"
veth_pair "$NSA" "$NSB" "$VA" "$VB" "$ADDR_A" "$ADDR_B" &&
	tc -n "$NSA" qdisc add dev "$VA" root tbf rate "$SHAPE" burst 32kb limit 4mb &&
	ok "two namespaces, the agent's side shaped to $SHAPE" || { nok "namespace setup"; exit 1; }

# an agent on a namespace address needs a secret: both ends take it from the environment
make_secret "$TMP/secret" && export NBRUN_SECRET_FILE="$TMP/secret"
ip netns exec "$NSA" "$NBRUN" serve --bind "$ADDR_A" -q 2>"$TMP/serve.err" &
SERVE_PID=$!
wait_listen "$NSA" 7575

cat >"$TMP/bidir.yaml" <<YAML
name: bidir
defaults: {duration: 3s, warmup: 1s, omit: 0s, interval: 500ms, repetitions: 1}
tests:
  - {name: ubidir, engine: stream, protocol: udp, size: 1400, rate: $RATE, direction: bidir}
YAML
NBRUN_GNUPLOT=none ip netns exec "$NSB" "$NBRUN" "$TMP/bidir.yaml" --peer "$ADDR_A" \
	--out "$TMP/out" -q 2>"$TMP/run.err"
rc=$?
[ $rc -eq 0 ] && ok "UDP bidir across the shaped pair exits 0" || nok "run (rc $rc)" "$TMP/run.err"

CASE=ubidir/udp/s1400/p1/bidir/r20M
python3 - "$TMP/out" "$CASE" "$RATE" >"$TMP/runs.check" 2>&1 <<'PY' &&
import csv, sys
d, case, rate = sys.argv[1], sys.argv[2], float(sys.argv[3])
r = next(r for r in csv.DictReader(open(d + "/runs.csv"))
         if r["case_id"] == case and r["status"] != "invalid")  # a stalled run ran again
f = {k: float(r[k]) for k in ("fwd_achieved_rate", "rev_achieved_rate", "fwd_target_rate",
                              "rev_target_rate", "fwd_rx_bps", "rev_rx_bps", "rx_bps")}
print(f)
assert f["fwd_target_rate"] == rate and f["rev_target_rate"] == rate, f
# the shaper bounds the reverse direction at about 48.5 % of RATE (payload of 10 Mbit/s of
# frames); the forward direction is unshaped (wide margins: the host may be busy)
assert f["fwd_achieved_rate"] > 0.75 * rate, "forward kept (most of) its rate"
assert f["rev_achieved_rate"] < 0.6 * rate, "reverse held back by the shaper"
assert f["rev_rx_bps"] < 0.6 * rate, "reverse received rate shows the shortfall"
assert abs(f["fwd_rx_bps"] + f["rev_rx_bps"] - f["rx_bps"]) <= 1e-6 * f["rx_bps"], "directions add up"
PY
	ok "runs.csv: reverse short of its target in its own columns, forward at rate" ||
	nok "runs.csv per-direction columns" "$TMP/runs.check"

python3 - "$TMP/out" "$CASE" >"$TMP/files.check" 2>&1 <<'PY' &&
import csv, json, sys
d, case = sys.argv[1], sys.argv[2]
s = next(r for r in csv.DictReader(open(d + "/summary.csv")) if r["case_id"] == case)
assert float(s["rev_rx_bps_mean"]) < float(s["fwd_rx_bps_mean"]), s
j = json.load(open(d + "/results.json"))
mm = j["summary"][0]["metrics_mean"]
assert mm["rev_achieved_rate"] < mm["fwd_achieved_rate"], mm
PY
	ok "summary.csv and results.json carry each direction" || nok "summary/json" "$TMP/files.check"

python3 - "$TMP/out" "$CASE" >"$TMP/iv.check" 2>&1 <<'PY' &&
import csv, sys
d, case = sys.argv[1], sys.argv[2]
rows = [r for r in csv.DictReader(open(d + "/intervals.csv")) if r["case_id"] == case]
labels = {(r["stream"], r["direction"]) for r in rows}
assert labels == {("0", "forward"), ("1", "reverse"), ("sum", "bidir")}, labels
PY
	ok "intervals.csv labels each stream with its direction" || nok "intervals labels" "$TMP/iv.check"

# the rate-short entry: its line and the lines under it (the same case's other direction)
awk '/^- .*\*\*rate-short\*\*/ { on = 1; print; next } on && /^  - / { print; next } { on = 0 }' \
	"$TMP/out/report.md" | grep -q "the sender in the reverse direction (agent to client) reached" &&
	grep -q "| Forward (client → agent), Mbit/s | Reverse (agent → client), Mbit/s |" "$TMP/out/report.md" &&
	ok "report.md: each direction's column, and a rate-short warning naming the reverse one" ||
	nok "report.md per direction" "$TMP/out/report.md"
exit $FAILED

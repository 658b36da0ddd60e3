# Shared by the netns tests that search a loss threshold in the lab of scripts/netns-lab
# (sourced after tap.sh, POSIX sh): the lab and its agent, a search config, and reading the
# results. lab_init LETTER names a lab of its own (nblab-LETTER<pid>) and a scratch folder;
# lab_cleanup (the caller's EXIT trap calls it) stops the agent and removes both.

lab_init() {
	LAB_T0=$(date +%s)
	LAB="$SRCDIR/scripts/netns-lab"
	export NBLAB_PREFIX=nblab-$1$$
	NS_C=$NBLAB_PREFIX-client
	NS_S=$NBLAB_PREFIX-server
	SERVER=10.203.2.2
	TMP=$(mktemp -d "/tmp/nblab-$1-$$.XXXXXX")
	SERVE_PID=
	RT=
	chrt -f 20 true 2>/dev/null && RT="chrt -f 20"
}

lab_cleanup() {
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
	"$LAB" down >/dev/null 2>&1
	rm -rf "$TMP"
}

# lab_up RATE: a TAP check that the lab comes up with a tbf of RATE bit/s, then `nbrun serve` in
# the server namespace (SCHED_FIFO when it can, so a busy host does not make it fall behind).
lab_up() {
	check "netns-lab up --rate $1 builds the lab" "$TMP/lab.log" \
		sh -c "'$LAB' up --rate $1 >'$TMP/lab.log' 2>&1"
	# the agent is on a namespace address: a secret, which the lab's clients take from the
	# environment too
	make_secret "$TMP/secret" && export NBRUN_SECRET_FILE="$TMP/secret"
	ip netns exec "$NS_S" $RT "$NBRUN" serve --bind $SERVER --idle-timeout 120 \
		>"$TMP/serve.log" 2>&1 &
	SERVE_PID=$!
	sleep 0.3
}

# lab_down: stop the agent; a TAP check that `netns-lab down` removes exactly what up made.
lab_down() {
	kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
	SERVE_PID=
	"$LAB" down >"$TMP/down.log" 2>&1
	check "netns-lab down removes the lab's namespaces" "$TMP/down.log" \
		sh -c "! ip netns list | grep -q '^$NBLAB_PREFIX-'"
}

# search_yaml FILE NAME SIZE LOSS: a UDP stream test NAME of SIZE-byte datagrams searching
# 10M..1G for the highest rate with loss LOSS (a percentage or a YAML list of them), 1 %
# precision, 1 s trials, one confirmation, 500 ms warm-up.
search_yaml() {
	cat >"$1" <<EOF
name: $2
defaults:
  warmup: 500ms
  repetitions: 1
tests:
  - name: search
    engine: stream
    protocol: udp
    size: $3
    sweep:
      rate:
        from: 10M
        to: 1G
        loss: $4
        precision: 1%
      trial: 1s
      confirm: 1
EOF
}

# sweeps_field KEY DIR: the first value of KEY in DIR/sweeps.json (the first loss goal).
sweeps_field() {
	awk -v k="\"$1\":" '$1 == k { v = $2; sub(/,$/, "", v); gsub(/"/, "", v); print v; exit }' \
		"$2/sweeps.json"
}

# sweeps_goal_field KEY N DIR: the value of KEY in the Nth entry (1-based) of DIR/sweeps.json.
sweeps_goal_field() {
	awk -v k="\"$1\":" -v n="$2" '$1 == k && ++i == n { v = $2; sub(/,$/, "", v); gsub(/"/, "", v)
		print v; exit }' "$3/sweeps.json"
}

# csv_col NAME FILE: the column number of NAME in the header of FILE.
csv_col() {
	awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) print i; exit }' "$2"
}

# A starved VM: the hypervisor took STARVED_PCT % or more of an end's CPU time during a run (the
# row's own host_steal_local_pct / host_steal_peer_pct, which its report warns of as cpu-steal).
# The sender then falls short of its schedule whatever the lab's tbf does, and says so (status
# sender-short or incomplete, the limit naming the steal): a test that reads the tbf from such a
# run runs it again, and when every attempt was starved it checks that claim, and a check whose
# ground truth is the tbf that fails is skipped, naming the steal (hcheck).
STARVED_PCT=10

# rerun_left: whether a run found starved may run again: not once the test has spent
# RERUN_BUDGET_S (120 s: its meson timeout leaves the rest room), so a host starved for minutes
# skips the checks the tbf decides (hcheck) instead of running the test into its timeout.
rerun_left() {
	[ $(($(date +%s) - LAB_T0)) -lt "${RERUN_BUDGET_S:-120}" ]
}

# steal_pct DIR: the largest share of an end's CPU time the hypervisor took in any row of
# DIR/runs.csv, a whole percent (0: none, or no runs.csv).
steal_pct() {
	python3 - "$1/runs.csv" <<'PY'
import csv, sys
try:
    rows = list(csv.DictReader(open(sys.argv[1])))
except OSError:
    rows = []
v = [float(r[k]) for r in rows for k in ("host_steal_local_pct", "host_steal_peer_pct") if r.get(k)]
print(int(max(v, default=0.0)))
PY
}

# search_starved DIR: whether the search in DIR found no threshold on a starved VM (STARVED_PCT,
# or a smaller share in stalls longer than the pacer's debt, which the search's own verdict
# names: its sender descheduled, the hypervisor's share beside it); sets STARVED
# (hcheck's words) when so, and empties it when not.
search_starved() {
	STARVED= _st=$(steal_pct "$1")
	[ "$(sweeps_field status "$1")" != found ] || return 1
	[ "$_st" -ge $STARVED_PCT ] || grep -q 'stolen by the hypervisor' "$1/sweeps.json" || return 1
	STARVED="the search ran on a starved VM (the hypervisor took up to $_st % of an end's CPU, in stalls its pacer could not catch up) and found no threshold: its rate is the VM's, not the tbf's"
}

# check_starved_claim DIR: the check that a starved search said so: no threshold, the steal
# named in sweeps.json as what held its sender back.
check_starved_claim() {
	check "a search on a starved VM claims no threshold and names the steal (status $(sweeps_field status "$1"))" \
		"$1/sweeps.json" sh -c 'test "$2" != found && grep -q "stolen by the hypervisor" "$1"' sh \
		"$1/sweeps.json" "$(sweeps_field status "$1")"
}

# hcheck DESCRIPTION FILE COMMAND...: a check whose ground truth is the lab's tbf: when the test
# found the VM starved ($STARVED, its words) a failure is skipped saying so; a check otherwise.
hcheck() {
	if [ -z "${STARVED:-}" ]; then check "$@"; return; fi
	_d=$1; shift 2
	if "$@" >/dev/null 2>&1; then ok "$_d"; else skip "$_d" "$STARVED"; fi
}

#!/bin/sh
# netns suite: a loss-threshold search that one hiccup cannot fool (issue 18). In the lab of
# scripts/netns-lab (client -> router with a tbf of rate R -> server), the script stops the
# client process (SIGSTOP) for 60 ms every 3 s while it searches the highest UDP rate with
# loss <= 0.1 %: a descheduled sender on a shared host. The pacer forgives the debt of each
# stop, so a trial measured across one falls short of its rate. The search must retry such a
# trial instead of taking the sender for the limit, land within 5 % of the bottleneck's payload
# rate R x 1400 / (1400 + 42) (tbf counts Ethernet frames: 8 UDP + 20 IPv4 + 14 Ethernet
# header bytes), and claim nothing host-bound. Speaks TAP. Needs root, ip(8) and tc(8).
#
# Why every 3 s: a trial here takes about 2 s (500 ms warm-up, 1 s measured, 500 ms drain), so
# no stop falls into the measured second of three attempts in a row, and the search's default
# retries (2) must get through; a period close to the trial's would hit every attempt alike.
# The stopping stops when the search ends or after 180 s, and always resumes the client.
# Environment: NBRUN = path of the nbrun binary (meson sets it), NB_SRCDIR = source root.
set -u

NBRUN=${NBRUN:-build/nbrun}
SRCDIR=${NB_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
RATE=100000000                  # the bottleneck, bit/s
SIZE=1400
PAYLOAD=$((RATE * SIZE / (SIZE + 42)))
STOP_S=0.06                     # each stop of the client
EVERY_S=3                       # one stop this often
BOUND_S=180                     # no stop after this long, whatever happens
CLIENT_PID=
PAUSER_PID=
N=0

cleanup() {
	[ -n "$PAUSER_PID" ] && kill "$PAUSER_PID" 2>/dev/null && wait "$PAUSER_PID" 2>/dev/null
	if [ -n "$CLIENT_PID" ]; then
		kill -CONT "$CLIENT_PID" 2>/dev/null
		kill "$CLIENT_PID" 2>/dev/null && wait "$CLIENT_PID" 2>/dev/null
	fi
	lab_cleanup
}

FAILED=0
. "$SRCDIR/tests/lib/tap.sh"
. "$SRCDIR/tests/lib/lab.sh"
need_root_netns tc awk
lab_init h
trap cleanup EXIT
trap 'exit 1' INT TERM
echo "1..8"

# pause PID: stop PID for STOP_S every EVERY_S until it exits or BOUND_S pass; counts the stops
# in $TMP/stops. Resumes PID before leaving, even when told to stop.
pause() {
	victim=$1 n=0 end=$(($(date +%s) + BOUND_S))
	trap 'kill -CONT "$victim" 2>/dev/null; exit 0' TERM
	while sleep $EVERY_S && [ "$(date +%s)" -lt $end ] && kill -STOP "$victim" 2>/dev/null; do
		sleep $STOP_S
		kill -CONT "$victim" 2>/dev/null
		n=$((n + 1))
		echo $n >"$TMP/stops"
	done
}

# ---- the lab, the agent, and the search stopped every EVERY_S ---------------------------------
lab_up $RATE
search_yaml "$TMP/search.yaml" hiccup-search $SIZE 0.1%
# hiccup_search: the search with the client stopped every EVERY_S; RC its exit status, STOPS
# the stops it got.
hiccup_search() {
	rm -rf "$TMP/search"
	echo 0 >"$TMP/stops"
	ip netns exec "$NS_C" $RT "$NBRUN" "$TMP/search.yaml" --peer $SERVER --out "$TMP/search" \
		>"$TMP/search.log" 2>&1 &
	CLIENT_PID=$!
	pause "$CLIENT_PID" &
	PAUSER_PID=$!
	wait "$CLIENT_PID"
	RC=$?
	CLIENT_PID=
	kill "$PAUSER_PID" 2>/dev/null && wait "$PAUSER_PID" 2>/dev/null
	PAUSER_PID=
	STOPS=$(cat "$TMP/stops")
}
# The script's stops are what the search must see through; a starved VM's (lab.sh STARVED_PCT:
# the hypervisor taking an end's CPU) are not: a search that found nothing there runs again,
# three times in all.
for attempt in 1 2 3; do
	hiccup_search
	search_starved "$TMP/search" && rerun_left || break
	echo "# attempt $attempt: $STARVED: once more"
done
STATUS=$(sweeps_field status "$TMP/search")
check "the search runs to the end while the client is stopped ($STOPS stops)" "$TMP/search.log" \
	test $RC = 0 -a -f "$TMP/search/sweeps.json" -a "$STOPS" -ge 1
# a search of the tbf takes a minute, the stops every 3 s; one on a starved VM that found no
# threshold ends at its first rate, in seconds
hcheck "the client was stopped 3 times or more during the search ($STOPS)" "$TMP/search.log" \
	test "$STOPS" -ge 3

THR=$(sweeps_field threshold "$TMP/search")
echo "# payload rate $PAYLOAD bit/s, threshold $THR bit/s, status $STATUS," \
	"$(sweeps_field retries "$TMP/search") retries"
grep -v '^warning' "$TMP/search.log" | grep 'fell short\|stalled\|search:' | sed 's/^/# /'
hcheck "the threshold lies within 5 % of the payload rate" "$TMP/search.log" \
	awk -v t="$THR" -v p="$PAYLOAD" 'BEGIN { r = t / p; printf "# ratio %.4f\n", r; exit !(r >= 0.95 && r <= 1.05) }'
# found, or on a starved VM the steal named in sweeps.json: never a limit of the host claimed
FOUND=found
[ -n "$STARVED" ] && FOUND=$STATUS
check "no host-bound claim (status $STATUS)" "$TMP/search.log" \
	sh -c "test '$STATUS' = $FOUND && { test $FOUND = found || grep -q 'stolen by the hypervisor' '$TMP/search/sweeps.json'; } && test '$(sweeps_field host_bound_above "$TMP/search")' = null &&
		! grep -q 'host-bound' '$TMP/search.log' '$TMP/search/report.md'"

# runs.csv: every attempt is a row; a trial that fell short is status invalid.
RUNS=$TMP/search/runs.csv
C_OFF=$(csv_col offered_rate "$RUNS") C_STATUS=$(csv_col status "$RUNS")
C_FLAGS=$(csv_col flags "$RUNS") C_FORGIVEN=$(csv_col pace_forgiven "$RUNS")
SHORT=$(awk -F, -v s="$C_STATUS" 'NR > 1 && $s == "invalid"' "$RUNS" | wc -l)
if [ "$SHORT" -eq 0 ]; then
	skip "a trial that fell short is retried at its rate" "no stop fell into a measured second"
	skip "the trials that fell short record the debt their pacer forgave" "no trial fell short"
else
	check "a trial that fell short is retried at its rate ($SHORT fell short)" "$RUNS" \
		awk -F, -v o="$C_OFF" -v s="$C_STATUS" -v f="$C_FLAGS" '
			NR > 1 && prev != "" { if ($o != prev) bad++; prev = "" }
			NR > 1 && $s == "invalid" && $f !~ /retry=2\/2/ { prev = $o; n++ }
			END { exit !(n > 0 && !bad) }' "$RUNS"
	check "the trials that fell short record the debt their pacer forgave" "$RUNS" \
		awk -F, -v s="$C_STATUS" -v g="$C_FORGIVEN" '
			NR > 1 && $s == "invalid" && $g + 0 > 0 { n++ } END { exit !(n > 0) }' "$RUNS"
fi

# ---- down removes exactly what up made --------------------------------------------------------
lab_down
exit $FAILED

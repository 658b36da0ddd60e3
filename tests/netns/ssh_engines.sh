#!/bin/sh
# netns suite (issue 27): every engine that needs an agent, through an agent started over real
# OpenSSH (tests/lib/sshlab.sh), behind a security group that lets in only ssh and the data
# ports. A session over ssh takes data from any host that proves the run's key (the agent sees
# ssh's client, maybe a bastion): crr, whose every connection is checked at accept, closed all
# of them (the check compared with an unspecified address). Each case of stream (TCP forward,
# UDP reverse, TCP bidir), pps, rr (TCP, UDP), crr and latency (TCP, UDP) must measure, with
# the counts that prove it: transactions answered, connections opened, packets received. Speaks
# TAP. Needs root, ip(8), nft and openssh-server.
set -u
NBRUN=${NBRUN:-build/nbrun}
N=0
FAILED=0
SRCDIR=${NB_SRCDIR:-$(dirname "$0")/../..}
. "$SRCDIR/tests/lib/tap.sh"
. "$SRCDIR/tests/lib/sshlab.sh"
need_root_netns nft python3
need_openssh
NBRUN=$(readlink -f "$NBRUN")
sshlab_init nbse
echo "1..19"
sshlab_up
check "vm1's namespace lets in only tcp 22 and its data ports 7600-7699 (nft)" /dev/null \
	sshlab_guard "$NS_1" 7600 7699

cat >"$TMP/engines.yaml" <<EOF
name: engines
hosts:
  vm1: { ssh: root@$ADDR_1, nbrun: $NBRUN }
defaults: { duration: 1s, warmup: 200ms, interval: 500ms, repetitions: 1 }
tests:
  - { name: stream-tcp, engine: stream, protocol: tcp }
  - { name: stream-udp-rev, engine: stream, protocol: udp, size: 1000, rate: 20M, direction: reverse }
  - { name: stream-bidir, engine: stream, protocol: tcp, streams: 2, direction: bidir }
  - { name: pps, engine: pps, protocol: udp, size: 64, rate: 20kpps }
  - { name: rr-tcp, engine: rr, protocol: tcp }
  - { name: rr-udp, engine: rr, protocol: udp }
  - { name: crr, engine: crr, protocol: tcp, streams: 2 }
  - { name: latency-tcp, engine: latency, protocol: tcp, size: 32 }
  - { name: latency-udp, engine: latency, protocol: udp, size: 32, rate: 1kpps }
EOF
export NBRUN_SSH_COMMAND="ssh -F $TMP/ssh_config"
ip netns exec "$NS_R" "$NBRUN" "$TMP/engines.yaml" --peer vm1 --out "$TMP/out" -q \
	>"$TMP/run.out" 2>"$TMP/run.err"
rc=$?
check "every engine against vm1's agent over ssh: exit 0 (rc $rc)" "$TMP/run.err" test $rc -eq 0

# measured TEST CONDITION: TEST's row is ok and CONDITION (python, over its row r) holds (a
# repetition that stalled and ran again: its retry's row).
measured() {
	python3 - "$TMP/out/runs.csv" "$1" "$2" >"$TMP/py.out" 2>&1 <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["test"] == sys.argv[2]]
# a run whose measuring process stalled (a busy host) is kept invalid and ran again
stalled = [r for r in rows if r["status"] == "invalid" and "timeline-stall=" in r["flags"]]
rows = [r for r in rows if r not in stalled]
assert len(rows) == 1, rows
r = rows[0]
f = lambda c: float(r[c] or "nan")
assert r["status"] == "ok", (r["status"], r["error"])
assert eval(sys.argv[3]), {k: r[k] for k in r if r[k]}
PY
}
check "stream TCP: bytes received" "$TMP/py.out" measured stream-tcp 'f("rx_bytes") > 0'
check "stream UDP reverse (the agent sends): packets received, none lost beyond what was sent" \
	"$TMP/py.out" measured stream-udp-rev 'f("rx_packets") > 0 and f("tx_packets") == f("rx_packets") + f("lost")'
check "stream TCP bidir: both directions" "$TMP/py.out" \
	measured stream-bidir 'f("fwd_rx_bps") > 0 and f("rev_rx_bps") > 0'
check "pps: packets received" "$TMP/py.out" measured pps 'f("rx_packets") > 0'
check "rr TCP: transactions" "$TMP/py.out" measured rr-tcp 'f("trans") > 0'
check "rr UDP: transactions" "$TMP/py.out" measured rr-udp 'f("trans") > 0'
check "crr: transactions, each over a connection of its own" "$TMP/py.out" \
	measured crr 'f("trans") > 0 and f("connect_us") > 0'
check "latency TCP: round trips" "$TMP/py.out" measured latency-tcp 'f("trans") > 0 and f("lat_p50_us") > 0'
check "latency UDP: round trips" "$TMP/py.out" measured latency-udp 'f("trans") > 0 and f("lat_p50_us") > 0'
check "no case failed (runs.csv)" "$TMP/out/runs.csv" sh -c "! grep -q ',failed,' '$TMP/out/runs.csv'"

# The data path probe of --check goes through the same session: it proves both protocols.
ip netns exec "$NS_R" "$NBRUN" "$TMP/engines.yaml" --peer vm1 --check >"$TMP/check.out" 2>"$TMP/check.err"
rc=$?
check "--check over ssh proves the data path (exit 0, rc $rc)" "$TMP/check.err" test $rc -eq 0
sshlab_wait_no_nbrun
check "no nbrun is left in any namespace" /dev/null test -z "$(sshlab_nbrun_pids)"
exit $FAILED

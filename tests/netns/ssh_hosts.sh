#!/bin/sh
# netns suite: hosts started over real OpenSSH (issue 17). A runner namespace and three host
# namespaces each running sshd (tests/lib/sshlab.sh); a config whose hosts: are ssh hosts, run
# with NBRUN_SSH_COMMAND="ssh -F $TMP/ssh_config". Each host namespace lets in only ssh and its
# agent's data ports (nft), as a cloud's security group would: the control session runs over
# ssh itself. Checks: --check asks every host the plan names; env CONFIG --peer vm2 reads
# vm2's facts; the issue's fleet in one config — local->vm2 + local->vm3, then vm2->vm1 +
# vm3->vm1 (vm1 twice: two agents) — gives a row per path and the exact sum, every host's
# facts in env.json, and no nbrun left after it, nor after a SIGTERM mid remote-to-remote case;
# --peer vm1 measures real rows, its secret on no process's command line while it runs, and
# vm1's nbrun has no TCP socket but on its data ports (ss); a host whose key is not known is
# one line naming it, exit 3; a run through a ProxyJump bastion measures; --push copies the
# binary with scp through the same command; a SIGINT while ssh still starts an agent is exit
# 130; after a run, a SIGTERM mid-case and a SIGKILL of the runner no nbrun process is left in
# any namespace; a working case on --peer vm2 runs its probe on an agent of its own over ssh.
# Speaks TAP. Needs root, ip(8), nft and openssh-server.
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
sshlab_init nbsh
echo "1..48"
sshlab_up

# The security groups: vm2's agent has data_ports 7700-7719, the others the default 7600-7699.
guarded=yes
for g in "$NS_1 7600 7699" "$NS_2 7700 7719" "$NS_3 7600 7699"; do
	sshlab_guard $g || guarded=no   # (word splitting meant: NS LO HI)
done
check "each host namespace lets in only tcp 22 and its data ports (nft)" /dev/null test $guarded = yes
ip netns exec "$NS_1" python3 -c "
import socket, time
keep = []
for p in (7575, 7601):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('$ADDR_1', p)); s.listen(); keep.append(s)
time.sleep(20)" &
lpid=$!
wait_listen "$NS_1" 7601
check "... it drops a connection to port 7575 and lets one to data port 7601 in" /dev/null \
	ip netns exec "$NS_R" python3 -c "
import socket, sys
def reach(p):
    try:
        socket.create_connection(('$ADDR_1', p), timeout=1).close()
        return True
    except OSError:
        return False
sys.exit(not (not reach(7575) and reach(7601)))"
kill $lpid 2>/dev/null
wait $lpid 2>/dev/null

# A wrapper ssh that keeps each secret line it passes on, so the test can look for it. Its
# stdin and stdout are one socket: ssh gets pipes of its own (ssh makes its stdin and stdout
# non-blocking, which a cat sharing the socket with it would not survive).
cat >"$TMP/ssh-tee" <<EOF
#!/bin/sh
IFS= read -r line
printf '%s\n' "\$line" >>"$TMP/secrets"
{ printf '%s\n' "\$line"; exec cat; } | ssh -F "$TMP/ssh_config" "\$@" | cat
EOF
chmod +x "$TMP/ssh-tee"
mkdir "$TMP/pushed"
cat >"$TMP/hosts.yaml" <<EOF
name: fleet
hosts:
  vm1: { ssh: root@$ADDR_1, nbrun: $NBRUN }
  vm2: { ssh: root@$ADDR_2, nbrun: $NBRUN, data_ports: 7700-7719 }
  vm3: { ssh: root@$ADDR_3, nbrun: $TMP/pushed/nbrun }
  stranger: { ssh: root@$ADDR_STRANGER, nbrun: $NBRUN }
defaults: { duration: 2s, warmup: 500ms, interval: 500ms }
tests:
  - name: tcp
    engine: stream
    repetitions: 2
EOF
sed 's/duration: 2s/duration: 30s/; s/repetitions: 2/repetitions: 1/' "$TMP/hosts.yaml" >"$TMP/long.yaml"
cat "$TMP/hosts.yaml" - >"$TMP/paths.yaml" <<'EOF'
    paths: [{ from: local, to: vm2 }, { from: vm1, to: vm3 }]
EOF
export NBRUN_SSH_COMMAND="ssh -F $TMP/ssh_config"
run() { ip netns exec "$NS_R" "$NBRUN" "$@"; }   # (in the background: ip netns exec itself)
# no_nbrun_left WHEN: a TAP check that no nbrun is left in any namespace (those left are shown).
no_nbrun_left() {
	sshlab_wait_no_nbrun
	for p in $(sshlab_nbrun_pids); do ps -o pid,ppid,etime,args -p "${p#*:}"; done >"$TMP/left.txt"
	check "no nbrun is left in any namespace $1" "$TMP/left.txt" test ! -s "$TMP/left.txt"
}

# --check: the peer and every host of the plan's paths, each started over ssh.
cp "$NBRUN" "$TMP/pushed/nbrun"
run "$TMP/paths.yaml" --peer vm1 --check -v >"$TMP/check.out" 2>"$TMP/check.err"
rc=$?
check "--check over the hosts exits 0 (rc $rc)" "$TMP/check.err" test $rc -eq 0
for h in vm1 vm2 vm3; do
	check "--check started $h's agent over ssh" "$TMP/check.err" \
		grep -q "host $h: agent started over ssh" "$TMP/check.err"
done
run "$TMP/paths.yaml" --peer vm1 --check --set cpus=4095 >/dev/null 2>"$TMP/check5.err"
rc=$?
check "--check with a CPU no host has exits 5 (rc $rc)" "$TMP/check5.err" test $rc -eq 5
check "... and says so for host vm2 and host vm3 by name" "$TMP/check5.err" \
	sh -c "grep -q 'check: host vm2: .*4095' '$TMP/check5.err' && grep -q 'check: host vm3: .*4095' '$TMP/check5.err'"
no_nbrun_left "after --check"

# env CONFIG --peer vm2: the host's facts through an agent started over ssh for the question.
run env "$TMP/hosts.yaml" --peer vm2 >"$TMP/env.out" 2>"$TMP/env.err"
rc=$?
check "env CONFIG --peer vm2 exits 0 (rc $rc)" "$TMP/env.err" test $rc -eq 0
check "... and the peer's interface is vm2's own (sb$$h2)" "$TMP/env.out" \
	grep -Eq "^  name +sb$$br +sb$$h2 *\$" "$TMP/env.out"
no_nbrun_left "after env"

# A run with --peer vm1 through the wrapper; the secret is looked for on every command line.
NBRUN_SSH_COMMAND="$TMP/ssh-tee" ip netns exec "$NS_R" "$NBRUN" "$TMP/hosts.yaml" --peer vm1 \
	--out "$TMP/out" -q 2>"$TMP/run.err" &
pid=$!
# vm1's TCP sockets of nbrun while the run lasts (ss, every 0.1 s).
while kill -0 $pid 2>/dev/null; do
	ip netns exec "$NS_1" ss -Htanp 2>/dev/null | grep '"nbrun"'
	sleep 0.1
done >"$TMP/sockets.txt" &
sampler=$!
seen_agent=no leaked=no
while kill -0 $pid 2>/dev/null; do
	ip netns pids "$NS_1" | while read -r p; do [ "$(cat /proc/$p/comm 2>/dev/null)" = nbrun ] && echo y; done |
		grep -q y && seen_agent=yes
	if [ -s "$TMP/secrets" ]; then
		for f in /proc/[0-9]*/cmdline; do
			{ tr '\0' ' ' <"$f"; } 2>/dev/null | grep -qF -f "$TMP/secrets" && leaked="$f"
		done
	fi
	sleep 0.2
done
wait $pid
rc=$?
wait $sampler
check "nbrun CONFIG --peer vm1 over ssh exits 0 (rc $rc)" "$TMP/run.err" test $rc -eq 0
check "vm1's agent ran in vm1's namespace" /dev/null test $seen_agent = yes
check "a 64-hex-digit secret went to ssh's stdin" /dev/null grep -qE '^[0-9a-f]{64}$' "$TMP/secrets"
check "ss saw vm1's nbrun's TCP sockets during the run ($(wc -l <"$TMP/sockets.txt") seen)" \
	/dev/null test -s "$TMP/sockets.txt"
check "... each on vm1's address and a data port: it listened on no control port" \
	"$TMP/sockets.txt" awk -v a="$ADDR_1" '{ n = split($4, hp, ":"); p = hp[n] + 0
		if (substr($4, 1, length($4) - length(hp[n]) - 1) != a || p < 7600 || p > 7699) bad = 1 }
		END { exit bad }' "$TMP/sockets.txt"
check "the secret is on no process's command line (/proc/*/cmdline)" /dev/null test "$leaked" = no
check "runs.csv has 2 ok rows with a positive rate" "$TMP/out/runs.csv" \
	python3 -c "
import csv, sys
rows = list(csv.DictReader(open('$TMP/out/runs.csv')))
ok = [r for r in rows if r['status'] == 'ok']  # a run whose process stalled ran again, kept invalid
again = all(r['status'] == 'invalid' and 'timeline-stall=' in r['flags'] for r in rows if r not in ok)
sys.exit(not (len(ok) == 2 and again and all(float(r['value']) > 0 for r in ok)))"
check "meta.json names the peer vm1" "$TMP/out/meta.json" grep -q '"peer": "vm1"' "$TMP/out/meta.json"
no_nbrun_left "after the run"

# The issue's fleet: one to many (local -> vm2, vm3) and many to one between remote hosts
# (vm2 -> vm1, vm3 -> vm1: vm1 at two paths' ends gets two agents) in one config, through the
# security groups.
sed -n '1,/^tests:/p' "$TMP/hosts.yaml" | sed 's/duration: 2s/duration: 1s/' >"$TMP/fleet.yaml"
cat >>"$TMP/fleet.yaml" <<'EOF'
  - name: tx-capacity
    engine: stream
    protocol: udp
    size: 1000
    rate: 20M
    paths: [{ from: local, to: vm2 }, { from: local, to: vm3 }]
  - name: rx-capacity
    engine: stream
    protocol: tcp
    paths: [{ from: vm2, to: vm1 }, { from: vm3, to: vm1 }]
EOF
run "$TMP/fleet.yaml" --out "$TMP/out-fleet" -q 2>"$TMP/fleet.err"
rc=$?
check "one-to-many and remote-to-remote paths in one config over ssh hosts: exit 0 (rc $rc)" \
	"$TMP/fleet.err" test $rc -eq 0
python3 - "$TMP/out-fleet" >"$TMP/fleet.out" 2>&1 <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/runs.csv")))
by = {(r["test"], r["path"]): r for r in rows}
want = {("tx-capacity", p) for p in ("local->vm2", "local->vm3", "all")} | \
       {("rx-capacity", p) for p in ("vm2->vm1", "vm3->vm1", "all")}
assert set(by) == want, sorted(by)
assert all(r["status"] == "ok" and float(r["value"]) > 0 for r in rows), rows
for test, cols in (("tx-capacity", ["tx_packets", "rx_packets", "lost"]),
                   ("rx-capacity", ["rx_bytes", "tx_bytes"])):
    parts = [r for (t, p), r in by.items() if t == test and p != "all"]
    for c in cols:  # the CSV keeps 9 significant digits: the sum of rounded parts may differ
        whole, added = float(by[(test, "all")][c]), sum(float(r[c]) for r in parts)
        assert abs(whole - added) <= 1e-8 * whole + 1, (test, c, whole, added)
u = by[("tx-capacity", "local->vm3")]
assert float(u["tx_packets"]) == float(u["rx_packets"]) + float(u["lost"]), u
PY
check "... a row per path and the sum (exactly the paths' counts added), every row ok" \
	"$TMP/fleet.out" test $? -eq 0
python3 - "$TMP/out-fleet" >"$TMP/fleet.out" 2>&1 <<'PY'
import json, sys
e = json.load(open(sys.argv[1] + "/env.json"))
assert sorted(e["hosts"]) == ["vm1", "vm2", "vm3"], list(e["hosts"])
for name, facts in e["hosts"].items():
    assert len(facts) >= 3 and all(facts.values()), (name, sorted(facts))
assert isinstance(e["differences"], list), e.get("differences")
report = open(sys.argv[1] + "/report.md").read()
assert all("`%s`" % h in report for h in ("vm1", "vm2", "vm3")), "report names every host"
PY
check "... env.json has every host's facts (vm1, vm2, vm3) and the report names them" \
	"$TMP/fleet.out" test $? -eq 0
no_nbrun_left "after the fleet run (five agents)"
sed 's/duration: 1s/duration: 30s/; /name: tx-capacity/,/local, to: vm3/d' "$TMP/fleet.yaml" \
	>"$TMP/fleet-long.yaml"
ip netns exec "$NS_R" "$NBRUN" "$TMP/fleet-long.yaml" --out "$TMP/out-fleet-term" -q \
	2>"$TMP/fleet-term.err" &
pid=$!
wait_rows "$TMP/out-fleet-term/intervals.csv" 3
kill -TERM $pid
wait $pid
rc=$?
check "SIGTERM mid-case on two remote-to-remote paths: exit 143 (rc $rc)" "$TMP/fleet-term.err" \
	test $rc -eq 143
no_nbrun_left "after the interrupted remote-to-remote run"

# A ProxyJump bastion (vm3): vm1's agent sees vm3 as its ssh client, and still takes the
# runner's data straight from the runner (it proves the run's key).
NBRUN_SSH_COMMAND="ssh -F $TMP/ssh_config -J root@$ADDR_3" ip netns exec "$NS_R" "$NBRUN" \
	"$TMP/hosts.yaml" --peer vm1 --set duration=1s --set repetitions=1 --out "$TMP/out-jump" \
	-q 2>"$TMP/jump.err"
rc=$?
check "through a ProxyJump bastion (vm3) to vm1: exit 0 and an ok row (rc $rc)" "$TMP/jump.err" \
	sh -c "[ $rc -eq 0 ] && grep -q ',ok,' '$TMP/out-jump/runs.csv'"

# A host whose key is not in known_hosts: host-key checking stays on.
run "$TMP/hosts.yaml" --peer stranger --out "$TMP/out-stranger" >/dev/null 2>"$TMP/stranger.err"
rc=$?
check "a host with an unknown key is exit 3 (rc $rc)" "$TMP/stranger.err" test $rc -eq 3
check "... in one line naming the host and quoting ssh" "$TMP/stranger.err" \
	sh -c "test \$(wc -l <'$TMP/stranger.err') -eq 1 && grep -q '^nbrun: host stranger: ssh root@$ADDR_STRANGER .*Host key verification failed' '$TMP/stranger.err'"
check "... and leaves no results folder" /dev/null test ! -e "$TMP/out-stranger"

# --push: scp through the same ssh command puts this binary at vm3's nbrun: path.
rm -f "$TMP/pushed/nbrun"
run "$TMP/hosts.yaml" --peer vm3 --push --set duration=1s --set repetitions=1 --out "$TMP/out-push" \
	-q 2>"$TMP/push.err"
rc=$?
check "--peer vm3 --push exits 0 (rc $rc)" "$TMP/push.err" test $rc -eq 0
check "... the pushed binary is this nbrun" /dev/null cmp -s "$NBRUN" "$TMP/pushed/nbrun"

# SIGTERM mid-case: the batch ends as interrupted and vm2's agent ends with it.
ip netns exec "$NS_R" "$NBRUN" "$TMP/long.yaml" --peer vm2 --out "$TMP/out-term" -q 2>"$TMP/term.err" &
pid=$!
wait_rows "$TMP/out-term/intervals.csv" 2
check "vm2's agent is running in its namespace mid-case" /dev/null \
	sh -c "ip netns pids '$NS_2' | while read p; do cat /proc/\$p/comm; done | grep -qx nbrun"
check "... the process signalled is that nbrun" /dev/null test "$(cat /proc/$pid/comm)" = nbrun
kill -TERM $pid
wait $pid
rc=$?
check "SIGTERM mid-case: exit 143 (rc $rc)" "$TMP/term.err" test $rc -eq 143
no_nbrun_left "after the interrupted run"

# SIGINT while ssh still starts the agent (a slow ssh): the batch ends as interrupted.
cat >"$TMP/ssh-slow" <<EOF
#!/bin/sh
: >"$TMP/slow-started"
sleep 30
exec ssh -F "$TMP/ssh_config" "\$@"
EOF
chmod +x "$TMP/ssh-slow"
NBRUN_SSH_COMMAND="$TMP/ssh-slow" ip netns exec "$NS_R" "$NBRUN" "$TMP/hosts.yaml" --peer vm2 \
	--out "$TMP/out-int" -q 2>"$TMP/int.err" &
pid=$!
i=0
while [ ! -e "$TMP/slow-started" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT $pid
wait $pid
rc=$?
check "SIGINT while ssh still starts vm2's agent: exit 130 (rc $rc)" "$TMP/int.err" test $rc -eq 130
check "... in one line naming the host" "$TMP/int.err" \
	sh -c "test \$(wc -l <'$TMP/int.err') -eq 1 && grep -q '^nbrun: host vm2: interrupted while starting its agent over ssh' '$TMP/int.err'"
check "... and the slow ssh it ran is ended" /dev/null sh -c "! pgrep -f '$TMP/[s]sh-slow'"

# A working case on an ssh host: its probe's session is an agent of its own over ssh (an agent
# over ssh serves one session), beside the load's.
sed -n '1,/^defaults:/p' "$TMP/hosts.yaml" >"$TMP/working.yaml"
cat >>"$TMP/working.yaml" <<'EOF'
tests:
  - name: w
    idle: 500ms
    duration: 1500ms
    omit: 500ms
    repetitions: 1
    load: { direction: up, streams: 1 }
    probes: [{ engine: latency, protocol: udp, rate: 20pps }]
EOF
run "$TMP/working.yaml" --peer vm2 --out "$TMP/out-working" -q 2>"$TMP/working.err"
rc=$?
check "a working case on ssh host vm2 exits 0 (rc $rc)" "$TMP/working.err" test $rc -eq 0
check "... its probe's idle and loaded rows and the load's row in working.csv" \
	"$TMP/out-working/working.csv" sh -c "grep -q ',probe1,w.p1/udp/[^,]*,latency,udp,idle,[1-9]' \
	'$TMP/out-working/working.csv' && grep -q ',probe1,w.p1/udp/[^,]*,latency,udp,loaded,[1-9]' \
	'$TMP/out-working/working.csv' && grep -q ',load,w/tcp/' '$TMP/out-working/working.csv'"

# SIGKILL of the runner: ssh's stdin closes, so the agent still ends.
ip netns exec "$NS_R" "$NBRUN" "$TMP/long.yaml" --peer vm1 --out "$TMP/out-kill" -q 2>"$TMP/kill.err" &
pid=$!
wait_rows "$TMP/out-kill/intervals.csv" 2
kill -KILL $pid
wait $pid 2>/dev/null
no_nbrun_left "after the runner was SIGKILLed"

exit $FAILED

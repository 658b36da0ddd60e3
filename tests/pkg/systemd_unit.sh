#!/bin/sh
# pkg suite: nbrun-agent.service as `meson install` installs it.
#  - it lands in systemd's unit folder with the environment file, and names the installed
#    binary, the environment file and the secret of this prefix;
#  - `systemd-analyze verify` passes on it (inside the install root, with its man page), and
#    fails on a copy whose ExecStart names a missing binary;
#  - `systemd-analyze security --offline` rates it no worse than the exposure it has today;
#  - the example line of the environment file is options `nbrun serve` takes;
#  - the agent, started as the unit starts it (its ExecStart, a user of its own, only the
#    unit's ambient capabilities, no new privileges, the secret as a credential: a 0400 file of
#    that user in its own folder), serves a batch of every agent engine: every run ok, no
#    warning about the secret;
#  - under strace (when installed): that agent made no system call the unit's
#    SystemCallFilter= (and ProtectX=) refuse, and opened sockets of the unit's
#    RestrictAddressFamilies= only.
# systemd itself is not PID 1 here, so the unit is not started by systemd: what systemd would
# enforce is checked against what the agent did. Needs root (another user, capabilities) and
# systemd-analyze (scripts/setup installs systemd); skipped otherwise.
# Speaks TAP. Environment: NBRUN, NB_SRCDIR, NB_BUILDDIR (meson sets them).
set -u
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
. "$SRC/tests/lib/tap.sh"
. "$SRC/tests/pkg/lib.sh"
pkg_needs "another user, capabilities" systemd-analyze setpriv
TMP=$(mktemp -d /tmp/nbt_unit.XXXXXX)
PORT=$((25000 + $$ % 4000))
DATA="$((PORT + 1))-$((PORT + 20))"
SERVE_PID=
N=0
FAILED=0
export NBRUN_GNUPLOT=none
cleanup() {
	[ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

echo "1..11"
ROOT=$TMP/root
meson install -C "$BUILD" --no-rebuild --quiet --destdir "$ROOT" >"$TMP/install.log" 2>&1
UNIT=$(find "$ROOT" -name nbrun-agent.service)
DEFAULT=$(find "$ROOT" -path '*/default/nbrun-agent')
BIN=$(find "$ROOT" -path '*/bin/nbrun')
case $UNIT in
"$ROOT"*/lib/systemd/system/nbrun-agent.service) [ -f "$DEFAULT" ] && [ -x "$BIN" ] ;;
*) false ;;
esac
that "meson install puts the unit in a systemd unit folder, with its environment file" \
	"$TMP/install.log"
bin=${BIN#"$ROOT"} etc=${DEFAULT#"$ROOT"}
etc=${etc%/default/nbrun-agent}
grep -q "^ExecStart=$bin serve --secret-file %d/secret \$NBRUN_AGENT_OPTS$" "$UNIT" &&
	grep -q "^EnvironmentFile=-$etc/default/nbrun-agent$" "$UNIT" &&
	grep -q "^LoadCredential=secret:$etc/nbrun/secret$" "$UNIT"
that "it runs $bin with the secret credential and $etc/default/nbrun-agent" "$UNIT"

# verify resolves the unit's dependencies (sysinit.target, network-online.target, …) inside
# --root: give the install root the host's targets, as any system has them.
give_targets "$ROOT"
verify() {
	MANPATH=$(dirname "$(dirname "$(find "$ROOT" -name 'nbrun.1*')")") \
		systemd-analyze verify --root="$ROOT" "$1" >"$TMP/verify.out" 2>&1 && [ ! -s "$TMP/verify.out" ]
}
verify "$UNIT"
that "systemd-analyze verify passes, not a word said" "$TMP/verify.out"
sed "s|^ExecStart=$bin |ExecStart=$bin.missing |" "$UNIT" >"$ROOT/etc/systemd/system/nbrun-broken.service"
if verify "$ROOT/etc/systemd/system/nbrun-broken.service"; then
	nok "and fails on a unit whose binary is missing"
else
	grep -q "is not executable" "$TMP/verify.out" && ok "and fails on a unit whose binary is missing" ||
		nok "verify's complaint" "$TMP/verify.out"
fi
rm -f "$ROOT/etc/systemd/system/nbrun-broken.service"
# The exposure systemd-analyze gives it today (2.0, "OK"; the threshold is ten times it):
# hardening taken away fails here.
systemd-analyze security --offline=yes --root="$ROOT" --threshold=20 "$UNIT" >"$TMP/security.out" 2>&1
that "systemd-analyze security: exposure 2.0 or less" "$TMP/security.out"
echo "# $(grep 'Overall exposure' "$TMP/security.out")"

# The example line of the environment file, verbatim.
opts=$(sed -n 's/^#NBRUN_AGENT_OPTS="\(.*\)"$/\1/p' "$DEFAULT")
head -c 32 /dev/urandom | base64 >"$TMP/secret"
chmod 600 "$TMP/secret"
# shellcheck disable=SC2086
"$NBRUN" serve --secret-file "$TMP/secret" $opts --bind 127.0.0.1 --port "$PORT" 2>"$TMP/example.err" &
SERVE_PID=$!
wait_port "$PORT"
kill "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null; SERVE_PID=
[ -n "$opts" ] && grep -q -- "--max-streams 16, --max-message 1M, --max-duration 600 s, --max-rate 10G" \
	"$TMP/example.err"
that "the environment file's example options start an agent with those limits" "$TMP/example.err"

# --- the agent as the unit starts it ---------------------------------------------------------
# A DynamicUser= uid, the unit's ambient capabilities (also its whole bounding set), no new
# privileges; the credential as systemd makes it: a folder and a 0400 file of that user.
uid=$((61184 + $$ % 4000))
caps=$(sed -n 's/^AmbientCapabilities=//p' "$UNIT" | tr 'A-Z ' 'a-z\n' | sed -n 's/^cap_\(.\)/+\1/p' | paste -sd, -)
bound=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT" | tr 'A-Z ' 'a-z\n' | sed -n 's/^cap_\(.\)/+\1/p' | paste -sd, -)
creds=$TMP/credentials/nbrun-agent.service
mkdir -p "$creds" && cp "$TMP/secret" "$creds/secret"
chown -R "$uid:$uid" "$creds" && chmod 0400 "$creds/secret" && chmod 0500 "$creds" && chmod 0711 "$TMP"
# ExecStart with %d and $NBRUN_AGENT_OPTS as systemd expands them.
NBRUN_AGENT_OPTS="--bind 127.0.0.1 --port $PORT --data-ports $DATA --once"
exec_start=$(sed -n 's/^ExecStart=//p' "$UNIT" | sed "s|%d|$creds|; s|\$NBRUN_AGENT_OPTS|$NBRUN_AGENT_OPTS|; s|^$bin |$BIN |")

# The system calls the unit allows, in SystemCallFilter='s order (an allow list first, then
# ~ lines take away and plain lines give back), less the groups ProtectX=yes refuse.
expand() {
	systemd-analyze syscall-filter --no-pager "$1" 2>/dev/null | awk 'NR > 1 && NF && $1 !~ /^#/ { print $1 }' |
		while read -r s; do case $s in @*) expand "$s" ;; *) echo "$s" ;; esac; done
}
words() { for w in "$@"; do case $w in @*) expand "$w" ;; *) echo "$w" ;; esac; done | sort -u; }
: >"$TMP/allowed"
filters_ok=true
first=true
sed -n 's/^SystemCallFilter=//p' "$UNIT" >"$TMP/filters"
while read -r line; do
	case $line in
	'~'*) $first && filters_ok=false
	      # shellcheck disable=SC2086
	      words ${line#\~} >"$TMP/w"; comm -23 "$TMP/allowed" "$TMP/w" >"$TMP/a" ;;
	*)    # shellcheck disable=SC2086
	      words $line >"$TMP/w"; sort -u "$TMP/allowed" "$TMP/w" >"$TMP/a" ;;
	esac
	mv "$TMP/a" "$TMP/allowed"
	first=false
done <"$TMP/filters"
for p in ProtectClock:@clock PrivateDevices:@raw-io ProtectKernelModules:@module \
	 ProtectKernelLogs:syslog ProtectHostname:sethostname,setdomainname; do
	grep -q "^${p%%:*}=yes" "$UNIT" || continue
	words $(echo "${p#*:}" | tr , ' ') >"$TMP/w"; comm -23 "$TMP/allowed" "$TMP/w" >"$TMP/a"
	mv "$TMP/a" "$TMP/allowed"
done
$first && filters_ok=false
families=$(sed -n 's/^RestrictAddressFamilies=//p' "$UNIT")

if command -v strace >/dev/null 2>&1 && $filters_ok; then
	# Stop only at what the filter refuses, at socket(2) to read its family, at setsockopt(2)
	# to see what the capabilities bought, and at execve(2): what setpriv does before it runs
	# the agent is systemd's part, not the agent's.
	trace=$(grep -v -x -e socket -e socketpair -e setsockopt -e execve "$TMP/allowed" |
		sed 's/^/?/' | paste -sd, -)
	# -ff: a file per thread, so no call is split between threads' lines.
	mkdir "$TMP/strace"
	set -- strace -ff -qq --seccomp-bpf -e signal=none -e "trace=!$trace" -o "$TMP/strace/t"
else
	set --
fi
# shellcheck disable=SC2086
"$@" setpriv --reuid "$uid" --regid "$uid" --clear-groups --inh-caps="-all${caps:+,$caps}" \
	--ambient-caps="-all${caps:+,$caps}" --bounding-set="-all${bound:+,$bound}" --no-new-privs \
	$exec_start 2>"$TMP/agent.err" &
SERVE_PID=$!
wait_port "$PORT"
run_tour "$PORT" "$TMP/secret" "$TMP/tour"
wait "$SERVE_PID"; arc=$?; SERVE_PID=
[ $RC -eq 0 ] && [ "$RUNS" -eq "$PLANNED" ] && [ $arc -eq 0 ]
that "as the unit starts it, the agent serves a batch of every engine: $RUNS of $PLANNED runs ok (rc $RC, agent $arc)" \
	"$TMP/tour.err"
! grep -q -i -e warning -e 'can be read' "$TMP/agent.err" && grep -q "session from 127.0.0.1" "$TMP/agent.err"
that "it read the secret from the credential, with no warning" "$TMP/agent.err"

if [ $# -eq 0 ]; then
	skip "no system call outside the unit's SystemCallFilter=" "strace not installed, or the filter is no allow list"
	skip "sockets of RestrictAddressFamilies= only" "strace not installed"
	skip "the unit's capabilities give the 4 MiB UDP buffer and busy-poll" "strace not installed"
	exit $FAILED
fi
# The agent's own calls: its threads', and its first thread's from its execve on.
for f in "$TMP"/strace/t.*; do
	if grep -q "^execve(\"$BIN\"" "$f"; then
		sed "1,\|^execve(\"$BIN\"|d" "$f"
	else
		cat "$f"
	fi
done >"$TMP/calls"
grep -v -E '^(socket|socketpair|setsockopt)\(' "$TMP/calls" >"$TMP/refused"
grep -q "^execve(\"$BIN\"" "$TMP"/strace/t.* && [ ! -s "$TMP/refused" ]
that "no system call outside the unit's SystemCallFilter= ($(wc -l <"$TMP/allowed") allowed)" "$TMP/refused"
grep -E '^socket(pair)?\(' "$TMP/calls" >"$TMP/sockets"
sed -n 's/^socket\(pair\)\{0,1\}(\(AF_[A-Z0-9]*\).*/\2/p' "$TMP/sockets" | sort -u >"$TMP/families"
bad=
for f in $(cat "$TMP/families"); do
	case " $families " in *" $f "*) ;; *) bad="$bad $f" ;; esac
done
sed 's/) = .*/)/' "$TMP/sockets" | sort -u >"$TMP/socket-kinds"
[ -s "$TMP/families" ] && [ -z "$bad" ]
that "sockets of RestrictAddressFamilies= only ($(paste -sd' ' "$TMP/families"); outside:${bad:- none})" \
	"$TMP/socket-kinds"
# What CAP_NET_ADMIN is in the unit for (its comment): both succeed, neither is refused.
grep -E '^setsockopt\(.*SO_(RCVBUFFORCE|PREFER_BUSY_POLL)' "$TMP/calls" | sed 's/^setsockopt([0-9]*, //' |
	sort -u >"$TMP/admin"
grep -q 'SO_RCVBUFFORCE, \[4194304\], 4) = 0' "$TMP/admin" &&
	grep -q 'SO_PREFER_BUSY_POLL, \[1\], 4) = 0' "$TMP/admin" && ! grep -q EPERM "$TMP/admin"
that "the unit's capabilities give the 4 MiB UDP buffer (SO_RCVBUFFORCE) and busy-poll" "$TMP/admin"
exit $FAILED

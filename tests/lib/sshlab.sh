# A lab of real OpenSSH servers for the ssh-hosts tests (sourced after tap.sh, POSIX sh): a
# runner namespace with a bridge and three host namespaces on it (veth pairs), each running
# /usr/sbin/sshd on its address with a host key of its own. Everything ssh needs is made in the
# scratch folder: the host keys, a user key, known_hosts, an ssh_config with
# UserKnownHostsFile, IdentityFile and StrictHostKeyChecking yes. As root (the tests are).
#
#   sshlab_init PREFIX   names (NS_R, NS_1..NS_3, ADDR_1..ADDR_3, TMP) and the EXIT trap
#   sshlab_up            the namespaces, keys and sshd (a TAP check per sshd listening)
#   sshlab_guard NS LO HI  drop every inbound packet in NS but ssh's and ports LO-HI's (nft)
#   sshlab_nbrun_pids    the nbrun processes in any of the lab's namespaces, "NS:PID" each
#   sshlab_cleanup       stops sshd, removes the namespaces and the scratch folder

# Print the TAP plan "1..0 # SKIP" and exit when OpenSSH's server or client is missing.
need_openssh() {
	[ -x /usr/sbin/sshd ] || { echo "1..0 # SKIP /usr/sbin/sshd not installed (openssh-server)"; exit 0; }
	for _t in ssh scp ssh-keygen; do
		command -v "$_t" >/dev/null 2>&1 || { echo "1..0 # SKIP $_t not installed"; exit 0; }
	done
}

sshlab_init() {
	NS_R=$1-$$-r NS_1=$1-$$-1 NS_2=$1-$$-2 NS_3=$1-$$-3
	_net=10.218.$(($$ % 250))
	ADDR_R=$_net.1 ADDR_1=$_net.11 ADDR_2=$_net.12 ADDR_3=$_net.13
	ADDR_STRANGER=$_net.23     # host 3's second address: not in known_hosts
	BR=sb$$br
	TMP=$(mktemp -d "/tmp/$1-$$.XXXXXX")
	SSHD_PIDS=
	trap sshlab_cleanup EXIT
	trap 'exit 1' INT TERM
}

sshlab_cleanup() {
	for _p in $SSHD_PIDS; do kill "$_p" 2>/dev/null; done
	for _ns in "$NS_1" "$NS_2" "$NS_3" "$NS_R"; do
		for _p in $(ip netns pids "$_ns" 2>/dev/null); do kill -9 "$_p" 2>/dev/null; done
		ip netns del "$_ns" 2>/dev/null
	done
	rm -rf "$TMP"
}

# The runner namespace's bridge and host i's veth pair into it.
sshlab_link() {
	ip link add "sb$$h$1" type veth peer name "sb$$r$1" &&
	ip link set "sb$$h$1" netns "$2" && ip link set "sb$$r$1" netns "$NS_R" &&
	ip -n "$NS_R" link set "sb$$r$1" master "$BR" && ip -n "$NS_R" link set "sb$$r$1" up &&
	ip -n "$2" link set lo up && ip -n "$2" addr add "$3/24" dev "sb$$h$1" &&
	ip -n "$2" link set "sb$$h$1" up
}

sshlab_net() {
	ip netns add "$NS_R" && ip netns add "$NS_1" && ip netns add "$NS_2" && ip netns add "$NS_3" &&
	ip -n "$NS_R" link set lo up && ip -n "$NS_R" link add "$BR" type bridge &&
	ip -n "$NS_R" addr add "$ADDR_R/24" dev "$BR" && ip -n "$NS_R" link set "$BR" up &&
	sshlab_link 1 "$NS_1" "$ADDR_1" && sshlab_link 2 "$NS_2" "$ADDR_2" &&
	sshlab_link 3 "$NS_3" "$ADDR_3" && ip -n "$NS_3" addr add "$ADDR_STRANGER/24" dev "sb$$h3"
}

# The user key, and ssh_config: only the lab's key and known_hosts, host keys checked.
sshlab_client() {
	ssh-keygen -q -t ed25519 -N '' -f "$TMP/id_ed25519" &&
	cp "$TMP/id_ed25519.pub" "$TMP/authorized_keys" && : >"$TMP/known_hosts" &&
	cat >"$TMP/ssh_config" <<EOF
Host *
  User root
  IdentityFile $TMP/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $TMP/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  PasswordAuthentication no
  ConnectTimeout 5
  LogLevel ERROR
EOF
}

# sshd of host i in namespace NS on its address(es): a host key of its own in known_hosts.
sshlab_sshd() {
	_i=$1 _ns=$2 _addr=$3
	ssh-keygen -q -t ed25519 -N '' -f "$TMP/hostkey$_i" || return 1
	echo "$_addr $(cat "$TMP/hostkey$_i.pub")" >>"$TMP/known_hosts"
	{
		echo "ListenAddress $_addr"
		[ "$_i" = 3 ] && echo "ListenAddress $ADDR_STRANGER"
		cat <<EOF
HostKey $TMP/hostkey$_i
PidFile $TMP/sshd$_i.pid
AuthorizedKeysFile $TMP/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
LogLevel ERROR
EOF
	} >"$TMP/sshd$_i.conf"
	ip netns exec "$_ns" /usr/sbin/sshd -f "$TMP/sshd$_i.conf" -D -E "$TMP/sshd$_i.log" &
	SSHD_PIDS="$SSHD_PIDS $!"
}

sshlab_up() {
	mkdir -p /run/sshd   # sshd's privilege separation folder (Debian's service makes it)
	check "the lab's namespaces, bridge and veth pairs come up" /dev/null sshlab_net
	check "a user key and an ssh_config with StrictHostKeyChecking yes" /dev/null sshlab_client
	sshlab_sshd 1 "$NS_1" "$ADDR_1"
	sshlab_sshd 2 "$NS_2" "$ADDR_2"
	sshlab_sshd 3 "$NS_3" "$ADDR_3"
	for _n in 1 2 3; do
		eval "_ns=\$NS_$_n"
		check "sshd $_n listens in its namespace" "$TMP/sshd$_n.log" wait_listen "$_ns" 22
	done
}

# sshlab_guard NS LO HI: a cloud's security group in NS: inbound, only TCP 22 (ssh) and TCP and
# UDP LO-HI (the agent's data ports) are let in, with the replies of what NS itself opened.
sshlab_guard() {
	ip netns exec "$1" nft -f - <<EOF
table inet sshlab_guard {
	chain input {
		type filter hook input priority 0; policy drop;
		ct state established,related accept
		iif lo accept
		tcp dport 22 accept
		tcp dport $2-$3 accept
		udp dport $2-$3 accept
	}
}
EOF
}

# Every nbrun process in the lab's namespaces, as NS:PID (by /proc/PID/comm).
sshlab_nbrun_pids() {
	for _ns in "$NS_R" "$NS_1" "$NS_2" "$NS_3"; do
		for _p in $(ip netns pids "$_ns" 2>/dev/null); do
			[ "$(cat "/proc/$_p/comm" 2>/dev/null)" = nbrun ] && echo "$_ns:$_p"
		done
	done
	return 0
}

# sshlab_wait_no_nbrun: until no nbrun is left in the lab (5 s at most); false if some is.
sshlab_wait_no_nbrun() {
	_i=0
	while [ $_i -lt 50 ]; do
		[ -z "$(sshlab_nbrun_pids)" ] && return 0
		sleep 0.1; _i=$((_i + 1))
	done
	return 1
}

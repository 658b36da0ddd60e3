#!/bin/sh
# pkg suite: the container image of deploy/container/Containerfile, built and run by podman.
#  - podman builds it FROM scratch out of scripts/release's binary (no registry is asked);
#  - the image holds one file, /nbrun, runs as 65534, and its default command is the agent with
#    the podman secret's path;
#  - it runs: --version says "(static)";
#  - the agent in it, on the host's network (--network host: this test's network namespace),
#    the secret a podman secret only its user can read, serves a batch of every agent engine
#    from nbrun outside: every run ok, no warning, and it exits 0 after that one session (--once).
# Everything it makes is named for this process and removed at exit: the image, the container,
# the secret. Skipped, saying why, when podman cannot run a container on this machine.
# Speaks TAP. Environment: NBRUN, NB_SRCDIR, NB_BUILDDIR, NB_VERSION_LINE (meson sets them).
set -u
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
. "$SRC/tests/lib/tap.sh"
. "$SRC/tests/pkg/lib.sh"
pkg_needs "podman with --network host" podman
TMP=$(mktemp -d /tmp/nbt_container.XXXXXX)
PORT=$((25000 + $$ % 4000))
DATA="$((PORT + 1))-$((PORT + 20))"
IMAGE=localhost/nbrun-test-$$:latest CTR=nbrun-test-$$ SECRET=nbrun-test-secret-$$
N=0
FAILED=0
export NBRUN_GNUPLOT=none
cleanup() {
	podman rm -f -t 0 "$CTR" >/dev/null 2>&1
	podman rmi -f "$IMAGE" >/dev/null 2>&1
	podman secret rm "$SECRET" >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
name=nbrun-$VERSION-linux-$(uname -m)

if ! "$SRC/scripts/release" --build "$BUILD/release-static" --out "$TMP/dist" >"$TMP/release" 2>&1; then
	echo "1..1"; nok "scripts/release" "$TMP/release"; exit 1
fi

# How podman runs a container here, tried on the bare binary (podman run --rootfs).
# - As it is, on a usual host.
# - Else with rlimits this root may set: podman asks for 1048576 open files, which a root
#   whose hard limit is lower (a capped VM or container) may not raise to.
# - Else without cgroups, in a mount namespace of this test's own where /sys/fs/cgroup is an
#   empty tmpfs: crun refuses a v1 layout whose v2 hierarchy holds controllers, and finds no
#   cgroup file system at all inside `ip netns exec` (which mounts a fresh /sys).
hard() {
	awk -v w="$1" '$0 ~ "^Max " w { split($0, f, /   */); h = f[3]
		print (h == "unlimited" || h + 0 > 4096) ? 4096 : h }' /proc/self/limits
}
limits="--ulimit nofile=$(hard 'open files'):$(hard 'open files') --ulimit nproc=$(hard processes):$(hard processes)"
mkdir "$TMP/probe" && cp "$TMP/dist/$name" "$TMP/probe/nbrun"
try() {
	# shellcheck disable=SC2086
	podman run --rm $1 --rootfs "$TMP/probe" /nbrun --version >"$TMP/probe.out" 2>&1 &&
		grep -qx "nbrun $VERSION (static)" "$TMP/probe.out"
}
HOW= found=false
if [ -n "${NB_PODMAN_NOCGROUP:-}" ]; then
	HOW="--cgroups=disabled $limits"
	try "$HOW" && found=true
elif try ""; then
	found=true
elif try "$limits"; then
	HOW=$limits found=true
elif command -v unshare >/dev/null 2>&1; then
	cleanup
	trap - EXIT
	exec unshare --mount --propagation private sh -c 'mount -t tmpfs nbrun-nocgroup /sys/fs/cgroup ||
		{ echo "1..0 # SKIP podman cannot run a container here, nor can /sys/fs/cgroup be hidden"; exit 0; }
		NB_PODMAN_NOCGROUP=1 exec sh "$0"' "$0"
fi
if ! $found; then
	echo "1..0 # SKIP podman cannot run a container here: $(grep -i -m1 error "$TMP/probe.out")"
	exit 0
fi

echo "1..6"
echo "# podman runs containers here with: ${HOW:-its defaults}${NB_PODMAN_NOCGROUP:+ (in a mount namespace without cgroups)}"
podman build --layers=false -q -f "$SRC/deploy/container/Containerfile" --build-arg "NBRUN=$name" \
	-t "$IMAGE" "$TMP/dist" >"$TMP/build" 2>&1
that "podman builds the image FROM scratch out of $name" "$TMP/build"

podman image inspect "$IMAGE" --format '{{.Config.User}}|{{.Config.Entrypoint}}|{{.Config.Cmd}}' \
	>"$TMP/inspect" 2>&1
podman create --name "$CTR" "$IMAGE" >/dev/null 2>"$TMP/export.err" &&
	podman export "$CTR" 2>>"$TMP/export.err" | tar -t >"$TMP/files" 2>>"$TMP/export.err"
podman rm "$CTR" >/dev/null 2>&1
cat "$TMP/files" "$TMP/export.err" >>"$TMP/inspect"
[ "$(head -1 "$TMP/inspect")" = "65534:65534|[/nbrun]|[serve --secret-file /run/secrets/nbrun-secret]" ] &&
	[ "$(cat "$TMP/files")" = nbrun ]
that "it holds /nbrun alone, runs as 65534, and serves with the podman secret by default" "$TMP/inspect"

# shellcheck disable=SC2086
podman run --rm $HOW "$IMAGE" --version >"$TMP/version" 2>&1
[ "$(cat "$TMP/version")" = "nbrun $VERSION (static)" ]
that "the image runs: $(cat "$TMP/version")" "$TMP/version"

head -c 32 /dev/urandom | base64 >"$TMP/secret"
chmod 600 "$TMP/secret"
podman secret create "$SECRET" "$TMP/secret" >/dev/null 2>&1
# shellcheck disable=SC2086
podman run -d --name "$CTR" $HOW --network host \
	--secret "$SECRET,target=nbrun-secret,uid=65534,gid=65534,mode=0400" "$IMAGE" \
	serve --secret-file /run/secrets/nbrun-secret --bind 127.0.0.1 --port "$PORT" \
	--data-ports "$DATA" --once >"$TMP/run" 2>&1
wait_port "$PORT"
run_tour "$PORT" "$TMP/secret" "$TMP/tour"
[ $RC -eq 0 ] && [ "$RUNS" -eq "$PLANNED" ]
that "the agent in the container serves a batch of every engine: $RUNS of $PLANNED runs ok (rc $RC)" \
	"$TMP/tour.err"
arc=$(timeout 30 podman wait "$CTR" 2>>"$TMP/run")
podman logs "$CTR" >"$TMP/agent.log" 2>&1
[ "$arc" = 0 ]
that "and exits 0 after that session (--once; exit ${arc:-none})" "$TMP/run"
grep -q "session from 127.0.0.1" "$TMP/agent.log" && ! grep -q -i -e warning -e 'can be read' "$TMP/agent.log"
that "its log names the session and warns of nothing (the secret is its user's alone)" "$TMP/agent.log"
exit $FAILED

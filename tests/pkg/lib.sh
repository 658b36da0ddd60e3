# Shared by the pkg tests (sourced, POSIX sh, after tests/lib/tap.sh, with SRC set).

# The binary and the build folder meson runs the test from.
NBRUN=$(realpath "${NBRUN:-$SRC/build/nbrun}")
BUILD=$(realpath "${NB_BUILDDIR:-$SRC/build}")

# pkg_needs WHY_ROOT TOOL...: the TAP plan "1..0 # SKIP" and exit unless every TOOL is
# installed and, when WHY_ROOT is not empty, we are root.
pkg_needs() {
	_why=$1
	shift
	for _t in "$@"; do
		command -v "$_t" >/dev/null 2>&1 || { echo "1..0 # SKIP $_t not installed (scripts/setup)"; exit 0; }
	done
	if [ -n "$_why" ] && [ "$(id -u)" != 0 ]; then echo "1..0 # SKIP needs root ($_why)"; exit 0; fi
}

# VERSION: the project's version, from meson's NB_VERSION_LINE ("nbrun 0.1.0 (static)").
VERSION=${NB_VERSION_LINE:-nbrun 0.1.0}
VERSION=${VERSION#nbrun }
VERSION=${VERSION% (static)}

# give_targets ROOT: the host's systemd targets (sysinit, network-online, multi-user, …) in
# ROOT/etc/systemd/system, so `systemd-analyze verify --root=ROOT` resolves a unit's
# dependencies as on any system.
give_targets() {
	mkdir -p "$1/etc/systemd/system"
	cp /lib/systemd/system/*.target "$1/etc/systemd/system/" 2>/dev/null ||
		cp /usr/lib/systemd/system/*.target "$1/etc/systemd/system/"
}

# run_tour PORT SECRET OUT: tests/pkg/tour.yaml from $NBRUN against the agent on
# 127.0.0.1:PORT; sets RC (nbrun's exit code), PLANNED (its runs) and RUNS (those ok).
# Its stderr is OUT.err.
run_tour() {
	PLANNED=$("$NBRUN" validate "$SRC/tests/pkg/tour.yaml" | sed -n 's/.* \([0-9]*\) runs$/\1/p')
	"$NBRUN" "$SRC/tests/pkg/tour.yaml" --peer "127.0.0.1:$1" --secret-file "$2" --out "$3" -q \
		2>"$3.err"
	RC=$?
	RUNS=$(grep -c ',run,,ok,' "$3/runs.csv" 2>/dev/null)
	RUNS=${RUNS:-0}
}

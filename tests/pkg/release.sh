#!/bin/sh
# pkg suite: scripts/release makes the release binary a bare VM gets.
#  - a statically linked, stripped executable named for its version and architecture;
#  - its .sha256 checks (`sha256sum -c` in the folder), and fails once the binary changes;
#  - its symbols apart, in a .debug file the binary's debuglink names;
#  - it runs: --version says the project's version and "(static)".
# The static build is kept in the build folder (release-static/), so a second run only links.
# Speaks TAP. Environment: NBRUN, NB_SRCDIR, NB_BUILDDIR, NB_VERSION_LINE (meson sets them).
set -u
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
. "$SRC/tests/lib/tap.sh"
. "$SRC/tests/pkg/lib.sh"
pkg_needs "" file strip objcopy sha256sum
TMP=$(mktemp -d /tmp/nbt_release.XXXXXX)
N=0
FAILED=0
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
name=nbrun-$VERSION-linux-$(uname -m)

echo "1..6"
"$SRC/scripts/release" --build "$BUILD/release-static" --out "$TMP/dist" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$TMP/out")" = "$TMP/dist/$name
$TMP/dist/$name.sha256" ]
that "scripts/release names its binary and checksum: $name (rc $rc)" "$TMP/err"
file "$TMP/dist/$name" >"$TMP/file"
grep -q 'statically linked' "$TMP/file" && grep -q ', stripped' "$TMP/file"
that "statically linked and stripped" "$TMP/file"
(cd "$TMP/dist" && sha256sum -c "$name.sha256") >"$TMP/sum" 2>&1
that "its sha256 checks" "$TMP/sum"
cp "$TMP/dist/$name" "$TMP/changed" && printf x >>"$TMP/changed"
sed "s|  $name\$|  changed|" "$TMP/dist/$name.sha256" >"$TMP/changed.sha256"
! (cd "$TMP" && sha256sum -c changed.sha256) >"$TMP/sum2" 2>&1 && grep -q 'FAILED' "$TMP/sum2"
that "and fails on a binary one byte longer" "$TMP/sum2"
objcopy --dump-section .gnu_debuglink="$TMP/link" "$TMP/dist/$name" 2>"$TMP/link.err" &&
	tr -d '\0' <"$TMP/link" | grep -q "^$name.debug" && [ -s "$TMP/dist/$name.debug" ] &&
	file "$TMP/dist/$name.debug" | grep -q 'with debug_info'
that "its symbols are in $name.debug, which the binary's debuglink names" "$TMP/link.err"
"$TMP/dist/$name" --version >"$TMP/version" 2>&1
[ "$(cat "$TMP/version")" = "nbrun $VERSION (static)" ]
that "it runs: $(cat "$TMP/version")" "$TMP/version"
exit $FAILED

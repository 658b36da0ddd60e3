#!/bin/sh
# pkg suite: scripts/package-deb and the package it makes.
#  - a .deb named nbrun_VERSION_ARCH.deb holding the binary, the man page, the bash completion,
#    the unit, /etc/default/nbrun-agent (a conffile) and the docs;
#  - lintian finds no error in it (its warnings and notes are printed as comments);
#  - dpkg installs it into a scratch root (dpkg --root: no chroot, no other package there);
#    from there nbrun --version runs and man shows the man page, and systemd-analyze verify
#    passes on the unit as the package installs it;
#  - dpkg --purge takes it all out again, the conffile and the link that
#    `systemctl enable nbrun-agent` would have made included, and leaves the secret.
# The build (prefix /usr, Debian's hardening flags) is kept in the build folder (deb/).
# Speaks TAP. Environment: NB_SRCDIR, NB_BUILDDIR, NB_VERSION_LINE (meson sets them).
set -u
SRC=$(realpath "${NB_SRCDIR:-$(dirname "$0")/../..}")
. "$SRC/tests/lib/tap.sh"
. "$SRC/tests/pkg/lib.sh"
pkg_needs "dpkg --root writes root-owned files" dpkg-deb dpkg-shlibdeps lintian man
TMP=$(mktemp -d /tmp/nbt_deb.XXXXXX)
N=0
FAILED=0
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM
deb=$TMP/dist/nbrun_${VERSION}_$(dpkg --print-architecture).deb

echo "1..9"
NBRUN_MAINTAINER="nbrun package test <nbrun@example.invalid>" \
	"$SRC/scripts/package-deb" --build "$BUILD/deb" --out "$TMP/dist" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && [ "$(cat "$TMP/out")" = "$deb" ] && [ -f "$deb" ]
that "scripts/package-deb builds $(basename "$deb") (rc $rc)" "$TMP/err"
dpkg-deb -c "$deb" >"$TMP/contents" 2>&1
for f in ./usr/bin/nbrun ./usr/share/man/man1/nbrun.1.gz ./usr/share/bash-completion/completions/nbrun \
	 ./lib/systemd/system/nbrun-agent.service ./etc/default/nbrun-agent \
	 ./usr/share/doc/nbrun/copyright ./usr/share/doc/nbrun/changelog.gz ./usr/share/doc/nbrun/agent.md; do
	grep -q " $f\$" "$TMP/contents" || echo "missing: $f"
done >"$TMP/missing"
[ ! -s "$TMP/missing" ] && [ "$(dpkg-deb -f "$deb" Version)" = "$VERSION" ] &&
	dpkg-deb -I "$deb" conffiles | grep -qx /etc/default/nbrun-agent
that "it holds the binary, the man page, the completion, the unit, its conffile and the docs" "$TMP/missing"

# Every tag, down to the pedantic ones, printed; an error fails (lintian's own exit status,
# --fail-on error). As root lintian also says it would rather not run as root.
lintian --pedantic --display-info --fail-on error "$deb" >"$TMP/lintian" 2>&1
rc=$?
grep -E '^[EWIPX]: ' "$TMP/lintian" | sed 's/^/# lintian: /'
[ $rc -eq 0 ] && ! grep -q '^E: ' "$TMP/lintian"
that "lintian: no error (rc $rc)" "$TMP/lintian"

R=$TMP/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" && : >"$R/var/lib/dpkg/status"
# --force-depends: the scratch root has no libc; the binary runs with this host's libraries.
dpkg --root="$R" --force-depends --force-script-chrootless -i "$deb" >"$TMP/dpkg" 2>&1
dpkg --root="$R" -s nbrun 2>/dev/null | grep -q '^Status: install ok installed'
that "dpkg --root installs it into a scratch root" "$TMP/dpkg"
"$R/usr/bin/nbrun" --version >"$TMP/version" 2>&1
[ "$(cat "$TMP/version")" = "nbrun $VERSION" ]
that "from there, nbrun --version: $(cat "$TMP/version")" "$TMP/version"
MANPATH=$R/usr/share/man MANWIDTH=80 man -P cat nbrun >"$TMP/man" 2>&1
grep -q '^NAME' "$TMP/man" && grep -q 'nbrun serve' "$TMP/man"
that "and man nbrun shows the installed man page" "$TMP/man"

if command -v systemd-analyze >/dev/null 2>&1; then
	give_targets "$R"
	MANPATH=$R/usr/share/man systemd-analyze verify --root="$R" "$R/lib/systemd/system/nbrun-agent.service" \
		>"$TMP/verify" 2>&1 && [ ! -s "$TMP/verify" ] &&
		grep -q '^ExecStart=/usr/bin/nbrun serve --secret-file %d/secret' "$R/lib/systemd/system/nbrun-agent.service"
	that "systemd-analyze verify passes on the unit the package installed (/usr/bin/nbrun)" "$TMP/verify"
	rm -f "$R"/etc/systemd/system/*.target
else
	skip "systemd-analyze verify on the installed unit" "systemd-analyze not installed"
fi

# What an administrator adds: the secret, and the link `systemctl enable` makes.
mkdir -p "$R/etc/nbrun" "$R/etc/systemd/system/multi-user.target.wants"
echo secret-of-the-administrator >"$R/etc/nbrun/secret"
ln -s /lib/systemd/system/nbrun-agent.service "$R/etc/systemd/system/multi-user.target.wants/"
dpkg --root="$R" --force-script-chrootless --purge nbrun >"$TMP/purge" 2>&1
left=$(cd "$R" && find usr lib etc/default etc/systemd -type f -o -type l 2>/dev/null)
[ -z "$left" ] && ! dpkg --root="$R" -s nbrun >/dev/null 2>&1
that "dpkg --purge takes out every file, the conffile and the enable link (left: ${left:-none})" "$TMP/purge"
[ -f "$R/etc/nbrun/secret" ]
that "and leaves the administrator's secret" "$TMP/purge"
exit $FAILED

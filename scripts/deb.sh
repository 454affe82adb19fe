#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make deb': the Debian source package vroce and its binary packages
# vroce-dkms (dh-dkms) and libvroce (the provider and its .driver file),
# built with dpkg-buildpackage from a copy of the tree with
# scripts/debian/ as its debian/; lintian over the result. With
# 'install-test' (make check) the packages are then installed on this
# machine (DKMS builds vroce.ko for Debian's 6.12 headers), checked, and
# purged, leaving nothing behind. Packages land in $VROCE_DEB_OUT
# (default: a temporary directory, removed).
# Last line: 'deb: N passed, N failed'.
set -euo pipefail
mode=${1:-build}

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$repo/dkms.conf")
src=$work/vroce-$ver
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "deb: ok $*"; }
fail() { failed=$((failed + 1)); echo "deb: FAIL $*"; }

mkdir -p "$src"
(cd "$repo" && git ls-files -z 2>/dev/null || find . -type f -not -path './.git/*' -print0) |
	(cd "$repo" && xargs -0 cp --parents -t "$src") 2>/dev/null ||
	rsync -a --exclude .git "$repo/" "$src/"
rm -rf "$src/debian"
cp -a "$repo/scripts/debian" "$src/debian"

t0=$(date +%s)
if (cd "$src" && dpkg-buildpackage -us -uc >"$work/build.log" 2>&1); then
	ok "dpkg-buildpackage: $(cd "$work" && ls *.deb *.dsc | tr '\n' ' ')in $(( $(date +%s) - t0 )) s"
else
	fail "dpkg-buildpackage"
	tail -n 30 "$work/build.log"
fi
changes=$(ls "$work"/vroce_*.changes 2>/dev/null | head -n 1)
if [ -n "$changes" ]; then
	lintian --fail-on error,warning "$changes" >"$work/lintian.log" 2>&1 &&
		ok "lintian: no error or warning ($(grep -c . "$work/lintian.log") info/pedantic lines)" ||
		{ fail "lintian"; cat "$work/lintian.log"; }
fi

if [ "$mode" = install-test ] && [ -n "$changes" ]; then
	kdir=$("$repo/scripts/kernel-release.sh" --headers)
	rel=$(cat "$kdir/include/config/kernel.release")
	if apt-get -q -o=Dpkg::Use-Pty=0 install -y --no-install-recommends \
		"$work"/vroce-dkms_*.deb "$work"/libvroce_*.deb >"$work/install.log" 2>&1; then
		ok "installed vroce-dkms and libvroce"
	else
		fail "apt-get install"
		tail -n 20 "$work/install.log"
	fi
	# Read whole first: grep -q stops at its match, and dkms, writing a
	# line per kernel (every installed headers release), would then die
	# of SIGPIPE and fail the pipe.
	st=$(dkms status vroce)
	grep -q "$rel.*installed" <<<"$st" &&
		ok "dkms status: $(grep "$rel" <<<"$st")" ||
		fail "dkms status: $st"
	ls /usr/lib/*/libibverbs/libvroce-rdmav34.so >/dev/null 2>&1 &&
	grep -qx 'driver vroce' /etc/libibverbs.d/vroce.driver &&
		ok "provider and vroce.driver in place" || fail "provider files"
	apt-get -q -o=Dpkg::Use-Pty=0 purge -y vroce-dkms libvroce >"$work/purge.log" 2>&1 ||
		fail "apt-get purge"
	rest=$({ dkms status vroce; ls -d /usr/src/vroce-* /var/lib/dkms/vroce;
		 find "/lib/modules/$rel" -name 'vroce.ko*';
		 ls /usr/lib/*/libibverbs/libvroce-rdmav34.so /etc/libibverbs.d/vroce.driver;
		 } 2>/dev/null || true)
	[ -z "$rest" ] && ok "purged: nothing left behind" || fail "left behind: $rest"
fi
if [ -n "${VROCE_DEB_OUT:-}" ]; then
	mkdir -p "$VROCE_DEB_OUT"
	cp "$work"/*.deb "$work"/*.dsc "$work"/*.tar.* "$work"/*.changes "$VROCE_DEB_OUT"/ 2>/dev/null || true
fi
echo "deb: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

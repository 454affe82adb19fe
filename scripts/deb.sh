#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make deb': the Debian source package vroce and its binary packages
# vroce-dkms (dh-dkms) and libvroce (the provider and its .driver file),
# built with dpkg-buildpackage from a copy of the tree with
# scripts/debian/ as its debian/; lintian over the result. With
# 'install-test' (make check) the packages are then installed on this
# machine (DKMS builds vroce.ko for every installed kernel of Debian 12's
# 6.1 and 6.12 lines, standard and rt: scripts/kernel-release.sh --all),
# checked, and purged, leaving nothing behind for any. Packages land in
# $VROCE_DEB_OUT (default: a temporary directory, removed).
# KTAP (scripts/ktap.sh): two tests; with 'install-test' four more and
# one per kernel.
set -euo pipefail
mode=${1:-build}

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$repo/dkms.conf")
src=$work/vroce-$ver
# shellcheck source=ktap.sh
. "$repo/scripts/ktap.sh"
# Standard input as KTAP diagnostic lines.
diag() { sed 's/^/# /'; }

mkdir -p "$src"
(cd "$repo" && git ls-files -z 2>/dev/null || find . -type f -not -path './.git/*' -print0) |
	(cd "$repo" && xargs -0 cp --parents -t "$src") 2>/dev/null ||
	rsync -a --exclude .git "$repo/" "$src/"
rm -rf "$src/debian"
cp -a "$repo/scripts/debian" "$src/debian"

ktap_print_header
if [ "$mode" = install-test ]; then
	mapfile -t kernels < <("$repo/scripts/kernel-release.sh" --all)
	rels=()
	for k in "${kernels[@]}"; do
		rels+=("${k%% *}")
	done
	ktap_set_plan $((6 + ${#rels[@]}))
else
	ktap_set_plan 2
fi
t0=$(date +%s)
if (cd "$src" && dpkg-buildpackage -us -uc >"$work/build.log" 2>&1); then
	ktap_test_pass "dpkg-buildpackage: $(cd "$work" && ls *.deb *.dsc | tr '\n' ' ')in $(( $(date +%s) - t0 )) s"
else
	tail -n 30 "$work/build.log" | sed 's/^/# /'
	ktap_test_fail "dpkg-buildpackage"
fi
changes=$(ls "$work"/vroce_*.changes 2>/dev/null | head -n 1)
if [ -z "$changes" ]; then
	ktap_test_skip "lintian" "no packages"
elif lintian --fail-on error,warning "$changes" >"$work/lintian.log" 2>&1; then
	ktap_test_pass "lintian: no error or warning ($(grep -c . "$work/lintian.log") info/pedantic lines)"
else
	sed 's/^/# /' "$work/lintian.log"
	ktap_test_fail "lintian: no error or warning"
fi

if [ "$mode" = install-test ] && [ -z "$changes" ]; then
	for t in "installed vroce-dkms and libvroce" "dkms status: a kernel" \
		 "provider and vroce.driver in place" "purged: nothing left behind"; do
		ktap_test_skip "$t" "no packages"
	done
	for rel in "${rels[@]}"; do
		ktap_test_skip "dkms status: $rel" "no packages"
	done
elif [ "$mode" = install-test ]; then
	# shellcheck source=system-lock.sh
	. "$repo/scripts/system-lock.sh"
	t0=$(date +%s)
	if apt-get -q -o=Dpkg::Use-Pty=0 install -y --no-install-recommends \
		"$work"/vroce-dkms_*.deb "$work"/libvroce_*.deb >"$work/install.log" 2>&1; then
		ktap_test_pass "installed vroce-dkms and libvroce: DKMS built for ${#rels[@]} kernels in $(( $(date +%s) - t0 )) s"
	else
		tail -n 30 "$work/install.log" | sed 's/^/# /'
		ktap_test_fail "installed vroce-dkms and libvroce"
	fi
	# Read whole first: grep -q stops at its match, and dkms, writing a
	# line per kernel (every installed headers release), would then die
	# of SIGPIPE and fail the pipe.
	st=$(dkms status vroce)
	if [ ${#rels[@]} -gt 0 ]; then
		ktap_test_pass "dkms status: a kernel of 6.1 or 6.12 with headers: ${rels[*]}"
	else
		ktap_test_fail "dkms status: no 6.1 or 6.12 kernel with headers (scripts/install-deps.sh)"
	fi
	for rel in "${rels[@]}"; do
		if grep -q "$rel.*installed" <<<"$st" &&
		   [ -n "$(find "/lib/modules/$rel/updates/dkms" -name 'vroce.ko*' 2>/dev/null)" ]; then
			ktap_test_pass "dkms status: $(grep "$rel" <<<"$st")"
		else
			diag <<<"$st"
			ktap_test_fail "dkms status: installed for $rel"
		fi
	done
	if ls /usr/lib/*/libibverbs/libvroce-rdmav34.so >/dev/null 2>&1 &&
	   grep -qx 'driver vroce' /etc/libibverbs.d/vroce.driver; then
		ktap_test_pass "provider and vroce.driver in place"
	else
		ktap_test_fail "provider and vroce.driver in place"
	fi
	if apt-get -q -o=Dpkg::Use-Pty=0 purge -y vroce-dkms libvroce >"$work/purge.log" 2>&1; then
		rest=$({ dkms status vroce; ls -d /usr/src/vroce-* /var/lib/dkms/vroce;
			 for rel in "${rels[@]}"; do
				find "/lib/modules/$rel" -name 'vroce.ko*'
				grep -h vroce "/lib/modules/$rel/modules.dep"
			 done
			 ls /usr/lib/*/libibverbs/libvroce-rdmav34.so /etc/libibverbs.d/vroce.driver;
			 } 2>/dev/null || true)
	else
		rest="apt-get purge failed: $(tail -n 5 "$work/purge.log")"
	fi
	ktap_test_none "purged: nothing left behind" "$rest"
fi
if [ -n "${VROCE_DEB_OUT:-}" ]; then
	mkdir -p "$VROCE_DEB_OUT"
	cp "$work"/*.deb "$work"/*.dsc "$work"/*.tar.* "$work"/*.changes "$VROCE_DEB_OUT"/ 2>/dev/null || true
fi
ktap_finished

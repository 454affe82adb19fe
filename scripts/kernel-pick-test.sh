#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel chooser (scripts/kernel-pick.sh) against recorded
# 'apt-cache policy' outputs, without the archive (scripts/tests/kernel-pick/):
# gap.policy is the security archive of 2026-12-02 (6.12.118 with its
# unsigned image, before the signed one), the other 6.12 amd64 cases are
# edits of it; 6.1-installed, 6.1-rt and 6.12-rt are bookworm and
# bookworm-security of 2026-12-05 for the headers packages of 6.1 amd64,
# 6.1 rt-amd64 and 6.12 rt-amd64 (a machine with the headers of all four
# and the images of 6.1 amd64 and 6.12 amd64 and rt-amd64 installed), the
# other 6.1 and 6.12 rt-amd64 cases are edits of those. Each case names the
# pick it must make, or what the one-line error must name. KTAP
# (scripts/ktap.sh): a test per case.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$repo/scripts/tests/kernel-pick
# shellcheck source=ktap.sh
. "$repo/scripts/ktap.sh"
# Standard input as KTAP diagnostic lines.
diag() { sed 's/^/# /'; }

# expect CASE "release version image" [kernel-pick.sh options] |
# expect CASE !error-substring [options]
expect() {
	local out rc case=$1 want=$2
	shift 2
	out=$("$repo/scripts/kernel-pick.sh" "$@" --policy "$dir/$case.policy" 2>&1)
	rc=$?
	case "$want" in
	!*)
		if [ $rc -ne 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] &&
		   [[ "$out" == *"${want#!}"* ]]; then
			ktap_test_pass "$case: refused: $out"
		else
			ktap_print_msg "want a one-line refusal naming '${want#!}', got (exit $rc):"
			diag <<<"$out"
			ktap_test_fail "$case"
		fi
		;;
	*)
		read -r rel ver img <<<"$want"
		want="$rel $ver linux-headers-$rel $img"
		if [ $rc -eq 0 ] && [ "$out" = "$want" ]; then
			ktap_test_pass "$case${*:+ ($*)}: $out"
		else
			ktap_print_msg "want '$want', got (exit $rc):"
			diag <<<"$out"
			ktap_test_fail "$case"
		fi
		;;
	esac
}

ktap_print_header
# One test per 'expect' line below.
ktap_set_plan "$(grep -c '^expect ' "$0")"
# Today: 6.12.118's signed image is not published yet; its unsigned one is.
expect gap "6.12.118+deb12-amd64 6.12.118-1~deb12u1 linux-image-6.12.118+deb12-amd64-unsigned"
# The signed image has arrived: it is preferred.
expect normal "6.12.118+deb12-amd64 6.12.118-1~deb12u1 linux-image-6.12.118+deb12-amd64"
# 6.12.118 has no image at all, 6.12.117 no headers: 6.12.115 (its -2).
expect newest-two-incomplete "6.12.115+deb12-amd64 6.12.115-2~deb12u1 linux-image-6.12.115+deb12-amd64"
# No headers package of any release.
expect none-complete "!lacks linux-headers-6.12.118+deb12-amd64"
# No linux-source-6.12 at all (no security archive in the sources).
expect no-source "!no linux-source-6.12 in the APT sources"
# An installed source the archive no longer lists, its headers and signed
# image installed: used as it is.
expect installed-gone "6.12.100+deb12-amd64 6.12.100-1~deb12u1 linux-image-6.12.100+deb12-amd64"
# The same source installed alone, its headers gone from the archive: the
# newest complete release instead.
expect installed-gone-incomplete "6.12.118+deb12-amd64 6.12.118-1~deb12u1 linux-image-6.12.118+deb12-amd64-unsigned"
# 6.12.117 installed with its unsigned image, 6.12.118 complete in the
# archive: the installed release stays, with the image that is installed.
expect installed-old "6.12.117+deb12-amd64 6.12.117-1~deb12u1 linux-image-6.12.117+deb12-amd64-unsigned"

# The other lines and flavours: the release follows the headers packages.
# 6.1 amd64 today, its headers and signed image installed.
expect 6.1-installed "6.1.0-57-amd64 6.1.192-3 linux-image-6.1.0-57-amd64" --line 6.1 --flavour amd64
# The same archive on a machine with none of it: the newest from the archive.
expect 6.1-fresh "6.1.0-57-amd64 6.1.192-3 linux-image-6.1.0-57-amd64" --line 6.1
# 6.1.0-56 installed with its image, 6.1.0-57 complete in the archive:
# the installed release stays.
expect 6.1-installed-old "6.1.0-56-amd64 6.1.192-2 linux-image-6.1.0-56-amd64" --line 6.1
# No 6.1 headers package at all.
expect 6.1-none "!no linux-headers-6.1.0-*-amd64 headers in the APT sources" --line 6.1
# 6.1 rt-amd64 today: headers installed, the image only in the archive.
expect 6.1-rt "6.1.0-57-rt-amd64 6.1.192-3 linux-image-6.1.0-57-rt-amd64" --line 6.1 --flavour rt-amd64
# The newest (6.1.0-57-rt, headers installed) has no image at all: the
# next older complete one, 6.1.0-56-rt.
expect 6.1-rt-incomplete "6.1.0-56-rt-amd64 6.1.192-2 linux-image-6.1.0-56-rt-amd64" --line 6.1 --flavour rt-amd64
# The newest's signed image not published yet: its unsigned one.
expect 6.1-rt-unsigned "6.1.0-57-rt-amd64 6.1.192-3 linux-image-6.1.0-57-rt-amd64-unsigned" --line 6.1 --flavour rt-amd64
# 6.12 rt-amd64 today: headers and signed image installed.
expect 6.12-rt "6.12.118+deb12-rt-amd64 6.12.118-1~deb12u1 linux-image-6.12.118+deb12-rt-amd64" --line 6.12 --flavour rt-amd64
# A newer 6.12.119 rt with headers but no image yet: 6.12.118.
expect 6.12-rt-newest-incomplete "6.12.118+deb12-rt-amd64 6.12.118-1~deb12u1 linux-image-6.12.118+deb12-rt-amd64" --line 6.12 --flavour rt-amd64

ktap_finished

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel chooser (scripts/kernel-pick.sh) against recorded
# 'apt-cache policy' outputs, without the archive: gap.policy is the
# security archive of 2026-12-02 (6.12.118 with its unsigned image, before
# the signed one), the others are edits of it (scripts/tests/kernel-pick/).
# Each case names the pick it must make, or the package the one-line error
# must name. KTAP (scripts/ktap.sh): a test per case.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$repo/scripts/tests/kernel-pick
# shellcheck source=ktap.sh
. "$repo/scripts/ktap.sh"

h() { echo "linux-headers-$1+deb12-amd64"; }
# expect CASE "release version image" | expect CASE !error-substring
expect() {
	local out rc
	out=$("$repo/scripts/kernel-pick.sh" --policy "$dir/$1.policy" 2>&1)
	rc=$?
	case "$2" in
	!*)
		if [ $rc -ne 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] &&
		   [[ "$out" == *"${2#!}"* ]]; then
			ktap_test_pass "$1: refused: $out"
		else
			ktap_print_msg "want a one-line refusal naming '${2#!}', got (exit $rc):"
			sed 's/^/# /' <<<"$out"
			ktap_test_fail "$1"
		fi
		;;
	*)
		read -r rel ver img <<<"$2"
		want="$rel+deb12-amd64 $ver $(h "$rel") $img"
		if [ $rc -eq 0 ] && [ "$out" = "$want" ]; then
			ktap_test_pass "$1: $out"
		else
			ktap_print_msg "want '$want', got (exit $rc):"
			sed 's/^/# /' <<<"$out"
			ktap_test_fail "$1"
		fi
		;;
	esac
}

ktap_print_header
# One test per 'expect' line below.
ktap_set_plan "$(grep -c '^expect ' "$0")"
# Today: 6.12.118's signed image is not published yet; its unsigned one is.
expect gap "6.12.118 6.12.118-1~deb12u1 linux-image-6.12.118+deb12-amd64-unsigned"
# The signed image has arrived: it is preferred.
expect normal "6.12.118 6.12.118-1~deb12u1 linux-image-6.12.118+deb12-amd64"
# 6.12.118 has no image at all, 6.12.117 no headers: 6.12.115 (its -2).
expect newest-two-incomplete "6.12.115 6.12.115-2~deb12u1 linux-image-6.12.115+deb12-amd64"
# No headers package of any release.
expect none-complete "!lacks linux-headers-6.12.118+deb12-amd64"
# No linux-source-6.12 at all (no security archive in the sources).
expect no-source "!no linux-source-6.12 in the APT sources"
# An installed source the archive no longer lists, its headers and signed
# image installed: used as it is.
expect installed-gone "6.12.100 6.12.100-1~deb12u1 linux-image-6.12.100+deb12-amd64"
# The same source installed alone, its headers gone from the archive: the
# newest complete release instead.
expect installed-gone-incomplete "6.12.118 6.12.118-1~deb12u1 linux-image-6.12.118+deb12-amd64-unsigned"
# 6.12.117 installed with its unsigned image, 6.12.118 complete in the
# archive: the installed release stays, with the image that is installed.
expect installed-old "6.12.117 6.12.117-1~deb12u1 linux-image-6.12.117+deb12-amd64-unsigned"

ktap_finished

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that the project's patches to the test kernel (scripts/patches/)
# apply to linux-source-6.12 releases of the archive, without installing
# them: each version's package is downloaded (apt-get download, ~150 MB),
# the files the patches touch are taken out of its tarball, and the
# patches are applied to that copy in order, as scripts/kernel-tree.sh
# applies them to the cached tree.
#
# Usage: scripts/kernel-patch-check.sh [VERSION...]
#   VERSION   a linux-source-6.12 package version, e.g. 6.12.117-1~deb12u1;
#             default: the two newest the archive lists
# KTAP (scripts/ktap.sh): a test per version.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-kpatch.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ $# -eq 0 ]; then
	mapfile -t vers < <(apt-cache madison linux-source-6.12 |
			    awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
			    sort -u -V -r | head -n 2)
	set -- "${vers[@]}"
fi
[ $# -gt 0 ] || { echo "kernel-patch: the archive lists no linux-source-6.12" >&2; exit 1; }

# The files the patches change, as paths inside the tarball's top directory.
mapfile -t files < <(sed -n 's|^+++ b/||p' "$repo"/scripts/patches/*.patch | sort -u)

# shellcheck source=ktap.sh
. "$repo/scripts/ktap.sh"
ktap_print_header
ktap_set_plan $#
for v in "$@"; do
	d=$work/$v
	mkdir -p "$d/deb" "$d/src"
	if ! (cd "$d/deb" && apt-get download -q "linux-source-6.12=$v") >"$d/log" 2>&1; then
		sed 's/^/# /' "$d/log"
		ktap_test_fail "$v: apt-get download"
		continue
	fi
	dpkg-deb --fsys-tarfile "$d"/deb/*.deb |
		tar -xO ./usr/src/linux-source-6.12.tar.xz |
		tar -xJ -C "$d/src" --strip-components=1 --wildcards \
			"${files[@]/#/*/}"
	ok=1
	for p in "$repo"/scripts/patches/*.patch; do
		if ! patch -d "$d/src" -p1 -f <"$p" >"$d/log" 2>&1; then
			ktap_print_msg "${p##*/} does not apply:"
			sed 's/^/# /' "$d/log"
			ok=0
		fi
	done
	if [ $ok = 1 ]; then
		ktap_test_pass "$v: $(ls "$repo"/scripts/patches/*.patch | wc -l) patch(es) apply"
	else
		ktap_test_fail "$v: the patches apply"
	fi
done
ktap_finished

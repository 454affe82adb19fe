#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Choose the Debian 6.12 kernel release the test kernels, the module build
# and the QEMU load test use: one for which linux-source-6.12, the headers
# and an image of the same version can all be had. Debian publishes the
# signed linux-image-<release>-amd64 days after the unsigned one, so the
# newest source is not always complete.
#
# The pick, in order:
#  1. the installed linux-source-6.12, if its release is complete (its
#     headers and an image of its version installed or in the archive):
#     what is installed is used as it is, even if the archive moved on;
#  2. else the newest linux-source-6.12 version that is complete.
# An image is linux-image-<release>-amd64 (signed), else
# linux-image-<release>-amd64-unsigned (the same kernel, unsigned); an
# installed one is preferred to one that is only in the archive.
#
# Input is 'apt-cache policy' output for linux-source-6.12 and the headers
# and image packages of every release it lists. Without --policy the
# script asks apt-cache itself (the local lists: run apt-get update first);
# with --policy FILE it reads a recorded one (scripts/kernel-pick-test.sh).
#
# Output, one line on stdout:
#   <release> <source version> <headers package> <image package>
# e.g. 6.12.118+deb12-amd64 6.12.118-1~deb12u1
#      linux-headers-6.12.118+deb12-amd64
#      linux-image-6.12.118+deb12-amd64-unsigned
# Exit 1 with one line on stderr saying what is missing and what to do
# when no release is complete.
#
# Usage: scripts/kernel-pick.sh [--policy FILE]
set -euo pipefail

src_pkg=linux-source-6.12

die() { echo "kernel-pick: $*" >&2; exit 1; }

# 'apt-cache policy' text -> "package version where" lines, where is
# 'installed' (the dpkg status line under it, or the Installed: field) or
# 'archive' (any other source line). A package with no version table
# yields nothing.
versions() {
	awk '
	/^[^ ].*:$/ { pkg = substr($0, 1, length($0) - 1); ver = ""; inst = ""; next }
	/^  Installed: / { inst = $2; next }
	/^ (\*\*\*|   ) [^ ]+ -?[0-9]+$/ {
		ver = ($1 == "***") ? $2 : $1
		if (ver == inst) print pkg, ver, "installed"
		next
	}
	/^        -?[0-9]+ / && ver != "" {
		if ($2 != "/var/lib/dpkg/status") print pkg, ver, "archive"
	}' | sort -u
}

# The release a linux-source-6.12 version builds: 6.12.118-1~deb12u1 ->
# 6.12.118+deb12-amd64 (the ABI name Debian 12's 6.12 packages carry).
release_of() { echo "${1%%-*}+deb12-amd64"; }

policy=
if [ $# -eq 2 ] && [ "$1" = --policy ]; then
	policy=$(cat "$2")
elif [ $# -eq 0 ]; then
	command -v apt-cache >/dev/null || die "no apt-cache: this is not a Debian system"
	src_policy=$(apt-cache policy "$src_pkg" 2>/dev/null)
	names=()
	while read -r _ ver _; do
		rel=$(release_of "$ver")
		names+=("linux-headers-$rel" "linux-image-$rel" "linux-image-$rel-unsigned")
	done < <(versions <<<"$src_policy" | sort -u -k2,2)
	policy=$src_policy
	if [ ${#names[@]} -gt 0 ]; then
		policy+=$'\n'$(apt-cache policy "${names[@]}" 2>/dev/null)
	fi
else
	echo "usage: $0 [--policy FILE]" >&2
	exit 2
fi

table=$(versions <<<"$policy")
# have PACKAGE VERSION [installed]: the package can be had at that version
# (installed or in the archive; with 'installed': installed).
have() {
	awk -v p="$1" -v v="$2" -v w="${3:-}" '
		$1 == p && $2 == v && (w == "" || $3 == w) { found = 1 }
		END { exit !found }' <<<"$table"
}
# The image of VERSION's release to use, or nothing.
image_of() {
	local rel p w
	rel=$(release_of "$1")
	for w in installed ""; do
		for p in "linux-image-$rel" "linux-image-$rel-unsigned"; do
			if have "$p" "$1" $w; then
				echo "$p"
				return
			fi
		done
	done
}
# What VERSION's release lacks, as package names, or nothing if complete.
lacks() {
	local rel miss=()
	rel=$(release_of "$1")
	have "linux-headers-$rel" "$1" || miss+=("linux-headers-$rel")
	[ -n "$(image_of "$1")" ] || miss+=("linux-image-$rel (or linux-image-$rel-unsigned)")
	echo "${miss[*]}"
}
pick() {
	local rel
	rel=$(release_of "$1")
	echo "$rel $1 linux-headers-$rel $(image_of "$1")"
	exit 0
}

mapfile -t src_versions < <(awk -v p="$src_pkg" '$1 == p { print $2 }' <<<"$table" |
			    sort -u | sort -V -r)
[ ${#src_versions[@]} -gt 0 ] ||
	die "no $src_pkg in the APT sources: add bookworm-security (deb http://deb.debian.org/debian-security bookworm-security main) and run apt-get update"

installed=$(awk -v p="$src_pkg" '$1 == p && $3 == "installed" { print $2 }' <<<"$table")
if [ -n "$installed" ] && [ -z "$(lacks "$installed")" ]; then
	pick "$installed"
fi
for v in "${src_versions[@]}"; do
	[ -n "$(lacks "$v")" ] || pick "$v"
done
die "no 6.12 release is complete in the APT sources: the newest, $(release_of "${src_versions[0]}"), lacks $(lacks "${src_versions[0]}") and no older one is complete; run apt-get update, or wait until the archive publishes it"

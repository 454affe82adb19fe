#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Choose a Debian 12 kernel release of a line (6.1 or 6.12) and flavour
# (amd64, rt-amd64; cloud-amd64 works the same) for the module build, DKMS
# and the QEMU load test: one for which the headers and an image of the
# same version can be had. Debian publishes the signed
# linux-image-<release> days after the unsigned one, so the newest
# release is not always complete.
#
# The default, 6.12 amd64, is also the release of the UML test kernels,
# which are built from linux-source-6.12: there a release is complete
# when linux-source-6.12, the headers and an image of the same version
# can all be had. The pick, in order:
#  1. the installed linux-source-6.12, if its release is complete (its
#     headers and an image of its version installed or in the archive):
#     what is installed is used as it is, even if the archive moved on;
#  2. else the newest linux-source-6.12 version that is complete.
# Any other line and flavour has no source to follow: the releases are
# those of its headers packages (linux-headers-6.1.0-<abi>-<flavour>,
# linux-headers-6.12.<n>+deb12-<flavour>), by version (6.1's ABI name,
# 6.1.0-57, cannot be derived from its version, 6.1.192-3: it comes from
# the package names apt knows). The pick, in order:
#  1. the newest release whose headers are installed, if it is complete;
#  2. else the newest release whose headers and image can be had.
# An image is linux-image-<release> (signed), else
# linux-image-<release>-unsigned (the same kernel, unsigned), of the
# headers' version; an installed one is preferred to one that is only in
# the archive.
#
# Input is 'apt-cache policy' output for linux-source-6.12 (default) or
# the line's headers packages of the flavour (apt-cache pkgnames), and
# the headers and image packages of every release found there. Without
# --policy the script asks apt-cache itself (the local lists: run apt-get
# update first); with --policy FILE it reads a recorded one
# (scripts/kernel-pick-test.sh).
#
# Output, one line on stdout:
#   <release> <version> <headers package> <image package>
# e.g. 6.12.118+deb12-amd64 6.12.118-1~deb12u1
#      linux-headers-6.12.118+deb12-amd64
#      linux-image-6.12.118+deb12-amd64-unsigned
# or (--line 6.1 --flavour rt-amd64)
#      6.1.0-57-rt-amd64 6.1.192-3 linux-headers-6.1.0-57-rt-amd64
#      linux-image-6.1.0-57-rt-amd64
# Exit 1 with one line on stderr saying what is missing and what to do
# when no release is complete.
#
# Usage: scripts/kernel-pick.sh [--line 6.1|6.12] [--flavour FLAVOUR]
#                               [--policy FILE]
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

usage() {
	echo "usage: $0 [--line 6.1|6.12] [--flavour amd64|rt-amd64|cloud-amd64] [--policy FILE]" >&2
	exit 2
}
line=6.12 flavour=amd64 policy_file=
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case "$1" in
	--line) line=$2 ;;
	--flavour) flavour=$2 ;;
	--policy) policy_file=$2 ;;
	*) usage ;;
	esac
	shift 2
done
# The headers packages of the line and flavour, as an extended regex.
case "$line" in
6.1) hdr_re="^linux-headers-6\.1\.0-[0-9]+-$flavour\$" hdr_prefix=linux-headers-6.1.0- ;;
6.12) hdr_re="^linux-headers-6\.12\.[0-9]+\+deb12-$flavour\$" hdr_prefix=linux-headers-6.12. ;;
*) usage ;;
esac
case "$flavour" in
amd64 | rt-amd64 | cloud-amd64) ;;
*) usage ;;
esac
# 6.12 amd64 follows linux-source-6.12 (the test kernels' source).
by_source=0
[ "$line/$flavour" = 6.12/amd64 ] && by_source=1

if [ -n "$policy_file" ]; then
	policy=$(cat "$policy_file")
elif [ $by_source -eq 1 ]; then
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
	command -v apt-cache >/dev/null || die "no apt-cache: this is not a Debian system"
	names=()
	while read -r h; do
		rel=${h#linux-headers-}
		names+=("$h" "linux-image-$rel" "linux-image-$rel-unsigned")
	done < <(apt-cache pkgnames "$hdr_prefix" 2>/dev/null | grep -E "$hdr_re" | sort -u)
	policy=
	if [ ${#names[@]} -gt 0 ]; then
		policy=$(apt-cache policy "${names[@]}" 2>/dev/null)
	fi
fi

table=$(versions <<<"$policy")
# have PACKAGE VERSION [installed]: the package can be had at that version
# (installed or in the archive; with 'installed': installed).
have() {
	awk -v p="$1" -v v="$2" -v w="${3:-}" '
		$1 == p && $2 == v && (w == "" || $3 == w) { found = 1 }
		END { exit !found }' <<<"$table"
}
# image_of RELEASE VERSION: the image package to use, or nothing.
image_of() {
	local p w
	for w in installed ""; do
		for p in "linux-image-$1" "linux-image-$1-unsigned"; do
			if have "$p" "$2" $w; then
				echo "$p"
				return
			fi
		done
	done
}
# lacks RELEASE VERSION: what the release lacks, as package names, or
# nothing if it is complete.
lacks() {
	local miss=()
	have "linux-headers-$1" "$2" || miss+=("linux-headers-$1")
	[ -n "$(image_of "$1" "$2")" ] || miss+=("linux-image-$1 (or linux-image-$1-unsigned)")
	echo "${miss[*]}"
}
pick() {
	echo "$1 $2 linux-headers-$1 $(image_of "$1" "$2")"
	exit 0
}

if [ $by_source -eq 1 ]; then
	mapfile -t src_versions < <(awk -v p="$src_pkg" '$1 == p { print $2 }' <<<"$table" |
				    sort -u | sort -V -r)
	[ ${#src_versions[@]} -gt 0 ] ||
		die "no $src_pkg in the APT sources: add bookworm-security (deb http://deb.debian.org/debian-security bookworm-security main) and run apt-get update"

	installed=$(awk -v p="$src_pkg" '$1 == p && $3 == "installed" { print $2 }' <<<"$table")
	if [ -n "$installed" ] && [ -z "$(lacks "$(release_of "$installed")" "$installed")" ]; then
		pick "$(release_of "$installed")" "$installed"
	fi
	for v in "${src_versions[@]}"; do
		[ -n "$(lacks "$(release_of "$v")" "$v")" ] || pick "$(release_of "$v")" "$v"
	done
	newest=$(release_of "${src_versions[0]}")
	die "no 6.12 release is complete in the APT sources: the newest, $newest, lacks $(lacks "$newest" "${src_versions[0]}") and no older one is complete; run apt-get update, or wait until the archive publishes it"
fi

# "release version where" of every headers package of the line and
# flavour, newest version first (one release may have several).
mapfile -t hdrs < <(awk -v re="$hdr_re" '$1 ~ re { sub(/^linux-headers-/, "", $1); print }' <<<"$table" |
		    sort -u | sort -V -r -k2,2)
[ ${#hdrs[@]} -gt 0 ] ||
	die "no $hdr_prefix*-$flavour headers in the APT sources: add bookworm and bookworm-security (deb http://deb.debian.org/debian-security bookworm-security main) and run apt-get update"
for h in "${hdrs[@]}"; do
	read -r rel ver where <<<"$h"
	if [ "$where" = installed ]; then
		[ -n "$(lacks "$rel" "$ver")" ] || pick "$rel" "$ver"
		break
	fi
done
for h in "${hdrs[@]}"; do
	read -r rel ver _ <<<"$h"
	[ -n "$(lacks "$rel" "$ver")" ] || pick "$rel" "$ver"
done
read -r rel ver _ <<<"${hdrs[0]}"
die "no $line $flavour release is complete in the APT sources: the newest, $rel ($ver), lacks $(lacks "$rel" "$ver") and no older one is complete; run apt-get update, or wait until the archive publishes it"

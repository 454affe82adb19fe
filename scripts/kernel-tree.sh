#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of the cached, unpacked linux-source-6.12 tree, unpacking it
# on first use and wiring this checkout into it as drivers/infiniband/vroce.
# With --no-wire: the shared tree's path, for its tools (checkpatch,
# kernel-doc), this checkout wired nowhere.
#
# The shared tree is wired to one checkout, its owner (the first to use it;
# another once the owner's directory is gone). Any other checkout gets a
# tree of its own under $VROCE_CACHE/checkouts/ID/ (hard links to the
# shared tree's files: seconds, and no space but the directories) with
# its build dirs beside it (scripts/kunit-env.sh), so that two checkouts
# build and test at the same time; each of those builds its kernels from
# scratch once. A private tree whose checkout is gone is removed.
#
# The tree lives under $VROCE_CACHE (default ~/.cache/vroce), keyed by the
# Debian package version, so every checkout and CI run shares it; the build
# dirs are keyed by that version too (scripts/kunit-env.sh). The version is
# the installed linux-source-6.12's, which scripts/install-deps.sh keeps
# while its release stays complete in the archive: a machine keeps using
# the source it built from. When apt installs another version (an upgrade,
# or install-deps.sh moving to another release), the next run unpacks that
# one under its own key and builds its kernels from scratch, and the trees
# and build dirs of every other version are removed.
#
# VROCE_KLINE picks the kernel line: 6.12 (default) or 6.1, the KUnit
# suites against 6.1's ib_core (linux-source-6.1). Each line has its own
# tree and build dirs; only older versions of the same line are removed.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${VROCE_CACHE:-$HOME/.cache/vroce}
line=${VROCE_KLINE:-6.12}
case "$line" in
6.12) patchdir=$repo/scripts/patches ;;
6.1) patchdir=$repo/scripts/patches-6.1 ;;
*) echo "kernel-tree: VROCE_KLINE must be 6.12 or 6.1, not '$line'" >&2; exit 2 ;;
esac
tarball=/usr/src/linux-source-$line.tar.xz

ver=$(dpkg-query -W -f='${Version}' "linux-source-$line" 2>/dev/null) || {
	echo "kernel-tree: linux-source-$line is not installed (scripts/install-deps.sh)" >&2
	exit 1
}
tree=$cache/linux-source-${ver//\~/_}

# The tree is the package's source plus the project's patches to the test
# kernel (scripts/patches/, scripts/patches-6.1/). When the patches change,
# the tree is unpacked anew and the build dirs made from the old one are
# dropped: an unpacked file keeps its old mtime, so make would not see it
# change back.
patches=$({ cat "$patchdir"/*.patch 2>/dev/null || true; } | sha256sum | cut -c1-16)
if [ "$(cat "$tree/.vroce-patches" 2>/dev/null)" != "$patches" ]; then
	echo "kernel-tree: unpacking $tarball into $tree" >&2
	rm -rf "$tree" "$tree.tmp" "$cache/build/"*"-${tree##*/linux-source-}-"* \
	       "$cache/checkouts/"*/"${tree##*/}" \
	       "$cache/checkouts/"*/build/*"-${tree##*/linux-source-}-"*
	mkdir -p "$tree.tmp"
	tar -C "$tree.tmp" -xf "$tarball" --strip-components=1
	for p in "$patchdir"/*.patch; do
		[ -e "$p" ] || continue
		patch -d "$tree.tmp" -p1 -s -f <"$p" >&2
	done
	echo "$patches" >"$tree.tmp/.vroce-patches"
	mv "$tree.tmp" "$tree"
	# Trees of other linux-source-$line versions, and the build dirs
	# made from them: no longer installed, never used again.
	for old in "$cache/linux-source-$line".*; do
		[ "$old" = "$tree" ] || [ ! -d "$old" ] && continue
		echo "kernel-tree: removing $old and its build dirs" >&2
		rm -rf "$old" "$cache/build/"*"-${old##*/linux-source-}-"*
		rm -rf "$cache/checkouts/"*/"${old##*/}" \
		       "$cache/checkouts/"*/build/*"-${old##*/linux-source-}-"*
	done
fi
[ "${1:-}" = --no-wire ] && { echo "$tree"; exit 0; }

# Private trees of checkouts that are gone.
for d in "$cache"/checkouts/*/; do
	[ -e "$d/path" ] || continue
	[ -e "$(cat "$d/path")/scripts/kernel-tree.sh" ] || rm -rf "$d"
done
owner=$(cat "$tree/.vroce-owner" 2>/dev/null ||
	readlink "$tree/drivers/infiniband/vroce" 2>/dev/null || true)
if [ -z "$owner" ] || [ ! -e "$owner/scripts/kernel-tree.sh" ]; then
	owner=$repo
	echo "$owner" >"$tree/.vroce-owner"
fi
builds=$cache/build
if [ "$owner" != "$repo" ]; then
	own=$cache/checkouts/$(printf %s "$repo" | sha256sum | cut -c1-12)
	if [ ! -d "$own/${tree##*/}" ]; then
		echo "kernel-tree: a tree of this checkout's own in $own" >&2
		mkdir -p "$own"
		echo "$repo" >"$own/path"
		rm -rf "$own/${tree##*/}.tmp"
		cp -al "$tree" "$own/${tree##*/}.tmp"
		mv "$own/${tree##*/}.tmp" "$own/${tree##*/}"
	fi
	tree=$own/${tree##*/}
	builds=$own/build
fi

# Wire the driver in: the hw/ Kconfig entries sit inside "if !UML", so the
# source line goes after the INFINIBAND block, where UML sees it too.
ib=$tree/drivers/infiniband
# Another checkout wired in before (the owner that went): its objects in
# the build dirs may be newer than this checkout's sources, and make
# would keep them.
if [ "$(readlink "$ib/vroce" 2>/dev/null)" != "$repo" ]; then
	for b in "$builds"/*/drivers/infiniband/vroce; do
		if [ -d "$b" ]; then
			rm -rf "$b"
		fi
	done
fi
ln -sfn "$repo" "$ib/vroce"
grep -qx 'source "drivers/infiniband/vroce/Kconfig"' "$ib/Kconfig" ||
	echo 'source "drivers/infiniband/vroce/Kconfig"' >>"$ib/Kconfig"
grep -qx 'obj-$(CONFIG_VROCE)		+= vroce/' "$ib/Makefile" ||
	printf 'obj-$(CONFIG_VROCE)\t\t+= vroce/\n' >>"$ib/Makefile"

echo "$tree"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel release the project builds against: the one of the installed
# linux-source-6.12 (which scripts/install-deps.sh picked), e.g.
# 6.12.118+deb12-amd64. With --headers, the directory of the headers of
# that release instead (/usr/src/linux-headers-<release>), which must exist.
# With --all, one line per kernel 'make dkms', the Debian packages and the
# QEMU load test cover: the release scripts/kernel-pick.sh picks for each
# of 6.12 amd64, 6.12 rt-amd64, 6.1 amd64 and 6.1 rt-amd64 whose headers
# are installed, as "<release> <headers directory>"; nothing when none is.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --all ]; then
	for k in "6.12 amd64" "6.12 rt-amd64" "6.1 amd64" "6.1 rt-amd64"; do
		read -r line flavour <<<"$k"
		pick=$("$repo/scripts/kernel-pick.sh" --line "$line" --flavour "$flavour" 2>/dev/null) ||
			continue
		rel=${pick%% *}
		d=/usr/src/linux-headers-$rel
		[ ! -r "$d/include/config/kernel.release" ] || echo "$rel $d"
	done
	exit 0
fi

ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) || ver=
[ -n "$ver" ] || {
	echo "kernel-release: linux-source-6.12 is not installed (scripts/install-deps.sh)" >&2
	exit 1
}
rel=${ver%%-*}+deb12-amd64
case "${1:-}" in
"") echo "$rel" ;;
--headers)
	d=/usr/src/linux-headers-$rel
	[ -r "$d/include/config/kernel.release" ] || {
		echo "kernel-release: no headers of $rel in $d (scripts/install-deps.sh)" >&2
		exit 1
	}
	echo "$d"
	;;
*) echo "usage: $0 [--headers|--all]" >&2; exit 2 ;;
esac

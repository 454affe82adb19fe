#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel release the project builds against: the one of the installed
# linux-source-6.12 (which scripts/install-deps.sh picked), e.g.
# 6.12.118+deb12-amd64. With --headers, the directory of the headers of
# that release instead (/usr/src/linux-headers-<release>), which must exist.
set -euo pipefail

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
*) echo "usage: $0 [--headers]" >&2; exit 2 ;;
esac

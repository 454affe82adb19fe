#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks over every C file and header of the project, with the tools
# of the cached kernel source tree:
#   - checkpatch.pl --strict --no-tree
#   - kernel-doc -none -Wall over the headers and the files with ABI kernel-doc
#   - sparse (C=2) and W=1 over the out-of-tree module build
#   - docutils over Documentation/*.rst
# Fails on any finding.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
tree=$(scripts/kernel-tree.sh)
fail=0

mapfile -t cfiles < <(git ls-files -co --exclude-standard -- '*.c' '*.h' | sort)
mapfile -t hfiles < <(printf '%s\n' "${cfiles[@]}" | grep '\.h$' || true)

echo "lint: checkpatch --strict over ${#cfiles[@]} files"
if ! "$tree/scripts/checkpatch.pl" --strict --no-tree --quiet --terse \
	--show-types -f "${cfiles[@]}"; then
	fail=1
fi

echo "lint: kernel-doc over ${#hfiles[@]} headers and the exported C"
kd_out=$("$tree/scripts/kernel-doc" -none -Wall "${hfiles[@]}" \
	$(grep -l 'EXPORT_SYMBOL' "${cfiles[@]}" || true) 2>&1) || true
if [ -n "$kd_out" ]; then
	echo "$kd_out"
	fail=1
fi

echo "lint: reStructuredText of Documentation/"
for f in Documentation/*.rst; do
	if ! /usr/bin/rst2pseudoxml --halt=warning --report=warning "$f" >/dev/null; then
		fail=1
	fi
done

echo "lint: W=1 and sparse (C=2) build against ${KDIR:-default headers}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
make -s clean >/dev/null
if ! make W=1 C=2 >"$log" 2>&1; then
	cat "$log"
	fail=1
elif grep -E 'warning:|error:' "$log"; then
	fail=1
fi
make -s clean >/dev/null

if [ $fail -ne 0 ]; then
	echo "lint: FAILED" >&2
	exit 1
fi
echo "lint: clean"

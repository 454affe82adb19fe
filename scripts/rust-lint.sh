#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks of the Rust half, in the Rust test kernel's build:
#   - rustfmt --check with the kernel's .rustfmt.toml (what the kernel's
#     rustfmtcheck target runs; that target does not follow the symlink
#     that wires this checkout into the tree)
#   - clippy: rust/vroce_mtr.o rebuilt with CLIPPY=1 and the kernel's lint
#     flags; any warning fails
#   - the checked-in bindings match a fresh bindgen run
#   - every unsafe in rust/ has its id (in its SAFETY comment or # Safety
#     section) and its row in Documentation/safety-audit.rst
#     (scripts/unsafe-audit.py)
set -euo pipefail

. "$(dirname "$0")/rust-build.sh"
fail=0

echo "rust-lint: rustfmt --check"
if ! /usr/bin/rustfmt --check --config-path "$tree/.rustfmt.toml" --edition 2021 \
	"$repo"/rust/*.rs; then
	fail=1
fi

echo "rust-lint: clippy (CLIPPY=1)"
obj=drivers/infiniband/vroce/rust/vroce_mtr.o
rm -f "$build/$obj"
if ! kmake CLIPPY=1 "$obj" >"$build/clippy.log" 2>&1; then
	cat "$build/clippy.log"
	fail=1
elif grep -E -A12 '^(warning|error)' "$build/clippy.log"; then
	fail=1
fi

echo "rust-lint: bindings"
"$repo/scripts/bindings.sh" --check || fail=1

echo "rust-lint: every unsafe audited"
"$repo/scripts/unsafe-audit.py" || fail=1

if [ $fail -ne 0 ]; then
	echo "rust-lint: FAILED" >&2
	exit 1
fi
echo "rust-lint: clean"

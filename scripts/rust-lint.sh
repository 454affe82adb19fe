#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks of the Rust half, in the Rust test kernel's build:
#   - rustfmt --check with the kernel's .rustfmt.toml (what the kernel's
#     rustfmtcheck target runs; that target does not follow the symlink
#     that wires this checkout into the tree)
#   - clippy: rust/vroce_abi.o rebuilt with CLIPPY=1 and the kernel's lint
#     flags; any warning fails
#   - the checked-in bindings match a fresh bindgen run
#   - every unsafe in rust/ has its id (in its SAFETY comment or # Safety
#     section) and its row in Documentation/safety-audit.rst
#     (scripts/unsafe-audit.py)
# KTAP (scripts/ktap.sh), a test per check, the findings as '#' lines.
set -euo pipefail

. "$(dirname "$0")/rust-build.sh"
# shellcheck source=ktap.sh
. "$repo/scripts/ktap.sh"
ktap_print_header
ktap_set_plan 4

if out=$(/usr/bin/rustfmt --check --config-path "$tree/.rustfmt.toml" --edition 2021 \
	"$repo"/rust/*.rs 2>&1); then
	ktap_test_pass "rustfmt --check"
else
	sed 's/^/# /' <<<"$out"
	ktap_test_fail "rustfmt --check"
fi

obj=drivers/infiniband/vroce/rust/vroce_abi.o
rm -f "$build/$obj"
if ! kmake CLIPPY=1 "$obj" >"$build/clippy.log" 2>&1; then
	sed 's/^/# /' "$build/clippy.log"
	ktap_test_fail "clippy (CLIPPY=1)"
elif grep -E -A12 '^(warning|error)' "$build/clippy.log" | sed 's/^/# /' | grep .; then
	ktap_test_fail "clippy (CLIPPY=1)"
else
	ktap_test_pass "clippy (CLIPPY=1)"
fi

if out=$("$repo/scripts/bindings.sh" --check 2>&1); then
	sed 's/^/# /' <<<"$out"
	ktap_test_pass "bindings match a fresh bindgen run"
else
	sed 's/^/# /' <<<"$out"
	ktap_test_fail "bindings match a fresh bindgen run"
fi

if out=$("$repo/scripts/unsafe-audit.py" 2>&1); then
	sed 's/^/# /' <<<"$out"
	ktap_test_pass "every unsafe audited (scripts/unsafe-audit.py)"
else
	sed 's/^/# /' <<<"$out"
	ktap_test_fail "every unsafe audited (scripts/unsafe-audit.py)"
fi
ktap_finished

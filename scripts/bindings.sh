#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bindings/vroce_abi_generated.rs is bindgen's output for the MR/MTR ABI
# (bindings/vroce_bindings.h), checked in so that the Rust code and its
# reviewers read the same file. The Rust test kernel's build generates a
# fresh copy with the kernel's flags (see Kbuild).
#
#   scripts/bindings.sh          regenerate the checked-in file ('make bindings')
#   scripts/bindings.sh --check  fail if it differs from a fresh generation
set -euo pipefail

. "$(dirname "$0")/rust-build.sh"

kmake drivers/infiniband/vroce/ >"$build/bindings.log" 2>&1 || {
	cat "$build/bindings.log" >&2
	exit 1
}
fresh=$build/drivers/infiniband/vroce/rust/vroce_abi_generated.rs
mine=$repo/bindings/vroce_abi_generated.rs

if [ "${1:-}" = --check ]; then
	if ! diff -u "$mine" "$fresh"; then
		echo "bindings: bindings/vroce_abi_generated.rs is stale; run 'make bindings'" >&2
		exit 1
	fi
	echo "bindings: bindings/vroce_abi_generated.rs matches a fresh bindgen run"
else
	cp "$fresh" "$mine"
	echo "bindings: wrote bindings/vroce_abi_generated.rs"
fi

# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the Rust scripts: sets up the Rust test kernel's environment
# (kunit-env.sh with VROCE_ABI_IMPL=rust), makes sure its build dir is
# configured and built, and defines kmake to run make in it.

VROCE_ABI_IMPL=rust
. "$(dirname "${BASH_SOURCE[0]}")/kunit-env.sh"

kmake() {
	make -C "$tree" O="$build" ARCH=um "${make_opts[@]}" -j"$(nproc)" "$@"
}

if [ ! -x "$build/vmlinux" ]; then
	kpy=(python3 "$tree/tools/testing/kunit/kunit.py")
	if ! "${kpy[@]}" config "${kunit_opts[@]}" >"$build/rust-build.log" 2>&1 ||
	   ! "${kpy[@]}" build --jobs="$(nproc)" "${kunit_opts[@]}" >>"$build/rust-build.log" 2>&1; then
		cat "$build/rust-build.log" >&2
		exit 1
	fi
fi

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks over every C file and header of the project, with the tools
# of the cached kernel source tree:
#   - checkpatch.pl --strict --no-tree
#   - kernel-doc -none -Wall over every C file and header
#   - sparse (C=2) and W=1 over the out-of-tree module build, against the
#     default headers and against every installed Debian 12 kernel line
#   - the calls between its objects: no cycle but CQ<->QP, and the graphs
#     of Documentation/design.rst (calls.py)
#   - docutils over Documentation/*.rst
#   - the tests Documentation/badinput.rst names exist (doc-tests.py)
#   - Documentation/device.rst lists the HCA's debugfs files (doc-knobs.py)
# The builds run in a private copy of the checkout's files (tracked and
# untracked, as they are on disk), so a developer's own build in the
# checkout is neither cleaned nor rebuilt.
# KTAP (scripts/ktap.sh), a test per check, the findings as '#' lines;
# fails on any finding.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
tree=$(scripts/kernel-tree.sh --no-wire)
# shellcheck source=ktap.sh
. scripts/ktap.sh
# result DESC FAILED: pass when FAILED is 0, the findings printed before.
result() {
	if [ "$2" -eq 0 ]; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1"
	fi
}
ktap_print_header
ktap_set_plan 13

# The host harness's shim header stands in for kernel headers (typedefs,
# READ_ONCE, min/max): kernel style does not apply to it.
mapfile -t cfiles < <(git ls-files -co --exclude-standard -- '*.c' '*.h' |
		      grep -v '^kunit/host/vroce_host\.h$' | sort)
mapfile -t kfiles < <(printf '%s\n' "${cfiles[@]}" |
		      grep -v '^kunit/host/\|^c/provider/\|^kunit/userspace/')
mapfile -t hfiles < <(printf '%s\n' "${cfiles[@]}" | grep '^kunit/host/')
# The rdma-core provider and its test are user space: <stdint.h> types,
# as rdma-core, and libibverbs' calls return positive errno values.
mapfile -t pfiles < <(printf '%s\n' "${cfiles[@]}" | grep '^c/provider/\|^kunit/userspace/')

fail=0
cp_out=$("$tree/scripts/checkpatch.pl" --strict --no-tree --quiet --terse \
	--show-types -f "${kfiles[@]}" 2>&1) || fail=1
grep -v '^total: 0 errors, 0 warnings, 0 checks' <<<"$cp_out" | sed 's/^/# /' || true
cp_out=$("$tree/scripts/checkpatch.pl" --strict --no-tree --quiet --terse \
	--show-types --ignore PREFER_KERNEL_TYPES,USE_NEGATIVE_ERRNO \
	-f "${pfiles[@]}" 2>&1) || fail=1
grep -v '^total: 0 errors, 0 warnings, 0 checks' <<<"$cp_out" | sed 's/^/# /' || true
# libFuzzer's entry point is CamelCase by its API.
cp_out=$("$tree/scripts/checkpatch.pl" --strict --no-tree --quiet --terse \
	--show-types --ignore CAMELCASE -f "${hfiles[@]}" 2>&1) || fail=1
grep -v '^total: 0 errors, 0 warnings, 0 checks' <<<"$cp_out" | sed 's/^/# /' || true
result "checkpatch --strict over ${#cfiles[@]} files" $fail

fail=0
kd_out=$("$tree/scripts/kernel-doc" -none -Wall "${cfiles[@]}" 2>&1) || true
if [ -n "$kd_out" ]; then
	sed 's/^/# /' <<<"$kd_out"
	fail=1
fi
result "kernel-doc over ${#cfiles[@]} files" $fail

fail=0
for f in Documentation/*.rst; do
	if ! /usr/bin/rst2pseudoxml --halt=warning --report=warning "$f" 2>&1 >/dev/null |
	     sed 's/^/# /'; then
		fail=1
	fi
done
result "reStructuredText of Documentation/" $fail

fail=0
out=$(scripts/doc-tests.py) || fail=1
[ $fail -eq 0 ] && out=$(tail -n 1 <<<"$out")
sed 's/^/# /' <<<"$out"
result "every test Documentation/badinput.rst names exists (scripts/doc-tests.py)" $fail

fail=0
if out=$(scripts/doc-knobs.py); then
	out=$(tail -n 1 <<<"$out")
else
	fail=1
fi
sed 's/^/# /' <<<"$out"
result "Documentation/device.rst lists the HCA's debugfs files (scripts/doc-knobs.py)" $fail

fail=0
out=$(scripts/layers.py) || fail=1
sed 's/^/# /' <<<"$out"
result "include boundaries (scripts/layers.py)" $fail

fail=0
help=$(make -s help)
for t in $(awk '/^\.PHONY:/ { p = 1 } p { print; if ($0 !~ /\\$/) p = 0 }' \
	   Makefile | tr -d '\\' | sed 's/^\.PHONY://'); do
	case $t in all | kdir-set) continue ;; esac
	if ! grep -q "make $t\b" <<<"$help"; then
		ktap_print_msg "lint: make help does not list '$t'"
		fail=1
	fi
done
result "make help lists every target" $fail

ktap_print_msg "lint: W=1 and sparse (C=2) build against ${KDIR:-default headers}"
log=$(mktemp)
src=$(mktemp -d)
trap 'rm -rf "$log" "$src"' EXIT
git ls-files -co --exclude-standard -z |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	xargs -0 cp -P --parents -t "$src" ||
	ktap_exit_fail_msg "lint: cannot copy the checkout to $src"
cd "$src"
fail=0
if ! make W=1 C=2 >"$log" 2>&1; then
	sed 's/^/# /' "$log"
	fail=1
elif grep -E 'warning:|error:' "$log" | sed 's/^/# /' | grep .; then
	fail=1
fi
result "W=1 and sparse (C=2) build" $fail
if [ $fail -eq 0 ]; then
	# Calls between files, from the objects just built: the driver's
	# with the C side of the MR/MTR ABI (c/abi/) form a DAG but for
	# CQ<->QP (retire/clean), the HCA's a DAG, and each is the graph
	# Documentation/design.rst draws (redrawn with the same arguments
	# and --write).
	for args in "--allow vroce_cq.o<->vroce_qp.o --doc Documentation/design.rst:driver c/driver/*.o c/abi/*.o" \
		    "--doc Documentation/design.rst:hca c/hca/*.o"; do
		# shellcheck disable=SC2086 # the globs and options split here
		if out=$("$repo/scripts/calls.py" $args); then
			tail -n 1 <<<"$out" | sed 's/^/# /'
		else
			sed 's/^/# /' <<<"$out"
			fail=1
		fi
	done
	result "calls between files (scripts/calls.py)" $fail
else
	ktap_test_skip "calls between files (scripts/calls.py)" "no build"
fi
make -s clean >/dev/null

# The provider, against Debian's libibverbs, warnings as errors.
fail=0
out=$("$repo/scripts/provider-abi.py") || fail=1
[ $fail -eq 0 ] && out=$(tail -n 1 <<<"$out")
sed 's/^/# /' <<<"$out"
result "the provider's ABI (scripts/provider-abi.py)" $fail
fail=0
pdir=$(mktemp -d)
if ! make -s provider PROVIDER_OUT="$pdir" >"$log" 2>&1; then
	sed 's/^/# /' "$log"
	fail=1
fi
rm -rf "$pdir"
result "the rdma-core provider builds (make provider)" $fail

# A build for silicon: the driver without the emulated HCA.
fail=0
if ! make W=1 VROCE_KCONFIG=CONFIG_VROCE=m >"$log" 2>&1 ||
   grep -E 'warning:|error:' "$log" >/dev/null; then
	sed 's/^/# /' "$log"
	fail=1
elif grep -q ' vroce_hca_\| vroce_hca_' <<<"$(nm vroce.ko)"; then
	ktap_print_msg "lint: the HCA is still in vroce.ko"
	fail=1
fi
result "W=1 build without the emulated HCA (CONFIG_VROCE_HCA unset)" $fail

# Issue 32: every Debian 12 kernel with the RDMA core whose headers are
# installed (scripts/kernel-release.sh --all: 6.12 and 6.1, amd64 and
# rt-amd64), the module and the demo ULP, W=1 and sparse, each adapting
# through its own compile probes (Documentation/compat.rst).
fail=0
kernels=()
while read -r rel hdr; do
	kernels+=("$rel")
	if ! make KDIR="$hdr" W=1 C=2 >"$log" 2>&1 ||
	   grep -E 'warning:|error:' "$log" >/dev/null; then
		ktap_print_msg "lint: against $rel:"
		sed 's/^/# /' "$log"
		fail=1
	fi
	# What the probes found: what c/compat/expected says of this line.
	line=$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"$rel")
	want=$(sed -n "s/^$line://p" "$repo/c/compat/expected" | tr ' ' '\n' | { grep . || true; } | sort | paste -sd ' ')
	got=$({ sed -n 's/^#define VROCE_HAVE_\([A-Z0-9_]*\) 1$/\1/p' \
		c/compat/vroce_compat_gen.h 2>/dev/null || true; } | sort | paste -sd ' ')
	if [ "$want" != "$got" ]; then
		ktap_print_msg "lint: $rel: the compat probes found '$got', c/compat/expected says '$want'"
		fail=1
	fi
	make -s KDIR="$hdr" clean >/dev/null 2>&1 || true
done < <("$repo/scripts/kernel-release.sh" --all)
[ ${#kernels[@]} -gt 0 ] || { ktap_print_msg "lint: no kernel headers found"; fail=1; }
result "W=1 and sparse (C=2) against every installed kernel line: ${kernels[*]}" $fail
cd "$repo"
ktap_finished

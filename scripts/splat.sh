# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# What a kernel splat looks like, in one place, for every boot of a test
# kernel: the KUnit log (scripts/kunit.sh), the UML console
# (scripts/uml-run.sh, under every user-space test), Debian's kernel under
# QEMU (scripts/qemu-load-test.sh, on the guest's dmesg) and the bench
# kernels (scripts/bench.sh). A splat fails the run even where no test
# noticed it. POSIX sh: the QEMU guest sources it with busybox.
#
#   BUG:, general protection, Oops, RIP:   KASAN and the oops paths
#   WARNING:, INFO: possible                WARN_ON(), lockdep
#   soft lockup                             the soft-lockup detector
#   unreferenced object                     a kmemleak report
#   Kernel panic                            the end of the kernel
SPLAT_PATTERN='BUG: |WARNING: |INFO: possible|soft lockup|unreferenced object|Kernel panic|Oops|general protection|RIP: '

# splats FILE: print each splat line of FILE (with its line number) and the
# 20 lines after it, as KTAP diagnostic lines; true when there is one.
splats() {
	grep -qE "$SPLAT_PATTERN" "$1" || return 1
	grep -nE -A20 "$SPLAT_PATTERN" "$1" | sed 's/^/# /'
	return 0
}

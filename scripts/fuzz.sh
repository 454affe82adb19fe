#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The verbs sequence fuzzer (kunit/userspace/vroce_fuzz.c) in the C test
# kernel (KASAN, lockdep, kmemleak): several processes for a bounded time
# on vroce0, through libibverbs and the provider and through the raw
# uverbs write()/ioctl interfaces; a kernel splat on the console fails the
# run (scripts/uml-run.sh), as does a fuzzing process killed by a signal.
# First the seeds that once found a bug (scripts/fuzz-seeds), replayed
# for their operation count; then a new seed (VROCE_VERBS_FUZZ_SEED, default
# random: printed, so that a failing run replays with
# 'VROCE_VERBS_FUZZ_SEED=... scripts/fuzz.sh').
# VROCE_VERBS_FUZZ_SECONDS (default 120) and VROCE_VERBS_FUZZ_PROCS (default 4).
# KTAP (scripts/ktap.sh, through scripts/uml-run.sh --ktap): a test per
# regression seed, the new seed, the unbind after the run, kmemleak.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
secs=${VROCE_VERBS_FUZZ_SECONDS:-120}
procs=${VROCE_VERBS_FUZZ_PROCS:-4}
seed=${VROCE_VERBS_FUZZ_SEED:-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')}
seed=0x${seed#0x}

make -s -C "$repo" provider PROVIDER_OUT="$work" >&2
gcc -O2 -g -rdynamic -Wall -Wextra -Werror -o "$work/vroce_fuzz" \
	"$repo/kunit/userspace/vroce_fuzz.c" -libverbs

awk '!/^#/ && NF' "$repo/scripts/fuzz-seeds" >"$work/seeds"
cat >"$work/run" <<RUN
#!/bin/sh
. "$repo/scripts/ktap.sh"
export RDMAV_DRIVERS=$work/libvroce
ip link set lo up
k=/sys/kernel/debug/kmemleak
ktap_print_header
ktap_set_plan $(($(wc -l <"$work/seeds") + 3))
# Regression seeds: "SEED PROCS OPS  # what it found".
while read -r s p n rest; do
	if timeout 600 $work/vroce_fuzz -s \$s -p \$p -n \$n </dev/null; then
		ktap_test_pass "regression seed \$s"
	else
		ktap_test_fail "regression seed \$s"
	fi
done <"$work/seeds"
if timeout $((secs + 300)) $work/vroce_fuzz -s $seed -p $procs -t $secs; then
	ktap_test_pass "seed $seed, $procs processes, $secs s"
else
	ktap_print_msg "replay: VROCE_VERBS_FUZZ_SEED=$seed scripts/fuzz.sh"
	ktap_test_fail "seed $seed, $procs processes, $secs s"
fi
# What the fuzzing left: unbinding frees every object of the device, and
# warns (a splat) when the driver's own accounting says memory is held.
if echo vroce.0 >/sys/bus/platform/drivers/vroce/unbind; then
	ktap_test_pass "vroce0 unbound after the run"
else
	ktap_test_fail "vroce0 unbound after the run"
fi
if [ -e \$k ]; then
	sleep 6
	echo scan >\$k
	echo scan >\$k
	if grep -q 'unreferenced object' \$k; then
		sed 's/^/# /' \$k
		ktap_test_fail "kmemleak: no leak (\$(grep -c 'unreferenced object' \$k) unreferenced objects after the run)"
	else
		ktap_test_pass "kmemleak: no leak"
	fi
else
	ktap_test_skip "kmemleak: no leak" "no kmemleak in this kernel"
fi
# ib_core's own leak, which the fuzzer no longer sends (vroce_fuzz.c,
# -g): probed last, after the leak check, and shown, not counted.
if [ -e \$k ] && echo vroce.0 >/sys/bus/platform/drivers/vroce/bind &&
   sleep 1 && $work/vroce_fuzz -g -d vroce0 >/tmp/fuzz-g 2>&1; then
	sed 's/^/# /' /tmp/fuzz-g
	sleep 6
	echo scan >\$k
	echo scan >\$k
	if grep -q 'comm "vroce_fuzz"' \$k; then
		ktap_print_msg "fuzz: note: this kernel's ib_core keeps the task of a process whose second GET_CONTEXT ioctl it refused (uverbs_std_types_device.c; not vroce's)"
	else
		ktap_print_msg "fuzz: note: kmemleak did not see a task kept by a refused second GET_CONTEXT ioctl"
	fi
fi
ktap_finished
RUN
chmod +x "$work/run"
VROCE_UML_TIMEOUT=$((secs + 900)) "$repo/scripts/uml-run.sh" --ktap fuzz "$work/run"

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
# Last line: 'fuzz: N passed, N failed, N skipped'.
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

cat >"$work/run" <<RUN
#!/bin/sh
export RDMAV_DRIVERS=$work/libvroce
ip link set lo up
pass=0 fail=0 skip=0
# Regression seeds: "SEED PROCS OPS  # what it found".
grep -v '^#' "$repo/scripts/fuzz-seeds" | while read -r s p n rest; do
	[ -n "\$s" ] || continue
	if timeout 600 $work/vroce_fuzz -s \$s -p \$p -n \$n; then
		echo "fuzz: pass: regression seed \$s"
	else
		echo "fuzz: FAIL: regression seed \$s"
		echo x >>/tmp/fuzz-fail
	fi
done
[ -e /tmp/fuzz-fail ] && fail=\$(wc -l </tmp/fuzz-fail)
if timeout $((secs + 300)) $work/vroce_fuzz -s $seed -p $procs -t $secs; then
	pass=\$((pass + 1))
else
	echo "fuzz: FAIL: seed $seed (replay: VROCE_VERBS_FUZZ_SEED=$seed scripts/fuzz.sh)"
	fail=\$((fail + 1))
fi
# What the fuzzing left: unbinding frees every object of the device, and
# warns (a splat) when the driver's own accounting says memory is held.
if echo vroce.0 >/sys/bus/platform/drivers/vroce/unbind; then
	echo "fuzz: vroce0 unbound after the run"
else
	echo "fuzz: FAIL: unbind after the run"
	fail=\$((fail + 1))
fi
k=/sys/kernel/debug/kmemleak
if [ -e \$k ]; then
	sleep 6
	echo scan >\$k
	echo scan >\$k
	# A known finding, not yet explained (Documentation/testing.rst): one
	# exited fuzzing process's task_struct, pid and signal_struct (7296,
	# 136 and 1384 bytes under this kernel's debug options) still held
	# after the device is unbound. Anything else fails the run.
	sizes=\$(grep -o 'unreferenced object .* (size [0-9]*)' \$k |
		grep -o 'size [0-9]*' | cut -d' ' -f2 | sort -n | tr '\\n' ' ')
	if [ -z "\$sizes" ]; then
		echo "fuzz: kmemleak: no leak"
	elif [ "\$sizes" = "136 1384 7296 " ]; then
		echo "fuzz: kmemleak: the known leak of one exited process (task_struct, pid, signal_struct): skipped"
		skip=1
	else
		cat \$k
		echo "fuzz: FAIL: kmemleak: unreferenced objects of sizes \$sizes"
		fail=\$((fail + 1))
	fi
fi
echo "fuzz: \$pass passed, \$fail failed, \$skip skipped"
[ \$fail -eq 0 ]
RUN
chmod +x "$work/run"
VROCE_UML_TIMEOUT=$((secs + 900)) "$repo/scripts/uml-run.sh" "$work/run"

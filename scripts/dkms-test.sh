#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make dkms' and 'make dkms-remove' on this machine, for the release of
# Debian's 6.12 headers: DKMS adds the tree, builds vroce.ko with
# dkms.conf's MAKE line, signs it with its own key and installs it under
# updates/dkms; modinfo must show the release, the ib_core dependency and
# the signer, and modules.dep must list it; scripts/qemu-load-test.sh
# boots Debian's own kernel of that release with it. Removal must leave
# nothing:
# no DKMS entry, no source tree, no module, no modules.dep line.
# Last line: 'dkms: N passed, N failed'.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-dkms.XXXXXX)
trap 'rm -rf "$work"' EXIT
kdir=$("$repo/scripts/kernel-release.sh" --headers)
rel=$(cat "$kdir/include/config/kernel.release")
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "dkms: ok $*"; }
fail() { failed=$((failed + 1)); echo "dkms: FAIL $*"; }
left() {
	{ dkms status vroce 2>/dev/null | grep . ; ls -d /usr/src/vroce-* 2>/dev/null;
	  find "/lib/modules/$rel" -name 'vroce.ko*' 2>/dev/null;
	  grep -h vroce "/lib/modules/$rel/modules.dep" 2>/dev/null; } || true
}

rsync -a --exclude .git "$repo/" "$work/src/"
make -s -C "$work/src" dkms-remove KDIR="$kdir" >/dev/null 2>&1 || true
t0=$(date +%s)
if make -C "$work/src" dkms KDIR="$kdir" >"$work/log" 2>&1; then
	ok "make dkms: added, built and installed for $rel in $(( $(date +%s) - t0 )) s"
else
	fail "make dkms"
	tail -n 30 "$work/log"
fi
# Read whole first (see scripts/deb.sh): grep -q on the pipe could fail it.
st=$(dkms status vroce)
if grep -q "$rel.*installed" <<<"$st"; then
	ok "dkms status: $(grep "$rel" <<<"$st")"
else
	fail "dkms status: $st"
fi
ko=$(find "/lib/modules/$rel/updates/dkms" -name 'vroce.ko*' 2>/dev/null | head -n 1)
info=$( [ -n "$ko" ] && modinfo "$ko" || true)
if grep -q "^vermagic: *$rel " <<<"$info" && grep -q "^depends:.*ib_core" <<<"$info" &&
   grep -q "^signer:" <<<"$info"; then
	ok "modinfo $ko: vermagic $rel, $(grep '^signer:' <<<"$info" | tr -s ' ')"
else
	fail "modinfo: ${info:-no module}"
fi
grep -q "updates/dkms/vroce.ko" "/lib/modules/$rel/modules.dep" &&
	ok "depmod listed it" || fail "not in modules.dep"

# The DKMS-built module in Debian's own kernel, under QEMU.
if [ -n "$ko" ] && "$repo/scripts/qemu-load-test.sh" "$ko" "$rel" >"$work/qemu" 2>&1; then
	ok "$(grep -m1 'booted under QEMU' "$work/qemu" | sed 's/^qemu: //'): $(tail -n 1 "$work/qemu" | sed 's/^qemu: //')"
else
	fail "the module in Debian's kernel under QEMU"
fi
sed 's/^/  /' "$work/qemu" 2>/dev/null || true

make -s -C "$work/src" dkms-remove KDIR="$kdir" >"$work/rm.log" 2>&1 ||
	fail "make dkms-remove"
rest=$(left)
if [ -z "$rest" ]; then
	ok "make dkms-remove left nothing behind"
else
	fail "left behind: $rest"
fi
echo "dkms: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

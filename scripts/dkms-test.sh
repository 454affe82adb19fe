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
# KTAP (scripts/ktap.sh): six tests, the QEMU boot's own nested.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-dkms.XXXXXX)
trap 'rm -rf "$work"' EXIT
kdir=$("$repo/scripts/kernel-release.sh" --headers)
rel=$(cat "$kdir/include/config/kernel.release")
# shellcheck source=ktap.sh
. "$repo/scripts/ktap.sh"
# shellcheck source=system-lock.sh
. "$repo/scripts/system-lock.sh"
left() {
	{ dkms status vroce 2>/dev/null | grep . ; ls -d /usr/src/vroce-* 2>/dev/null;
	  find "/lib/modules/$rel" -name 'vroce.ko*' 2>/dev/null;
	  grep -h vroce "/lib/modules/$rel/modules.dep" 2>/dev/null; } || true
}

ktap_print_header
ktap_set_plan 6
rsync -a --exclude .git "$repo/" "$work/src/"
make -s -C "$work/src" dkms-remove KDIR="$kdir" >/dev/null 2>&1 || true
t0=$(date +%s)
if make -C "$work/src" dkms KDIR="$kdir" >"$work/log" 2>&1; then
	ktap_test_pass "make dkms: added, built and installed for $rel in $(( $(date +%s) - t0 )) s"
else
	tail -n 30 "$work/log" | sed 's/^/# /'
	ktap_test_fail "make dkms: added, built and installed for $rel"
fi
# Read whole first (see scripts/deb.sh): grep -q on the pipe could fail it.
st=$(dkms status vroce)
if grep -q "$rel.*installed" <<<"$st"; then
	ktap_test_pass "dkms status: $(grep "$rel" <<<"$st")"
else
	sed 's/^/# /' <<<"$st"
	ktap_test_fail "dkms status: installed for $rel"
fi
ko=$(find "/lib/modules/$rel/updates/dkms" -name 'vroce.ko*' 2>/dev/null | head -n 1)
info=$( [ -n "$ko" ] && modinfo "$ko" || true)
if grep -q "^vermagic: *$rel " <<<"$info" && grep -q "^depends:.*ib_core" <<<"$info" &&
   grep -q "^signer:" <<<"$info"; then
	ktap_test_pass "modinfo $ko: vermagic $rel, $(grep '^signer:' <<<"$info" | tr -s ' ')"
else
	sed 's/^/# /' <<<"${info:-no module}"
	ktap_test_fail "modinfo: vermagic $rel, depends on ib_core, signed"
fi
ktap_test_result "depmod listed it" grep -q "updates/dkms/vroce.ko" "/lib/modules/$rel/modules.dep"

# The DKMS-built module in Debian's own kernel, under QEMU.
if [ -n "$ko" ]; then
	ktap_subtest "the module in Debian's kernel under QEMU" \
		"$repo/scripts/qemu-load-test.sh" "$ko" "$rel"
else
	ktap_test_fail "the module in Debian's kernel under QEMU: no module"
fi

if make -s -C "$work/src" dkms-remove KDIR="$kdir" >"$work/rm.log" 2>&1; then
	rest=$(left)
else
	rest="make dkms-remove failed: $(tail -n 5 "$work/rm.log")"
fi
ktap_test_none "make dkms-remove left nothing behind" "$rest"
ktap_finished

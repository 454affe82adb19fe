#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make dkms' and 'make dkms-remove' on this machine, for every kernel of
# Debian 12's 6.1 and 6.12 lines (amd64, rt-amd64) whose headers are
# installed (scripts/kernel-release.sh --all: the releases
# scripts/kernel-pick.sh picks): one 'make dkms' adds the tree and has
# DKMS build vroce.ko with dkms.conf's MAKE line for each of them, sign it
# with its own key and install it under updates/dkms. Per kernel: dkms
# status says installed, modinfo shows its release as vermagic, the
# ib_core dependency and the signer, modules.dep lists it, and, where that
# kernel's image is installed, scripts/qemu-load-test.sh boots Debian's
# own kernel under QEMU with it (install-deps.sh installs the images of
# 6.12 amd64, 6.12 rt-amd64 and 6.1 amd64; 6.1 rt-amd64 gets its headers
# only: a skip says so). Removal must leave nothing for any kernel: no
# DKMS entry, no source tree, no module, no modules.dep line.
# Issue 34: where the image is installed, scripts/qemu-link-test.sh boots
# it twice, two guests joined by a socket link over 127.0.0.1, vroce to
# vroce over 'rdma link add'.
# KTAP (scripts/ktap.sh): two tests and five per kernel, the QEMU boots'
# own nested.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-dkms.XXXXXX)
trap 'rm -rf "$work"' EXIT
# shellcheck source=ktap.sh
. "$repo/scripts/ktap.sh"
# Standard input as KTAP diagnostic lines.
diag() { sed 's/^/# /'; }
mapfile -t kernels < <("$repo/scripts/kernel-release.sh" --all)
if [ ${#kernels[@]} -eq 0 ]; then
	ktap_print_header
	ktap_set_plan 1
	ktap_test_fail "make dkms: no headers of a 6.1 or 6.12 kernel installed (scripts/install-deps.sh)"
	exit 1
fi
rels=()
for k in "${kernels[@]}"; do
	rels+=("${k%% *}")
done
# shellcheck source=system-lock.sh
. "$repo/scripts/system-lock.sh"
left() {
	local rel
	{ dkms status vroce 2>/dev/null | grep . ; ls -d /usr/src/vroce-* 2>/dev/null;
	  for rel in "${rels[@]}"; do
		find "/lib/modules/$rel" -name 'vroce.ko*' 2>/dev/null
		grep -h vroce "/lib/modules/$rel/modules.dep" 2>/dev/null
	  done; } || true
}

ktap_print_header
ktap_set_plan $((2 + 5 * ${#rels[@]}))
rsync -a --exclude .git "$repo/" "$work/src/"
make -s -C "$work/src" dkms-remove >/dev/null 2>&1 || true
t0=$(date +%s)
if make -C "$work/src" dkms >"$work/log" 2>&1; then
	ktap_test_pass "make dkms: added, built and installed for ${rels[*]} in $(( $(date +%s) - t0 )) s"
else
	tail -n 40 "$work/log" | sed 's/^/# /'
	ktap_test_fail "make dkms: added, built and installed for ${rels[*]} ($(( $(date +%s) - t0 )) s)"
fi
# Read whole first (see scripts/deb.sh): grep -q on the pipe could fail it.
st=$(dkms status vroce)
for rel in "${rels[@]}"; do
	if grep -q "$rel.*installed" <<<"$st"; then
		ktap_test_pass "$rel: dkms status: $(grep "$rel" <<<"$st")"
	else
		diag <<<"$st"
		ktap_test_fail "$rel: dkms status: installed"
	fi
	ko=$(find "/lib/modules/$rel/updates/dkms" -name 'vroce.ko*' 2>/dev/null | head -n 1) || true
	info=
	[ -z "$ko" ] || info=$(modinfo "$ko") || info=
	if grep -q "^vermagic: *$rel " <<<"$info" && grep -q "^depends:.*ib_core" <<<"$info" &&
	   grep -q "^signer:" <<<"$info"; then
		ktap_test_pass "$rel: modinfo $ko: vermagic $(sed -n 's/^vermagic: *//p' <<<"$info"), $(grep '^signer:' <<<"$info" | tr -s ' ')"
	else
		diag <<<"${info:-no module}"
		ktap_test_fail "$rel: modinfo: vermagic $rel, depends on ib_core, signed"
	fi
	ktap_test_result "$rel: depmod listed it" \
		grep -q "updates/dkms/vroce.ko" "/lib/modules/$rel/modules.dep"

	# The DKMS-built module in Debian's own kernel, under QEMU.
	boot="$rel: the module in Debian's kernel under QEMU"
	if [ ! -r "/boot/vmlinuz-$rel" ]; then
		ktap_test_skip "$boot" "no linux-image of $rel installed (scripts/install-deps.sh installs the headers only)"
	elif [ -n "$ko" ]; then
		t1=$(date +%s)
		ktap_subtest "$boot" nice -n 10 "$repo/scripts/qemu-load-test.sh" "$ko" "$rel"
		ktap_print_msg "$rel: the QEMU load test took $(( $(date +%s) - t1 )) s"
	else
		ktap_test_fail "$boot: no module"
	fi
	# Issue 34: two guests of that kernel, vroce to vroce over a link.
	link="$rel: vroce to vroce across two QEMU guests (a socket link on 127.0.0.1)"
	if [ ! -r "/boot/vmlinuz-$rel" ]; then
		ktap_test_skip "$link" "no linux-image of $rel installed"
	elif [ -n "$ko" ]; then
		t1=$(date +%s)
		ktap_subtest "$link" nice -n 10 "$repo/scripts/qemu-link-test.sh" "$ko" "$rel"
		ktap_print_msg "$rel: the two-guest link test took $(( $(date +%s) - t1 )) s"
	else
		ktap_test_fail "$link: no module"
	fi
done

if make -s -C "$work/src" dkms-remove >"$work/rm.log" 2>&1; then
	rest=$(left)
else
	rest="make dkms-remove failed: $(tail -n 5 "$work/rm.log")"
fi
ktap_test_none "make dkms-remove left nothing behind for ${rels[*]}" "$rest"
ktap_print_msg "dkms-test: $(( $(date +%s) - t0 )) s in all"
ktap_finished

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make install' against Debian's 6.12 headers, into a staging
# INSTALL_MOD_PATH and DESTDIR: once unsigned, once signed with a
# throwaway key; each time modinfo must show the headers' release in the
# vermagic, the name, the ib_core dependency and the signer (or none), and
# depmod must have listed the module for that release, and the provider
# and its .driver file must be there. KTAP (scripts/ktap.sh): five tests
# per mode.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
kdir=$("$repo/scripts/kernel-release.sh" --headers)
rel=$(cat "$kdir/include/config/kernel.release")
# shellcheck source=ktap.sh
. "$repo/scripts/ktap.sh"

rsync -a --exclude .git "$repo/" "$work/src/"
openssl req -new -nodes -utf8 -sha256 -days 1 -batch -x509 \
	-subj "/CN=vroce install test/" -outform PEM \
	-keyout "$work/key.pem" -out "$work/cert.pem" >/dev/null 2>&1

ktap_print_header
ktap_set_plan 10
for mode in unsigned signed; do
	stage=$work/stage-$mode
	args=(KDIR="$kdir" INSTALL_MOD_PATH="$stage" DESTDIR="$stage")
	[ $mode = signed ] &&
		args+=(VROCE_SIGN_KEY="$work/key.pem" VROCE_SIGN_CERT="$work/cert.pem")
	if ! make -s -C "$work/src" install "${args[@]}" >"$work/log.$mode" 2>&1; then
		tail -n 20 "$work/log.$mode" | sed 's/^/# /'
		ktap_test_fail "$mode: make install"
		for t in modinfo signature depmod provider; do
			ktap_test_skip "$mode: $t" "make install failed"
		done
		continue
	fi
	ktap_test_pass "$mode: make install"
	ko=$(find "$stage/lib/modules/$rel" -name 'vroce.ko*' | head -n 1)
	info=$( [ -n "$ko" ] && modinfo "$ko" || true)
	if grep -q "^vermagic: *$rel " <<<"$info" &&
	   grep -q "^name: *vroce$" <<<"$info" &&
	   grep -q "^depends:.*ib_core" <<<"$info"; then
		ktap_test_pass "$mode: modinfo: ${ko#"$stage"}, vermagic $rel, depends on ib_core"
	else
		sed 's/^/# /' <<<"${info:-no vroce.ko under lib/modules/$rel}"
		ktap_test_fail "$mode: modinfo: vermagic $rel, name vroce, depends on ib_core"
	fi
	if [ $mode = signed ]; then
		if grep -q "^signer: *vroce install test" <<<"$info" &&
		   grep -q "signed with" "$work/log.$mode"; then
			ktap_test_pass "signed: signature: signer 'vroce install test', and make install said so"
		else
			ktap_test_fail "signed: signature: signer 'vroce install test', and make install said so"
		fi
	elif [ -n "$info" ] && ! grep -q "^signer:" <<<"$info" &&
	     grep -q "is not signed" "$work/log.$mode"; then
		ktap_test_pass "unsigned: signature: none, and make install said so"
	else
		ktap_test_fail "unsigned: signature: none, and make install said so"
	fi
	ktap_test_result "$mode: depmod listed it for $rel" \
		grep -q "updates/vroce.ko" "$stage/lib/modules/$rel/modules.dep"
	if [ -f "$stage"/usr/lib/*/libibverbs/libvroce-rdmav34.so ] &&
	   grep -qx 'driver vroce' "$stage/etc/libibverbs.d/vroce.driver"; then
		ktap_test_pass "$mode: provider and vroce.driver installed"
	else
		ktap_test_fail "$mode: provider and vroce.driver installed"
	fi
done
ktap_finished

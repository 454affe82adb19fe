#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make install' against Debian's 6.12 headers, into a staging
# INSTALL_MOD_PATH and DESTDIR: once unsigned, once signed with a
# throwaway key; each time modinfo must show the headers' release in the
# vermagic, the name, the ib_core dependency and the signer (or none), and
# depmod must have listed the module for that release, and the provider
# and its .driver file must be there.
# Last line: 'install: N passed, N failed'.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
kdir=$("$repo/scripts/kernel-release.sh" --headers)
rel=$(cat "$kdir/include/config/kernel.release")
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "install: ok $*"; }
fail() { failed=$((failed + 1)); echo "install: FAIL $*"; }

rsync -a --exclude .git "$repo/" "$work/src/"
openssl req -new -nodes -utf8 -sha256 -days 1 -batch -x509 \
	-subj "/CN=vroce install test/" -outform PEM \
	-keyout "$work/key.pem" -out "$work/cert.pem" >/dev/null 2>&1

for mode in unsigned signed; do
	stage=$work/stage-$mode
	args=(KDIR="$kdir" INSTALL_MOD_PATH="$stage" DESTDIR="$stage")
	[ $mode = signed ] &&
		args+=(VROCE_SIGN_KEY="$work/key.pem" VROCE_SIGN_CERT="$work/cert.pem")
	if ! make -s -C "$work/src" install "${args[@]}" >"$work/log.$mode" 2>&1; then
		fail "$mode: make install"
		tail -n 20 "$work/log.$mode"
		continue
	fi
	ko=$(find "$stage/lib/modules/$rel" -name 'vroce.ko*' | head -n 1)
	if [ -z "$ko" ]; then
		fail "$mode: no vroce.ko under lib/modules/$rel"
		continue
	fi
	info=$(modinfo "$ko")
	grep -q "^vermagic: *$rel " <<<"$info" &&
	grep -q "^name: *vroce$" <<<"$info" &&
	grep -q "^depends:.*ib_core" <<<"$info" &&
		ok "$mode: ${ko#"$stage"}, vermagic $rel, depends on ib_core" ||
		fail "$mode: modinfo: $info"
	if [ $mode = signed ]; then
		grep -q "^signer: *vroce install test" <<<"$info" &&
			ok "signed: signer 'vroce install test'" ||
			fail "signed: no signer in modinfo"
		grep -q "signed with" "$work/log.$mode" || fail "signed: not said"
	else
		! grep -q "^signer:" <<<"$info" && grep -q "is not signed" "$work/log.$mode" &&
			ok "unsigned: no signature, and make install said so" ||
			fail "unsigned: signature or message wrong"
	fi
	grep -q "updates/vroce.ko" "$stage/lib/modules/$rel/modules.dep" &&
		ok "$mode: depmod listed it for $rel" ||
		fail "$mode: not in modules.dep of $rel"
	[ -f "$stage"/usr/lib/*/libibverbs/libvroce-rdmav34.so ] &&
	grep -qx 'driver vroce' "$stage/etc/libibverbs.d/vroce.driver" &&
		ok "$mode: provider and vroce.driver installed" ||
		fail "$mode: provider or vroce.driver missing"
done
echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

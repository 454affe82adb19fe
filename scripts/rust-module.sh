#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The Rust half of vroce as a loadable module: vroce.ko with the Rust
# MR/MTR objects (rust/, CONFIG_VROCE_ABI_RUST) built out of tree, loaded
# into an x86_64 Linux 6.12 kernel with CONFIG_RUST under QEMU.
#
#   scripts/rust-module.sh kernel   print the kernel's build dir, building
#                                   it first when it is not cached
#   scripts/rust-module.sh [test]   that, then the module and its test
#
# The kernel: Debian's linux-source-6.12 (the cached tree,
# scripts/kernel-tree.sh), 'make tinyconfig' plus
# kunit/configs/rust-module.config (CONFIG_RUST, modules without
# MODVERSIONS, ib_core and ib_uverbs built in, a serial console), built
# with clang (LLVM=1), Debian's rustc-web and the cached bindgen
# (scripts/install-bindgen.sh). Its build dir is cached under
# $VROCE_CACHE/build (default ~/.cache/vroce), keyed like the test
# kernels' (scripts/kunit-env.sh) by kernel version, arch, toolchain and
# a hash of the fragment's options, and also of the rustc and bindgen
# versions: a Rust module must be built by the rustc its kernel was built
# with, so another rustc means another kernel. Built once (10-40 minutes
# on two cores); later runs only read it.
#
# The test (KTAP, scripts/ktap.sh): vroce.ko built from a copy of this
# checkout against that build dir ('make deploy-modules KDIR=<build dir>
# LLVM=1 RUSTC=<the kernel's rustc> CONFIG_VROCE_ABI_RUST=y'), the Rust
# objects in it (the crate's symbols, not the C MTR's object), its
# vermagic the kernel's; then, in that kernel under QEMU (TCG, no network
# device) with a busybox initramfs (scripts/qemu-root.sh), rdma-core's
# tools and the provider: insmod, the taint (out-of-tree only), the Rust
# crate's symbols in /proc/kallsyms under [vroce], 'rdma dev' and
# ibv_devinfo list vroce0, two ibv_rc_pingpong pairs and an rping over
# rdma_cm move data (their MRs registered through the provider into the
# Rust MR and MTR objects), rmmod, and dmesg has no splat
# (scripts/splat.sh).
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${VROCE_CACHE:-$HOME/.cache/vroce}
mode=${1:-test}
case $mode in
kernel | test) ;;
*)
	echo "usage: $0 [kernel|test]" >&2
	exit 2
	;;
esac

# The kernel tree is only read: vroce is built out of tree, not wired in.
tree=$("$repo/scripts/kernel-tree.sh" --no-wire)
kver=${tree##*/linux-source-}
# Debian's Rust toolchain (/usr/bin), never a rustup one earlier in PATH,
# as for the UML Rust kernel (scripts/kunit-env.sh).
rustc=/usr/bin/rustc
bindgen=$("$repo/scripts/install-bindgen.sh")
make_opts=(ARCH=x86_64 LLVM=1 RUSTC="$rustc" RUSTDOC=/usr/bin/rustdoc
	   HOSTRUSTC="$rustc" RUSTFMT=/usr/bin/rustfmt
	   CLIPPY_DRIVER=/usr/bin/clippy-driver BINDGEN="$bindgen")
# What a module build needs: the kernel's C compiler and its rustc, no
# bindgen (Kbuild runs it only in the kernel's tree).
mod_opts=(LLVM=1 RUSTC="$rustc")
fragment=$repo/kunit/configs/rust-module.config
# The key: the fragment's options (not its comments), the base config and
# the Rust toolchain's versions.
key=$({ grep -hE '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set$)' "$fragment" |
	sort -u
	echo tinyconfig
	"$rustc" --version
	"$bindgen" --version; } | sha256sum | cut -c1-12)
build=$cache/build/x86_64-llvm-rustmod-$kver-$key
mkdir -p "$build"

kmake() {
	make -C "$tree" O="$build" "${make_opts[@]}" "$@"
}

# The kernel, once: configured, every option of the fragment checked to
# have its value (Kconfig drops what it cannot satisfy, silently), built.
# One build at a time; a run that waited finds the other's result. Its
# messages are KTAP diagnostics, on stderr.
kernel_build() {
	local log=$build/build.log t0 line opt
	exec 8>"$build/.lock"
	flock 8
	[ -s "$build/.vroce-built" ] && return 0
	echo "# rust-module: building the CONFIG_RUST kernel in $build (log: $log)" >&2
	t0=$(date +%s)
	if ! { kmake tinyconfig &&
	       "$tree/scripts/kconfig/merge_config.sh" -m -O "$build" \
			"$build/.config" "$fragment" &&
	       kmake olddefconfig; } >"$log" 2>&1; then
		tail -n 40 "$log" | sed 's/^/# /' >&2
		return 1
	fi
	while read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$build/.config" || {
				echo "# rust-module: $line did not stick (Kconfig dependencies)" >&2
				return 1
			}
			;;
		"# CONFIG_"*" is not set")
			opt=${line#"# "}
			opt=${opt%% *}
			if grep -q "^$opt=" "$build/.config"; then
				echo "# rust-module: $opt is set, the fragment says not" >&2
				return 1
			fi
			;;
		esac
	done <"$fragment"
	if ! kmake -j"$(nproc)" >>"$log" 2>&1; then
		tail -n 40 "$log" | sed 's/^/# /' >&2
		return 1
	fi
	echo "$(( $(date +%s) - t0 ))" >"$build/.vroce-built"
	echo "# rust-module: built in $(cat "$build/.vroce-built") s" >&2
}

if [ "$mode" = kernel ]; then
	kernel_build
	echo "$build"
	exit 0
fi

# shellcheck source=ktap.sh
. "$repo/scripts/ktap.sh"
# shellcheck source=qemu-root.sh
. "$repo/scripts/qemu-root.sh"
# shellcheck source=splat.sh
. "$repo/scripts/splat.sh"
work=$(mktemp -d /tmp/vroce-rustmod.XXXXXX)
trap 'rm -rf "$work"' EXIT
ko=$work/src/vroce.ko

ktap_print_header
ktap_set_plan 5
ktap_print_msg "rust-module: $("$rustc" --version), $("$bindgen" --version)"
cached=
if [ -s "$build/.vroce-built" ]; then
	cached="cached, "
fi
if kernel_build; then
	rel=$(cat "$build/include/config/kernel.release")
	ktap_test_pass "the CONFIG_RUST kernel $rel (${cached}built in $(cat "$build/.vroce-built") s): $build"
else
	ktap_test_fail "the CONFIG_RUST kernel: $build"
	ktap_exit_fail_msg "no kernel to build the module against"
fi
exec 8>&-

# vroce.ko out of tree, as a user builds it ('make deploy-modules', what
# DKMS runs, with KDIR the kernel's build dir), from a copy of what the
# module build reads, the checkout's own build products left out: those
# are the C build's against Debian's headers.
mkdir -p "$work/src"
rsync -a --filter=':- .gitignore' "$repo"/{Kbuild,Kconfig,Makefile,c,bindings,rust} "$work/src/"
if make -C "$work/src" -j"$(nproc)" KDIR="$build" "${mod_opts[@]}" \
	CONFIG_VROCE_ABI_RUST=y deploy-modules >"$work/modules.log" 2>&1 &&
   [ -s "$ko" ]; then
	ktap_test_pass "vroce.ko built out of tree with CONFIG_VROCE_ABI_RUST=y ($(du -k "$ko" | cut -f1) KiB)"
else
	tail -n 40 "$work/modules.log" | sed 's/^/# /'
	ktap_test_fail "vroce.ko built out of tree with CONFIG_VROCE_ABI_RUST=y"
	ktap_exit_fail_msg "no module to load"
fi

# The Rust objects are what the module links: the ABI's functions come
# from the crate's object, the C MTR's object is not in it, and the
# crate's own (mangled) symbols are.
# shellcheck disable=SC2317 # called by ktap_test_result
abi_from_rust() {
	local objs
	objs=$(cat "$work/src/vroce.mod")
	grep -qw rust/vroce_abi.o <<<"$objs" || { echo "# rust/vroce_abi.o is not linked"; return 1; }
	if grep -qw c/abi/vroce_mtr.o <<<"$objs"; then
		echo "# c/abi/vroce_mtr.o is linked"
		return 1
	fi
	nm "$work/src/rust/vroce_abi.o" | grep -q ' T vroce_mtr_create$' ||
		{ echo "# vroce_mtr_create is not defined by rust/vroce_abi.o"; return 1; }
	[ "$(nm "$ko" | grep -c ' [tT] _R.*9vroce_abi')" -gt 0 ] ||
		{ echo "# no symbol of the vroce_abi crate in vroce.ko"; return 1; }
}
ktap_test_result "vroce.ko: the MR/MTR ABI from rust/vroce_abi.o, $(nm "$ko" | grep -c ' [tT] _R.*9vroce_abi') functions of the crate" \
	abi_from_rust

vermagic=$(modinfo -F vermagic "$ko")
if [ "${vermagic%% *}" = "$rel" ] && ! grep -qw modversions <<<"$vermagic"; then
	ktap_test_pass "modinfo: vermagic '$vermagic'"
else
	ktap_test_fail "modinfo: vermagic '$vermagic' is not $rel's without modversions"
fi

# The guest: busybox, the module, rdma-core's tools and the provider.
root=$work/root
qemu_root_init "$root" "$repo"
ln -s busybox "$root/bin/reboot"
cp "$ko" "$root/modules/vroce.ko"
qemu_root_verbs "$root" "$repo"
# No ACPI in this kernel: a reset, which -no-reboot turns into QEMU's exit.
qemu_root_initscript "$root" "reboot -f"
cat >"$root/tests.sh" <<'TESTS'
#!/bin/sh
. /ktap.sh
. /splat.sh
. /guest-verbs.sh
ktap_print_header
ktap_set_plan 10
ip link set lo up
ktap_test_result "insmod vroce (ib_core and ib_uverbs built in)" insmod /modules/vroce.ko
sleep 1
t=$(cat /proc/sys/kernel/tainted)
# 4096: out-of-tree (O). No module signing in this kernel, so nothing else.
if [ "$t" -eq 4096 ]; then
	ktap_test_pass "taint $t (out-of-tree)"
else
	ktap_test_fail "taint $t: only out-of-tree (4096)"
fi
# Rust v0-mangled symbols of the vroce_abi crate, in the loaded module.
# A module's lines: 'address type name<TAB>[module]'.
n=$(grep -cE '^[0-9a-f]+ [tT] _R[^[:space:]]*9vroce_abi[^[:space:]]*[[:space:]]+\[vroce\]$' /proc/kallsyms)
if [ "$n" -gt 0 ] &&
   grep -qE ' [tT] vroce_mtr_create[[:space:]]+\[vroce\]$' /proc/kallsyms; then
	ktap_test_pass "kallsyms: vroce_mtr_create and $n functions of the Rust crate vroce_abi in [vroce]"
else
	ktap_test_fail "kallsyms: the Rust crate vroce_abi in [vroce] ($n functions)"
fi
guest_rdma_dev
guest_devinfo
# Two pairs at once, on two CPUs: 4 KiB messages, and 1 MiB ones (MRs of
# 256 pages, multi-level translation tables in the Rust MTR).
guest_pingpong_pairs 100 20 1048576 "ibv_rc_pingpong, 4 KiB" \
	"ibv_rc_pingpong, 1 MiB, beside it"
# rdma_cm (built in): RDMA READs and WRITEs into MRs the provider
# registered, through the Rust MTR.
guest_rping
if rmmod vroce && ! grep -q '^vroce ' /proc/modules; then
	ktap_test_pass "rmmod vroce"
else
	ktap_test_fail "rmmod vroce"
fi
guest_dmesg_clean
ktap_finished
TESTS
qemu_root_pack "$root" "$work/initrd"

# The guest's KTAP, from its version line to its exit status, as
# scripts/qemu-load-test.sh reads it.
# shellcheck disable=SC2317 # called by ktap_subtest
guest() {
	qemu_root_boot "$build/arch/x86/boot/bzImage" "$work/initrd" "$work/ktap" \
		-m 512
	if [ ! -s "$work/ktap" ]; then
		echo "# qemu: no KTAP from the guest; the console, last lines:"
		tail -n 40 "$work/ktap.console" | tr -d '\r' | sed 's/^/# /'
		return 1
	fi
	cat "$work/ktap"
	echo "# qemu: $rel booted under QEMU (TCG) and ran the tests in $qemu_took s"
	grep -qx '# qemu: tests exited 0' "$work/ktap" &&
		qemu_root_console_clean "$work/ktap"
}
ktap_subtest "the Rust vroce.ko in $rel under QEMU" guest
ktap_finished

# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the scripts that run the UML test kernel; sourced by hand, it
# never exits the shell (a bad setting returns non-zero). VROCE_ABI_IMPL
# picks the kernel: 'c' (default) builds the MTR from c/abi/vroce_mtr.c,
# 'rust' builds a CONFIG_RUST kernel with CONFIG_VROCE_ABI_RUST (rust/),
# with Debian's Rust toolchain and the project's cached bindgen. VROCE_KERNEL
# picks 'debug' (default: KASAN, lockdep, kmemleak, debugfs) or 'nodebug'
# (none of them), 'smp' or 'demo' (below). Sets:
#   repo   the checkout
#   tree   the cached linux-source-6.12 tree, with the checkout wired in
#   build  the cached build dir, keyed by kernel version, arch, toolchain
#          and a hash of the Kconfig options of the kernel's fragments (per
#          checkout but for the shared tree's owner: scripts/kernel-tree.sh)
#   fragments  those fragments: kunit/.kunitconfig, the base, and the ones
#          of kunit/configs/ the kernel adds (kunit.py merges them)
#   kunit  the kunit.py run command, with the arch and toolchain options
#   kunit_opts  those options alone, for kunit.py config/build
#   make_opts   the toolchain's make variables, for direct make calls

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${VROCE_CACHE:-$HOME/.cache/vroce}
tree=$("$repo/scripts/kernel-tree.sh") || return 1

kver=$(basename "$tree")
kver=${kver#linux-source-}
abi_impl=${VROCE_ABI_IMPL:-c}
kernel=${VROCE_KERNEL:-debug}
case "$abi_impl" in
c)
	make_opts=(LLVM=1)
	flavour=um-llvm
	;;
rust)
	# Debian's rustc-web (/usr/bin), never a rustup toolchain earlier in
	# PATH: only Debian's comes with the library source the kernel needs.
	make_opts=(LLVM=1 RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
		   HOSTRUSTC=/usr/bin/rustc RUSTFMT=/usr/bin/rustfmt
		   CLIPPY_DRIVER=/usr/bin/clippy-driver
		   BINDGEN="$("$repo/scripts/install-bindgen.sh")")
	flavour=um-llvm-rust
	;;
*)
	echo "VROCE_ABI_IMPL must be c or rust, not '$abi_impl'" >&2
	return 2
	;;
esac
# The Kconfig of each kernel: the base (kunit/.kunitconfig) and fragments
# of kunit/configs/. Every UML kernel boots guests: DMA emulation (uml),
# the host's root (hostfs), rxe, NVMe over RDMA, and veth, AF_PACKET and
# netem for the port on a netdev (link).
# VROCE_KERNEL=debug: the debug options (debug), with the C or the Rust
# MTR (rust).
# VROCE_KERNEL=nodebug: the same sources without the debug options and
# without debugfs (nodebug, nodebugfs), with the C or the Rust MTR.
# VROCE_KERNEL=smp: an x86_64 kernel that QEMU runs on two CPUs (TCG),
# without KASAN or debugfs, for the figures one CPU cannot give (smp,
# nodebugfs, and rxe for the bench's baseline; C MTR).
# VROCE_KERNEL=demo: what 'make demo' boots, the nodebug options with
# debugfs (the demo's files), built with gcc: no clang to install, the
# quickest build from nothing (nodebug, demo; C MTR).
cfg=$repo/kunit/configs
fragments=("$repo/kunit/.kunitconfig")
uml=("$cfg/uml.config" "$cfg/hostfs.config" "$cfg/rxe.config" "$cfg/nvme.config"
     "$cfg/link.config")
arch=um
qemu_args=()
case "$kernel" in
debug)
	fragments+=("${uml[@]}" "$cfg/debug.config")
	if [ "$abi_impl" = rust ]; then
		fragments+=("$cfg/rust.config")
	fi
	;;
smp)
	fragments+=("$cfg/rxe.config" "$cfg/smp.config" "$cfg/nodebugfs.config")
	flavour=x86_64-llvm-smp
	arch=x86_64
	# TCG, one host thread per CPU (MTTCG): KVM is not on every machine,
	# and where it is nested it can hang the guest at boot.
	qemu_args=(--qemu_args "-smp 2 -accel tcg,thread=multi")
	;;
demo)
	fragments+=("${uml[@]}" "$cfg/nodebug.config" "$cfg/demo.config")
	make_opts=()
	flavour=um-gcc-demo
	;;
nodebug)
	fragments+=("${uml[@]}" "$cfg/nodebug.config" "$cfg/nodebugfs.config")
	flavour=um-llvm-nodebug
	if [ "$abi_impl" = rust ]; then
		fragments+=("$cfg/rust.config")
		flavour=um-llvm-rust-nodebug
	fi
	;;
*)
	echo "VROCE_KERNEL must be debug, nodebug, smp or demo, not '$kernel'" >&2
	return 2
	;;
esac
# The 6.1 line (VROCE_KLINE=6.1, scripts/kernel-tree.sh): the same
# fragments less the options its UML lacks (kunit/configs/drop-6.1),
# copied into the cache.
if [ "${VROCE_KLINE:-6.12}" = 6.1 ]; then
	drop=$(grep -v '^#' "$cfg/drop-6.1" | paste -sd '|')
	d=$cache/fragments-6.1
	mkdir -p "$d"
	line_fragments=()
	for f in "${fragments[@]}"; do
		grep -vE "^(# )?($drop)[= ]" "$f" >"$d/${f##*/}" || true
		line_fragments+=("$d/${f##*/}")
	done
	fragments=("${line_fragments[@]}")
fi
# The key hashes the options, not the files: moving an option from one
# fragment to another, or a comment, rebuilds nothing.
key=$(grep -hE '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set$)' "${fragments[@]}" |
      sort -u | sha256sum | cut -c1-12)
# A checkout with a tree of its own (scripts/kernel-tree.sh) has its build
# dirs beside that tree.
builds=$cache/build
case "$tree" in
"$cache"/checkouts/*) builds=$(dirname "$tree")/build ;;
esac
build=$builds/$flavour-$kver-$key
mkdir -p "$build"

kunit_opts=(--arch="$arch" --build_dir="$build")
for f in "${fragments[@]}"; do
	kunit_opts+=(--kunitconfig="$f")
done
for m in "${make_opts[@]}"; do
	kunit_opts+=(--make_options "$m")
done
kunit=(python3 "$tree/tools/testing/kunit/kunit.py" run --jobs="$(nproc)"
       "${kunit_opts[@]}" "${qemu_args[@]}")

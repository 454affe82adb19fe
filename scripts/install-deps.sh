#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what a vroce target needs on Debian 12 (bookworm), and nothing
# more. Must run as root when something is missing (CI and developer
# machines are root).
#
# Usage: scripts/install-deps.sh [demo|check]
#   demo   what 'make demo' uses: the C toolchain and kernel build tools
#          for the UML test kernel (gcc), linux-source-6.12, libibverbs and
#          its tools, nvme-cli, iproute2
#   check  (default) everything 'make check' and 'make bench' use: the
#          above, and the 6.12 headers and an image of the same release,
#          clang/lld/llvm (the KUnit kernels are LLVM builds), sparse,
#          docutils, Rust and bindgen, clang's sanitizer runtimes,
#          rdma-core's clients, DKMS, QEMU, debhelper and lintian
#
# The kernel release comes from scripts/kernel-pick.sh: the installed
# linux-source-6.12 when its release is complete, else the newest release
# whose source, headers and image (signed, else unsigned) the archive has.
# Its first line of output names the release, every time. Idempotent: when
# all is present it only prints that line (no apt-get update).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
profile=${1:-check}

demo_pkgs=(build-essential bc flex bison libelf-dev libssl-dev python3 perl
	   xz-utils patch kmod iproute2
	   # The provider and the clients the demo runs over it.
	   libibverbs-dev ibverbs-utils
	   # NVMe over RDMA as a client of the kernel's own: 'nvme connect'.
	   nvme-cli)
check_pkgs=("${demo_pkgs[@]}" clang lld llvm sparse rsync python3-docutils
	    # The MTR host harness: clang's ASan, UBSan and libFuzzer runtimes.
	    libclang-rt-14-dev
	    # The Rust half: Debian 12's rustc-web (>= 1.78, with its library
	    # source), clippy and rustfmt; libclang for bindgen, which
	    # scripts/install-bindgen.sh builds (Debian 12's is too old).
	    rustc-web rust-web-src cargo-web rust-web-clippy rustfmt-web
	    libclang-dev
	    # User space beside rxe: the rxe provider, rdma-core's tools,
	    # perftest, pyverbs, the rdma_cm programs.
	    ibverbs-providers rdma-core perftest python3-pyverbs rdmacm-utils
	    # Deployment: DKMS ('make dkms'), openssl for a test signing key;
	    # Debian's own kernel booted under QEMU with busybox in its
	    # initramfs (scripts/qemu-load-test.sh).
	    dkms openssl qemu-system-x86 busybox-static cpio
	    # Debian packages of it ('make deb'): dh-dkms, and lintian.
	    debhelper dh-dkms lintian
	    # qperf's RC atomics beside rxe (scripts/userspace-guest.sh).
	    qperf
	    # issue 31: the system calls of mapped rings (userspace-guest.sh).
	    strace)
case "$profile" in
demo) pkgs=("${demo_pkgs[@]}") ;;
check) pkgs=("${check_pkgs[@]}") ;;
*) echo "usage: $0 [demo|check]" >&2; exit 2 ;;
esac

log() { echo "install-deps: $*" >&2; }

installed_at() {	# PACKAGE [VERSION]: installed (at that version)
	local s
	s=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$1" 2>/dev/null) || return 1
	[ "${s%% *}" = installed ] && { [ -z "${2:-}" ] || [ "${s#* }" = "$2" ]; }
}

# What the pick needs installed that is not: "package=version" words.
kernel_missing() {
	local rel=$1 ver=$2 hdr=$3 img=$4
	installed_at linux-source-6.12 "$ver" || echo "linux-source-6.12=$ver"
	[ "$profile" = check ] || return 0
	installed_at "$hdr" "$ver" || echo "$hdr=$ver"
	installed_at "$img" "$ver" || echo "$img=$ver"
}

missing=()
for p in "${pkgs[@]}"; do
	installed_at "$p" || missing+=("$p")
done

# The pick from the local package lists first: nothing to fetch when it is
# installed and complete.
kmissing=()
if pick=$("$repo/scripts/kernel-pick.sh" 2>/dev/null); then
	read -r rel ver hdr img <<<"$pick"
	mapfile -t kmissing < <(kernel_missing "$rel" "$ver" "$hdr" "$img")
fi

if [ -z "${pick:-}" ] || [ ${#missing[@]} -gt 0 ] || [ ${#kmissing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		[ -n "${pick:-}" ] || kmissing+=("(a 6.12 kernel release)")
		log "missing: ${missing[*]} ${kmissing[*]}; run as root"
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt_q() { apt-get -q -o=Dpkg::Use-Pty=0 "$@"; }
	log "apt-get update"
	apt_q update >/dev/null
	# The archive may have moved: choose again from the fresh lists.
	pick=$("$repo/scripts/kernel-pick.sh" 2>&1) || { log "${pick#kernel-pick: }"; exit 1; }
	read -r rel ver hdr img <<<"$pick"
	mapfile -t kmissing < <(kernel_missing "$rel" "$ver" "$hdr" "$img")
	log "installing ${missing[*]} ${kmissing[*]}"
	apt_q install -y --no-install-recommends --allow-downgrades \
		"${missing[@]}" "${kmissing[@]}" >/dev/null
fi

if [ "$profile" = check ]; then
	log "kernel $rel: linux-source-6.12 $ver, $hdr, $img"
	# bindgen for the Rust test kernel: built once, then cached.
	"$repo/scripts/install-bindgen.sh" >/dev/null
else
	log "kernel $rel: linux-source-6.12 $ver"
fi

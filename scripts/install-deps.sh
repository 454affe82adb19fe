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
#          above, and the headers of Debian 12's four kernels with the
#          RDMA core (6.12 and 6.1, amd64 and rt-amd64), the images of
#          those the QEMU load test boots (6.12 amd64 and rt-amd64, 6.1
#          amd64), linux-source-6.1, clang/lld/llvm (the KUnit kernels
#          are LLVM builds), sparse, docutils, Rust and bindgen, clang's
#          sanitizer runtimes, rdma-core's clients, DKMS, QEMU, debhelper
#          and lintian
#
# Each kernel release comes from scripts/kernel-pick.sh: for 6.12 amd64
# the installed linux-source-6.12 when its release is complete, else the
# newest release whose source, headers and image (signed, else unsigned)
# the archive has; for the others (--line/--flavour) the installed
# headers' release when it is complete, else the newest release whose
# headers and image the archive has. Its first line of output names the
# 6.12 amd64 release, every time (then one line per other kernel with
# 'check'). Idempotent: when all is present it only prints those lines
# (no apt-get update).
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
	    # The source of the 6.1 line, for a 6.1 UML test kernel.
	    linux-source-6.1
	    # qperf's RC atomics beside rxe (scripts/userspace-guest.sh).
	    qperf
	    # issue 31: the system calls of mapped rings (userspace-guest.sh).
	    strace
	    # issue 34: Wireshark's dissectors judge the RoCE v2 packets
	    # (scripts/frames.py, from scripts/kunit.sh).
	    tshark)
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

# The kernels of 'check' besides the 6.12 amd64 pick: LINE FLAVOUR and
# what of it: 'image' (headers and the image the QEMU load test boots) or
# 'headers' (the module build and DKMS only).
more_kernels=("6.12 rt-amd64 image" "6.1 amd64 image" "6.1 rt-amd64 headers")

picks=$(mktemp)
trap 'rm -f "$picks"' EXIT
# What the picks need installed that is not: "package=version" words, one
# a line; each pick's line into $picks. Fails, the pick's one-line
# reason on stderr, when a line and flavour has no complete release.
kernel_missing() {
	local k line flavour what pick rel ver hdr img
	pick=$("$repo/scripts/kernel-pick.sh") || return 1
	read -r rel ver hdr img <<<"$pick"
	installed_at linux-source-6.12 "$ver" || echo "linux-source-6.12=$ver"
	if [ "$profile" != check ]; then
		echo "kernel $rel: linux-source-6.12 $ver" >"$picks"
		return 0
	fi
	echo "kernel $rel: linux-source-6.12 $ver, $hdr, $img" >"$picks"
	installed_at "$hdr" "$ver" || echo "$hdr=$ver"
	installed_at "$img" "$ver" || echo "$img=$ver"
	for k in "${more_kernels[@]}"; do
		read -r line flavour what <<<"$k"
		pick=$("$repo/scripts/kernel-pick.sh" --line "$line" --flavour "$flavour") || return 1
		read -r rel ver hdr img <<<"$pick"
		installed_at "$hdr" "$ver" || echo "$hdr=$ver"
		if [ "$what" = image ]; then
			installed_at "$img" "$ver" || echo "$img=$ver"
			echo "kernel $rel: $hdr, $img" >>"$picks"
		else
			echo "kernel $rel: $hdr" >>"$picks"
		fi
	done
}

missing=()
for p in "${pkgs[@]}"; do
	installed_at "$p" || missing+=("$p")
done

# The picks from the local package lists first: nothing to fetch when
# they are installed and complete.
kmissing=()
picked=0
if km=$(kernel_missing 2>/dev/null); then
	picked=1
	mapfile -t kmissing < <(grep . <<<"$km" || true)
fi

if [ $picked -eq 0 ] || [ ${#missing[@]} -gt 0 ] || [ ${#kmissing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		[ $picked -eq 1 ] || kmissing+=("(a complete release of each kernel)")
		log "missing: ${missing[*]} ${kmissing[*]}; run as root"
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt_q() { apt-get -q -o=Dpkg::Use-Pty=0 "$@"; }
	log "apt-get update"
	apt_q update >/dev/null
	# The archive may have moved: choose again from the fresh lists.
	km=$(kernel_missing 2>&1) || { log "${km##*kernel-pick: }"; exit 1; }
	mapfile -t kmissing < <(grep . <<<"$km" || true)
	log "installing ${missing[*]} ${kmissing[*]}"
	apt_q install -y --no-install-recommends --allow-downgrades \
		"${missing[@]}" "${kmissing[@]}" >/dev/null
fi

while read -r l; do
	log "$l"
done <"$picks"
if [ "$profile" = check ]; then
	# bindgen for the Rust test kernel: built once, then cached.
	"$repo/scripts/install-bindgen.sh" >/dev/null
fi

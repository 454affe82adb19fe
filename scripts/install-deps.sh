#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what vroce needs to build and test on Debian 12 (bookworm).
# Idempotent: prints nothing and changes nothing when all is present.
# Must run as root (CI and developer machines are root).
set -euo pipefail

pkgs=(build-essential bc flex bison libelf-dev libssl-dev python3 perl
      clang lld llvm sparse xz-utils rsync kmod iproute2
      python3-docutils patch
      # The MTR host harness: clang's ASan, UBSan and libFuzzer runtimes.
      libclang-rt-14-dev
      # The Rust half: Debian 12's rustc-web (>= 1.78, with its library
      # source), clippy and rustfmt; libclang for bindgen, which
      # scripts/install-bindgen.sh builds (Debian 12's is too old).
      rustc-web rust-web-src cargo-web rust-web-clippy rustfmt-web
      libclang-dev
      # User space: libibverbs to build the provider against (its private
      # IBVERBS_PRIVATE_34 interface), and the clients that run on it.
      libibverbs-dev ibverbs-utils ibverbs-providers rdma-core perftest
      python3-pyverbs rdmacm-utils
      # NVMe over RDMA as a client of the kernel's own: nvme-cli for
      # 'nvme connect'.
      nvme-cli
      # Deployment: DKMS ('make dkms'), openssl for a test signing key;
      # Debian's own kernel of the headers' release booted under QEMU
      # with busybox in its initramfs (scripts/qemu-load-test.sh).
      dkms openssl qemu-system-x86 busybox-static cpio
      # Debian packages of it ('make deb'): dh-dkms, and lintian over them.
      debhelper dh-dkms lintian)

# The kernel source and the headers of the same 6.12 release.
need_kernel=1
if ls -d /usr/src/linux-source-6.12.tar.xz >/dev/null 2>&1 &&
   ls -d /usr/src/linux-headers-6.12.*-amd64 >/dev/null 2>&1; then
	need_kernel=0
fi

# Debian's own kernel of the headers' release, for the QEMU load test.
for h in /usr/src/linux-headers-6.12.*-amd64; do
	[ -r "$h/include/config/kernel.release" ] || continue
	rel=$(cat "$h/include/config/kernel.release")
	[ -r "/boot/vmlinuz-$rel" ] || pkgs+=("linux-image-$rel")
done

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done

# bindgen for the Rust test kernel: built once, then cached (prints its path).
bindgen() { "$(dirname "$0")/install-bindgen.sh" >/dev/null; }

if [ ${#missing[@]} -eq 0 ] && [ $need_kernel -eq 0 ]; then
	bindgen
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing ${missing[*]} (and kernel 6.12 source/headers: $need_kernel); run as root" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt_q() { apt-get -q -o=Dpkg::Use-Pty=0 "$@"; }

echo "install-deps: apt-get update" >&2
apt_q update >/dev/null

if [ $need_kernel -eq 1 ]; then
	# linux-source-6.12's version names the headers package of the same
	# release: 6.12.117-1~deb12u1 -> linux-headers-6.12.117+deb12-amd64.
	ver=$(apt-cache policy linux-source-6.12 | awk '/Candidate:/ { print $2 }')
	case "$ver" in
	6.12.*) ;;
	*) echo "install-deps: no linux-source-6.12 in the APT sources" >&2; exit 1 ;;
	esac
	up=${ver%%-*}
	missing+=("linux-source-6.12=$ver" "linux-headers-$up+deb12-amd64"
		  "linux-image-$up+deb12-amd64")
fi

echo "install-deps: installing ${missing[*]}" >&2
apt_q install -y --no-install-recommends "${missing[@]}" >/dev/null
bindgen

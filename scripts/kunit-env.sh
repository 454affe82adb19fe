# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the scripts that run the UML test kernel. Sets:
#   repo   the checkout
#   tree   the cached linux-source-6.12 tree, with the checkout wired in
#   build  the cached build dir, keyed by kernel version, arch, toolchain
#          and a hash of kunit/.kunitconfig
#   kunit  the kunit.py run command, with the arch and toolchain options
#   kunit_opts  those options alone, for kunit.py config/build

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${VROCE_CACHE:-$HOME/.cache/vroce}
tree=$("$repo/scripts/kernel-tree.sh")

kver=$(basename "$tree")
kver=${kver#linux-source-}
key=$(sha256sum "$repo/kunit/.kunitconfig" | cut -c1-12)
build=$cache/build/um-llvm-$kver-$key
mkdir -p "$build"

kunit_opts=(--arch=um --make_options LLVM=1 --kunitconfig="$repo/kunit"
	    --build_dir="$build")
kunit=(python3 "$tree/tools/testing/kunit/kunit.py" run --jobs="$(nproc)"
       "${kunit_opts[@]}")

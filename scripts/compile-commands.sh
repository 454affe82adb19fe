#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make compile_commands.json': a compilation database for the driver, the
# HCA and the KUnit suites, so that clangd and editors resolve every
# include and macro the way the test kernel's build does. Made by the
# kernel's own scripts/clang-tools/gen_compile_commands.py from the .cmd
# files of the cached C test kernel build (built first if missing); the
# tree reaches this checkout through drivers/infiniband/vroce, and the
# generator resolves that link, so the paths are this checkout's.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=kunit-env.sh
source "$repo/scripts/kunit-env.sh"

if ! ls "$build"/drivers/infiniband/vroce/c/driver/.*.o.cmd >/dev/null 2>&1; then
	echo "compile-commands: building the C test kernel first" >&2
	python3 "$tree/tools/testing/kunit/kunit.py" build --jobs="$(nproc)" \
		"${kunit_opts[@]}" >&2
fi
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
python3 "$tree/scripts/clang-tools/gen_compile_commands.py" -d "$build" \
	-o "$raw" "$build/drivers/infiniband/vroce"
python3 - "$raw" "$repo/compile_commands.json" "$repo" <<'PY'
import json, os, sys
raw, out, repo = sys.argv[1:]
# The generator resolves the tree's link to this checkout already; drop
# objects of files that no longer exist (a stale build of an old layout).
entries = [e for e in json.load(open(raw))
           if e['file'].startswith(repo + '/') and os.path.exists(e['file'])]
json.dump(entries, open(out, 'w'), indent=1)
print('compile-commands: %d entries in %s' % (len(entries), out))
PY

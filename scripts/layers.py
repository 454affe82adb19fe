#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the include boundaries of the tree (Documentation/design.rst).

  c/driver/  the driver: may include c/ifc/ and bindings/, never c/hca/
  c/abi/     the C implementation of bindings/vroce_abi.h (what rust/ can
             replace): bindings/ only, as the Rust side sees nothing else,
             and its own private headers (c/abi/vroce_obj_life.h)
  c/hca/     the emulated HCA: may include c/ifc/, never c/driver/,
             c/abi/ or bindings/ (it knows the HCA's formats, not the
             driver's ABI)
  c/ifc/     the interface: includes only other c/ifc/ headers
  c/uapi/    the user-space ABI (driver <-> provider): nothing of the rest
  kunit/demo/  the demo ULP: ib_core's public API only, no c/ or bindings/
             but c/compat/ (ib_core's API as it differs between kernels)
  c/compat/  the kernel compatibility headers: include only each other
  c/ifc/vroce_regs.h, the register map: in the driver only the
             hardware-access file c/driver/vroce_hw.c includes it (the HCA
             implements the registers and may); no other c/ifc/ header
             (that would hand it to every includer); kunit/ and rust/ never
  bindings/vroce_abi_generated.rs: rust/bindings.rs alone names it, by
             include!, #[path] or any other way

Prints each violation as 'file:line: what' and exits 1 if there is any.
Usage: scripts/layers.py [repo]
"""

import os
import re
import sys

REGS = 'c/ifc/vroce_regs.h'
HW_FILE = 'c/driver/vroce_hw.c'
GENERATED = 'bindings/vroce_abi_generated.rs'

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
RS_INCLUDE = re.compile(r'include!\s*\(([^)]*)\)')


def place(path):
    for p in ('c/driver/', 'c/abi/', 'c/hca/', 'c/ifc/', 'c/uapi/', 'c/compat/',
              'kunit/demo/',
              'kunit/', 'bindings/', 'rust/'):
        if path.startswith(p):
            return p.rstrip('/')
    return None


def may_include(src, dst):
    """None when src may include dst, else the rule it breaks."""
    s, d = place(src), place(dst)
    if dst == REGS and src != HW_FILE and s != 'c/hca':
        return 'only %s (and the HCA) may include the register map' % HW_FILE
    if s == 'c/driver' and d == 'c/hca':
        return 'the driver includes an HCA file'
    if s == 'c/hca' and d in ('c/driver', 'c/abi', 'bindings', 'c/uapi'):
        return 'the HCA includes a driver file'
    if s == 'c/abi' and d not in ('bindings', 'c/abi'):
        return 'the ABI implementation includes something outside bindings/'
    if s == 'c/uapi' and d != 'c/uapi':
        return 'the user-space ABI includes something outside c/uapi/'
    if s == 'c/ifc' and d != 'c/ifc':
        return 'the interface includes something outside c/ifc/'
    if s == 'c/compat' and d != 'c/compat':
        return 'a compat header includes something outside c/compat/'
    if s == 'kunit/demo' and d not in ('kunit/demo', 'c/compat'):
        return 'the demo ULP includes a vroce header (public API only)'
    if s == 'bindings' and d not in ('bindings',):
        return 'the ABI includes something outside bindings/'
    return None


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '.')
    bad = 0
    checked = 0
    for top in ('c', 'kunit', 'bindings', 'rust'):
        for root, _, files in os.walk(os.path.join(repo, top)):
            for name in sorted(files):
                full = os.path.join(root, name)
                rel = os.path.relpath(full, repo)
                if rel.startswith('kunit/host/'):
                    continue
                if name.endswith(('.c', '.h')):
                    pattern = INCLUDE
                elif name.endswith('.rs'):
                    pattern = RS_INCLUDE
                else:
                    continue
                checked += 1
                with open(full, encoding='utf-8') as f:
                    lines = f.readlines()
                for n, line in enumerate(lines, 1):
                    code = line.split('//', 1)[0]
                    if name.endswith('.rs') and \
                       'vroce_abi_generated' in code and \
                       rel != 'rust/bindings.rs':
                        print('%s:%d: only rust/bindings.rs may include '
                              'the generated bindings' % (rel, n))
                        bad += 1
                        continue
                    m = pattern.search(line)
                    if not m:
                        continue
                    arg = m.group(1)
                    if pattern is RS_INCLUDE:
                        continue
                    dst = os.path.relpath(
                        os.path.normpath(os.path.join(root, arg)), repo)
                    if not os.path.exists(os.path.join(repo, dst)):
                        continue        # a kernel header by a local name
                    why = may_include(rel, dst)
                    if why:
                        print('%s:%d: includes %s: %s' % (rel, n, dst, why))
                        bad += 1
    print('layers: %d files, %d violations' % (checked, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

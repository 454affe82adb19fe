#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check c/provider/vroce_verbs_compat.h against the installed libibverbs.

verbs_set_ops() of libibverbs.so.1 copies every member of the private
struct verbs_context_ops, in order, into the library's copy and most of
them also into a public slot of struct verbs_context (or its ibv_context's
ops) that <infiniband/verbs.h> names. This script disassembles it, and
for every op the provider's header declares with a type (the ops the
provider sets) checks that the member sits at the offset whose public slot
has that op's name; it also checks the structure's size, and the bit and
offset of struct verbs_qp's comp_mask that ibv_qp_to_qp_ex() tests. A libibverbs with
another layout fails here instead of calling the wrong function.

Usage: provider-abi.py [libibverbs.so.1]
"""

import os
import re
import subprocess
import sys
import tempfile

LIB = '/usr/lib/x86_64-linux-gnu/libibverbs.so.1'
HERE = os.path.dirname(os.path.abspath(__file__))
COMPAT = os.environ.get('VROCE_COMPAT_H', os.path.join(
    HERE, '..', 'c', 'provider', 'vroce_verbs_compat.h'))

# Ops kept only in the library's private copy: no public slot to check by.
PRIVATE_ONLY = {'free_context', 'query_port', 'create_cq_ex'}


def set_ops_copies(lib):
    """[(offset in verbs_context_ops, public offset or None)] of the lib."""
    dis = subprocess.run(['objdump', '-d', '--no-show-raw-insn', lib],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r'<verbs_set_ops@@IBVERBS_PRIVATE_\d+>:\n(.*?)\n\n', dis,
                  re.S)
    if not m:
        sys.exit('provider-abi: no verbs_set_ops in %s' % lib)
    body = m.group(1).split('\n')
    # The first load names the ops argument's register, the copy into the
    # private structure goes through one register, into the context
    # through another.
    ops = {}
    cur = None
    for line in body:
        ld = re.search(r'mov\s+(0x[0-9a-f]+)?\(%(r\w+)\),%(r\w+)$', line)
        # An op is loaded through %rax at its offset (the first, at 0,
        # through %rsi below); a load through %rax with no offset is
        # stderr for the warnings' fprintf, not an op.
        if ld and ld.group(2) == 'rax' and ld.group(1):
            cur = int(ld.group(1) or '0', 16)
            ops[cur] = []
            continue
        if ld and line.strip().endswith('(%rsi),%rsi'):
            cur = 0             # the very first load, through %rsi
            ops[cur] = []
            continue
        st = re.search(r'mov\s+%(r\w+),(0x[0-9a-f]+)?\(%(r\w+)\)$', line)
        if st and cur is not None:
            ops[cur].append((st.group(3), int(st.group(2) or '0', 16)))
    return ops


def qp_ex_test(lib):
    """(bit, offset) that ibv_qp_to_qp_ex() of the lib tests."""
    dis = subprocess.run(['objdump', '-d', '--no-show-raw-insn', lib],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r'<ibv_qp_to_qp_ex@@[\w.]+>:\n(.*?)\n\n', dis, re.S)
    t = m and re.search(r'test[bl]\s+\$(0x[0-9a-f]+),(0x[0-9a-f]+)\(%rdi\)',
                        m.group(1))
    if not t:
        sys.exit('provider-abi: no ibv_qp_to_qp_ex test in %s' % lib)
    return int(t.group(1), 16), int(t.group(2), 16)


def compat_qp_ex():
    """(VERBS_QP_EX, offsetof(struct verbs_qp, comp_mask)) of the header."""
    prog = '#include <stdio.h>\n#include "%s"\nint main(void) {\n' % COMPAT
    prog += 'printf("%zu bit\\n%zu off\\n", (size_t)VERBS_QP_EX, ' \
            'offsetof(struct verbs_qp, comp_mask));\nreturn 0; }\n'
    res = {v: k for k, v in run_c(prog).items()}
    return res['bit'], res['off']


def public_slots():
    """{offset in struct verbs_context: op name} from <infiniband/verbs.h>."""
    hdr = open('/usr/include/infiniband/verbs.h').read()
    names = {}
    for struct, prefix in (('verbs_context', ''), ('ibv_context_ops',
                           'context.ops.')):
        body = re.search(r'struct %s\s*\{(.*?)\n\};' % struct, hdr, re.S)
        for n in re.findall(r'\(\s*\*\s*(\w+)\s*\)\s*\(', body.group(1)):
            names[prefix + n] = n.replace('_compat_', '').replace('ibv_', '')
    prog = '#include <stddef.h>\n#include <stdio.h>\n' \
           '#include <infiniband/verbs.h>\nint main(void) {\n'
    for member in names:
        prog += 'printf("%%zu %s\\n", offsetof(struct verbs_context, %s));\n' \
                % (names[member], member)
    prog += 'return 0; }\n'
    return run_c(prog)


def compat_offsets():
    """{op: offset} of the typed ops of the compat header, and its size."""
    hdr = open(COMPAT).read()
    body = re.search(r'struct verbs_context_ops \{(.*?)\n\};', hdr, re.S)
    typed = [n for n in re.findall(r'\(\s*\*\s*(\w+)\s*\)\s*\(([^)]*)\)',
                                   body.group(1)) if n[1].strip() != 'void']
    prog = '#include <stdio.h>\n#include "%s"\nint main(void) {\n' % COMPAT
    for name, _ in typed:
        prog += 'printf("%%zu %s\\n", offsetof(struct verbs_context_ops, %s));\n' \
                % (name, name)
    prog += 'printf("%zu sizeof\\n", sizeof(struct verbs_context_ops));\n'
    prog += 'return 0; }\n'
    return run_c(prog)


def run_c(prog):
    """Build and run @prog; {offset: name} of its 'offset name' lines, and
    'sizeof' for a line named sizeof."""
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, 'p.c'), os.path.join(d, 'p')
        open(src, 'w').write(prog)
        subprocess.run(['gcc', '-o', exe, src], check=True)
        out = subprocess.run([exe], capture_output=True, text=True,
                             check=True).stdout
    res = {}
    for line in out.split('\n'):
        if not line:
            continue
        off, name = line.split()
        if name == 'sizeof':
            res['sizeof'] = int(off)
        else:
            res.setdefault(int(off), name)
    return res


def main():
    lib = sys.argv[1] if len(sys.argv) > 1 else LIB
    copies = set_ops_copies(lib)
    slots = public_slots()
    compat = compat_offsets()
    bad = 0
    size = (max(copies) + 8) if copies else 0
    if compat.pop('sizeof') != size:
        print('provider-abi: verbs_context_ops is %#x bytes in %s' % (size, lib))
        bad += 1
    for off, op in sorted((k, v) for k, v in compat.items()):
        if off not in copies:
            print('provider-abi: %s at %#x: no such member' % (op, off))
            bad += 1
            continue
        # Into the context through its copy in %rcx, or (the first
        # member, stored before the copy is made) through %rdi itself.
        pub = [o for r, o in copies[off] if r in ('rcx', 'rdi')]
        names = {slots.get(o) for o in pub}
        if op in PRIVATE_ONLY:
            ok = not pub
        else:
            ok = op in names
        print('provider-abi: %-16s %#5x public %-24s %s' %
              (op, off, ','.join(sorted(n or '?' for n in names)) or '-',
               'ok' if ok else 'WRONG'))
        bad += not ok
    lib_qp, hdr_qp = qp_ex_test(lib), compat_qp_ex()
    ok = lib_qp == hdr_qp
    print('provider-abi: VERBS_QP_EX %#x at %#x, library %#x at %#x %s' %
          (hdr_qp + lib_qp + ('ok' if ok else 'WRONG',)))
    bad += not ok
    print('provider-abi: %d members, %d ops checked, %d wrong' %
          (len(copies), len(compat), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

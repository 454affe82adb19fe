#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that Documentation/device.rst lists exactly the HCA's debugfs files.

Usage: scripts/doc-knobs.py [RST [C-FILE...]]

The files: the name (a string literal) of every debugfs_create_*() call
but debugfs_create_dir() in c/hca/*.c. The list: the terms of the
definition lists of the "Fault knobs" section of Documentation/device.rst,
lines of one or more ``name`` at the start of a line (``a``, ``b`` names
two). Prints each file the list misses, each listed name no call creates,
each name listed twice and each call whose name is not a literal; exit
status 1 if there is one, 2 when a file cannot be read or the section is
missing.
"""

import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECTION = "Fault knobs"
CREATE = re.compile(r"\bdebugfs_create_(\w+)\s*\(\s*([^,]*?)\s*,")
TERM = re.compile(r"``([^`]+)``(?:, ``([^`]+)``)*$")


def created(paths):
    """{name: [file:line, ...]} of the debugfs files @paths create, and the
    calls whose name is not a string literal."""
    names, unread = {}, []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        # Comments out, lines kept: a comment naming a call is no call.
        text = re.sub(r"/\*.*?\*/|//[^\n]*",
                      lambda m: re.sub(r"[^\n]", " ", m.group(0)), text,
                      flags=re.S)
        for m in CREATE.finditer(text):
            kind, arg = m.groups()
            if kind == "dir":
                continue
            where = "%s:%d" % (os.path.relpath(path, ROOT),
                               text.count("\n", 0, m.start()) + 1)
            lit = re.fullmatch(r'"([^"\\]*)"', arg)
            if lit:
                names.setdefault(lit.group(1), []).append(where)
            else:
                unread.append("%s: debugfs_create_%s(%s, ...)" %
                              (where, kind, arg))
    return names, unread


def listed(path):
    """[(name, line)] of the terms of @path's SECTION section."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    start = None
    for i in range(len(lines) - 1):
        if lines[i] == SECTION and re.fullmatch(r"=+", lines[i + 1]):
            start = i + 2
            break
    if start is None:
        raise ValueError('%s: no "%s" section' % (path, SECTION))
    out = []
    for i in range(start, len(lines)):
        if i + 1 < len(lines) and lines[i] and \
                re.fullmatch(r"=+", lines[i + 1]):
            break                       # the next section
        if TERM.match(lines[i]):
            out += [(n, i + 1) for n in re.findall(r"``([^`]+)``", lines[i])]
    return out


def main():
    rst = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(ROOT, "Documentation", "device.rst")
    cfiles = sys.argv[2:] or sorted(glob.glob(os.path.join(ROOT, "c", "hca",
                                                           "*.c")))
    try:
        names, bad = created(cfiles)
        terms = listed(rst)
    except (OSError, ValueError) as e:
        print("doc-knobs: %s" % e, file=sys.stderr)
        return 2
    bad = ["doc-knobs: %s: name is not a string literal" % u for u in bad]
    rel = os.path.relpath(rst, ROOT)
    seen = {}
    for name, line in terms:
        if name in seen:
            bad.append("doc-knobs: %s:%d: ``%s`` is listed twice (line %d)" %
                       (rel, line, name, seen[name]))
            continue
        seen[name] = line
        if name not in names:
            bad.append("doc-knobs: %s:%d: ``%s``: no such debugfs file in "
                       "c/hca/" % (rel, line, name))
    for name, where in sorted(names.items()):
        if name not in seen:
            bad.append('doc-knobs: %s: debugfs file "%s" is not in %s, "%s"' %
                       (where[0], name, rel, SECTION))
    for msg in bad:
        print(msg)
    print('doc-knobs: %d debugfs files in c/hca/, %d names in %s "%s", '
          "%d problem%s" % (len(names), len(seen), rel, SECTION, len(bad),
                            "" if len(bad) == 1 else "s"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

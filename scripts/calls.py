#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Which object files call (or reference) which, and whether they form a DAG.

Usage: scripts/calls.py [-v] [--allow A<->B[<->C...]]... FILE.o...

For each object, the symbols it defines (nm --defined-only, global) and the
ones it needs (nm -u). An object needing a symbol another one defines is an
edge between them. Prints every edge ("a.o -> b.o", with the symbols under
-v), then every cycle: a strongly connected set of two or more objects.
Objects an --allow names (by base name, or by path when the name has a
'/'; "A<->B" and "A,B" are the same) may call each other both ways: a
cycle among them is listed as allowed, and the check is then made on the
graph in which they are one node, so a cycle through them and any other
object is still caught.

Exit status: 0 when the only cycles are allowed ones, 1 when one is not,
2 on a usage or nm error. $NM names nm (default: nm).

Example, for the emulated HCA after a build:
  scripts/calls.py c/hca/*.o
and for the driver, whose CQs and QPs call each other on purpose:
  scripts/calls.py --allow 'vroce_cq.o<->vroce_qp.o' c/driver/*.o
"""

import argparse
import os
import re
import subprocess
import sys


def nm(path, *flags):
    """The (type, name) pairs nm prints for @path with @flags."""
    cmd = [os.environ.get("NM", "nm"), *flags, path]
    try:
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"calls.py: {' '.join(cmd)}: {e}", file=sys.stderr)
        sys.exit(2)
    syms = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 2:
            syms.append((fields[-2], fields[-1]))
    return syms


def graph(objs):
    """Edges {(a, b): {symbol, ...}}: a needs symbols b defines."""
    owner = {}
    for o in objs:
        for kind, name in nm(o, "--defined-only", "-g"):
            # Global (upper case) or weak (v, w) definitions.
            if kind.isupper() or kind in "vw":
                owner.setdefault(name, o)
    edges = {}
    for o in objs:
        for _, name in nm(o, "-u"):
            b = owner.get(name)
            if b is not None and b != o:
                edges.setdefault((o, b), set()).add(name)
    return edges


def sccs(nodes, edges):
    """Strongly connected components (Tarjan), each a sorted list."""
    succ = {n: sorted(b for (a, b) in edges if a == n) for n in nodes}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for n in nodes:
        if n not in index:
            visit(n)
    return out


def matches(path, entry):
    """Whether --allow entry @entry names @path (by path when it has a '/')."""
    if "/" in entry:
        return os.path.normpath(path) == os.path.normpath(entry)
    return os.path.basename(path) == entry


def print_cycle(title, comp, edges):
    print(f"{title}: " + " ".join(comp))
    for (a, b) in sorted(edges):
        if a in comp and b in comp:
            print(f"  {a} -> {b}: " + " ".join(sorted(edges[(a, b)])))


def main():
    ap = argparse.ArgumentParser(
        description="Object-file call graph: edges, cycles, DAG check.")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="list the symbols behind each edge")
    ap.add_argument("--allow", action="append", default=[], metavar="A<->B",
                    help="these objects may call each other")
    ap.add_argument("objs", nargs="+", metavar="FILE.o")
    args = ap.parse_args()

    objs = list(dict.fromkeys(os.path.normpath(o) for o in args.objs))
    allows = [[g for g in re.split(r"<->|,", a) if g] for a in args.allow]
    if any(len(g) < 2 for g in allows):
        ap.error("--allow names two objects or more")

    edges = graph(objs)
    for (a, b) in sorted(edges):
        line = f"{a} -> {b}"
        if args.verbose:
            line += ": " + " ".join(sorted(edges[(a, b)]))
        print(line)

    # An --allow group (groups sharing an object merge) is one node: its
    # objects may call each other both ways, but no cycle may pass through
    # it and another object.
    unit = {o: o for o in objs}

    def find(o):
        while unit[o] != o:
            o = unit[o]
        return o

    for group in allows:
        for e in group:
            if not any(matches(o, e) for o in objs):
                print(f"calls.py: --allow {e}: no such object",
                      file=sys.stderr)
        members = [o for o in objs if any(matches(o, e) for e in group)]
        for o in members[1:]:
            unit[find(o)] = find(members[0])
    inside = {e: n for e, n in edges.items() if find(e[0]) == find(e[1])}
    for comp in sccs(objs, inside):
        if len(comp) > 1:
            print_cycle("cycle (allowed)", comp, inside)
    units = sorted({find(o) for o in objs})
    outside = {(find(a), find(b)): None for (a, b) in edges
               if find(a) != find(b)}
    bad = 0
    for comp in sccs(units, outside):
        if len(comp) > 1:
            bad += 1
            print_cycle("cycle", sorted(o for o in objs if find(o) in comp),
                        edges)
    print(f"calls: {len(objs)} objects, {len(edges)} edges, "
          f"{bad} disallowed cycle{'' if bad == 1 else 's'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Which object files call (or reference) which, and whether they form a DAG.

Usage: scripts/calls.py [-v] [--allow A<->B[<->C...]]...
                        [--doc RST:NAME [--write] | --rst] FILE.o...

For each object, the symbols it defines (nm --defined-only, global) and the
ones it needs (nm -u). An object needing a symbol another one defines is an
edge between them. Prints every edge ("a.o -> b.o", with the symbols under
-v), then every cycle: a strongly connected set of two or more objects.
Objects an --allow names (by base name, or by path when the name has a
'/'; "A<->B" and "A,B" are the same) may call each other both ways: a
cycle among them is listed as allowed, and the check is then made on the
graph in which they are one node, so a cycle through them and any other
object is still caught.

With --doc RST:NAME the graph is also compared with the one a document
draws: the first literal block after the comment line ".. calls: NAME" in
RST. Each of its lines is "a -> b, c, ..." (what a calls; a line with no
"->" carries on the list of the line before when indented further, else
names an object that calls none), text in parentheses aside. A node is an
object's base name without ".o" and without a leading "vroce_hca_" or
"vroce_" (the full base name is accepted too), so moving a file to
another folder changes nothing. Each edge the objects have and the block
lacks, each edge the block has and the objects lack, each name the block
uses that no object has, and each object the block never names is
printed, and the status is 1. With --write the block is rewritten from
the objects instead. --rst prints the block for the objects and nothing
else: callers before what they call (layers from the top, by name within
one), one line per object that calls another, and one for an object with
no edge at all.

Exit status: 0 when the only cycles are allowed ones (and the document
agrees), 1 when one is not (or it does not), 2 on a usage, nm or read
error. $NM names nm (default: nm).

Example, for the emulated HCA after a build:
  scripts/calls.py c/hca/*.o
and for the driver, whose CQs and QPs call each other on purpose:
  scripts/calls.py --allow 'vroce_cq.o<->vroce_qp.o' c/driver/*.o
checked against, or rewriting, the graphs Documentation/design.rst draws:
  scripts/calls.py --doc Documentation/design.rst:hca c/hca/*.o
  scripts/calls.py --allow 'vroce_cq.o<->vroce_qp.o' \\
          --doc Documentation/design.rst:driver --write c/driver/*.o
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


PREFIXES = ("vroce_hca_", "vroce_")


def node(path):
    """The name of @path's object in a drawn graph: base name, no .o, no
    leading vroce_hca_ or vroce_."""
    base = os.path.basename(path)
    base = base[:-2] if base.endswith(".o") else base
    for p in PREFIXES:
        if base.startswith(p):
            return base[len(p):]
    return base


def layers(nodes, edges):
    """@nodes ordered from the top: each after every node that calls it,
    except within a cycle; by name within a layer."""
    comps = sccs(sorted(nodes), {e: None for e in edges})
    comp_of = {n: i for i, c in enumerate(comps) for n in c}
    above = {i: set() for i in range(len(comps))}
    for (a, b) in edges:
        if comp_of[a] != comp_of[b]:
            above[comp_of[b]].add(comp_of[a])
    depth = {}

    def level(i):
        if i not in depth:
            depth[i] = 1 + max((level(j) for j in above[i]), default=-1)
        return depth[i]

    return sorted(nodes, key=lambda n: (level(comp_of[n]), n))


def rst_block(objs, edges, width=76):
    """The lines of a drawn graph of @objs (indented two spaces)."""
    names = {o: node(o) for o in objs}
    nodes = set(names.values())
    if len(nodes) != len(objs):
        dup = sorted(n for n in nodes
                     if list(names.values()).count(n) > 1)
        raise ValueError("two objects named " + ", ".join(dup))
    succ = {n: set() for n in nodes}
    for (a, b) in edges:
        succ[names[a]].add(names[b])
    named = {(names[a], names[b]) for (a, b) in edges}
    touched = {n for e in named for n in e}
    rows = [n for n in layers(nodes, named) if succ[n] or n not in touched]
    pad = max((len(n) for n in rows if succ[n]), default=0)
    out = []
    for n in rows:
        if not succ[n]:
            out.append("  " + n)
            continue
        line = "  %-*s -> " % (pad, n)
        indent = " " * len(line)
        callees = sorted(succ[n])
        for i, c in enumerate(callees):
            word = c + ("," if i < len(callees) - 1 else "")
            if line != indent and not line.endswith("-> ") and \
                    len(line) + 1 + len(word) > width:
                out.append(line)
                line = indent + word
            else:
                line += ("" if line.endswith("-> ") or line == indent
                         else " ") + word
        out.append(line)
    return out


def find_block(lines, name):
    """(first, end) line indices of the literal block drawn for @name."""
    mark = None
    for i, line in enumerate(lines):
        if re.fullmatch(r"\.\. calls: *" + re.escape(name) + r"\s*", line):
            mark = i
            break
    if mark is None:
        raise ValueError('no ".. calls: %s" line' % name)
    i = mark + 1
    while i < len(lines) and not lines[i].rstrip().endswith("::"):
        i += 1
    i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    first = i
    while i < len(lines) and (not lines[i].strip() or lines[i][0] == " "):
        i += 1
    while i > first and not lines[i - 1].strip():
        i -= 1
    if i == first:
        raise ValueError('no literal block after ".. calls: %s"' % name)
    return first, i


def parse_block(lines):
    """({(a, b)}, {name: line index}) of a drawn graph's @lines, and the
    lines that are not one."""
    edges, names, bad = set(), {}, []
    word = r"[A-Za-z0-9_]+"
    last, last_indent = None, 0
    for i, raw in enumerate(lines):
        text = raw
        while re.search(r"\([^()]*\)", text):
            text = re.sub(r"\([^()]*\)", "", text)
        if not text.strip():
            continue
        indent = len(text) - len(text.lstrip())
        m = re.fullmatch(r"\s*(%s)\s*->\s*(.*?)\s*" % word, text)
        if m:
            src, rest = m.group(1), m.group(2)
        elif last is not None and indent > last_indent:
            src, rest = last, text.strip()
        elif re.fullmatch(r"\s*%s\s*" % word, text):
            src, rest = text.strip(), ""
        else:
            bad.append(i)
            continue
        if src != last or m:
            last, last_indent = src, indent
        names.setdefault(src, i)
        for c in [c.strip() for c in rest.split(",")]:
            if not c:
                continue
            if not re.fullmatch(word, c):
                bad.append(i)
                continue
            names.setdefault(c, i)
            edges.add((src, c))
    return edges, names, bad


def check_doc(spec, objs, edges, write):
    """Compare (or with @write, replace) the graph @spec (RST:NAME) draws
    with @edges of @objs; the number of differences."""
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise ValueError("--doc %s: not RST:NAME" % spec)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    first, end = find_block(lines, name)
    want = rst_block(objs, edges)
    where = "%s (%s)" % (path, name)
    if write:
        if lines[first:end] != want:
            lines[first:end] = want
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            print("calls: %s rewritten" % where)
        return 0
    drawn, names, bad = parse_block(lines[first:end])
    known = {node(o): node(o) for o in objs}
    known.update({os.path.basename(o)[:-2]: node(o) for o in objs
                  if o.endswith(".o")})
    problems = ["calls: %s:%d: not a line of a graph: %s" %
                (path, first + i + 1, lines[first + i].strip()) for i in bad]
    for n, i in sorted(names.items(), key=lambda x: x[1]):
        if n not in known:
            problems.append("calls: %s:%d: '%s' is none of the objects" %
                            (path, first + i + 1, n))
    drawn = {(known.get(a, a), known.get(b, b)) for (a, b) in drawn}
    have = {(node(a), node(b)) for (a, b) in edges}
    for (a, b) in sorted(have - drawn):
        problems.append("calls: %s lacks %s -> %s" % (where, a, b))
    for (a, b) in sorted(drawn - have):
        problems.append("calls: %s has %s -> %s, which the objects do not"
                        % (where, a, b))
    seen = {known.get(n, n) for n in names}
    for o in objs:
        if node(o) not in seen:
            problems.append("calls: %s never names %s" % (where, o))
    for p in problems:
        print(p)
    return len(problems)


def main():
    ap = argparse.ArgumentParser(
        description="Object-file call graph: edges, cycles, DAG check.")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="list the symbols behind each edge")
    ap.add_argument("--allow", action="append", default=[], metavar="A<->B",
                    help="these objects may call each other")
    ap.add_argument("--doc", metavar="RST:NAME",
                    help="compare with the graph RST draws for NAME")
    ap.add_argument("--write", action="store_true",
                    help="with --doc: rewrite that graph from the objects")
    ap.add_argument("--rst", action="store_true",
                    help="print the graph as a document draws it, only")
    ap.add_argument("objs", nargs="+", metavar="FILE.o")
    args = ap.parse_args()
    if args.write and not args.doc:
        ap.error("--write needs --doc")
    if args.rst and args.doc:
        ap.error("--rst and --doc exclude each other")

    objs = list(dict.fromkeys(os.path.normpath(o) for o in args.objs))
    allows = [[g for g in re.split(r"<->|,", a) if g] for a in args.allow]
    if any(len(g) < 2 for g in allows):
        ap.error("--allow names two objects or more")

    edges = graph(objs)
    if args.rst:
        try:
            print("\n".join(rst_block(objs, edges)))
        except ValueError as e:
            print("calls.py: %s" % e, file=sys.stderr)
            return 2
        return 0
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
    drift = 0
    if args.doc:
        try:
            drift = check_doc(args.doc, objs, edges, args.write)
        except (OSError, ValueError) as e:
            print("calls.py: %s" % e, file=sys.stderr)
            return 2
    print(f"calls: {len(objs)} objects, {len(edges)} edges, "
          f"{bad} disallowed cycle{'' if bad == 1 else 's'}" +
          (f", {drift} difference{'' if drift == 1 else 's'} from "
           f"{args.doc}" if args.doc and not args.write else ""))
    return 1 if bad or drift else 0


if __name__ == "__main__":
    sys.exit(main())

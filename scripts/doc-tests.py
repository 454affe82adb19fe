#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that every test Documentation/badinput.rst names exists.

Usage: scripts/doc-tests.py [RST]

Each table row's last cell names the tests that assert the row:
  suite.case      a KUnit case: a KUNIT_CASE*() of function suite_case (or
                  case) in kunit/*.c, in a file that declares suite
  "parameter"     after a KUnit case: a string literal in kunit/*.c
  host:"case"     a case of the host harness: a string literal in
                  kunit/host/*.c
  uverbs: message a check message of kunit/uverbs/vroce_uverbs_test.c
  vroce_verbs_test: / vroce_prov_test: message
                  a check message of a program of kunit/userspace/
                  ("..." stands for any text; a quoted message is one of
                  several in a comma-separated list)
Words in parentheses are labels of a loop and are not checked. Prints
each name that is not found with its row; exit status 1 if there is one.
"""

import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(pattern):
    out = {}
    for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
        with open(path, encoding="utf-8") as f:
            out[path] = f.read()
    return out


def literals(text):
    """The C string literals of @text, adjacent ones joined."""
    lits = []
    for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"(?:\s*"((?:[^"\\\n]|\\.)*)")*', text):
        lits.append(re.sub(r'"\s*"', "", m.group(0))[1:-1])
    return lits


QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def split_top(cell):
    """@cell's parts at each ';' outside quotes and parentheses."""
    parts, cur, depth, quote = [], "", 0, False
    for i, ch in enumerate(cell):
        if ch == '"' and (i == 0 or cell[i - 1] != "\\"):
            quote = not quote
        elif not quote and ch == "(":
            depth += 1
        elif not quote and ch == ")":
            depth = max(depth - 1, 0)
        elif not quote and depth == 0 and ch == ";":
            parts.append(cur.strip())
            cur = ""
            continue
        cur += ch
    parts.append(cur.strip())
    return [p for p in parts if p]


def strip_parens(text):
    """@text without its parenthesised labels, nested ones too."""
    prev = None
    while prev != text:
        prev, text = text, re.sub(r"\([^()]*\)", "", text)
    return text.strip()


def rows(rst):
    """(number, test cell) of every list-table row with five cells."""
    out = []
    for block in re.split(r"\n   \* - ", rst)[1:]:
        block = re.split(r"\n\n(?=\S)", block)[0]
        cells = re.split(r"\n     - ", block)
        if len(cells) == 5 and cells[0].strip() != "#":
            out.append((cells[0].strip(), " ".join(cells[4].split())))
    return out


SPEC = re.compile(r"%[-+ #0-9.*l]*[a-zA-Z]")


def fmt_regexes(lits):
    """Per literal with a %-spec: the regexes of its prefixes that hold a
    word of its own text, each spec a group ('%s' may be any text)."""
    out = []
    word = re.compile(r"[A-Za-z_]{2,}")
    for lit in lits:
        lit = lit.replace('\\"', '"')
        pieces = SPEC.split(lit)
        if len(pieces) < 2:
            continue
        pres = []
        rx = fixed = ""
        for i, piece in enumerate(pieces):
            if i:
                # A spec right after a quote prints the input quoted: any text.
                rx += "(?P<q%d>.+?)" % i if fixed.endswith('"') else "(.+?)"
                if word.search(fixed):
                    pres.append(re.compile(rx + "$", re.S))
            for j in range(1, len(piece) + 1):
                if word.search(fixed + piece[:j]):
                    pres.append(re.compile(rx + re.escape(piece[:j]) + "$", re.S))
            rx += re.escape(piece)
            fixed += piece
        if word.search(fixed):
            out.append((lit, pres, re.compile(rx + "$", re.S)))
    return out


def message_found(msg, lits, fmts, depth=0):
    """A message, '...' at its end for 'and more', is one of @lits or is
    printed by one of @fmts with its %-specs filled in: by a word, or by
    text that is itself found so (one level)."""
    msg = msg.strip()
    cut = msg.endswith("...") or msg.endswith('..."')
    if cut:
        msg = msg[:msg.rindex("...")]
    if msg in lits or any(x.startswith(msg) and (cut or x[len(msg)] == ":")
                          for x in lits if len(x) > len(msg)):
        return True
    for _, pres, full in fmts:
        ends = [r for r in pres if r.pattern.endswith(".+?)$")]
        for rx in (pres if cut else ends + [full]):
            m = rx.match(msg)
            if not m:
                continue
            free = {m.start(k) for k in m.groupdict()}
            if all(m.start(i) in free or len(g.split()) <= 1 or
                   (depth == 0 and message_found(g, lits, fmts, 1))
                   for i, g in enumerate(m.groups(), 1)):
                return True
    return False


def main():
    rst_path = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(ROOT, "Documentation", "badinput.rst")
    with open(rst_path, encoding="utf-8") as f:
        rst = f.read()
    kunit = read("kunit/*.c")
    host = read("kunit/host/*.c")
    uverbs = read("kunit/uverbs/*.c")

    suite_files = {}
    cases = {}
    for path, text in kunit.items():
        for s in re.findall(r'\.name\s*=\s*"(vroce_[a-z0-9_]+)"', text):
            suite_files.setdefault(s, []).append(path)
        cases[path] = set(re.findall(r"KUNIT_CASE[A-Z_]*\(\s*([a-z0-9_]+)", text))
    kunit_lits = {x for t in kunit.values() for x in literals(t)}
    kunit_fmts = fmt_regexes(kunit_lits)
    host_lits = {x for t in host.values() for x in literals(t)}
    uverbs_lits = {x for t in uverbs.values() for x in literals(t)}
    uverbs_fmts = fmt_regexes(uverbs_lits)

    verbs = read("kunit/userspace/*.c")
    verbs_lits = {x for t in verbs.values() for x in literals(t)}
    verbs_fmts = fmt_regexes(verbs_lits)

    bad = 0
    for num, cell in rows(rst):
        missing = []
        for part in split_top(cell):
            quoted = [q.replace('\\"', '"') for q in QUOTED.findall(part)]
            for kind, lits, fmts in (("uverbs:", uverbs_lits, uverbs_fmts),
                                     ("vroce_verbs_test:", verbs_lits, verbs_fmts),
                                     ("vroce_prov_test:", verbs_lits, verbs_fmts)):
                if part.startswith(kind):
                    rest = part[len(kind):].strip()
                    for m in quoted if rest.startswith('"') else [rest]:
                        if not message_found(m, lits, fmts):
                            missing.append(kind + " " + m.strip())
                    break
            else:
                if part.startswith("scripts/"):
                    if not os.path.exists(os.path.join(ROOT, part.split()[0])):
                        missing.append(part)
                    continue
                if part.startswith("host:"):
                    missing += ['host:"%s"' % m for m in quoted if m not in host_lits]
                    continue
                bare = strip_parens(QUOTED.sub("", part))
                m = re.match(r"(vroce_[a-z0-9_]+)\.([a-z0-9_]+)\s*$", bare)
                if not m:
                    missing.append("unreadable: " + part)
                    continue
                suite, case = m.groups()
                names = {suite + "_" + case, case, "vroce_" + case}
                if not any(names & cases[p] for p in suite_files.get(suite, [])):
                    missing.append(suite + "." + case)
                missing += ['%s.%s "%s"' % (suite, case, q) for q in quoted
                            if not message_found(q, kunit_lits, kunit_fmts)]
        for name in missing:
            print("doc-tests: row %s names %s, which no test has" % (num, name))
            bad += 1
    total = len(rows(rst))
    print("doc-tests: %d rows of %s, %d names not found" %
          (total, os.path.relpath(rst_path, ROOT), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

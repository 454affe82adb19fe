#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that Documentation/safety-audit.rst lists every unsafe in rust/.

Scans rust/*.rs for every use of the `unsafe` keyword in code (comments,
string and character literals and attributes such as
`#![allow(unsafe_op_in_unsafe_fn)]` or `#[unsafe(no_mangle)]` do not
count) and names each site by what stays put when lines move:

  file     rust/NAME.rs
  key      the enclosing function, qualified by the self type of the impl
           it is in (`impl X`, `impl<T> X<T>`, `impl Trait for X` all give
           `X::f`; a function nested in a function gives `outer::inner`);
           for an unsafe fn its own name, so qualified; for an unsafe impl
           `Trait for X`; for an unsafe trait its name. When one file has
           more than one site of the same key and kind, each gets its
           ordinal in source order: `CoreBox::drop #1`, `CoreBox::drop #2`.
  kind     block   `unsafe { ... }`
           fn      `unsafe fn`, `pub unsafe extern "C" fn`,
                   `pub(crate) unsafe fn`, ...
           impl    `unsafe impl`
           trait   `unsafe trait`
           extern  `unsafe extern "C" { ... }`
           An `unsafe` followed by anything else is reported as unknown.
           `unsafe fn(...)` and `unsafe extern "C" fn(...)` are pointer
           types, not sites.

The document's rows are the list-table rows of its "Unsafe Rust" section
whose first cell is a literal key and whose second is the kind, under a
subsection titled with the file:

  ``rust/mem.rs``
  ---------------
  .. list-table::
     * - ``DmaBuf::read_entry``
       - block

Where the section states totals ("holds **N** uses", "N ``unsafe``
blocks", "N ``unsafe fn``") they are checked too.

Prints each site missing from the document, each row matching no site,
each duplicated row and each wrong total, and exits 1 if there is any;
otherwise prints the count and exits 0. Exit status 2 when a file cannot
be read or the document has no "Unsafe Rust" section.
Usage: scripts/unsafe-audit.py [repo]
"""

import collections
import glob
import os
import re
import sys

DOC = 'Documentation/safety-audit.rst'
SECTION = 'Unsafe Rust'

IDENT_CHAR = re.compile(r'[A-Za-z0-9_]')
RAW_STRING = re.compile(r'(?:br|cr|r)(#*)"')
PREFIXED = re.compile(r"(?:b|c)[\"']")
TOKEN = re.compile(r'[A-Za-z_][A-Za-z0-9_]*|"[^"]*"|->|=>|::|\S')

Site = collections.namedtuple('Site', 'file line name kind')


def blank(text):
    """The text with every character but newlines turned into a space."""
    return re.sub(r'[^\n]', ' ', text)


def strip_code(src):
    """The source with comments and literal contents blanked.

    A string literal becomes a pair of quotes around blanks, a character
    literal blanks; newlines are kept, so line numbers stay right.
    """
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        starts_word = i == 0 or not IDENT_CHAR.match(src[i - 1])
        if src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            out.append(blank(src[i:j]))
            i = j
        elif src.startswith('/*', i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith('/*', j):
                    depth, j = depth + 1, j + 2
                elif src.startswith('*/', j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(src[i:j]))
            i = j
        elif starts_word and RAW_STRING.match(src, i):
            m = RAW_STRING.match(src, i)
            end = src.find('"' + m.group(1), m.end())
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append('"' + blank(src[i + 1:end - 1]) + '"')
            i = end
        elif starts_word and PREFIXED.match(src, i):
            out.append(' ')             # the b or c prefix
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == '\\' else 1
            j = min(j + 1, n)
            out.append('"' + blank(src[i + 1:j - 1]) + '"')
            i = j
        elif c == "'":
            if i + 1 < n and src[i + 1] == '\\':
                j = i + 2
                while j < n and src[j] != "'":
                    j += 2 if src[j] == '\\' else 1
                j = min(j + 1, n)
            elif i + 2 < n and src[i + 2] == "'":
                j = i + 3
            else:                       # a lifetime or a label
                out.append(c)
                i += 1
                continue
            out.append(blank(src[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def strip_attributes(code):
    """The code with every #[...] and #![...] blanked."""
    out = []
    i, n = 0, len(code)
    attr = re.compile(r'#!?\s*\[')
    while i < n:
        m = attr.search(code, i)
        if not m:
            out.append(code[i:])
            break
        out.append(code[i:m.start()])
        depth, j = 1, m.end()
        while j < n and depth:
            if code[j] == '[':
                depth += 1
            elif code[j] == ']':
                depth -= 1
            j += 1
        out.append(blank(code[m.start():j]))
        i = j
    return ''.join(out)


def tokens(code):
    """(text, line) of each token of stripped code."""
    line, pos = 1, 0
    for m in TOKEN.finditer(code):
        line += code.count('\n', pos, m.start())
        pos = m.start()
        yield m.group(0), line


def type_name(toks):
    """The name of the type in toks: its last path segment, no generics."""
    depth, name = 0, None
    for t in toks:
        if t == '<':
            depth += 1
        elif t == '>':
            depth -= 1
        elif depth == 0 and re.match(r'[A-Za-z_]', t) and \
                t not in ('mut', 'const', 'dyn', 'crate', 'self', 'super'):
            name = t
    return name or '?'


def impl_header(toks, k):
    """(trait, self type) of the impl whose `impl` token is toks[k]."""
    j = k + 1
    if j < len(toks) and toks[j][0] == '<':     # impl<T>
        depth = 0
        while j < len(toks):
            t = toks[j][0]
            depth += (t == '<') - (t == '>')
            j += 1
            if depth == 0:
                break
    head, depth = [], 0
    while j < len(toks) and toks[j][0] not in ('{', ';', 'where'):
        t = toks[j][0]
        depth += (t == '<') - (t == '>')
        head.append((t, depth))
        j += 1
    for i, (t, d) in enumerate(head):
        if t == 'for' and d == 0:
            return (type_name(x for x, _ in head[:i]),
                    type_name(x for x, _ in head[i + 1:]))
    return None, type_name(x for x, _ in head)


def scan(path, rel):
    """Every unsafe site of one file, in source order."""
    with open(path, encoding='utf-8') as f:
        code = strip_attributes(strip_code(f.read()))
    toks = list(tokens(code))
    sites = []
    # Frames of the open braces: (kind, name) with kind 'fn', 'impl' or
    # None; a fn's name is already qualified.
    stack = []
    pending = None      # (kind, name, nesting) of an item before its body
    nesting = 0         # open ( and [
    prev = None

    def qualifier():
        for kind, name in reversed(stack):
            if kind:
                return name
        return None

    def enclosing_fn():
        for kind, name in reversed(stack):
            if kind == 'fn':
                return name
        return qualifier() or '(top level)'

    def qualified(name):
        q = qualifier()
        return '%s::%s' % (q, name) if q else name

    def tok(j):
        return toks[j][0] if j < len(toks) else ''

    for k, (t, line) in enumerate(toks):
        if t == 'unsafe':
            j = k + 1
            if tok(j) == 'extern':
                j += 1
                if tok(j).startswith('"'):
                    j += 1
            nxt = tok(j)
            if nxt == '{' and tok(k + 1) == '{':
                sites.append(Site(rel, line, enclosing_fn(), 'block'))
            elif nxt == '{':
                sites.append(Site(rel, line, enclosing_fn(), 'extern'))
            elif nxt == 'fn' and re.match(r'[A-Za-z_]', tok(j + 1)):
                sites.append(Site(rel, line, qualified(tok(j + 1)), 'fn'))
            elif nxt == 'fn' and tok(j + 1) == '(':
                pass                    # a function pointer type
            elif nxt == 'impl' and j == k + 1:
                trait, self_ty = impl_header(toks, j)
                name = '%s for %s' % (trait, self_ty) if trait else self_ty
                sites.append(Site(rel, line, name, 'impl'))
            elif nxt == 'trait' and j == k + 1:
                sites.append(Site(rel, line, qualified(tok(j + 1)), 'trait'))
            else:
                sites.append(Site(rel, line, 'unsafe %s' % nxt, 'unknown'))
        elif t == 'fn' and re.match(r'[A-Za-z_]', tok(k + 1)):
            pending = ('fn', qualified(tok(k + 1)), nesting)
        elif t == 'impl' and pending is None and \
                prev in (None, '{', '}', ';', 'unsafe', 'default'):
            pending = ('impl', impl_header(toks, k)[1], nesting)
        elif t == 'trait' and pending is None and \
                re.match(r'[A-Za-z_]', tok(k + 1)):
            pending = ('impl', tok(k + 1), nesting)
        elif t in '([' and len(t) == 1:
            nesting += 1
        elif t in ')]' and len(t) == 1:
            nesting -= 1
        elif t == ';' and pending and pending[2] == nesting:
            pending = None              # a declaration without a body
        elif t == '{':
            if pending and pending[2] == nesting:
                stack.append(pending[:2])
                pending = None
            else:
                stack.append((None, None))
        elif t == '}':
            if stack:
                stack.pop()
        prev = t
    return sites


def keyed(sites):
    """{(file, key, kind): site}, with ordinals where a key repeats."""
    groups = collections.OrderedDict()
    for s in sites:
        groups.setdefault((s.file, s.name, s.kind), []).append(s)
    out = collections.OrderedDict()
    for (f, name, kind), group in groups.items():
        for i, s in enumerate(group, 1):
            key = '%s #%d' % (name, i) if len(group) > 1 else name
            out[(f, key, kind)] = s
    return out


def doc_rows(path):
    """The rows of the Unsafe Rust section, and the section's text.

    Returns ([(file, key, kind, line)], text, errors); raises ValueError
    when the section is missing.
    """
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    start = None
    for i in range(len(lines) - 1):
        if lines[i] == SECTION and re.fullmatch(r'=+', lines[i + 1]):
            start = i + 2
            break
    if start is None:
        raise ValueError('%s: no "%s" section' % (path, SECTION))
    end = len(lines)
    for i in range(start, len(lines) - 1):
        if lines[i] and re.fullmatch(r'=+', lines[i + 1]) and \
                not lines[i].startswith('='):
            end = i
            break
    rows, errors, cur = [], [], None
    for i in range(start, end):
        text = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ''
        m = re.fullmatch(r'``(rust/[^`]+\.rs)``', text)
        if m and re.fullmatch(r'-+', nxt):
            cur = m.group(1)
            continue
        m = re.fullmatch(r'\s*\* - ``([^`]+)``\s*', text)
        if not m:
            continue
        k = re.fullmatch(r'\s*- (\w+)\s*', nxt)
        if not k:
            errors.append('%s:%d: row ``%s`` has no kind in its second '
                          'cell' % (DOC, i + 1, m.group(1)))
            continue
        if cur is None:
            errors.append('%s:%d: row ``%s`` is under no ``rust/*.rs`` '
                          'title' % (DOC, i + 1, m.group(1)))
            continue
        rows.append((cur, m.group(1), k.group(1), i + 1))
    return rows, ' '.join(lines[start:end]), errors


def check_totals(text, sites):
    """Messages for totals the section states that are not the count."""
    text = re.sub(r'\s+', ' ', text)
    kinds = collections.Counter(s.kind for s in sites)
    want = [(r'holds \*\*(\d+)\*\*', len(sites), 'uses of unsafe'),
            (r'(\d+) ``unsafe`` blocks', kinds['block'], 'unsafe blocks'),
            (r'(\d+) ``unsafe fn``', kinds['fn'], 'unsafe fns')]
    bad = []
    for pattern, count, what in want:
        m = re.search(pattern, text)
        if m and int(m.group(1)) != count:
            bad.append('%s: states %s %s, rust/ has %d' %
                       (DOC, m.group(1), what, count))
    return bad


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '.')
    sites = []
    try:
        for path in sorted(glob.glob(os.path.join(repo, 'rust', '*.rs'))):
            sites += scan(path, os.path.relpath(path, repo))
        rows, text, bad = doc_rows(os.path.join(repo, DOC))
    except (OSError, ValueError) as e:
        print('unsafe-audit: %s' % e, file=sys.stderr)
        return 2
    have = keyed(sites)
    seen = {}
    for f, key, kind, line in rows:
        if (f, key, kind) in seen:
            bad.append('%s:%d: row ``%s`` (%s, %s) repeats line %d' %
                       (DOC, line, key, kind, f, seen[(f, key, kind)]))
            continue
        seen[(f, key, kind)] = line
        if (f, key, kind) not in have:
            bad.append('%s:%d: row ``%s`` (%s, %s): no such unsafe site' %
                       (DOC, line, key, kind, f))
    for (f, key, kind), s in have.items():
        if kind == 'unknown':
            bad.append('%s:%d: `%s`: not a block, fn, impl, trait or '
                       'extern block' % (f, s.line, key))
        elif (f, key, kind) not in seen:
            bad.append('%s:%d: unsafe %s ``%s`` missing from %s' %
                       (f, s.line, kind, key, DOC))
    bad += check_totals(text, sites)
    for msg in bad:
        print(msg)
    if bad:
        print('unsafe-audit: %d sites in rust/, %d problems' %
              (len(sites), len(bad)))
        return 1
    print('unsafe-audit: %d sites in rust/, all in %s' % (len(sites), DOC))
    return 0


if __name__ == '__main__':
    sys.exit(main())

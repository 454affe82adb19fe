#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that Documentation/safety-audit.rst lists every unsafe in rust/.

Scans rust/*.rs for every use of the `unsafe` keyword in code (comments,
string and character literals and attributes such as
`#![allow(unsafe_op_in_unsafe_fn)]` or `#[unsafe(no_mangle)]` do not
count). Each site is keyed by an id, U-<n>, that its own comment carries,
so that renaming or moving code changes no key:

  block    `unsafe { ... }`: the `// SAFETY:` comment before it starts
           `// SAFETY: (U-<n>)`
  fn       `unsafe fn`, `pub unsafe extern "C" fn`, `pub(crate) unsafe
           fn`, ...: the first line of the `# Safety` section of its doc
           comment starts `/// (U-<n>)`
  impl     `unsafe impl`, `unsafe trait` and `unsafe extern "C" { ... }`
  trait    (kinds impl, trait and extern): either form, before it
  extern
  An `unsafe` followed by anything else is reported as unknown.
  `unsafe fn(...)` and `unsafe extern "C" fn(...)` are pointer types, not
  sites.

A site's id is the one tag between it and the site before it in the same
file. A new site takes the number after the highest in use (--list);
the number of a site that goes is not reused.

The document's rows are the list-table rows of its "Unsafe Rust" section
whose first cell is a literal id, under a subsection titled with the file;
the first of the following cells that is a kind is the site's kind, the
others are the document's own (where the site was when audited, what it
does, the argument):

  ``rust/mem.rs``
  ---------------
  .. list-table::
     * - ``U-5``
       - ``DmaBuf::read_entry``
       - block

Where the section states totals ("holds **N** uses", "N ``unsafe``
blocks", "N ``unsafe fn``") they are checked too, and every U-<n> the
document mentions must be a site's.

Prints each site without an id or with two, each id given twice, each
site missing from the document, each row matching no site or of another
kind or file, each duplicated row, each mention of an id no site has and
each wrong total, and exits 1 if there is any; otherwise prints the count
and exits 0. Exit status 2 when a file cannot be read or the document has
no "Unsafe Rust" section.

With --list, prints every site instead: id, kind, file:line and the
function it is in (an impl's self type qualifying it), in id order.

Usage: scripts/unsafe-audit.py [--list] [repo]
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


ID = r'U-[1-9][0-9]*'
TAG_SAFETY = re.compile(r'^\s*//\s*SAFETY:\s*\((%s)\)' % ID)
TAG_DOC = re.compile(r'^\s*///\s*\((%s)\)' % ID)
KINDS = ('block', 'fn', 'impl', 'trait', 'extern')


def tags(path):
    """[(line, id, form)] of the id tags of one file, form 'SAFETY' for a
    `// SAFETY: (U-n)` comment and 'doc' for a `/// (U-n)` doc line."""
    out = []
    with open(path, encoding='utf-8') as f:
        for i, text in enumerate(f, 1):
            for form, rx in (('SAFETY', TAG_SAFETY), ('doc', TAG_DOC)):
                m = rx.match(text)
                if m:
                    out.append((i, m.group(1), form))
    return out


def attach(sites, tagged):
    """({id: site}, [problem]): each site's id, the one tag between it and
    the site before it in its file."""
    ids, bad = {}, []
    used = set()
    by_file = collections.OrderedDict()
    for s in sites:
        by_file.setdefault(s.file, []).append(s)
    for f, group in by_file.items():
        prev = 0
        for s in group:
            mine = [t for t in tagged[f] if prev < t[0] < s.line]
            prev = s.line
            want = {'block': ('SAFETY',), 'fn': ('doc',)}.get(
                s.kind, ('SAFETY', 'doc'))
            where = '%s:%d: unsafe %s in %s' % (f, s.line, s.kind, s.name)
            if s.kind == 'unknown':
                continue
            if not mine:
                bad.append('%s: no %s before it' % (
                    where, '`// SAFETY: (U-n)`' if s.kind == 'block' else
                    '`/// (U-n)` in its `# Safety` section'
                    if s.kind == 'fn' else '(U-n) tag'))
                continue
            if len(mine) > 1:
                bad.append('%s: tags %s before it, one is its own' %
                           (where, ', '.join(t[1] for t in mine)))
                continue
            line, uid, form = mine[0]
            used.add((f, line))
            if form not in want:
                bad.append('%s: its tag %s (line %d) is in a %s comment' %
                           (where, uid, line, form))
            if uid in ids:
                o = ids[uid]
                bad.append('%s: %s is also the id of %s:%d' %
                           (where, uid, o.file, o.line))
                continue
            ids[uid] = s
    for f, ts in tagged.items():
        for line, uid, _ in ts:
            if (f, line) not in used and uid not in ids:
                bad.append('%s:%d: tag %s belongs to no unsafe' %
                           (f, line, uid))
    return ids, bad


def next_id(ids):
    """The id a new site takes."""
    return 'U-%d' % (1 + max((int(i[2:]) for i in ids), default=0))


def doc_rows(path):
    """The rows of the Unsafe Rust section, and the section's text.

    Returns ([(file, id, kind, line)], text, errors); raises ValueError
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
    i = start
    while i < end:
        text = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ''
        m = re.fullmatch(r'``(rust/[^`]+\.rs)``', text)
        if m and re.fullmatch(r'-+', nxt):
            cur = m.group(1)
            i += 1
            continue
        m = re.fullmatch(r'(\s*)\* - (.*)', text)
        if not m:
            i += 1
            continue
        row, indent = i + 1, len(m.group(1))
        cells = [m.group(2).strip()]
        i += 1
        while i < end and (not lines[i].strip() or
                           len(lines[i]) - len(lines[i].lstrip()) > indent):
            c = re.fullmatch(r' {%d}- (.*)' % (indent + 2), lines[i])
            if c:
                cells.append(c.group(1).strip())
            i += 1
        key = re.fullmatch(r'``([^`]+)``', cells[0])
        if not key:
            continue                    # a header row
        if not re.fullmatch(ID, key.group(1)):
            errors.append('%s:%d: row ``%s``: its first cell is no id '
                          '(U-<n>)' % (DOC, row, key.group(1)))
            continue
        kind = next((c for c in cells[1:] if c in KINDS), None)
        if kind is None:
            errors.append('%s:%d: row ``%s`` names no kind' %
                          (DOC, row, key.group(1)))
            continue
        if cur is None:
            errors.append('%s:%d: row ``%s`` is under no ``rust/*.rs`` '
                          'title' % (DOC, row, key.group(1)))
            continue
        rows.append((cur, key.group(1), kind, row))
    return rows, ' '.join(lines[start:end]), errors


def mentions(path):
    """[(line, id)] of every U-<n> in the document."""
    with open(path, encoding='utf-8') as f:
        return [(i, m.group(0)) for i, text in enumerate(f, 1)
                for m in re.finditer(r'\b%s\b' % ID, text)]


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
    args = sys.argv[1:]
    listing = '--list' in args
    args = [a for a in args if a != '--list']
    repo = os.path.abspath(args[0] if args else '.')
    sites, tagged = [], {}
    try:
        for path in sorted(glob.glob(os.path.join(repo, 'rust', '*.rs'))):
            rel = os.path.relpath(path, repo)
            sites += scan(path, rel)
            tagged[rel] = tags(path)
        if not listing:
            rows, text, bad = doc_rows(os.path.join(repo, DOC))
            said = mentions(os.path.join(repo, DOC))
    except (OSError, ValueError) as e:
        print('unsafe-audit: %s' % e, file=sys.stderr)
        return 2
    ids, tag_bad = attach(sites, tagged)
    if listing:
        for uid, s in sorted(ids.items(), key=lambda x: int(x[0][2:])):
            print('%-6s %-6s %s:%d %s' % (uid, s.kind, s.file, s.line, s.name))
        for msg in tag_bad:
            print(msg, file=sys.stderr)
        print('unsafe-audit: next id %s' % next_id(ids), file=sys.stderr)
        return 1 if tag_bad else 0
    bad += tag_bad
    seen = {}
    for f, uid, kind, line in rows:
        if uid in seen:
            bad.append('%s:%d: row ``%s`` repeats line %d' %
                       (DOC, line, uid, seen[uid]))
            continue
        seen[uid] = line
        s = ids.get(uid)
        if s is None:
            bad.append('%s:%d: row ``%s``: no unsafe site has this id' %
                       (DOC, line, uid))
        elif s.kind != kind:
            bad.append('%s:%d: row ``%s`` says %s, %s:%d is an unsafe %s' %
                       (DOC, line, uid, kind, s.file, s.line, s.kind))
        elif s.file != f:
            bad.append('%s:%d: row ``%s`` is under ``%s``, the site is '
                       'at %s:%d' % (DOC, line, uid, f, s.file, s.line))
    for uid, s in ids.items():
        if uid not in seen:
            bad.append('%s:%d: unsafe %s in %s (%s) missing from %s' %
                       (s.file, s.line, s.kind, s.name, uid, DOC))
    for s in sites:
        if s.kind == 'unknown':
            bad.append('%s:%d: `%s`: not a block, fn, impl, trait or '
                       'extern block' % (s.file, s.line, s.name))
    row_at = {(line, uid) for _, uid, _, line in rows}
    for line, uid in said:
        if uid not in ids and (line, uid) not in row_at:
            bad.append('%s:%d: %s: no unsafe site has this id' %
                       (DOC, line, uid))
    bad += check_totals(text, sites)
    for msg in bad:
        print(msg)
    if bad:
        print('unsafe-audit: %d sites in rust/, %d problems (next id %s)' %
              (len(sites), len(bad), next_id(ids)))
        return 1
    print('unsafe-audit: %d sites in rust/, all in %s by id' %
          (len(sites), DOC))
    return 0


if __name__ == '__main__':
    sys.exit(main())

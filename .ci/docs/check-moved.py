#!/usr/bin/env python3
"""No-loss check for the README split: every paragraph, list item, table row and code block of the old README
(git show REV:README.md) must appear in README.md or docs/*.md. Text is compared after normalising whitespace,
Markdown links ([text](url) -> text) and emphasis markers (*); a unit not found verbatim is matched to the most
similar unit of the new text and reported with its similarity, so the small edits of the move are visible.
Usage: check-moved.py REPO REV (e.g. `.ci/docs/check-moved.py . 93dc3f9`: the README before the split; -v shows each edit)"""
import re, sys, glob, os, subprocess, difflib
repo, rev = sys.argv[1], sys.argv[2]
old = subprocess.run(['git', '-C', repo, 'show', f'{rev}:README.md'], capture_output=True, text=True, check=True).stdout
new_files = [os.path.join(repo, 'README.md')] + sorted(glob.glob(os.path.join(repo, 'docs', '*.md')))
def units(text):
    out, buf, fence = [], [], None
    def flush():
        if buf: out.append(('para', '\n'.join(buf)))
        buf.clear()
    for line in text.split('\n'):
        if fence is not None:
            fence.append(line)
            if line.strip().startswith('```'):
                out.append(('code', '\n'.join(fence))); fence = None
            continue
        if line.strip().startswith('```'):
            flush(); fence = [line]; continue
        if not line.strip():
            flush(); continue
        if re.match(r'^#{1,6} ', line):
            flush(); out.append(('heading', line)); continue
        if line.startswith('|'):
            flush(); out.append(('row', line)); continue
        if re.match(r'^\s*(- |\d+\. )', line):
            flush(); buf.append(line); continue
        buf.append(line)
    flush()
    # split paragraphs into list items
    res = []
    for kind, t in out:
        if kind == 'para' and re.match(r'^\s*(- |\d+\. )', t):
            items, cur = [], []
            for l in t.split('\n'):
                if re.match(r'^\s*(- |\d+\. )', l) and not l.startswith('   ') and cur:
                    items.append('\n'.join(cur)); cur = []
                cur.append(l)
            items.append('\n'.join(cur))
            res += [('item', i) for i in items]
        else:
            res.append((kind, t))
    return res
def norm(t, code=False):
    if code: return re.sub(r'\s+', ' ', t).strip()
    t = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', t)
    t = t.replace('*', '')
    t = re.sub(r'^\s*(- |\d+\. )', '', t)
    return re.sub(r'\s+', ' ', t).strip()
new_units = []
for f in new_files:
    new_units += [(k, t, f) for k, t in units(open(f).read())]
new_all = ' \u2029 '.join(norm(t, k == 'code') for k, t, f in new_units)
new_norm = [(norm(t, k == 'code'), f) for k, t, f in new_units]
counts = {}; edited = []; missing = []; headings = []
for kind, t in units(old):
    if kind == 'heading':
        headings.append(t); continue
    n = norm(t, kind == 'code')
    if n in new_all:
        counts[kind] = counts.get(kind, 0) + 1; continue
    best, bf = 0.0, None
    for nn, f in new_norm:
        sm = difflib.SequenceMatcher(None, n, nn, autojunk=False)
        if sm.real_quick_ratio() < best or sm.quick_ratio() < best: continue
        r = sm.ratio()
        if r > best: best, bf, bt = r, f, nn
    (edited if best >= 0.8 else missing).append((kind, best, os.path.relpath(bf, repo) if bf else None, n, bt if bf else ''))
total = sum(counts.values()) + len(edited) + len(missing)
print(f'old README units (paragraphs, list items, table rows, code blocks): {total}')
print('  found verbatim (after normalising):', sum(counts.values()), counts)
print(f'  found with edits (similarity >= 0.8): {len(edited)}')
for kind, r, f, n, bt in edited:
    print(f'    [{kind} {r:.2f} -> {f}] {n[:110]}')
    if '-v' in sys.argv:
        for op in difflib.ndiff([n], [bt]):
            pass
        sm = difflib.SequenceMatcher(None, n, bt, autojunk=False)
        for tag, a1, a2, b1, b2 in sm.get_opcodes():
            if tag != 'equal': print(f'        {tag}: {n[a1:a2]!r} -> {bt[b1:b2]!r}')
print(f'  MISSING: {len(missing)}')
for kind, r, f, n, bt in missing:
    print(f'    [{kind} best {r:.2f} in {f}] {n[:200]}')
hn = {re.sub(r'^#+ ', '', h) for k, h, f in new_units if k == 'heading'}
hmiss = [h for h in headings if re.sub(r'^#+ ', '', h) not in hn]
print(f'old headings: {len(headings)}, kept as headings: {len(headings) - len(hmiss)}; became page titles or other headings: {hmiss}')
sys.exit(1 if missing else 0)

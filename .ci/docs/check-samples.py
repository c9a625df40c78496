#!/usr/bin/env python3
"""Checks that each code sample of README.md and docs/*.md followed by a line 'From `<path>`' (or 'From `<path>`
and `<path>`', read one after the other) is in that file: every line of the sample, in order, is a line of the
file (whitespace at either end ignored; a line '...' or '// ...' stands for any lines, and text after '...'
within a line for the rest of it). Lists the samples without a source. Usage: check-samples.py [REPO]"""
import re, os, sys, glob
root = sys.argv[1] if len(sys.argv) > 1 else '.'
files = [os.path.join(root, 'README.md')] + sorted(glob.glob(os.path.join(root, 'docs', '*.md')))
bad = checked = 0; unsourced = []
for f in files:
    lines = open(f).read().split('\n')
    i = 0
    while i < len(lines):
        m = re.match(r'^\s*```(\w*)', lines[i])
        if not m:
            i += 1; continue
        lang, start = m.group(1), i
        i += 1
        while not lines[i].strip().startswith('```'):
            i += 1
        block = lines[start + 1:i]
        i += 1
        j = i
        while j < len(lines) and not lines[j].strip():
            j += 1
        src = re.match(r'^\s*\(?\*?From `([^`]+)`', lines[j]) if j < len(lines) else None
        if not src:
            unsourced.append(f'{os.path.relpath(f, root)}:{start + 1} ({lang or "text"})'); continue
        checked += 1
        k = j
        while k < len(lines) and lines[k].strip():
            k += 1
        paths = re.findall(r'`([^`]+/[^`]+)`', ' '.join(lines[j:k]))
        missing = [p for p in paths if not os.path.exists(os.path.join(root, p))]
        if missing:
            print(f'{f}:{start + 1}: source {missing} does not exist'); bad += 1; continue
        source = [l.strip() for p in paths for l in open(os.path.join(root, p)).read().split('\n')]
        pos = 0
        for line in (l.strip() for l in block):
            if not line or line in ('...', '// ...') or line.startswith('// ...'):
                continue
            prefix = line.split('...')[0].rstrip() if '...' in line else None
            k = pos
            while k < len(source) and not (source[k] == line or (prefix and source[k].startswith(prefix))):
                k += 1
            if k == len(source):
                print(f'{os.path.relpath(f, root)}:{start + 1}: not in {src.group(1)} (in order): {line}'); bad += 1; break
            pos = k + 1
print(f'{checked} samples checked against their source files, {bad} not found there')
print(f'{len(unsourced)} samples name no source file:')
for u in unsourced: print('   ', u)
sys.exit(1 if bad else 0)

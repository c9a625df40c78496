#!/usr/bin/env python3
"""Checks every relative Markdown link in README.md and docs/*.md: the file exists and, for #anchors, a heading
(GitHub's slug) or an <a id> of that name is in the target. Usage: check-links.py [REPO]"""
import re, os, sys, glob
root = sys.argv[1] if len(sys.argv) > 1 else '.'
files = [os.path.join(root, 'README.md')] + sorted(glob.glob(os.path.join(root, 'docs', '*.md'))) + [os.path.join(root,'lock-benchmarks','README.md')]
def strip_code(text):
    return re.sub(r'```.*?```', '', text, flags=re.S)
def anchors(path):
    text = strip_code(open(path).read())
    out = set(re.findall(r'<a id="([^"]+)"', text))
    seen = {}
    for h in re.findall(r'^#{1,6} (.+)$', text, flags=re.M):
        slug = re.sub(r'[^\w\- ]', '', h.strip().lower().replace('`', '')).replace(' ', '-')
        n = seen.get(slug, 0); seen[slug] = n + 1
        out.add(slug if n == 0 else f'{slug}-{n}')
    return out
bad = 0; count = 0
for f in files:
    text = strip_code(open(f).read())
    text = re.sub(r'`[^`\n]*`', lambda m: m.group(0) if '](' in m.group(0) else '', text)
    for target in re.findall(r'\]\(([^)\s]+)\)', text):
        if re.match(r'[a-z]+:', target): continue
        count += 1
        path, _, frag = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(dest):
            print(f'{f}: missing file {target}'); bad += 1; continue
        if frag and dest.endswith('.md') and frag not in anchors(dest):
            print(f'{f}: missing anchor {target}'); bad += 1
print(f'{count} relative links checked, {bad} broken')
sys.exit(1 if bad else 0)

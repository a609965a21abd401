#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause-Patent
"""scripts/doc-links.py [ROOT]: check that every relative Markdown link in
README.md and docs/ resolves (the file or folder exists; a #anchor matches a
heading of the target, as GitHub makes them). Also lists prose mentions of
docs/*.md files that do not exist. Exit status 1 when a link is broken."""
import os, re, sys, glob
root = sys.argv[1] if len(sys.argv) > 1 else '.'
files = [os.path.join(root, 'README.md')] + sorted(glob.glob(os.path.join(root, 'docs', '**', '*.md'), recursive=True))
link = re.compile(r'!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')
def slugs(path):
    out, fence = set(), False
    for line in open(path, encoding='utf-8'):
        if line.lstrip().startswith('```'): fence = not fence
        if fence or not line.startswith('#'): continue
        t = line.lstrip('#').strip().lower()
        t = re.sub(r'[^\w\- ]', '', t).replace(' ', '-')
        out.add(t)
    return out
bad = 0; n = 0
for f in files:
    text = open(f, encoding='utf-8').read()
    text_nofence = re.sub(r'```.*?```', '', text, flags=re.S)
    for m in link.finditer(text_nofence):
        tgt = m.group(1)
        if re.match(r'[a-z]+:', tgt): continue
        n += 1
        path, _, anchor = tgt.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(dest):
            print(f'{f}: broken link {tgt}'); bad += 1; continue
        if anchor and dest.endswith('.md') and anchor not in slugs(dest):
            print(f'{f}: no heading #{anchor} in {dest}'); bad += 1
    for m in re.finditer(r'(?<![\w/.])(docs/[\w./-]+\.md)', text):
        if not os.path.exists(os.path.join(root, m.group(1))):
            print(f'{f}: mentions missing {m.group(1)} (prose)')
print(f'{n} relative links checked in {len(files)} files, {bad} broken')
sys.exit(1 if bad else 0)

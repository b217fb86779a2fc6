#!/usr/bin/env python3
"""README.md and docs/: every relative link resolves (the file is there, and a #anchor names one of its headings as
GitHub makes them), README.md is at most 150 lines, and its first screen (40 lines) starts each reader's path: a link
to docs/filing-a-bug.md, docs/ci-and-bisect.md and docs/cluster.md.
  tests/doc_links.py SOURCE_DIR"""
import os
import re
import sys

src = sys.argv[1]
pages = [os.path.join(src, "README.md")] + sorted(
    os.path.join(src, "docs", f) for f in os.listdir(os.path.join(src, "docs")) if f.endswith(".md"))
problems = []


def prose(text):
    """The text without fenced code blocks and inline code spans (links there are not links)."""
    text = re.sub(r"(?ms)^(```|~~~).*?^\1[ \t]*$", "", text)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(path):
    """GitHub's heading ids: lower case, punctuation but '-' and '_' dropped, spaces as '-', repeats numbered."""
    seen, out = {}, set()
    for line in prose(open(path, encoding="utf-8").read()).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else "%s-%d" % (slug, n))
    return out


for page in pages:
    text = open(page, encoding="utf-8").read()
    for target in re.findall(r"\]\(([^)\s]+)\)", prose(text)):
        if re.match(r"^[a-z]+:", target):  # https:, mailto: (the network is not this test's)
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        where = os.path.relpath(page, src)
        if not os.path.exists(full):
            problems.append("%s links %s: no such file" % (where, target))
        elif anchor and (not full.endswith(".md") or anchor not in anchors(full)):
            problems.append("%s links %s: %s has no heading #%s" % (where, target, os.path.relpath(full, src), anchor))

readme = open(pages[0], encoding="utf-8").read().splitlines()
if len(readme) > 150:
    problems.append("README.md has %d lines, more than 150" % len(readme))
first_screen = "\n".join(readme[:40])
for page in ("docs/filing-a-bug.md", "docs/ci-and-bisect.md", "docs/cluster.md"):
    if "](%s" % page not in first_screen:
        problems.append("README.md's first 40 lines do not link %s" % page)

for p in problems:
    print("FAIL: " + p)
if not problems:
    print("doc_links: %d pages, every link resolves; README.md %d lines" % (len(pages), len(readme)))
sys.exit(1 if problems else 0)

#!/usr/bin/env python3
"""Checks every relative link of the repository's Markdown files, anchors included.

Walks every *.md file under the repository (or the directory given as the first argument), skipping target/,
.git/ and node_modules/, and resolves each relative link: the file or directory must exist, and an anchor
(#part) must be the GitHub slug of a heading of the Markdown file it points into (lowercase, punctuation
dropped, spaces to '-', a repeated heading suffixed -1, -2, ...). Links in fenced code blocks and code spans
are not links. Prints the broken links, one a line, and exits with 1 if there is any, else 0.

    python3 docs/contributing/check-links.py [root]
"""
import os
import re
import sys
from urllib.parse import unquote

SKIPPED = {"target", ".git", "node_modules"}
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
HTML_LINK = re.compile(r"<(?:a|img)\s[^>]*?(?:href|src)=[\"']([^\"']+)[\"']", re.IGNORECASE)
HTML_ANCHOR = re.compile(r"<a\s[^>]*?(?:name|id)=[\"']([^\"']+)[\"']", re.IGNORECASE)
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def markdown_files(root):
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if d not in SKIPPED)
        for name in sorted(files):
            if name.endswith(".md"):
                yield os.path.join(directory, name)


def lines_outside_fences(text):
    """Yields (line number, line) of the lines that are not inside a fenced code block."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                continue
            yield number, line
        elif match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                and line.strip() == match.group(1):
            fence = None


def slug(heading):
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # a link's text stays, its target goes
    text = re.sub(r"<[^>]+>", "", text)                          # HTML tags go
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)                         # punctuation goes, letters, digits, _ and - stay
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        with open(path, encoding="utf-8") as file:
            text = file.read()
        found, seen = set(), {}
        for _, line in lines_outside_fences(text):
            match = HEADING.match(line)
            if match:
                base = slug(match.group(2))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            found.update(HTML_ANCHOR.findall(line))
        _anchors[path] = found
    return _anchors[path]


def links(text):
    for number, line in lines_outside_fences(text):
        visible = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for pattern in (INLINE_LINK, HTML_LINK):
            for match in pattern.finditer(visible):
                yield number, match.group(1)
        match = REFERENCE.match(visible)
        if match:
            yield number, match.group(1)


def broken(root):
    root = os.path.abspath(root)
    for source in markdown_files(root):
        with open(source, encoding="utf-8") as file:
            text = file.read()
        for number, target in links(text):
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
                continue                                         # http:, https:, mailto: and the like
            path, _, anchor = target.partition("#")
            path = unquote(path)
            if not path:
                resolved = source
            elif path.startswith("/"):
                resolved = os.path.join(root, path.lstrip("/"))
            else:
                resolved = os.path.normpath(os.path.join(os.path.dirname(source), path))
            where = f"{os.path.relpath(source, root)}:{number}: {target}"
            if not os.path.exists(resolved):
                yield f"{where} (no such file)"
            elif anchor and resolved.endswith(".md") and os.path.isfile(resolved) \
                    and unquote(anchor).lower() not in anchors(resolved):
                yield f"{where} (no heading '{anchor}' in {os.path.relpath(resolved, root)})"


def main():
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    problems = list(broken(sys.argv[1] if len(sys.argv) > 1 else default))
    for problem in problems:
        print(problem)
    print(f"{len(problems)} broken link(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

"""No link leaves the repository: the specification and every document it points to are here.

Web addresses (``https://...``) are allowed: they work from any clone. A relative link or a
path must land on a file of the repository, and an anchor on a heading of that file."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*```")


def tracked(pattern: str) -> list[Path]:
    names = subprocess.run(["git", "ls-files", pattern], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    return [ROOT / n for n in names]


def prose(path: Path) -> list[str]:
    """The lines outside code blocks."""
    lines, in_code = [], False
    for line in path.read_text().splitlines():
        if FENCE.match(line):
            in_code = not in_code
        elif not in_code:
            lines.append(line)
    return lines


def anchors(path: Path) -> set[str]:
    """GitHub's ids for the headings: lower case, punctuation dropped, spaces to hyphens."""
    seen: dict[str, int] = {}
    out = set()
    for line in prose(path):
        if m := re.match(r"#{1,6}\s+(.*?)\s*#*$", line):
            slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


@pytest.mark.parametrize("doc", tracked("*.md"), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_is_a_file_in_the_repository(doc: Path) -> None:
    broken = []
    for line in prose(doc):
        for target in LINK.findall(line):
            if re.match(r"(https?|mailto):", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (doc.parent / path).resolve() if path else doc
            inside = dest.is_relative_to(ROOT) and dest.exists()
            if not inside or (anchor and dest.suffix == ".md" and anchor not in anchors(dest)):
                broken.append(target)
    assert broken == []


def test_nothing_points_outside_the_repository() -> None:
    outside = re.compile(r"\.\./shared|/work/")
    hits = [f"{p.relative_to(ROOT)}:{n}"
            for p in tracked("*.py") + tracked("*.md") + tracked("*.js") + tracked("*.sh")
            if p != Path(__file__)
            for n, line in enumerate(p.read_text().splitlines(), 1) if outside.search(line)]
    assert hits == []

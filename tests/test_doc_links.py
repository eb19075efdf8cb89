"""Every link in the repository's Markdown resolves inside the repository: a relative link
names a file or folder that exists (and a heading of it, when it says ``#heading``), and
none climbs out of the clone (``../`` past the root). Web addresses (``http(s)://``,
``mailto:``) are left alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".venv", "node_modules", "test-results", ".git"}
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
IMAGE = re.compile(r"!\[[^\]\n]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"```.*?```", re.S)
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def markdown_files() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.md") if not SKIP & set(p.relative_to(ROOT).parts))


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors of ``path``'s headings: lower case, punctuation dropped, spaces
    to hyphens."""
    out = set()
    for line in FENCE.sub("", path.read_text()).splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", title)))
    return out


def broken_links(path: Path, text: str | None = None) -> list[str]:
    """The broken links of ``path`` (read from it, or ``text`` as if it were there)."""
    text = CODE.sub("", path.read_text() if text is None else text)
    problems = []
    for target in LINK.findall(text) + IMAGE.findall(text):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        if ROOT not in (resolved, *resolved.parents):
            problems.append(f"{target}: outside the repository")
        elif not resolved.exists():
            problems.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            problems.append(f"{target}: no heading #{anchor} in {resolved.relative_to(ROOT)}")
    return problems


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves_inside_the_repository(path):
    assert broken_links(path) == []


def test_the_checker_finds_a_broken_link():
    """A link to a missing file, one out of the clone and a missing heading are each found."""
    text = ("[a](nothing-here.md) [b](../../outside.md) [c](protocol.md#no-such-heading) [d](protocol.md) "
            "[e](https://example.com/x) `[f](in-code.md)`")
    assert [p.split(":")[1].strip() for p in broken_links(ROOT / "docs" / "server.md", text)] == [
        "no such file", "outside the repository", "no heading #no-such-heading in docs/protocol.md"]

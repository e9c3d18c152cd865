"""README.md and docs/*.md: every relative link resolves inside the repository; the README stays short
and names no commit."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_MAX_BYTES = 8 * 1024
# [text](target) and [text](target "title"); images too. Reference-style links are not used here.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
HEXWORD = re.compile(r"\b[0-9a-f]{7,40}\b")


def _documents() -> list[Path]:
    return [
        ROOT / "README.md",
        ROOT / "CHANGELOG.md",
        ROOT / "CONTRIBUTING.md",
        *sorted((ROOT / "docs").glob("*.md")),
    ]


def _links(text: str) -> list[str]:
    """Link targets outside code blocks (a fenced block's brackets are code, not links)."""
    return LINK.findall(FENCE.sub("", text))


def _anchors(text: str) -> set[str]:
    """GitHub's anchors for a Markdown file's headings."""
    found = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*$", FENCE.sub("", text), re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        found.add(slug)
    return found


def broken_links(doc: Path, root: Path = ROOT) -> list[str]:
    """Every relative link of ``doc`` that does not resolve to a file (and heading) under ``root``."""
    broken = []
    for target in _links(doc.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not a file of ours
            continue
        path_part, _, anchor = target.partition("#")
        dest = (doc.parent / path_part).resolve() if path_part else doc
        if not dest.is_relative_to(root):
            broken.append(f"{target} (outside the repository)")
        elif not dest.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest.read_text(encoding="utf-8")):
            broken.append(f"{target} (no such heading)")
    return broken


@pytest.mark.parametrize("doc", _documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve_inside_the_repository(doc: Path) -> None:
    assert doc.is_file(), f"{doc.relative_to(ROOT)} is missing"
    assert not broken_links(doc)


def test_the_docs_named_by_the_readme_exist() -> None:
    for name in ("deploy", "operations", "api", "benchmarks", "reliability", "architecture"):
        assert (ROOT / "docs" / f"{name}.md").is_file(), f"docs/{name}.md is missing"


def test_readme_is_short() -> None:
    size = (ROOT / "README.md").stat().st_size
    assert size < README_MAX_BYTES, f"README.md is {size} bytes; keep it under {README_MAX_BYTES}"


def test_readme_keeps_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make demo" in text
    assert "make test" in text


def _git() -> str:
    git = shutil.which("git")
    assert git, "git is not installed"
    return git


def _commits(words: set[str]) -> set[str]:
    """The words that name a commit of this repository."""
    # One call for every candidate: `git cat-file --batch-check` answers "<word> missing" for a non-commit.
    out = subprocess.run(
        [_git(), "cat-file", "--batch-check=%(objectname) %(objecttype)"],
        cwd=ROOT,
        input="".join(f"{w}^{{commit}}\n" for w in sorted(words)),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found = set()
    for word, line in zip(sorted(words), out.stdout.splitlines(), strict=True):
        if line.endswith(" commit"):
            found.add(word)
    return found


def test_readme_names_no_commit() -> None:
    words = set(HEXWORD.findall((ROOT / "README.md").read_text(encoding="utf-8")))
    assert not _commits(words), "README.md names commits: history belongs in git, not in the README"


def test_the_checks_see_what_they_look_for(tmp_path: Path) -> None:
    head = subprocess.run(
        [_git(), "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert _commits({head, "0000000", "deadbeef1"}) == {head}
    (tmp_path / "there.md").write_text("# A heading\n", encoding="utf-8")
    doc = tmp_path / "doc.md"
    doc.write_text(
        "[ok](there.md) [ok](there.md#a-heading) [web](https://example.org/x) [self](#title)\n"
        "[gone](missing.md) [bad](there.md#no-such) [out](../../../../etc/passwd)\n"
        "```\n[code](not-a-link.md)\n```\n# Title\n",
        encoding="utf-8",
    )
    assert broken_links(doc, root=tmp_path) == [
        "missing.md (no such file)",
        "there.md#no-such (no such heading)",
        "../../../../etc/passwd (outside the repository)",
    ]

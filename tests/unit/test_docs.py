"""The documentation holds together: its links resolve, the configuration page is the code's, the README stays short."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from amg.cli.settings import env_example, settings_markdown
from amg.graphs.context import Context

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 250

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _prose(text: str) -> str:
    """The text without code blocks, where a '#' line is a comment and brackets are code."""
    return _FENCE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: link text kept, lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a markdown page; a repeated heading gets -1, -2 … as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    for heading in _HEADING.findall(_prose(page.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[str]:
    """The link and image targets of a page, outside code."""
    return _LINK.findall(_INLINE_CODE.sub("", _prose(page.read_text(encoding="utf-8"))))


def broken_links(page: Path) -> list[str]:
    """The page's relative links whose file does not exist, or whose #anchor names no heading of the page it opens."""
    broken = []
    for target in links(page):
        if _SCHEME.match(target):
            continue  # https:, mailto: … are not checked here
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.name}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_relative_links_and_images_resolve(page):
    assert page.exists(), f"{page.relative_to(ROOT)} is missing"
    assert broken_links(page) == []


def test_the_link_check_finds_what_is_broken(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## A section: with punctuation\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n## Repeated\n\n## Repeated\n\n"
        "[ok](other.md#a-section-with-punctuation) [self](#repeated-1) ![img](missing.png)\n"
        "[bad anchor](other.md#nowhere) [web](https://example.org/x.md) `[code](nowhere.md)`\n"
        "```bash\n# not a heading\n[in code](nowhere.md)\n```\n[missing self](#not-a-heading)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "missing.png: no such file",
        "other.md#nowhere: no heading #nowhere in other.md",
        "#not-a-heading: no heading #not-a-heading in page.md",
    ]


def test_configuration_page_is_generated_from_context():
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert page == settings_markdown(), "regenerate it: python -m amg.cli.settings > docs/configuration.md"


def test_env_example_is_generated_from_context():
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert example == env_example(), "regenerate it: python -m amg.cli.settings --env > .env.example"


def test_env_example_names_every_setting_at_its_default():
    assigned = dict(line.split("=", 1) for line in env_example().splitlines() if line and not line.startswith("#"))
    assert assigned["AMG_PUBMED_MIRROR"] == "https://ftp.ncbi.nlm.nih.gov/pubmed/"
    assert assigned["AMG_RETRIEVAL_USES_OPTIONS"] == "true"
    assert list(assigned) == [setting.metadata["env"] for setting in fields(Context)]


def test_readme_is_a_front_door():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move detail to docs/"

"""The decision records are reachable: docs/decisions/README.md lists every one of them under its
own title, and the README links that index, so a new record cannot be forgotten."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DECISIONS = ROOT / "docs" / "decisions"
INDEX = DECISIONS / "README.md"
# An index entry: `- [title](file.md): what it is about.`
ENTRY = re.compile(r"^- \[(?P<title>.+)\]\((?P<file>[a-z0-9-]+\.md)\): \S", re.MULTILINE)


def records() -> dict[str, str]:
    """Each record's file name and its title (the first line, `# title`)."""
    found = {}
    for path in sorted(DECISIONS.glob("*.md")):
        if path != INDEX:
            found[path.name] = path.read_text().splitlines()[0].removeprefix("# ")
    return found


def entries() -> dict[str, str]:
    return {m["file"]: m["title"] for m in ENTRY.finditer(INDEX.read_text())}


def test_every_decision_record_is_listed_in_the_index_under_its_title():
    listed = entries()
    missing = sorted(set(records()) - set(listed))
    assert not missing, f"add these to docs/decisions/README.md: {missing}"
    for name, title in records().items():
        assert listed[name] == title, f"{name}: the index has another title"


def test_the_index_lists_only_records_that_exist():
    assert sorted(set(entries()) - set(records())) == []


def test_the_readme_links_the_index():
    assert "](docs/decisions/README.md)" in (ROOT / "README.md").read_text()

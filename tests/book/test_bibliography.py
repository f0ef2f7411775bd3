"""The bibliography parses, and every key the book cites is in it (a broken entry stops the whole build)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")


def cited_keys(text: str) -> set[str]:
    """The keys of every ``{cite:p}`a,b``` role in ``text`` (the test below shows the forms)."""
    return {key.strip() for match in CITE.findall(text) for key in match.split(",")}


def test_cited_keys_are_read_from_every_role_form():
    text = "as {cite:p}`a2000x` and {cite:t}`b2001y, c2002z` show, {cite}`d2003w`"
    assert cited_keys(text) == {"a2000x", "b2001y", "c2002z", "d2003w"}


def test_the_bibliography_parses_and_holds_every_cited_key():
    database = pytest.importorskip("pybtex.database")
    entries = database.parse_file(str(ROOT / "book" / "references.bib")).entries  # raises on a broken entry
    pages = [*sorted((ROOT / "notebooks").glob("*.md")), *sorted((ROOT / "book").glob("*.md"))]
    cited = set().union(*(cited_keys(page.read_text(encoding="utf-8")) for page in pages))
    assert cited, "no citation found: the pattern is wrong"
    assert not cited - set(entries), f"cited but not in references.bib: {sorted(cited - set(entries))}"

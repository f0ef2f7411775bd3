"""Cells a teacher can project and figures a screen reader can use, on every page of the book.

``scripts/check_cells.py`` holds the rules (its docstring says what each means): no
visible code cell over 20 lines outside exercise solutions, no ``glue(`` in a cell a
reader sees or unfolds, no assert a reader sees unless marked ``# the lesson``, alt
text on every figure, a TL;DR of at most five lines at the top of every chapter.

Every page of the toc keeps every rule. Each rule is also run on a planted page that
breaks it, below, and must find the breach.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

pytest.importorskip("yaml")

from check_cells import LESSON, MAX_LINES, findings, main, stats  # noqa: E402
from ipynb_download import toc_docnames  # noqa: E402

PAGES = [d for d in toc_docnames(ROOT / "_toc.yml") if (ROOT / f"{d}.md").exists()]


def _findings(docname: str) -> list:
    path = ROOT / f"{docname}.md"
    return findings(path.read_text(encoding="utf-8"), f"{docname}.md", chapter=docname.startswith("notebooks/"))


@pytest.mark.parametrize("docname", PAGES)
def test_every_page_keeps_the_cell_and_figure_rules(docname):
    assert [f"{f.where}: {f.rule}: {f.text}" for f in _findings(docname)] == []


# ------------------------------------------------------------------------------------- planted pages
HEADER = "---\njupytext:\n  text_representation:\n    extension: .md\n---\n\n(toy)=\n# A toy chapter\n\n"
TLDR = ":::{admonition} TL;DR\n:class: tip\n\n- Prune sampling jumps where Gibbs is stuck.\n- Use it there.\n:::\n\n"


def _cell(lines: list[str], tags: str = "") -> str:
    return "```{code-cell} ipython3\n" + (f":tags: [{tags}]\n" if tags else "") + "\n".join(lines) + "\n```\n\n"


def _figure(alt: str | None) -> str:
    return ("```{glue:figure} toy_fig\n:name: fig-toy\n" + (f":alt: {alt}\n" if alt is not None else "")
            + "\nThe chain's trace on the toy network, one line per chain.\n```\n\n")


CLEAN = (HEADER + TLDR + "Some prose.\n\n"
         + _cell([f"x{i} = {i}" for i in range(MAX_LINES)])  # exactly at the limit
         + _cell(["glue('a', 1)", "assert 1 + 1 == 2", *[f"y{i} = {i}" for i in range(40)]], "remove-cell")
         + _cell(["glue('b', 2)"], "remove-input")
         + _cell(["assert sum([0.5, 0.5]) == 1  " + LESSON, "assert 0.5 < 1  # the lesson: a share is below one"])
         + _cell([f"z{i} = {i}" for i in range(30)], "hide-input")  # folded: the length rule does not apply
         + _figure("Two lines, the AHD of Gibbs and of prune sampling, falling with the draws.")
         + "## Exercises\n\n```{solution-start} ex-toy\n:class: dropdown\n```\n"
         + _cell(["assert 2 * 2 == 4", *[f"s{i} = {i}" for i in range(30)]])
         + "```{solution-end}\n```\n")


def _rules(text: str) -> list[str]:
    return [f.rule for f in findings(text, "toy.md")]


def test_a_clean_page_passes():
    assert _rules(CLEAN) == []


@pytest.mark.parametrize("planted, rule", [
    (_cell([f"x{i} = {i}" for i in range(MAX_LINES + 1)]), "cell-length"),
    (_cell(["x = 1", "glue('toy_n', x, display=False)"]), "visible-glue"),
    (_cell(["x = 1", "glue('toy_n', x)"], "hide-input"), "visible-glue"),  # unfolded, it shows
    (_cell(["glue_float('toy_x', 0.5)"]), "visible-glue"),
    (_cell(["assert 1 + 1 == 2"]), "visible-assert"),
    (_cell(["assert 1 + 1 == 2  # checked"], "hide-input"), "visible-assert"),
    (_cell(["assert 1 + 1 == 2  # the lesson # not: another comment follows"]), "visible-assert"),
    (_figure(None), "alt-text"),
    (_figure("plot"), "alt-text"),
    ("![](figure.png)\n\n", "alt-text"),
])
def test_a_planted_breach_of_each_rule_is_found(planted, rule):
    text = CLEAN.replace("Some prose.\n\n", "Some prose.\n\n" + planted)
    assert _rules(text) == [rule]


@pytest.mark.parametrize("page", [
    CLEAN.replace(TLDR, ""),  # none
    CLEAN.replace(TLDR, ":::{admonition} Key take-aways\n:class: tip\n\n- One.\n:::\n\n"),  # another box
    CLEAN.replace(TLDR, "Prose first.\n\n" + _cell(["x = 1"]) + TLDR),  # below the first code
    CLEAN.replace(TLDR, TLDR.replace("- Use it there.\n", "- Use it there.\n" + "- More.\n" * 4)),  # six lines
])
def test_a_chapter_without_a_short_tldr_at_its_top_is_found(page):
    assert _rules(page) == ["tldr"]


def test_a_prose_page_needs_no_tldr():
    assert findings(CLEAN.replace(TLDR, ""), "intro.md", chapter=False) == []


def test_the_statistics_count_what_the_reader_sees(capsys):
    s = stats(CLEAN)
    assert (s["visible cells"], s["visible lines"], s["folded lines"]) == (2, MAX_LINES + 2, 30)
    assert (s["visible glue"], s["visible asserts"], s["lesson asserts"], s[f"cells > {MAX_LINES}"]) == (0, 2, 2, 0)
    assert s["figures"] == 1
    assert s["prose words"] == len("A toy chapter TL;DR Prune sampling jumps where Gibbs is stuck. Use it there. "
                                   "Some prose. The chain's trace on the toy network, one line per chain. "
                                   "Exercises".split())


def test_the_script_exits_1_on_a_finding_and_0_on_a_clean_chapter(tmp_path, capsys):
    (tmp_path / "notebooks").mkdir()
    good, bad = tmp_path / "notebooks" / "good.md", tmp_path / "notebooks" / "bad.md"
    good.write_text(CLEAN, encoding="utf-8")
    bad.write_text(CLEAN.replace("Some prose.\n\n", "Some prose.\n\n" + _cell(["glue('n', 1)"])), encoding="utf-8")
    assert main([str(good)]) == 0
    assert main([str(bad)]) == 1
    assert "visible-glue" in capsys.readouterr().out

"""Every figure of a chapter is numbered and captioned: glued, then shown by a ``{glue:figure}`` with a name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "notebooks").glob("*.md"))
GLUED_FIGURE = re.compile(r"""glue\(\s*["'](?P<key>\w+_fig)["']""")
DIRECTIVE = re.compile(r"^```\{glue:figure\}\s*(?P<key>\S+)\n(?P<options>(?::[\w-]+:[^\n]*\n)*)\n?(?P<caption>.*?)^```",
                       re.MULTILINE | re.DOTALL)


def problems_of(text: str, name: str) -> list[str]:
    """What keeps the figures of one chapter's source from being numbered and captioned."""
    problems = [f"{name}: plt.show() shows a figure without number or caption (glue it, show it by "
                "{glue:figure})" for _ in re.finditer(r"\bplt\.show\(\)", text)]
    glued = [m["key"] for m in GLUED_FIGURE.finditer(text)]
    shown = {m["key"]: m for m in DIRECTIVE.finditer(text)}
    for key in glued:
        if key not in shown:
            problems.append(f"{name}: figure {key} is glued but no {{glue:figure}} shows it")
    for key, m in shown.items():
        if ":name:" not in m["options"]:
            problems.append(f"{name}: {{glue:figure}} {key} has no :name: (no number to refer to)")
        caption = " ".join(m["caption"].split())
        if len(caption.split()) < 6:
            problems.append(f"{name}: {{glue:figure}} {key} has no caption that says what it shows")
        if re.search(r"\{(ref|numref|prf:ref|eq)\}|\$", caption):
            problems.append(f"{name}: the caption of {key} holds a label or LaTeX (it goes to captions.csv as is)")
    return problems


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.name)
def test_every_figure_is_glued_and_captioned(chapter):
    assert problems_of(chapter.read_text(encoding="utf-8"), chapter.name) == []


def test_the_check_finds_each_kind_of_uncaptioned_figure():
    text = ("```{code-cell} ipython3\nplt.show()\nglue(\"a_fig\", fig)\nglue(\"b_fig\", fig)\nglue('c_fig', fig)\n```\n\n"
            "```{glue:figure} b_fig\n\nShort.\n```\n\n"
            "```{glue:figure} c_fig\n:name: fig-c\n\nThe chain's trace, see {ref}`sec` for the set-up.\n```\n")
    assert problems_of(text, "toy.md") == [
        "toy.md: plt.show() shows a figure without number or caption (glue it, show it by {glue:figure})",
        "toy.md: figure a_fig is glued but no {glue:figure} shows it",
        "toy.md: {glue:figure} b_fig has no :name: (no number to refer to)",
        "toy.md: {glue:figure} b_fig has no caption that says what it shows",
        "toy.md: the caption of c_fig holds a label or LaTeX (it goes to captions.csv as is)",
    ]

"""Every figure of a chapter is numbered and captioned: glued, then shown by a ``{glue:figure}`` with a name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


# ----------------------------------------------------------------------------- the figures page and the downloads
def test_a_figure_glued_without_display_reaches_the_figures_page_from_the_glue_file(tmp_path):
    """MyST-NB keeps a value glued with display=False in <docname>.glue.json, not in the executed notebook."""
    import json
    import sys

    nbformat = pytest.importorskip("nbformat")
    sys.path.insert(0, str(ROOT / "scripts"))
    import figures

    svg = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="3" height="3"/></svg>'
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Toy\n\n## Traps"),
        nbformat.v4.new_code_cell('fig = plt.figure()\nglue("trap_fig", fig, display=False)\nglue("n", 3)'),
        nbformat.v4.new_markdown_cell("```{glue:figure} trap_fig\n:name: fig-trap\n\nGibbs stays where it starts.\n```"),
    ])
    folder = tmp_path / "notebooks"
    folder.mkdir()
    nbformat.write(notebook, folder / "toy.ipynb")
    (folder / "toy.glue.json").write_text(json.dumps({
        "trap_fig": {"output_type": "display_data", "metadata": {}, "data": {"image/svg+xml": svg}},
        "n": {"output_type": "display_data", "metadata": {}, "data": {"text/plain": "3"}}}))
    found = figures.collect(tmp_path, ["notebooks/toy"])
    assert [(f.file, f.caption, f.svg) for f in found] == [("toy-01.svg", "Gibbs stays where it starts.", svg)]


def test_the_download_numbers_and_captions_a_glued_figure_as_the_html_does():
    import sys

    pytest.importorskip("myst_nb")
    sys.path.insert(0, str(ROOT / "scripts"))
    from myst_nb.core.variables import format_plain_text
    from myst_to_markdown import Context, Progress, plain_markdown, unresolved

    ctx = Context({"n": {"text/plain": "12"}}, {}, {}, format_plain_text, chapter="4")
    progress = Progress()
    first = plain_markdown("```{glue:figure} a_fig\n:name: fig-a\n\nOver {glue:text}`n` runs.\n```", ctx, progress)
    second = plain_markdown("Text.\n\n```{glue:figure} b_fig\n:name: fig-b\n\nThe second.\n```", ctx, progress)
    assert first.strip() == "*Figure 4.1. Over 12 runs.*"
    assert second.strip().endswith("*Figure 4.2. The second.*")
    assert unresolved(first + second) == []


def test_without_myst_nb_a_glued_figure_is_shown_where_it_is_made(monkeypatch):
    """A chapter's download runs without MyST-NB: its figures must still appear."""
    import sys

    import IPython.display
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from prunelab.lab.notebook import glue

    shown = []
    monkeypatch.setitem(sys.modules, "myst_nb", None)  # import myst_nb fails, as in a plain Jupyter
    monkeypatch.setattr(IPython.display, "display", shown.append)
    fig = plt.figure()
    glue("a_fig", fig, display=False)
    glue("n", 3, display=False)
    plt.close(fig)
    assert shown == [fig]

"""Every figure of the book, for slides (scripts/figures.py; issue 14 item 6) and the site check of its page."""

from __future__ import annotations

import csv
import io
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("bs4")

import check_site  # noqa: E402
import figures  # noqa: E402

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="{0}" height="{0}"/></svg>'
PNG = "iVBORw0KGgo="


def _output(svg: str | None, glued: str | None = None, png: bool = True):
    data = {"text/plain": "<Figure>"}
    if png:
        data["image/png"] = PNG
    if svg:
        data["image/svg+xml"] = svg
    metadata = {}
    if glued:  # MyST-NB's glue(name, fig, display=False)
        data = {figures.GLUE_PREFIX + k: v for k, v in data.items()}
        metadata = {"scrapbook": {"name": glued, "mime_prefix": figures.GLUE_PREFIX}}
    return nbformat.v4.new_output("display_data", data=data, metadata=metadata)


def _notebook():
    cells = [
        nbformat.v4.new_markdown_cell("(toy)=\n# Toy chapter\n\nIntro."),
        nbformat.v4.new_code_cell("import matplotlib\n# not a figure", outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="hi\n")]),
        nbformat.v4.new_markdown_cell("## The pair\n\nText."),
        nbformat.v4.new_code_cell("fig, ax = plt.subplots()\n  # Gibbs's trap on the pair\n# second comment",
                                  outputs=[_output(SVG.format(1))]),
        nbformat.v4.new_code_cell("fig  # no comment line", outputs=[_output(SVG.format(2)), _output(None)]),
        nbformat.v4.new_markdown_cell("## The chain\n\n### A subsection\n"),
        nbformat.v4.new_code_cell("glue('chain_fig', fig, display=False)",
                                  outputs=[_output(SVG.format(3), glued="chain_fig")]),
        nbformat.v4.new_markdown_cell("```{glue:figure} chain_fig\n:name: fig-chain\n:figwidth: 80%\n\n"
                                      "The chain's trace,\nover {glue:text}`n` draws.\n```"),
        nbformat.v4.new_code_cell("glue('other', fig, display=False)  # glued, shown by no glue:figure",
                                  outputs=[_output(SVG.format(4), glued="other")]),
    ]
    return nbformat.v4.new_notebook(cells=cells)


def test_every_svg_output_is_a_figure_with_its_caption():
    found = figures.figures_of(_notebook(), "notebooks/toy")
    assert [(f.file, f.chapter, f.caption) for f in found] == [
        ("toy-01.svg", "Toy chapter", "The pair: Gibbs's trap on the pair"),  # heading, then first comment
        ("toy-02.svg", "Toy chapter", "The pair"),  # a comment after code is no comment line
        ("toy-03.svg", "Toy chapter", "The chain's trace, over {glue:text}`n` draws."),  # the glue:figure caption
        ("toy-04.svg", "Toy chapter", "The chain"),  # glued, but shown by no glue:figure
    ]
    assert [f.svg for f in found] == [SVG.format(k) for k in (1, 2, 3, 4)]  # the PNG-only output is no figure


def _site(tmp_path: Path) -> tuple[Path, list]:
    execute = tmp_path / "_build" / "jupyter_execute" / "notebooks"
    execute.mkdir(parents=True)
    nbformat.write(_notebook(), execute / "toy.ipynb")
    html = tmp_path / "_build" / "html"
    (html / "notebooks").mkdir(parents=True)
    (html / "notebooks" / "toy.html").write_text("<h1>Toy</h1>")
    (html / "index.html").write_text("<h1>Book</h1>")
    return html, figures.collect(execute.parent, ["notebooks/toy"])


def test_the_page_and_the_zip_hold_every_figure_with_its_caption_and_chapter(tmp_path):
    html, found = _site(tmp_path)
    (html / "figures").mkdir()
    (html / "figures" / "stale-01.svg").write_text("<svg/>")  # a figure the book no longer has
    index = figures.write(found, html)

    assert sorted(p.name for p in index.parent.iterdir()) == [
        "figures.zip", "index.html", "toy-01.svg", "toy-02.svg", "toy-03.svg", "toy-04.svg"]
    assert (index.parent / "toy-03.svg").read_text() == SVG.format(3)
    page = index.read_text()
    assert page.count("<figure") == 4 and page.count('<img src="toy-') == 4
    assert "Gibbs&#x27;s trap on the pair" in page and 'href="../notebooks/toy.html">Toy chapter</a>' in page
    with zipfile.ZipFile(index.parent / "figures.zip") as archive:
        assert sorted(archive.namelist()) == ["captions.csv", "toy-01.svg", "toy-02.svg", "toy-03.svg", "toy-04.svg"]
        assert archive.read("toy-02.svg").decode() == SVG.format(2)
        rows = list(csv.DictReader(io.StringIO(archive.read("captions.csv").decode())))
    assert rows[0] == {"file": "toy-01.svg", "chapter": "Toy chapter", "page": "notebooks/toy.html",
                       "caption": "The pair: Gibbs's trap on the pair"}
    assert len(rows) == 4
    assert not list(html.glob(".figures-*"))  # no staging folder left behind


def test_the_site_check_wants_the_page_of_figures_complete(tmp_path):
    html, found = _site(tmp_path)
    assert check_site.check_figures(html, ["notebooks/toy"]) == [
        f"figures/index: page {html}/figures/index.html is missing (scripts/figures.py writes it)"]

    figures.write(found, html)
    assert check_site.check_figures(html, ["notebooks/toy"]) == []

    figures.write(found[:3], html)  # a stale page: the chapters now hold one more figure
    assert check_site.check_figures(html, ["notebooks/toy"]) == [
        "figures/index: lists 3 figure(s), the executed chapters hold 4"]

    figures.write(found, html)
    (html / "figures" / "toy-02.svg").unlink()
    assert check_site.check_figures(html, ["notebooks/toy"]) == ["figures/index: image toy-02.svg is missing",
                                                                 "figures/index: link toy-02.svg points to nothing",
                                                                 "figures/index: link toy-02.svg points to nothing"]


def test_a_chapter_that_was_not_executed_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"notebooks/absent\.ipynb is missing: build the book first"):
        figures.collect(tmp_path, ["notebooks/absent"])

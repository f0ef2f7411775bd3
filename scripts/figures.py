#!/usr/bin/env python3
"""Gather every figure of the book for slides: one page of figures and a zip of SVG files.

A teacher who lectures from the book wants its figures as files (issue 14, item 6).
After the build, this script reads the executed chapters
(``_build/jupyter_execute/<docname>.ipynb``, every notebook page of ``_toc.yml``),
takes each ``image/svg+xml`` output (shown, or glued with MyST-NB's ``glue``) and
writes

- ``_build/html/figures/<chapter>-<n>.svg``, one file per figure;
- ``_build/html/figures/index.html``: each figure as an ``<img>`` of its SVG file,
  its caption and a link to its chapter's page;
- ``_build/html/figures/figures.zip``: every SVG and ``captions.csv`` (file,
  chapter, page, caption).

A figure's caption is the caption of the ``{glue:figure}`` directive that shows it,
when it is glued and shown that way; otherwise the nearest ``## `` heading above the
cell, then the first comment line of the cell (``# Gibbs's trap on the pair``). Roles
in captions (glued numbers, references) are spelled out as in the ``.ipynb``
downloads (``scripts/myst_to_markdown.py``). The folder is written anew each time,
so that it never holds a figure the book no longer has. ``make book`` runs it after
the build and before ``scripts/check_site.py``, which checks that the page lists as
many figures as the chapters hold.

Usage::

    python scripts/figures.py [--build _build] [--toc _toc.yml]
"""

from __future__ import annotations

import argparse
import csv
import html
import io
import json
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ipynb_download import contexts  # noqa: E402
from myst_to_markdown import plain_markdown  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SVG = "image/svg+xml"
GLUE_PREFIX = "application/papermill.record/"  # MyST-NB's prefix of a value glued with display=False
FIGURES_DIR = "figures"
_HEADING = re.compile(r"^##\s+(?P<title>.+?)\s*$", re.MULTILINE)
_TITLE = re.compile(r"^#\s+(?P<title>.+?)\s*$", re.MULTILINE)
_GLUE_FIGURE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{glue:figure\}\s*(?P<key>\S+)\s*\n(?P<body>.*?)^(?P=fence)\s*$",
                          re.MULTILINE | re.DOTALL)
_OPTION = re.compile(r"^:[\w-]+:.*$", re.MULTILINE)
_GLUE_CALL = re.compile(r"""\bglue\(\s*["'](\w+)["']""")


class Figure(NamedTuple):
    """One figure of a chapter."""

    docname: str  # "notebooks/background"
    chapter: str  # the chapter's title
    number: int  # its place among the chapter's figures, from 1
    caption: str  # MyST, as in the source (see the module's docstring)
    svg: str

    @property
    def file(self) -> str:
        """``background-03.svg``."""
        return f"{Path(self.docname).name}-{self.number:02d}.svg"


def glue_captions(notebook) -> dict[str, str]:
    """Glue key -> the caption of the ``{glue:figure}`` directive that shows it, in the notebook's Markdown."""
    captions = {}
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for match in _GLUE_FIGURE.finditer(cell.source):
                captions[match["key"]] = " ".join(_OPTION.sub("", match["body"]).split())
    return captions


def _first_comment(source: str) -> str:
    for line in source.split("\n"):
        if line.lstrip().startswith("#") and line.lstrip("# ").strip():
            return line.lstrip("# ").strip()
    return ""


def figures_of(notebook, docname: str, glued: dict | None = None) -> list[Figure]:
    """The SVG figures of one executed notebook, in order, with their captions.

    Parameters
    ----------
    notebook : nbformat.NotebookNode
        An executed chapter (MyST-NB's copy in ``_build/jupyter_execute``).
    docname : str
        Its page, such as ``"notebooks/background"``.
    glued : dict, optional
        MyST-NB's ``<docname>.glue.json`` beside the executed notebook: glue key -> the
        output glued with ``display=False``, which MyST-NB keeps there and strips from the
        notebook. A figure glued in a cell counts where that cell is.

    Returns
    -------
    list of Figure
    """
    captions = glue_captions(notebook)
    glued = glued or {}
    chapter, section, found = Path(docname).name, "", []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            if (title := _TITLE.search(cell.source)) and not found and not section:
                chapter = title["title"]
            headings = _HEADING.findall(cell.source)
            section = headings[-1] if headings else section
            continue
        if cell.cell_type != "code":
            continue
        outputs = [(output.get("data", {}), output.get("metadata", {}).get("scrapbook", {}).get("name"))
                   for output in cell.get("outputs", [])]
        in_cell = {key for _, key in outputs}
        outputs += [(glued[key].get("data", {}), key) for key in _GLUE_CALL.findall(cell.source)
                    if key in glued and key not in in_cell]
        for data, key in outputs:
            svg = data.get(SVG) or data.get(GLUE_PREFIX + SVG)
            if not svg:
                continue
            if key in captions:
                caption = captions[key]
            else:
                comment = _first_comment(cell.source)
                caption = f"{section}: {comment}" if section and comment else section or comment or chapter
            found.append(Figure(docname, chapter, len(found) + 1, caption, svg))
    return found


def collect(execute_dir: Path, docnames: list[str]) -> list[Figure]:
    """Every figure of the executed notebooks ``<execute_dir>/<docname>.ipynb``, in toc order.

    A figure glued with ``display=False`` is read from ``<docname>.glue.json`` beside the
    notebook, where MyST-NB keeps it.

    Raises
    ------
    FileNotFoundError
        A page of the toc that was not executed (build the book first).
    """
    import nbformat

    figures = []
    for docname in docnames:
        path = execute_dir / f"{docname}.ipynb"
        if not path.is_file():
            raise FileNotFoundError(f"figures: {path} is missing: build the book first")
        glue_file = path.with_suffix(".glue.json")
        glued = json.loads(glue_file.read_text(encoding="utf-8")) if glue_file.is_file() else {}
        figures += figures_of(nbformat.read(path, as_version=4), docname, glued)
    return figures


def _index(figures: list[Figure]) -> str:
    items = []
    for figure in figures:
        caption = html.escape(figure.caption)
        page = f"../{figure.docname}.html"
        items.append(
            f'<figure id="{figure.file[:-4]}">\n'
            f'  <a href="{figure.file}"><img src="{figure.file}" alt="{caption}" loading="lazy"></a>\n'
            f'  <figcaption>{caption}<br><span class="from">From <a href="{page}">{html.escape(figure.chapter)}</a>'
            f' &middot; <a href="{figure.file}" download>{figure.file}</a></span></figcaption>\n</figure>')
    body = "\n".join(items)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Figures: every figure of the book</title>
<style>
body {{ font-family: sans-serif; max-width: 1200px; margin: 2em auto; padding: 0 1em; }}
.grid {{ display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 2em; }}
figure {{ margin: 0; }} img {{ width: 100%; height: auto; border: 1px solid #ddd; }}
figcaption {{ font-size: 0.9em; }} .from {{ color: #555; }}
</style>
</head>
<body>
<h1>Figures</h1>
<p>Every figure of the book ({len(figures)}), as SVG for slides, with its caption and the chapter it comes from.
All of them, with <code>captions.csv</code>: <a href="figures.zip" download>figures.zip</a>.
Back to <a href="../index.html">the book</a>.</p>
<div class="grid">
{body}
</div>
</body>
</html>
"""


def write(figures: list[Figure], html_dir: Path) -> Path:
    """Write ``<html_dir>/figures/`` (SVG files, ``index.html``, ``figures.zip``) anew; return its index."""
    target = html_dir / FIGURES_DIR
    staging = Path(tempfile.mkdtemp(prefix=".figures-", dir=html_dir))
    try:
        table = io.StringIO()
        rows = csv.writer(table, lineterminator="\n")
        rows.writerow(["file", "chapter", "page", "caption"])
        with zipfile.ZipFile(staging / "figures.zip", "w", zipfile.ZIP_DEFLATED) as archive:
            for figure in figures:
                (staging / figure.file).write_text(figure.svg, encoding="utf-8")
                archive.writestr(figure.file, figure.svg)
                rows.writerow([figure.file, figure.chapter, f"{figure.docname}.html", figure.caption])
            archive.writestr("captions.csv", table.getvalue())
        (staging / "index.html").write_text(_index(figures), encoding="utf-8")
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target / "index.html"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=Path, default=ROOT / "_build", help="the build folder (default _build)")
    parser.add_argument("--toc", type=Path, default=ROOT / "_toc.yml")
    args = parser.parse_args(argv)
    execute_dir = args.build / "jupyter_execute"
    pages = contexts(execute_dir, ROOT, args.toc)
    figures = [f._replace(caption=plain_markdown(f.caption, pages[f.docname]))
               for f in collect(execute_dir, list(pages))]
    index = write(figures, args.build / "html")
    size = (index.parent / "figures.zip").stat().st_size
    print(f"figures: {len(figures)} figure(s) of {len(pages)} chapter(s) in {index} "
          f"and figures.zip ({size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

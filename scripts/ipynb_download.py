#!/usr/bin/env python3
"""Offer every chapter as a plain ``.ipynb`` notebook.

The chapters are MyST markdown notebooks (``notebooks/*.md``). Readers who want to
run one in Jupyter need an ``.ipynb``. This module converts a source with jupytext
(no outputs: the reader runs it) and writes it to ``_build/html/_sources/<page>.ipynb``
next to the ``.md`` source the theme already publishes. Its Markdown cells are made
plain (``scripts/myst_to_markdown.py``): the numbers the build glued into the prose are
pasted in as text, references, glossary terms and citations are spelled out,
admonitions, definitions and theorems become quotations, exercises and solutions get
bold headings numbered as the book numbers them ("Exercise 3.1"; the solutions' code
cells stay code cells), so that plain Jupyter shows the prose as the book does and the
notebook still runs top to bottom.

Each chapter comes in two editions, both in the page's download menu:

- ``<chapter>.ipynb``, the full chapter, solutions included;
- ``<chapter>-student.ipynb``, the **student edition**: the same notebook with every
  solution (from ``{solution-start}`` to ``{solution-end}``, its prose and its code
  cells) left out, so the exercises are statements only.

It is two things:

- a **Sphinx extension** (listed under ``sphinx.local_extensions`` in ``_config.yml``):
  on each notebook page it adds a ``.ipynb`` entry to the theme's download menu, and
  when the build finishes it writes the notebooks;
- a **command** that does the writing on its own, for a site built some other way
  (``make book`` does not need it: the extension writes the notebooks)::

      python scripts/ipynb_download.py [--toc _toc.yml] [--html _build/html]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from myst_to_markdown import (  # noqa: E402
    Block,
    Context,
    Progress,
    Work,
    directives,
    labelled_blocks,
    plain_markdown,
)

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = "notebooks"
STUDENT_SUFFIX = "-student"  # <chapter>-student.ipynb: the edition without solutions
BIBLIOGRAPHY = Path("book") / "references.bib"
_LABELLED_HEADING = re.compile(r"^\((?P<label>[\w.:-]+)\)=\s*\n+#+\s+(?P<title>.+)$", re.MULTILINE)


def _is_text_notebook(path: Path) -> bool:
    """A .md file with a jupytext header declaring a kernel."""
    if path.suffix != ".md" or not path.is_file():
        return False
    head = path.read_text(encoding="utf-8")[:2000]
    return head.startswith("---") and "kernelspec:" in head


def toc_docnames(toc: Path) -> list[str]:
    """Docnames (path without suffix) of every page the toc lists, root first."""
    import yaml

    data = yaml.safe_load(toc.read_text(encoding="utf-8"))
    found: list[str] = [str(data.get("root", ""))]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                found.append(str(node["file"]))
            for key, value in node.items():
                if key != "file":
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk({k: v for k, v in data.items() if k != "root"})
    return [n[: -len(Path(n).suffix)] if Path(n).suffix in {".md", ".ipynb"} else n for n in found]


def chapter_numbers(toc: Path) -> dict[str, str]:
    r"""The number the book gives each chapter: docname -> ``"3"``, numbered pages only.

    Jupyter Book numbers the chapters of the parts whose ``numbered`` is true (the
    ``defaults`` apply to a part that does not say), and with
    ``use_multitoc_numbering`` the count runs on across parts; the root page and the
    chapters of unnumbered parts have no number.

    Examples
    --------
    >>> import tempfile
    >>> text = ("format: jb-book\nroot: intro\ndefaults: {numbered: true}\nparts:\n"
    ...         "  - {caption: A, numbered: false, chapters: [{file: notebooks/card}]}\n"
    ...         "  - {caption: B, chapters: [{file: notebooks/one}, {file: notebooks/two.md}]}\n"
    ...         "  - {caption: C, chapters: [{file: notebooks/three}]}\n")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "_toc.yml"
    ...     _ = path.write_text(text)
    ...     chapter_numbers(path)
    {'notebooks/one': '1', 'notebooks/two': '2', 'notebooks/three': '3'}
    """
    import yaml

    data = yaml.safe_load(toc.read_text(encoding="utf-8"))
    default = bool((data.get("defaults") or {}).get("numbered", False))
    numbers, count = {}, 0
    for part in data.get("parts") or [{"chapters": data.get("chapters") or []}]:
        if not part.get("numbered", default):
            continue
        for chapter in part.get("chapters") or []:
            if "file" in chapter:
                count += 1
                name = str(chapter["file"])
                docname = name[: -len(Path(name).suffix)] if Path(name).suffix in {".md", ".ipynb"} else name
                numbers[docname] = str(count)
    return numbers


def notebook_pages(root: Path = ROOT, toc: Path | None = None) -> list[str]:
    """Docnames (path without suffix) of the MyST notebooks listed in the toc."""
    return [docname for docname in toc_docnames(toc or root / "_toc.yml") if _is_text_notebook(root / f"{docname}.md")]


def label_titles(root: Path = ROOT, toc: Path | None = None) -> dict[str, str]:
    """Every ``(label)=`` of the toc's pages that stands above a heading -> that heading."""
    titles = {}
    for docname in toc_docnames(toc or root / "_toc.yml"):
        path = root / f"{docname}.md"
        if path.is_file():
            titles.update({m["label"]: m["title"].strip() for m in _LABELLED_HEADING.finditer(path.read_text("utf-8"))})
    return titles


def book_blocks(root: Path = ROOT, toc: Path | None = None) -> dict[str, Block]:
    """Every labelled exercise and definition, theorem or other ``prf`` block of the toc's pages.

    A chapter references a definition that another chapter states, so the labels are
    collected book-wide.
    """
    toc = toc or root / "_toc.yml"
    numbers = chapter_numbers(toc)
    blocks = {}
    for docname in toc_docnames(toc):
        path = root / f"{docname}.md"
        if path.is_file():
            blocks.update(labelled_blocks(path.read_text("utf-8"), numbers.get(docname, "")))
    return blocks


def bibliography(root: Path = ROOT) -> dict[str, Work]:
    """The book's BibTeX entries, as the downloads cite and list them (LaTeX turned to text)."""
    from pybtex.database import parse_file
    from pybtex.richtext import Text

    def text(latex: str) -> str:
        return str(Text.from_latex(latex).render_as("text"))

    works = {}
    for key, entry in parse_file(root / BIBLIOGRAPHY).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        authors = tuple(text(" ".join(p.last_names)) for p in people) or ("Anonymous",)
        fields = entry.fields
        venue = fields.get("journal") or fields.get("booktitle") or fields.get("publisher") or ""
        works[key] = Work(authors, fields.get("year", "n.d."), text(fields.get("title", "")), text(venue))
    return works


def glued_values(execute_dir: Path, docname: str) -> dict[str, dict]:
    """The values a chapter glued when the build executed it (MyST-NB's ``<docname>.glue.json``)."""
    path = execute_dir / f"{docname}.glue.json"
    if not path.is_file():
        return {}
    return {key: output.get("data", {}) for key, output in json.loads(path.read_text("utf-8")).items()}


def without_solutions(cells: list) -> list:
    """The cells of a chapter with every solution left out: its prose and its code cells.

    A solution runs from a ``{solution-start}`` directive to its ``{solution-end}``,
    which may stand inside Markdown cells among other prose; what precedes the start
    and follows the end in those cells stays.
    """
    kept, inside = [], False
    for cell in cells:
        if cell.cell_type != "markdown":
            if not inside:
                kept.append(cell)
            continue
        lines, out, at = cell.source.split("\n"), [], 0
        for directive in directives(cell.source):
            if directive.name not in {"solution-start", "solution-end"}:
                continue
            if not inside:
                out.extend(lines[at:directive.start])
            inside, at = directive.name == "solution-start", directive.end
        if not inside:
            out.extend(lines[at:])
        cell.source = "\n".join(out)
        if cell.source.strip():
            kept.append(cell)
    return kept


def export(source: Path, target: Path, context: Context, student: bool = False) -> Path:
    """Convert one MyST notebook to a plain .ipynb (no outputs) whose prose Jupyter shows as meant.

    With ``student``, the student edition: every solution left out (:func:`without_solutions`).
    """
    import jupytext

    notebook = jupytext.read(source)
    # A clean notebook: the jupytext header is not needed in .ipynb form.
    notebook.metadata.pop("jupytext", None)
    if student:
        notebook.cells = without_solutions(notebook.cells)
    progress = Progress()
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = plain_markdown(cell.source, context, progress).strip("\n")
    # A cell that held only markup with no text in plain Markdown ({solution-end}) goes.
    notebook.cells = [c for c in notebook.cells if c.cell_type != "markdown" or c.source.strip()]
    target.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(notebook, target, fmt="ipynb")
    return target


def contexts(execute_dir: Path, root: Path = ROOT, toc: Path | None = None) -> dict[str, Context]:
    """What the translation of each notebook page of the toc needs: its glued values, the book's labels and works.

    Glued values come from ``execute_dir`` (MyST-NB's executed copies, ``_build/jupyter_execute``).
    """
    from myst_nb.core.variables import format_plain_text

    toc = toc or root / "_toc.yml"
    titles, works, blocks = label_titles(root, toc), bibliography(root), book_blocks(root, toc)
    numbers = chapter_numbers(toc)
    return {docname: Context(glued_values(execute_dir, docname), titles, works, format_plain_text, blocks,
                             numbers.get(docname, ""))
            for docname in notebook_pages(root, toc)}


def export_all(html_dir: Path, root: Path = ROOT, toc: Path | None = None) -> list[Path]:
    """Write ``<html>/_sources/<docname>.ipynb`` and its student edition for every notebook page of the toc.

    Glued values come from ``<html>/../jupyter_execute`` (MyST-NB's executed copies).
    """
    written = []
    for docname, context in contexts(html_dir.parent / "jupyter_execute", root, toc).items():
        written.append(export(root / f"{docname}.md", html_dir / "_sources" / f"{docname}.ipynb", context))
        written.append(export(root / f"{docname}.md", html_dir / "_sources" / f"{docname}{STUDENT_SUFFIX}.ipynb",
                              context, student=True))
    return written


# ----------------------------------------------------------------- Sphinx extension
def _add_button(app, pagename, templatename, context, doctree):
    """Tell sphinx-book-theme that this page has an .ipynb in _sources/."""
    if doctree is None or app.builder.format != "html":
        return
    source = Path(app.env.doc2path(pagename))
    if _is_text_notebook(source):
        # sphinx-book-theme (header_buttons.add_header_buttons, priority 501) turns
        # this into a ".ipynb" entry of the download menu.
        context["ipynb_source"] = pagename + ".ipynb"


def _add_student_button(app, pagename, templatename, context, doctree):
    """Put the student edition in the download menu, after the full notebook."""
    if not context.get("ipynb_source"):
        return
    student = pagename + STUDENT_SUFFIX + ".ipynb"
    for group in context.get("header_buttons", []):
        if group.get("label") != "download-buttons":
            continue
        buttons = group["buttons"]
        at = next((i + 1 for i, b in enumerate(buttons) if b.get("label") == "download-notebook-button"), 0)
        buttons.insert(at, {
            "type": "link",
            "url": f"{context['pathto']('_sources', 1)}/{student}",
            "text": ".ipynb (student)",
            "icon": "fas fa-graduation-cap",
            "tooltip": "Download the notebook without solutions",
            "label": "download-student-notebook-button",
        })


def _write_notebooks(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    root = Path(app.srcdir)
    written = export_all(Path(app.outdir), root=root)
    from sphinx.util import logging

    logging.getLogger(__name__).info(f"ipynb_download: wrote {len(written)} notebook(s)")


def setup(app):
    app.connect("html-page-context", _add_button, priority=400)
    # after sphinx-book-theme builds the download menu (header_buttons.add_header_buttons, priority 501)
    app.connect("html-page-context", _add_student_button, priority=502)
    app.connect("build-finished", _write_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}


# ----------------------------------------------------------------------- command
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write plain .ipynb copies of the chapters.")
    parser.add_argument("--toc", type=Path, default=ROOT / "_toc.yml")
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    args = parser.parse_args(argv)
    for path in export_all(args.html, ROOT, args.toc):
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

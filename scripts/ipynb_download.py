#!/usr/bin/env python3
"""Offer every chapter as a plain ``.ipynb`` notebook.

The chapters are MyST markdown notebooks (``notebooks/*.md``). Readers who want to
run one in Jupyter need an ``.ipynb``. This module converts a source with jupytext
(no outputs: the reader runs it) and writes it to ``_build/html/_sources/<page>.ipynb``
next to the ``.md`` source the theme already publishes.

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
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = "notebooks"


def _is_text_notebook(path: Path) -> bool:
    """A .md file with a jupytext header declaring a kernel."""
    if path.suffix != ".md" or not path.is_file():
        return False
    head = path.read_text(encoding="utf-8")[:2000]
    return head.startswith("---") and "kernelspec:" in head


def notebook_pages(root: Path = ROOT, toc: Path | None = None) -> list[str]:
    """Docnames (path without suffix) of the MyST notebooks listed in the toc."""
    import yaml

    toc = toc or root / "_toc.yml"
    data = yaml.safe_load(toc.read_text(encoding="utf-8"))
    found: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                found.append(str(node["file"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    found.append(str(data.get("root", "")))
    walk({k: v for k, v in data.items() if k != "root"})
    pages = []
    for docname in found:
        docname = docname[:-3] if docname.endswith(".md") else docname
        if _is_text_notebook(root / f"{docname}.md"):
            pages.append(docname)
    return pages


def export(source: Path, target: Path) -> Path:
    """Convert one MyST notebook to a plain .ipynb (no outputs) with jupytext."""
    import jupytext

    notebook = jupytext.read(source)
    # A clean notebook: the jupytext header is not needed in .ipynb form.
    notebook.metadata.pop("jupytext", None)
    target.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(notebook, target, fmt="ipynb")
    return target


def export_all(html_dir: Path, root: Path = ROOT, toc: Path | None = None) -> list[Path]:
    """Write ``<html>/_sources/<docname>.ipynb`` for every notebook page of the toc."""
    written = []
    for docname in notebook_pages(root, toc):
        written.append(export(root / f"{docname}.md", html_dir / "_sources" / f"{docname}.ipynb"))
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


def _write_notebooks(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    root = Path(app.srcdir)
    written = export_all(Path(app.outdir), root=root)
    from sphinx.util import logging

    logging.getLogger(__name__).info(f"ipynb_download: wrote {len(written)} notebook(s)")


def setup(app):
    app.connect("html-page-context", _add_button, priority=400)
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

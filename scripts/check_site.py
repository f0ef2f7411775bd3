#!/usr/bin/env python3
"""Check the built book in ``_build/html`` the way a reader would find it.

For every page listed in ``_toc.yml``:

- the HTML page exists and has a title;
- no cell output shows an error: no ``traceback`` or ``stderr`` output block, no
  ``Traceback (most recent call last)``, no line like ``SomeError: ...`` in an
  output, no docutils ``system-message`` (a role or directive that failed). A cell
  tagged ``raises-exception`` shows its error on purpose and is not flagged;
- every local ``<img>`` it shows and every local file it links to exists;
- the page's text shows no project process: no issue numbers, acceptance targets,
  machine paths or notes to the authors (``check_prose.process_findings``);
- a MyST notebook page offers its ``.ipynb`` download and its student edition
  (``-student.ipynb``), and each is a valid notebook whose Markdown shows no MyST raw
  (``myst_to_markdown.unresolved``) and no project process.

And the page of figures (``figures/index.html``, written by ``scripts/figures.py``)
exists, passes the same checks, and lists every figure the executed chapters hold.

Exits 1 with one line per problem, 0 when the site is clean. ``make book`` runs it
last.

Usage::

    python scripts/check_site.py [--html _build/html] [--toc _toc.yml]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_prose import process_findings  # noqa: E402
from figures import FIGURES_DIR, collect  # noqa: E402
from ipynb_download import STUDENT_SUFFIX, notebook_pages, toc_docnames  # noqa: E402
from myst_to_markdown import unresolved  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# Output blocks that only appear when something went wrong.
ERROR_CLASSES = ("traceback", "stderr", "system-message")
ERROR_TEXT = (
    re.compile(r"Traceback \(most recent call last\)"),
    re.compile(r"^\s*[A-Za-z_][\w.]*(Error|Exception|Warning):", re.MULTILINE),
)


def _local_target(page: Path, html_dir: Path, url: str) -> Path | None:
    """The file a relative URL of ``page`` points to, or None for external/anchor URLs."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or not parts.path or url.startswith(("#", "mailto:", "data:")):
        return None
    target = (page.parent / unquote(parts.path)).resolve()
    return target


def _expected_error(node) -> bool:
    """True inside a cell tagged ``raises-exception``: an error shown on purpose."""
    cell = node.find_parent(class_="cell")
    return cell is not None and "tag_raises-exception" in cell.get("class", [])


def check_page(docname: str, html_dir: Path, notebook: bool) -> list[str]:
    page = html_dir / f"{docname}.html"
    if not page.is_file():
        return [f"{docname}: page {page} is missing"]
    problems = []
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    main = soup.find("main") or soup
    article = main.find(attrs={"role": "main"}) or main

    if not article.find(["h1"]):
        problems.append(f"{docname}: no <h1> title")
    problems += [f"{docname}: the page shows {f.kind}: {f.text!r}" for f in process_findings(article.get_text())]

    for cls in ERROR_CLASSES:
        for node in article.find_all(class_=cls):
            if _expected_error(node):
                continue
            text = " ".join(node.get_text(" ", strip=True).split())[:200]
            problems.append(f"{docname}: a '{cls}' block: {text!r}")

    for output in article.select(".cell_output"):
        if _expected_error(output):
            continue
        text = output.get_text("\n")
        for pattern in ERROR_TEXT:
            match = pattern.search(text)
            if match:
                line = text[match.start() : text.find("\n", match.end())].strip()[:200]
                problems.append(f"{docname}: an error in a cell output: {line!r}")
                break

    for img in article.find_all("img"):
        src = img.get("src", "")
        target = _local_target(page, html_dir, src)
        if target is not None and not target.is_file():
            problems.append(f"{docname}: image {src} is missing")

    for link in soup.find_all("a", href=True):
        target = _local_target(page, html_dir, link["href"])
        if target is not None and not target.exists():
            problems.append(f"{docname}: link {link['href']} points to nothing")

    if notebook:
        for suffix in ("", STUDENT_SUFFIX):  # the full notebook and its student edition
            ipynb = html_dir / "_sources" / f"{docname}{suffix}.ipynb"
            if not ipynb.is_file():
                problems.append(f"{docname}: download {ipynb.relative_to(html_dir)} is missing")
                continue
            text = ipynb.read_text(encoding="utf-8")
            try:
                nb = json.loads(text)
                assert nb.get("nbformat") == 4 and nb.get("cells"), "not an nbformat-4 notebook"
            except (ValueError, AssertionError) as exc:
                problems.append(f"{docname}: download {ipynb.name} is not a notebook: {exc}")
            else:
                for cell in nb["cells"]:
                    if cell.get("cell_type") == "markdown":
                        left = unresolved("".join(cell.get("source", "")))
                        if left:
                            problems.append(f"{docname}: download {ipynb.name} shows MyST raw: {left[:3]}")
                markdown = "\n".join("".join(c.get("source", "")) for c in nb["cells"])
                problems += [f"{docname}: download {ipynb.name} shows {f.kind}: {f.text!r}"
                             for f in process_findings(markdown)]
                page_numbers = set(re.findall(r"Exercise (\d+(?:\.\d+)?)", article.get_text(" ")))
                for number in re.findall(r"\*\*Exercise (\d+(?:\.\d+)?)", markdown):
                    if number not in page_numbers:
                        problems.append(f"{docname}: download {ipynb.name} has Exercise {number}, the page has "
                                        f"{', '.join(sorted(page_numbers)) or 'none'}")
            if f"{Path(docname).name}{suffix}.ipynb" not in page.read_text(encoding="utf-8"):
                problems.append(f"{docname}: the page does not offer its {suffix or 'full'} .ipynb download")
    return problems


def check_figures(html_dir: Path, notebooks: list[str]) -> list[str]:
    """Problems of the page of figures: missing, broken, or listing fewer figures than the chapters hold."""
    docname = f"{FIGURES_DIR}/index"
    if not (html_dir / f"{docname}.html").is_file():
        return [f"{docname}: page {html_dir / docname}.html is missing (scripts/figures.py writes it)"]
    problems = check_page(docname, html_dir, notebook=False)
    soup = BeautifulSoup((html_dir / f"{docname}.html").read_text(encoding="utf-8"), "html.parser")
    listed = len(soup.select("figure img"))
    try:
        held = len(collect(html_dir.parent / "jupyter_execute", notebooks))
    except FileNotFoundError as exc:
        return problems + [f"{docname}: {exc}"]
    if listed < held:
        problems.append(f"{docname}: lists {listed} figure(s), the executed chapters hold {held}")
    if not (html_dir / FIGURES_DIR / "figures.zip").is_file():
        problems.append(f"{docname}: {FIGURES_DIR}/figures.zip is missing")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check the built book.")
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--toc", type=Path, default=ROOT / "_toc.yml")
    args = parser.parse_args(argv)
    html_dir = args.html.resolve()
    docnames = toc_docnames(args.toc)
    notebooks = notebook_pages(ROOT, args.toc)
    problems = []
    for docname in docnames:
        problems += check_page(docname, html_dir, docname in notebooks)
    problems += check_figures(html_dir, notebooks)
    if problems:
        print(f"check_site: {len(problems)} problem(s) in {html_dir}:")
        for line in problems:
            print(f"  - {line}")
        return 1
    n_images = sum(
        len(BeautifulSoup((html_dir / f"{d}.html").read_text(encoding="utf-8"), "html.parser").find_all("img"))
        for d in docnames
    )
    print(
        f"check_site: {len(docnames)} page(s) OK ({len(notebooks)} notebook(s) with .ipynb "
        f"downloads, {n_images} image(s)) and the page of figures in {html_dir}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

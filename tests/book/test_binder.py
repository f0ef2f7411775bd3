"""The launch button's environment: Binder installs what a chapter imports, and every chapter it opens exists.

That the environment resolves against PyPI is checked by ``scripts/check_platforms.py``
(a CI step: it needs the network); here, what can be checked offline.
"""

from __future__ import annotations

import ast
import os
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINDER = ROOT / "binder"
sys.path.insert(0, str(ROOT / "scripts"))

from book_buttons import button_options  # noqa: E402
from check_platforms import requirements  # noqa: E402
from ipynb_download import notebook_pages  # noqa: E402


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~\[;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_binder_installs_the_chapters_extra_with_the_books_versions_and_jupytext():
    lines = [line.strip() for line in (BINDER / "requirements.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert lines == ["-c ../constraints.txt", ".[chapters]", "jupytext>=1.16"]
    assert (BINDER / "../constraints.txt").resolve().is_file()  # pip reads -c relative to the file
    assert os.access(BINDER / "postBuild", os.X_OK)
    assert "jupytext-config set-default-viewer markdown myst" in (BINDER / "postBuild").read_text()
    runtime = (BINDER / "runtime.txt").read_text().strip()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert runtime == "python-" + project["requires-python"].removeprefix(">=")  # the Python CI builds the book with


def test_each_launch_target_is_a_chapter_jupytext_opens_as_a_notebook():
    options = button_options("https://github.com/someone/prunelab")
    assert options["path_to_docs"] == "" and options["launch_buttons"]["notebook_interface"] == "jupyterlab"
    pages = notebook_pages(ROOT)
    assert len(pages) >= 15
    for docname in pages:  # the theme links to lab/tree/<path_to_docs><docname>.md
        text = (ROOT / f"{docname}.md").read_text(encoding="utf-8")
        header = text.split("---\n", 2)[1]
        assert "format_name: myst" in header and "kernelspec:" in header, docname


def test_the_button_stays_off_without_a_repository():
    assert button_options("")["launch_buttons"] == {}


def _imports(path: Path) -> set[str]:
    """Top-level modules the code cells of a MyST chapter import."""
    cells = re.findall(r"^```\{code-cell\}[^\n]*\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)
    names = set()
    for cell in cells:
        code = "\n".join(line for line in cell.splitlines() if not line.startswith((":", "%", "!")))
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("docname", notebook_pages(ROOT))
def test_the_chapters_extra_holds_what_a_chapter_imports(docname):
    declared = {_name(r) for r in requirements(None) + requirements("chapters")}
    owners = packages_distributions()
    for module in sorted(_imports(ROOT / f"{docname}.md") - set(sys.stdlib_module_names) - {"prunelab"}):
        distributions = {d.lower().replace("_", "-") for d in owners.get(module, [module])}
        assert distributions & declared, f"{docname} imports {module}, which the chapters extra does not declare"

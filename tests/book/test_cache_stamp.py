"""The book's execution cache never replays a failed page (scripts/cache_stamp.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import cache_stamp  # noqa: E402
import check_site  # noqa: E402

jupyter_cache = pytest.importorskip("jupyter_cache")


def _notebook(*outputs) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print('hello')", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="hello\n"), *outputs]
    nb.cells = [cell]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


STDERR = nbformat.v4.new_output("stream", name="stderr", text="FutureWarning: a notice\n")
ERROR = nbformat.v4.new_output("error", ename="ValueError", evalue="bad", traceback=[])


def test_failed_outputs_names_stderr_and_errors():
    assert cache_stamp.failed_outputs(_notebook()) == []
    assert cache_stamp.failed_outputs(_notebook(STDERR)) == ["cell 0: stderr: FutureWarning: a notice"]
    assert cache_stamp.failed_outputs(_notebook(ERROR)) == ["cell 0: ValueError: bad"]


def test_purge_removes_only_failed_executions(tmp_path):
    build = tmp_path / "_build"
    cache = jupyter_cache.get_cache(build / cache_stamp.CACHE_NAME)
    for name, extra in (("clean", ()), ("noisy", (STDERR,)), ("broken", (ERROR,))):
        path = tmp_path / f"{name}.ipynb"
        nb = _notebook(*extra)
        nb.cells[0].source = f"print({name!r})"  # distinct code, distinct cache keys
        nbformat.write(nb, path)
        cache.cache_notebook_file(str(path), check_validity=False)
    (build / cache_stamp.DOCTREES_NAME).mkdir()

    removed = cache_stamp.purge_failed(build)

    assert sorted(Path(uri).stem for uri in removed) == ["broken", "noisy"]
    assert [Path(r.uri).stem for r in cache.list_cache_records()] == ["clean"]
    assert not (build / cache_stamp.DOCTREES_NAME).exists()  # Sphinx re-reads every page
    assert cache_stamp.purge_failed(build) == []  # nothing left to remove
    assert cache_stamp.purge_failed(tmp_path / "no-build-yet") == []


PAGE = """---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {name: python3, display_name: Python 3, language: python}
---
# Page

```{code-cell} ipython3
import sys
from pathlib import Path

if Path("notice-today").exists():  # a library notice printed once a day
    print("a once-a-day notice", file=sys.stderr)
print("the result")
```
"""


JUPYTER_BOOK = Path(sys.executable).parent / "jupyter-book"


def _build(book: Path) -> str:
    subprocess.run([str(JUPYTER_BOOK), "build", str(book), "-q"], check=True,
                   capture_output=True, text=True, timeout=600)
    return (book / "_build" / "html" / "page.html").read_text(encoding="utf-8")


@pytest.mark.skipif(not JUPYTER_BOOK.exists(), reason="needs the book extra")
def test_a_page_that_failed_executes_again_next_build(tmp_path):
    """A page cached with stderr is replayed by jupyter-cache; after the purge it executes anew."""
    book = tmp_path / "book"
    book.mkdir()
    (book / "_config.yml").write_text("title: t\nexecute:\n  execute_notebooks: cache\n"
                                      "  stderr_output: show\n  run_in_temp: false\n")
    (book / "_toc.yml").write_text("format: jb-book\nroot: page\n")
    (book / "page.md").write_text(PAGE)
    (book / "notice-today").touch()
    build = book / "_build"

    def stderr_blocks() -> list[str]:
        return [p for p in check_site.check_page("page", build / "html", notebook=False) if "'stderr'" in p]

    assert "the result" in _build(book)
    assert stderr_blocks()  # the site check rejects the page

    (book / "notice-today").unlink()  # the next day
    _build(book)
    assert stderr_blocks()  # the cache replays the failure: the bug this guards against

    assert [Path(uri).name for uri in cache_stamp.purge_failed(build)] == ["page.md"]
    assert "the result" in _build(book)
    assert check_site.check_page("page", build / "html", notebook=False) == []

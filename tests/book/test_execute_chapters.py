"""Chapters executed side by side are the ones Jupyter Book renders (scripts/execute_chapters.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "execute_chapters.py"
JUPYTER_BOOK = Path(sys.executable).parent / "jupyter-book"
jupyter_cache = pytest.importorskip("jupyter_cache")

PAGE = """---
jupytext:
  text_representation: {{extension: .md, format_name: myst}}
kernelspec: {{name: python3, display_name: Python 3, language: python}}
---
# {name}

```{{code-cell}} ipython3
:tags: [hide-input]
from pathlib import Path

with Path("runs-{name}.txt").open("a") as runs:  # one line per execution of this page
    runs.write("run\\n")
{code}
```
"""


def _book(tmp_path: Path) -> Path:
    book = tmp_path / "book"
    book.mkdir()
    (book / "_config.yml").write_text("title: t\nexecute:\n  execute_notebooks: cache\n  run_in_temp: false\n")
    (book / "_toc.yml").write_text("format: jb-book\nroot: one\nchapters:\n- file: two\n- file: broken\n")
    (book / "one.md").write_text(PAGE.format(name="one", code="print('the first result')"))
    (book / "two.md").write_text(PAGE.format(name="two", code="print('the second result')"))
    (book / "broken.md").write_text(PAGE.format(name="broken", code="raise ValueError('a broken page')"))
    return book


def _execute(book: Path) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), "--book", str(book), "--jobs", "2",
                           *(str(book / f"{n}.md") for n in ("one", "two", "broken"))],
                          check=True, capture_output=True, text=True, timeout=600)
    return done.stdout


@pytest.mark.skipif(not JUPYTER_BOOK.exists(), reason="needs the book extra")
def test_the_build_renders_the_executions_it_finds_and_reruns_a_failed_one(tmp_path):
    book = _book(tmp_path)
    out = _execute(book)
    assert "3 of 3 chapter(s) to execute, 2 at once" in out
    assert "broken.md failed" in out and "2 cached, 1 failed" in out, out
    runs = {n: (book / f"runs-{n}.txt").read_text().count("run") for n in ("one", "two", "broken")}
    assert runs == {"one": 1, "two": 1, "broken": 1}

    subprocess.run([str(JUPYTER_BOOK), "build", str(book), "-q"], check=True, capture_output=True, text=True,
                   timeout=600)
    html = {n: (book / "_build" / "html" / f"{n}.html").read_text(encoding="utf-8") for n in ("one", "two")}
    assert "the first result" in html["one"] and "the second result" in html["two"]
    runs = {n: (book / f"runs-{n}.txt").read_text().count("run") for n in ("one", "two", "broken")}
    # the two cached pages were rendered from the cache, under the key Jupyter Book computes; the failed one ran again
    assert runs == {"one": 1, "two": 1, "broken": 2}

    assert "1 of 3 chapter(s) to execute, 1 at once" in _execute(book)  # the broken page is never cached
    assert (book / "runs-one.txt").read_text().count("run") == 1

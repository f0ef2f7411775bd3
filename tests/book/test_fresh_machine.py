"""What a reader's first run on a fresh machine prints.

A fresh machine has no per-user state: ArviZ's "already warned today" stamp, the
matplotlib font cache and the numba cache are all missing. ArviZ 0.x then prints a
notice on the first import of each day, and a chapter that imports PyMC (which
imports ArviZ) unguarded showed it on its page, failing the book. These tests run
imports in a subprocess whose home and cache directories are new and empty.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.md"))
ARVIZ_NOTICE = "ArviZ is undergoing a major refactor"


def _fresh_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_CONFIG_HOME=str(home / ".config"),
        MPLCONFIGDIR=str(home / ".config" / "matplotlib"),
        PYTHONPATH=str(ROOT),
        PYTHONWARNINGS="default",  # show every warning once, as a kernel does
    )
    return env


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], env=_fresh_env(tmp_path), cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)


def test_arviz_prints_its_notice_on_a_fresh_machine(tmp_path):
    """The control: without the guard, a first import on a new machine shows the notice.

    If this fails, ArviZ no longer prints it, and the guards below can go.
    """
    result = _run("import arviz", tmp_path)
    assert result.returncode == 0, result.stderr
    assert ARVIZ_NOTICE in result.stderr


def test_guarded_imports_print_nothing_on_a_fresh_machine(tmp_path):
    code = textwrap.dedent("""
        from prunelab.diagnostics import _arviz
        from prunelab.lab.peers import import_pymc
        _arviz()
        import_pymc()
    """)
    result = _run(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def _is_quiet_setup(node: ast.stmt) -> bool:
    """An import, a warnings/logging filter, or a ``with`` block of only those."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return ast.unparse(node.value.func).startswith(("warnings.", "logging."))
    if isinstance(node, ast.With):
        return all(_is_quiet_setup(child) for child in node.body)
    return False


def chapter_imports(path: Path) -> str:
    """Every top-level import of a chapter's code cells (with the filters around them)."""
    import jupytext

    nb = jupytext.read(path)
    lines = []
    for cell in nb.cells:
        if cell.cell_type != "code" or cell.source.lstrip().startswith(("%", "!")):
            continue
        tree = ast.parse(cell.source)
        lines += [ast.unparse(node) for node in tree.body if _is_quiet_setup(node)]
    return "\n".join(lines)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_chapter_imports_print_nothing_on_a_fresh_machine(path, tmp_path):
    """A chapter's imports, run as its first execution on a new machine, write no stderr.

    The book fails on any stderr output; a notice printed once a day or once per
    machine would fail it on a reader's machine and nowhere else.
    """
    code = chapter_imports(path)
    assert "import" in code
    result = _run(code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", f"{path.name} prints on a fresh machine:\n{result.stderr}"

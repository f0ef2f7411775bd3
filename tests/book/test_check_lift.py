"""Each section of a chapter runs after only its setup cell (scripts/check_lift.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

pytest.importorskip("jupytext")
pytest.importorskip("nbclient")

import check_lift  # noqa: E402

HEADER = """---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {name: python3, display_name: Python 3, language: python}
---
"""

CHAPTER = HEADER + """
(toy)=
# Toy chapter

```{code-cell} ipython3
import os
from pathlib import Path
SEED = 7
```

```{code-cell} ipython3
opening = SEED + 1
```

(toy-first)=
## The first section

```{code-cell} ipython3
first = SEED * 2
```

## Uses the first without saying so

```{code-cell} ipython3
undeclared = first + 1
```

(toy-declared)=
## Says it runs after the first

% runs-after: toy-first

```{code-cell} ipython3
declared = first + 1
assert declared == 15
```

## Runs after a section that runs after another

% runs-after: toy-declared

```{code-cell} ipython3
assert declared + first == 29
```

## Self-contained, in the kernel the script promises

```{code-cell} ipython3
assert os.environ["PRUNELAB_PROFILE"] == "smoke"
assert Path("toy.md").is_file()  # the working directory is the chapter's folder
mine = SEED
```

## Only prose

Nothing runs here.

## References
"""


def _write(tmp_path: Path, text: str, name: str = "toy.md") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_chapter_splits_into_its_setup_cell_and_sections(tmp_path):
    setup, sections = check_lift.parse_chapter(_write(tmp_path, CHAPTER))
    assert setup.source.startswith("import os")
    assert [(s.heading, s.label, s.after, len(s.cells)) for s in sections] == [
        ("Toy chapter", None, [], 1),
        ("The first section", "toy-first", [], 1),
        ("Uses the first without saying so", None, [], 1),
        ("Says it runs after the first", "toy-declared", ["toy-first"], 1),
        ("Runs after a section that runs after another", None, ["toy-declared"], 1),
        ("Self-contained, in the kernel the script promises", None, [], 1),
        ("Only prose", None, [], 0),
        ("References", None, [], 0),
    ]
    assert check_lift.run_order(sections, 4) == [1, 3, 4]  # transitively, in chapter order


def test_a_heading_inside_a_fenced_block_starts_no_section(tmp_path):
    text = HEADER + "```{code-cell} ipython3\nx = 1\n```\n\n````markdown\n## Not a heading\n````\n\n" \
                    "```{code-cell} ipython3\ny = 2\n```\n"
    _, sections = check_lift.parse_chapter(_write(tmp_path, text))
    assert [(s.heading, len(s.cells)) for s in sections] == [("toy", 1)]


def test_each_section_runs_after_only_the_setup_cell(tmp_path):
    """One kernel: the section that uses an earlier name fails, the declared and self-contained ones pass."""
    path = _write(tmp_path, CHAPTER)
    env = {k: v for k, v in os.environ.items() if k != "PRUNELAB_PROFILE"}
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_lift.py"), str(path)],
                         capture_output=True, text=True, env=env, timeout=300)
    lines = run.stdout.splitlines()
    verdicts = [tuple(part.strip() for part in line.split(" | ")[:3]) for line in lines if " | " in line]
    assert verdicts == [
        ("toy.md", "Toy chapter", "OK"),
        ("toy.md", "The first section", "OK"),
        ("toy.md", "Uses the first without saying so", "FAIL"),
        ("toy.md", "Says it runs after the first", "OK"),
        ("toy.md", "Runs after a section that runs after another", "OK"),
        ("toy.md", "Self-contained, in the kernel the script promises", "OK"),
    ], run.stdout + run.stderr
    failure = lines.index(next(line for line in lines if "| FAIL |" in line))
    assert lines[failure + 1].strip() == "NameError: name 'first' is not defined"
    assert lines[failure + 2].strip() == "in the cell that starts: undeclared = first + 1"
    assert "5/6 sections of 1 chapter(s)" in lines[-1]
    assert run.returncode == 1


def test_a_chapter_whose_sections_all_lift_passes(tmp_path):
    text = HEADER + "```{code-cell} ipython3\nSEED = 1\n```\n\n## One\n\n```{code-cell} ipython3\nassert SEED == 1\n```\n"
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_lift.py"), str(_write(tmp_path, text))],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "toy.md | One | OK |" in run.stdout


@pytest.mark.parametrize("text, message", [
    (HEADER + "# Prose only\n\nNo code at all.\n", r"toy\.md: no code cell; a chapter's first code cell is its setup"),
    (CHAPTER.replace("% runs-after: toy-declared", "% runs-after: toy-nowhere"),
     r"toy\.md: section '## Runs after a section that runs after another' runs after toy-nowhere, "
     r"but the target \(toy-nowhere\)= stands above no `## ` heading of this chapter"),
    (CHAPTER.replace("% runs-after: toy-first", "% runs-after: toy-declared"),
     r"runs after toy-declared, but the target \(toy-declared\)= stands above a later section"),
    (CHAPTER.replace("% runs-after: toy-first", "% runs-after:"),
     r"says 'runs-after' but names no section label"),
])
def test_a_chapter_the_script_cannot_read_is_named_with_what_is_wrong(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(check_lift.LiftError, match=message):
        check_lift.parse_chapter(path)
    assert check_lift.main([str(path)]) == 2  # before any kernel starts

#!/usr/bin/env python3
"""Check that every section of a chapter runs after only the chapter's setup cell.

A teacher lifts one section of a chapter into a lecture: the chapter's setup cell (its
first code cell: imports, ``rng, PROFILE = setup(seed=...)``, shared constants) and
the section's own cells must be enough. This script proves it
for each chapter::

    python scripts/check_lift.py notebooks/background.md [notebooks/grids.md ...]

It reads the MyST notebook with jupytext and splits the code cells after the setup
cell into sections at the ``## `` headings of the Markdown cells (the cells before
the first ``## `` form a section named after the chapter's ``# `` title). Then, in
one Jupyter kernel per chapter (kernel ``python3``, working directory the
notebook's folder, ``PRUNELAB_PROFILE=smoke`` unless ``--profile`` says otherwise),
it runs each section after ``%reset -f`` and the setup cell again, so a section
that uses a name only an earlier section defines fails with ``NameError``.

A section that truly needs an earlier one says so in the first line under its
heading, a MyST comment the reader does not see, ``% runs-after: label [label ...]``,
where ``(label)=`` stands right above the earlier section's ``## `` heading; the
earlier section (and whatever it runs after, in turn) is then run first. Sections
without code cells are skipped.

Output: one line per section (chapter, heading, OK or FAIL, seconds) and, for a
failure, the error and the first line of the cell that raised it; a total at the
end. Exit status 1 if any section fails, 2 on a chapter the script cannot read (no
code cell, a ``runs-after`` naming no earlier section of the chapter).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PROFILE = "smoke"
_HEADING = re.compile(r"^##\s+(?P<title>.+?)\s*$")
_TITLE = re.compile(r"^#\s+(?P<title>.+?)\s*$")
_LABEL = re.compile(r"^\((?P<label>[\w.:-]+)\)=\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})")
_RUNS_AFTER = re.compile(r"^%\s*runs-after:(?P<labels>.*)$")


class LiftError(ValueError):
    """A chapter that cannot be checked as written (the message names the file and what is at fault)."""


@dataclass
class Section:
    """A ``## `` section of a chapter: its heading, label, what it runs after, and its code cells."""

    heading: str
    label: str | None = None
    after: list[str] = field(default_factory=list)
    cells: list = field(default_factory=list)  # nbformat code cells
    first_line_seen: bool = False


@dataclass
class Result:
    """How one section ran."""

    chapter: str
    heading: str
    ok: bool
    seconds: float
    error: str = ""  # "NameError: name 'x' is not defined", when not ok
    cell: str = ""  # first line of the cell that raised it


def _markdown_lines(text: str):
    """Each line of a Markdown cell, and whether it is part of a fenced block (where ``## `` is no heading)."""
    fence = None
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            yield line, True
        elif fence is not None:
            if re.fullmatch(rf"\s*{re.escape(fence[0])}{{{len(fence)},}}\s*", line):
                fence = None
            yield line, True
        else:
            yield line, False


def parse_chapter(path: Path) -> tuple[object, list[Section]]:
    """Read a MyST notebook into its setup cell and its sections.

    Parameters
    ----------
    path : Path
        A chapter (MyST Markdown notebook with a jupytext header).

    Returns
    -------
    setup : nbformat.NotebookNode
        The first code cell.
    sections : list of Section
        In chapter order; the first one holds the code cells before the first ``## ``
        heading (named after the ``# `` title) and may be empty.

    Raises
    ------
    LiftError
        No code cell; a ``runs-after`` comment that names no label, or names a label that
        stands above no earlier ``## `` heading of this chapter.
    """
    import jupytext

    notebook = jupytext.read(path)
    code = [i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
    if not code:
        raise LiftError(f"{path}: no code cell; a chapter's first code cell is its setup cell")
    setup = notebook.cells[code[0]]
    title = next((m["title"] for c in notebook.cells[: code[0]] if c.cell_type == "markdown"
                  for line, fenced in _markdown_lines(c.source) if not fenced and (m := _TITLE.match(line))),
                 path.stem)
    sections = [Section(heading=title, first_line_seen=True)]
    pending_label = None
    for cell in notebook.cells[code[0] + 1:]:
        if cell.cell_type == "code":
            sections[-1].cells.append(cell)
            sections[-1].first_line_seen = True
            pending_label = None
            continue
        if cell.cell_type != "markdown":
            continue
        for line, fenced in _markdown_lines(cell.source):
            if not line.strip():
                continue
            label, heading = (None, None) if fenced else (_LABEL.match(line), _HEADING.match(line))
            if label:
                pending_label = label["label"]
            elif heading:
                sections.append(Section(heading=heading["title"], label=pending_label))
                pending_label = None
            else:
                pending_label = None
                section = sections[-1]
                if not section.first_line_seen:
                    section.first_line_seen = True
                    if runs_after := _RUNS_AFTER.match(line.strip()):
                        section.after = runs_after["labels"].replace(",", " ").split()
                        if not section.after:
                            raise LiftError(f"{path}: section '## {section.heading}' says 'runs-after' but "
                                            f"names no section label: {line.strip()!r}")
    _check_labels(path, sections)
    return setup, sections


def _check_labels(path: Path, sections: list[Section]) -> None:
    earlier: dict[str, int] = {}
    for index, section in enumerate(sections):
        for label in section.after:
            if label not in earlier:
                later = any(s.label == label for s in sections[index:])
                where = "a later section" if later else "no `## ` heading of this chapter"
                raise LiftError(f"{path}: section '## {section.heading}' runs after {label}, but "
                                f"the target ({label})= stands above {where}; it must name an earlier section")
        if section.label:
            earlier[section.label] = index


def run_order(sections: list[Section], index: int) -> list[int]:
    """The sections to run, in chapter order, to run section ``index``: those it runs after (transitively), then it."""
    by_label = {s.label: i for i, s in enumerate(sections) if s.label}
    needed, todo = {index}, [index]
    while todo:
        for label in sections[todo.pop()].after:
            if by_label[label] not in needed:
                needed.add(by_label[label])
                todo.append(by_label[label])
    return sorted(needed)


def _first_line(source: str) -> str:
    return next((line.strip() for line in source.split("\n") if line.strip()), "")


def check_chapter(path: Path, profile: str = DEFAULT_PROFILE, timeout: int = 600, report=print) -> list[Result]:
    """Run each section of one chapter after only its setup cell, in one kernel.

    Parameters
    ----------
    path : Path
        The chapter.
    profile : str
        ``PRUNELAB_PROFILE`` of the kernel.
    timeout : int
        Seconds allowed per cell.
    report : callable
        Called with each result's line as soon as the section has run.

    Returns
    -------
    list of Result
        One per section with code cells, in chapter order.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    setup, sections = parse_chapter(path)
    reset = nbformat.v4.new_code_cell("%reset -f")
    cells = [reset, setup] + [cell for section in sections for cell in section.cells]
    notebook = nbformat.v4.new_notebook(cells=cells)
    env = dict(os.environ, PRUNELAB_PROFILE=profile)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.resolve().parent)}})
    starts = [2]
    for section in sections[:-1]:
        starts.append(starts[-1] + len(section.cells))
    results = []
    with client.setup_kernel(env=env):
        for index, section in enumerate(sections):
            if not section.cells:
                continue
            plan = [(0, reset), (1, setup)] + [(starts[i] + k, cell) for i in run_order(sections, index)
                                               for k, cell in enumerate(sections[i].cells)]
            started = time.perf_counter()
            result = Result(path.name, section.heading, True, 0.0)
            for cell_index, cell in plan:
                try:
                    client.execute_cell(cell, cell_index)
                except CellExecutionError as exc:
                    result.ok, result.error = False, f"{exc.ename}: {exc.evalue}"
                except CellTimeoutError:
                    result.ok, result.error = False, f"CellTimeoutError: the cell ran longer than {timeout} s"
                if not result.ok:
                    result.cell = _first_line(cell.source)
                    break
            result.seconds = time.perf_counter() - started
            results.append(result)
            report(format_result(result))
    return results


def format_result(result: Result) -> str:
    """``chapter | heading | OK | 1.2 s``, and the error on a second line when the section failed."""
    line = f"{result.chapter} | {result.heading} | {'OK' if result.ok else 'FAIL'} | {result.seconds:.1f} s"
    if not result.ok:
        line += f"\n    {result.error}\n    in the cell that starts: {result.cell}"
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="+", type=Path, help="MyST notebooks (notebooks/<chapter>.md)")
    parser.add_argument("--profile", default=DEFAULT_PROFILE, help=f"PRUNELAB_PROFILE (default {DEFAULT_PROFILE})")
    parser.add_argument("--timeout", type=int, default=600, help="seconds allowed per cell (default 600)")
    args = parser.parse_args(argv)
    try:  # read every chapter before running any: a chapter the script cannot read stops it at once
        for path in args.chapters:
            parse_chapter(path)
    except (LiftError, OSError) as exc:
        print(f"check_lift: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    results = []
    for path in args.chapters:
        results += check_chapter(path, args.profile, args.timeout, report=lambda line: print(line, flush=True))
    failed = sum(not r.ok for r in results)
    print(f"check_lift: {len(results) - failed}/{len(results)} sections of {len(args.chapters)} chapter(s) ran "
          f"after only their setup cell at profile {args.profile}; {time.perf_counter() - started:.1f} s in all")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

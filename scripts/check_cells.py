#!/usr/bin/env python3
"""Check the cells and figures a reader sees on a chapter's page, and count them.

The rules (``tests/book/test_cells.py`` runs them on every chapter of ``_toc.yml``):

``cell-length``
    No visible code cell is longer than :data:`MAX_LINES` lines, outside exercise
    solutions (between ``{solution-start}`` and ``{solution-end}``). A cell's length
    is its source lines, blank lines inside included, without its ``:tags:`` line and
    without leading or trailing blank lines.
``visible-glue``
    No ``glue(`` call (nor ``glue_float(``, ``glue_range(``) in a code cell a reader can see
    or unfold.
``visible-assert``
    No ``assert`` in a code cell a reader can see or unfold, outside exercise
    solutions (whose asserts check the answer, and are the point), unless the line
    ends with the marker comment ``# the lesson`` or ``# the lesson: why`` (the assert
    is what the cell teaches: detailed balance holds, a count equals ``|S|``). Every other assert goes
    into a ``remove-cell`` cell or into a lab function the chapter calls.
``alt-text``
    Every ``{glue:figure}`` and ``{figure}`` has an ``:alt:`` option of at least
    :data:`MIN_ALT_WORDS` words that says what the figure shows, and every markdown
    image ``![alt](path)`` a non-empty alt.
``tldr``
    A chapter opens with a TL;DR: the first directive after its ``# `` title is
    ``:::{admonition} TL;DR`` with at most :data:`MAX_TLDR_LINES` non-blank lines of
    body (its ``:class:`` line not counted), before any code cell or ``## `` heading.

What "visible" means: a cell tagged ``remove-cell`` or ``remove-input`` shows no code.
A cell tagged ``hide-input`` shows a collapsed toggle: it is *folded*. A folded cell
takes one line on screen, so the length rule does not apply to it; but a reader who
unfolds it (to reuse the code) meets its glue and asserts, so the glue and assert rules
do. The statistics count folded lines apart from visible ones.

Statistics (``--stats``), per page: prose words (the words of the markdown outside code
cells, exercise solutions, display maths, tables, directive fences (but for the titles of
admonitions, exercises and ``prf`` blocks) and options, labels
and comments; a role such as ``{glue:text}`key``` counts as one word; inline maths is one
word), visible cells and their lines, folded lines, the lines of exercise solutions (in
dropdowns), ``glue(`` lines in shown or folded cells, asserts in shown or folded cells
outside solutions (and how many of them are marked as the lesson), visible cells over the
limit, and figures.

Usage::

    python scripts/check_cells.py notebooks/networks.md       # the rules, exit 1 on a finding
    python scripts/check_cells.py --stats notebooks/*.md book/*.md
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import NamedTuple

MAX_LINES = 20
"""The longest visible code cell, in lines (QuantEcon's lectures keep theirs to 5-20)."""
MAX_TLDR_LINES = 5
"""The longest TL;DR, in non-blank lines."""
MIN_ALT_WORDS = 5
"""The shortest alt text that can say what a figure shows."""
LESSON = "# the lesson"
"""The comment that marks an assert a reader is meant to see: the assert is what the cell teaches."""
RULES = ("cell-length", "visible-glue", "visible-assert", "alt-text", "tldr")

_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_TAGS = re.compile(r"^:tags:\s*\[(?P<tags>[^\]]*)\]\s*$")
_GLUE = re.compile(r"(?<![\w.])glue(?:_\w+)?\(")  # glue(, glue_float(, glue_range(
_ASSERT = re.compile(r"^\s*assert\b")
_LESSON = re.compile(r"#\s*the lesson\b[^#]*$")
_FIGURE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?:glue:figure|figure)\}[^\n]*\n"
                     r"(?P<options>(?:[ \t]*:[\w-]+:[^\n]*\n)*)", re.MULTILINE)
_IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\([^)]*\)")
_SOLUTION = re.compile(r"^```\{solution-start\}.*?^```\{solution-end\}[^\n]*\n```[ \t]*$", re.MULTILINE | re.DOTALL)
_DIRECTIVE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}(?P<arg>[^\n]*)$", re.MULTILINE)
_TITLED = {"admonition", "exercise-start", "exercise"}
_WORD = re.compile(r"\{[\w:-]+\}`[^`]*`|[A-Za-z0-9][\w'’.,;-]*")


class Cell(NamedTuple):
    """One code cell of a MyST notebook: where it starts, its tags, its code lines, whether in a solution."""

    line: int
    tags: tuple[str, ...]
    code: list[str]
    in_solution: bool

    @property
    def hidden(self) -> bool:
        """No code on the page (``remove-cell``, ``remove-input``)."""
        return bool({"remove-cell", "remove-input"} & set(self.tags))

    @property
    def folded(self) -> bool:
        """The code is behind a collapsed toggle (``hide-input``)."""
        return not self.hidden and "hide-input" in self.tags

    @property
    def shown(self) -> bool:
        """The code is on the page, unfolded."""
        return not self.hidden and not self.folded


class Finding(NamedTuple):
    """One breach of a rule: ``file:line``, the rule, what is wrong."""

    where: str
    rule: str
    text: str


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _solution_spans(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _SOLUTION.finditer(text)]


def cells(text: str) -> list[Cell]:
    """The code cells of a MyST notebook's text, in order.

    Examples
    --------
    >>> c, = cells("x\\n```{code-cell} ipython3\\n:tags: [remove-cell]\\n\\nglue('a', 1)\\n```\\n")
    >>> c.line, c.tags, c.code, c.hidden
    (2, ('remove-cell',), ["glue('a', 1)"], True)
    """
    spans = _solution_spans(text)
    found = []
    for m in _CELL.finditer(text):
        lines = m["body"].split("\n")[:-1]
        tags: tuple[str, ...] = ()
        if lines and (t := _TAGS.match(lines[0])):
            tags = tuple(s.strip().strip("'\"") for s in t["tags"].split(",") if s.strip())
            lines = lines[1:]
        while lines and not lines[0].strip():
            lines = lines[1:]
        while lines and not lines[-1].strip():
            lines = lines[:-1]
        in_solution = any(a <= m.start() < b for a, b in spans)
        found.append(Cell(_line_of(text, m.start()), tags, lines, in_solution))
    return found


def _figures(text: str) -> list[tuple[int, str | None]]:
    """(line, alt text or None) of each figure directive and markdown image."""
    found = []
    for m in _FIGURE.finditer(text):
        alt = re.search(r"^[ \t]*:alt:[ \t]*(?P<alt>[^\n]*)$", m["options"], re.MULTILINE)
        found.append((_line_of(text, m.start()), alt["alt"].strip() if alt else None))
    for m in _IMAGE.finditer(_without_cells(text)):
        found.append((_line_of(text, m.start()), m["alt"].strip()))
    return found


def _without_cells(text: str) -> str:
    """The text with every code cell's body blanked (line numbers kept)."""
    return _CELL.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def _tldr_problem(text: str) -> str | None:
    body = re.sub(r"\A---\n.*?\n---\n", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.DOTALL)
    title = re.search(r"^# .+$", body, re.MULTILINE)
    if not title:
        return "no '# ' title"
    rest = body[title.end():]
    first = _DIRECTIVE.search(rest)
    stop = re.search(r"^## |^```\{code-cell\}", rest, re.MULTILINE)
    if not first or (stop and stop.start() < first.start()) or first["name"] != "admonition" \
            or first["arg"].strip() != "TL;DR":
        return "the chapter does not open with a ':::{admonition} TL;DR' (the first directive after its title)"
    close = re.search(rf"^{re.escape(first['fence'])}[ \t]*$", rest[first.end():], re.MULTILINE)
    if not close:
        return "the TL;DR is not closed"
    lines = [s for s in rest[first.end():first.end() + close.start()].split("\n")
             if s.strip() and not re.match(r"^\s*:[\w-]+:", s)]
    if len(lines) > MAX_TLDR_LINES:
        return f"the TL;DR has {len(lines)} lines (at most {MAX_TLDR_LINES})"
    return None


def findings(text: str, where: str = "<text>", chapter: bool = True) -> list[Finding]:
    """Every breach of the rules in one page's MyST source.

    Parameters
    ----------
    text : str
        The page's source.
    where : str
        Its file name, for the findings.
    chapter : bool
        Whether the page is a chapter (a notebook in ``notebooks/``): only chapters need a TL;DR.

    Returns
    -------
    list of Finding

    Examples
    --------
    >>> page = "# T\\n```{code-cell} ipython3\\nglue('a', 1)\\nassert 1 == 1\\nassert 2 == 2  # the lesson\\n```\\n"
    >>> [f.rule for f in findings(page, "t.md")]
    ['tldr', 'visible-glue', 'visible-assert']
    """
    found = []
    for cell in cells(text):
        if cell.hidden:
            continue
        at = f"{where}:{cell.line}"
        if cell.shown and not cell.in_solution and len(cell.code) > MAX_LINES:
            found.append(Finding(at, "cell-length", f"a visible code cell of {len(cell.code)} lines "
                                                    f"(at most {MAX_LINES} outside exercise solutions)"))
        for i, line in enumerate(cell.code):
            if _GLUE.search(line):
                found.append(Finding(f"{where}:{cell.line + i + 1}", "visible-glue",
                                     f"glue( in a cell a reader sees: {line.strip()[:60]}"))
            if _ASSERT.match(line) and not cell.in_solution and not _LESSON.search(line):
                found.append(Finding(f"{where}:{cell.line + i + 1}", "visible-assert",
                                     f"an assert a reader sees, not marked '{LESSON}': {line.strip()[:60]}"))
    for line, alt in _figures(text):
        if not alt or len(alt.split()) < MIN_ALT_WORDS:
            found.append(Finding(f"{where}:{line}", "alt-text",
                                 f"a figure without alt text of at least {MIN_ALT_WORDS} words saying what it shows"))
    if chapter and (problem := _tldr_problem(text)):
        found.append(Finding(f"{where}:1", "tldr", problem))
    found.sort(key=lambda f: int(f.where.rsplit(":", 1)[1]))
    return found


def prose_words(text: str) -> int:
    """The prose words of a page (see the module's docstring for what counts).

    Examples
    --------
    >>> prose_words("# A title\\n\\nTwo {glue:text}`n` words.\\n\\n```{code-cell} ipython3\\nx = 1\\n```\\n$$a+b$$\\n")
    5
    """
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.DOTALL)
    text = _SOLUTION.sub("", text)
    text = _CELL.sub("", text)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.DOTALL)
    text = re.sub(r"^```\{math\}.*?^```", " ", text, flags=re.DOTALL | re.MULTILINE)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.DOTALL)
    words = 0
    for line in text.split("\n"):
        s = line.strip()
        if (d := _DIRECTIVE.match(s)) and (d["name"] in _TITLED or d["name"].startswith("prf:")):
            s = d["arg"]  # a title the reader sees
        elif (s.startswith("|") or d or re.match(r"^(`{3,}|:{3,})\s*$", s)
                or re.match(r"^:[\w-]+:", s) or re.match(r"^\([\w-]+\)=$", s)):
            continue
        s = re.sub(r"(?<!\\)\$[^$]+\$", " x ", s)  # inline maths: one word
        words += len(_WORD.findall(s))
    return words


def stats(text: str) -> dict[str, int]:
    """A page's counts: prose words, code lines, glue, asserts, long cells, figures.

    Examples
    --------
    >>> s = stats("# T\\n```{code-cell} ipython3\\n:tags: [hide-input]\\nglue('a', 1)\\n```\\n")
    >>> s["folded lines"], s["visible lines"], s["visible glue"]
    (1, 0, 1)
    """
    cs = [c for c in cells(text) if not c.hidden]
    asserts = [line for c in cs if not c.in_solution for line in c.code if _ASSERT.match(line)]
    return {
        "prose words": prose_words(text),
        "visible cells": sum(c.shown and not c.in_solution for c in cs),
        "visible lines": sum(len(c.code) for c in cs if c.shown and not c.in_solution),
        "folded lines": sum(len(c.code) for c in cs if c.folded and not c.in_solution),
        "solution lines": sum(len(c.code) for c in cs if c.in_solution),
        "visible glue": sum(bool(_GLUE.search(line)) for c in cs for line in c.code),
        "visible asserts": len(asserts),
        "lesson asserts": sum(bool(_LESSON.search(line)) for line in asserts),
        f"cells > {MAX_LINES}": sum(c.shown and not c.in_solution and len(c.code) > MAX_LINES for c in cs),
        "figures": len(_figures(text)),
    }


def _is_chapter(path: Path) -> bool:
    return path.parent.name == "notebooks"


def main(argv: list[str] | None = None) -> int:
    """Check the pages given (exit status 1 on any finding), or print their statistics."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="+", type=Path, help="MyST pages (notebooks/*.md, book/*.md)")
    parser.add_argument("--stats", action="store_true", help="print each page's counts instead of checking")
    parser.add_argument("--rule", action="append", choices=RULES, help="check only this rule (repeatable)")
    args = parser.parse_args(argv)
    if args.stats:
        rows = [(p.as_posix(), stats(p.read_text(encoding="utf-8"))) for p in args.pages]
        keys = list(rows[0][1])
        width = max(len(name) for name, _ in rows)
        print(f"{'page':<{width}}  " + "  ".join(keys))
        for name, s in rows + [("total", {k: sum(r[k] for _, r in rows) for k in keys})]:
            print(f"{name:<{width}}  " + "  ".join(f"{s[k]:>{len(k)}}" for k in keys))
        return 0
    bad = 0
    for path in args.pages:
        for f in findings(path.read_text(encoding="utf-8"), path.as_posix(), _is_chapter(path)):
            if args.rule is None or f.rule in args.rule:
                print(f"{f.where}: {f.rule}: {f.text}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

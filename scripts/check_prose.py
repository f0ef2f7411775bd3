#!/usr/bin/env python3
"""Check what a reader sees for project process and for numbers typed into prose.

Two rules of the book (see ``tests/book/test_reader_pages.py``, which runs both):

1. **No project process on a reader's page.** A reader sees results, their
   provenance (command, version, date, machine) and their limits, never issue
   numbers, acceptance targets, absolute paths of the machine that made a result, or
   notes the authors left for themselves (``# the prose:``, "tests compare").
   :func:`process_findings` finds them in any text: a chapter's source, a built HTML
   page, a downloaded notebook.
2. **A number in a chapter's prose is glued or it is not there.** A number the build
   computed reaches the prose through ``{glue:text}``; a digit typed into a prose
   paragraph would not change when the results do. :func:`typed_numbers` lists the
   digits typed into the prose of a MyST chapter, outside code cells, maths, inline
   code and roles, except years, the numbers of equations, figures, tables, sections,
   definitions and exercises, and the few definitions in :data:`DEFINITIONS`.

Run it on the sources (exit status 1 on any finding)::

    python scripts/check_prose.py notebooks/*.md book/*.md
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import NamedTuple

# ------------------------------------------------------------------ 1. process
PROCESS_PATTERNS: dict[str, re.Pattern] = {
    "issue number": re.compile(r"\b(?:issues?|pull request|PR)\s+#?\d+", re.IGNORECASE),
    "machine path": re.compile(r"(?<![\w.~-])/(?:work|home|tmp)/"),
    "acceptance target": re.compile(
        r"\b(?:acceptance (?:targets?|criteri\w+)|targets? (?:missed|met)|meets? the target"
        r"|the target of at most)\b", re.IGNORECASE),
    "note to the authors": re.compile(
        r"#\s*the (?:prose|take-away)\b|\btests\s+compare\b|\bthe\s+function's\s+docstring\s+lists\b"
        r"|\bupstream\s+report\b|\bin several parts\b", re.IGNORECASE),
}
"""What a reader's page must not show, by kind."""


class Finding(NamedTuple):
    """One thing a reader should not see: where, what kind, and the text."""

    where: str  # "file:line"
    kind: str
    text: str


def process_findings(text: str, where: str = "<text>") -> list[Finding]:
    """Issue numbers, machine paths, acceptance targets and notes to the authors in ``text``.

    Parameters
    ----------
    text : str
        Any text a reader sees (a chapter's source, an HTML page, a notebook's JSON).
    where : str
        The file, for the findings' ``where`` (line numbers are added).

    Returns
    -------
    list of Finding

    Examples
    --------
    >>> [f.kind for f in process_findings("As issue 13 asks, see /work/main/x and # the prose: yes")]
    ['issue number', 'machine path', 'note to the authors']
    >>> process_findings("MC-SAT's target is P(x | e); the data live in data/results/large/")
    []
    """
    found = []
    lines = text.split("\n")
    for kind, pattern in PROCESS_PATTERNS.items():
        for match in pattern.finditer(text):
            number = text.count("\n", 0, match.start()) + 1
            line = lines[number - 1]
            column = match.start() - (text.rfind("\n", 0, match.start()) + 1)
            found.append(Finding(f"{where}:{number}", kind,
                                 line[max(0, column - 40):column + len(match.group(0)) + 40].strip()))
    found.sort(key=lambda f: int(f.where.rsplit(":", 1)[1]))
    return found


# -------------------------------------------------------------- 2. typed numbers
DEFINITIONS = re.compile(
    r"(?<![\d.,])(?:0|25|50) ?%(?= (?:\{term\}`)?(?:evidence|determinism|deterministic|stochastic))"  # case names
    r"|(?<![\d.,])95 ?%(?=\s+(?:bootstrap\s+|confidence\s+|credible\s+)?interval)"  # the level of an interval
    r"|(?<=below )1\.01\b|\b1\.01(?= below which)"  # the R-hat threshold of Vehtari et al. (2021)
    r"|\(1, 5 and 15 minutes\)"  # the windows of a load average
    r"|(?<=σₜ = )0\.01\b"  # the paper's target spread (its Table 3)
    r"|(?<![\w.,])[01](?!\w|[.,]\d|\s?%)")  # the probabilities 0 and 1, a ratio of 1
"""Numbers that define rather than report: "25 % evidence", "95 % interval", "R-hat below 1.01", "0 or 1"."""

VERSIONS = re.compile(r"\b(?:Python|PyMC|Alchemy|Windows|version|numpy|NumPy)\s+\d+(?:\.\d+)*|\d+(?:\.\d+)? GHz")
"""Names with a number in them: "PyMC 5", "Python 3.11", "Windows 10", a processor's clock."""

_NUMBERED = (r"(?:[Ff]igures?|[Ff]igs?\.|[Tt]ables?|[Ee]quations?|[Ee]qs?\.|[Ss]ections?|[Dd]efinitions?|"
             r"[Tt]heorems?|[Ll]emmas?|[Pp]ropositions?|[Cc]orollar(?:y|ies)|[Ee]xercises?|[Cc]hapters?|ch\.|"
             r"[Aa]lgorithms?|[Ee]xamples?|[Ss]teps?|Appendix|[Pp]anels?|[Ii]tems?|[Pp]arts?|test|[Rr]ules?)")
_ONE_NUMBER = r"\(?\d+(?:\.\d+)*\)?(?:\s*\([a-z]\))?"  # 5, 11.1, (3), 5 (a)
_NUMBER_LIST = rf"{_ONE_NUMBER}(?:\s*(?:,|and|or|to|–|-|—)\s*{_ONE_NUMBER})*"
NUMBERED = re.compile(rf"(?:\b{_NUMBERED}|§)\s*{_NUMBER_LIST}|(?<![\w)])\(\d{{1,2}}\)(?![\w(])")
"""A reference to a numbered thing: "Figure 5 (g)", "Table 3", "§12.7", "eq. (3)", "(5)"."""

YEAR = re.compile(r"(?<![\d.,])(?:1[6-9]|20)\d\d(?:[a-z])?(?![\d.,]\d)")
_DIGITS = re.compile(r"(?<![\w.\-/\\^_])\d+(?:[.,]\d+)*(?:\s?[×x]\s?10\^?-?\d+)?(?![\w\-/])")
_FENCE = re.compile(r"^\s*(?P<fence>`{3,}|:{3,}|~{3,})\s*(?:\{(?P<name>[\w:-]+)\})?(?P<rest>.*)$")
_VERBATIM = {"code-cell", "math", "code", "code-block", "raw", "eval-rst", "bibliography", "glossary", "list-table",
             "csv-table", "table", "toctree", "mermaid", ""}
_INLINE = [
    re.compile(r"\$\$.*?\$\$", re.DOTALL),  # display maths on one line
    re.compile(r"(?<!\\)\$(?:\\\$|[^$])+?(?<!\\)\$", re.DOTALL),  # inline maths
    re.compile(r"\{[\w:-]+\}`[^`]*`"),  # roles: {glue:text}`key:.2f`, {ref}`label`, {cite:p}`key2019`
    re.compile(r"`[^`]*`"),  # inline code
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"<[^>]+>"),  # HTML tags and autolinks
    re.compile(r"https?://\S+"),
]


def prose_lines(source: str):
    """Yield ``(line number, text)`` for each line of a MyST chapter a reader reads as prose.

    Skipped: the front matter, code cells and other verbatim blocks (maths, code,
    bibliography), directive option lines, label targets (``(label)=``), comments
    (``%``), display maths (``$$ ... $$``, ``\\begin{...}``) and headings of level 1.
    The bodies of admonitions, exercises, solutions, definitions and figures are prose.

    Examples
    --------
    >>> text = "---\\nkernelspec: {}\\n---\\n(x)=\\n# Title 1\\nProse 2.\\n"
    >>> text += "```{code-cell}\\nx = 3\\n```\\n$$\\ny = 4\\n$$\\nMore 5."
    >>> list(prose_lines(text))
    [(6, 'Prose 2.'), (13, 'More 5.')]
    """
    lines = source.split("\n")
    start = 0
    if lines and lines[0].strip() == "---":
        start = next((i + 1 for i in range(1, len(lines)) if lines[i].strip() == "---"), len(lines))
    verbatim: tuple[str, int] | None = None  # (fence character, length) of the open verbatim block
    math_end: str | None = None  # what closes the open display maths: "$$" or "\\end{aligned}"
    options = False
    for index in range(start, len(lines)):
        line = lines[index]
        stripped = line.strip()
        if verbatim is not None:
            char, length = verbatim
            if re.fullmatch(rf"{re.escape(char)}{{{length},}}", stripped):
                verbatim = None
            continue
        if math_end is not None:
            if (math_end == "$$" and stripped.endswith("$$")) or (math_end != "$$" and stripped.startswith(math_end)):
                math_end = None
            continue
        fence = _FENCE.match(line)
        if fence:
            name = fence["name"]
            if name is None and fence["rest"].strip():  # ```python: a code block
                name = ""
            if name is not None and (name in _VERBATIM or name.startswith("glue")) and name != "glue:figure":
                verbatim = (fence["fence"][0], len(fence["fence"]))
            options = name is not None
            continue
        if options and re.match(r"^\s*:[\w-]+:", line):
            continue
        options = False
        if stripped.startswith("$$"):
            if stripped == "$$" or not stripped.endswith("$$"):
                math_end = "$$"
            continue
        if begin := re.match(r"\\begin\{([^}]+)\}", stripped):
            if f"\\end{{{begin[1]}}}" not in stripped:
                math_end = f"\\end{{{begin[1]}}}"
            continue
        if not stripped or re.match(r"^\([\w.:-]+\)=\s*$", stripped) or stripped.startswith("%") or \
                stripped.startswith("# ") or stripped.startswith("<!--"):
            continue
        yield index + 1, line


def _blank(text: str, pattern: re.Pattern) -> str:
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


_LIST_MARKER = re.compile(r"^(\s*)\d+\.(?=\s)", re.MULTILINE)
_EXERCISE = re.compile(r"^\s*(?:`{3,}|:{3,})\{(?P<name>(?:exercise|solution)-(?:start|end))\}")


def _paragraphs(source: str):
    """Consecutive prose lines joined, with the number of their first line; exercises and solutions left out."""
    lines = source.split("\n")
    inside = set()  # line numbers inside an exercise or a solution
    open_at = None
    for number, line in enumerate(lines, start=1):
        match = _EXERCISE.match(line)
        if match and match["name"].endswith("-start"):
            open_at = number
        elif match and open_at is not None:
            inside.update(range(open_at, number + 1))
            open_at = None
    block: list[tuple[int, str]] = []
    for number, line in prose_lines(source):
        if number in inside:
            continue
        if block and number != block[-1][0] + 1:
            yield block[0][0], "\n".join(text for _, text in block)
            block = []
        block.append((number, line))
    if block:
        yield block[0][0], "\n".join(text for _, text in block)


def typed_numbers(source: str, where: str = "<text>") -> list[Finding]:
    r"""Digits typed into the prose of a MyST chapter.

    Exercises and their solutions are left out: the numbers of a problem are its
    statement, and a solution's numbers are checked by the code cells beside it.

    Parameters
    ----------
    source : str
        The chapter's MyST Markdown.
    where : str
        The file, for the findings.

    Returns
    -------
    list of Finding
        One per typed number, kind ``"typed number"``.

    Examples
    --------
    >>> text = "Prune sampling took 3.5 s on {glue:text}`n` networks ($n =\n4$, `x = 2`) in 2019,\n"
    >>> text += "as Figure 5 (a) and Table 3 show on 25 % evidence; see {ref}`label-2`.\n"
    >>> text += "1. A list item, its number is no result."
    >>> [(f.where, f.text) for f in typed_numbers(text)]
    [('<text>:1', '3.5')]
    """
    found = []
    for first, paragraph in _paragraphs(source):
        text = _LIST_MARKER.sub(lambda m: m.group(1) + "  ", paragraph)
        for pattern in [NUMBERED, DEFINITIONS, VERSIONS, YEAR] + _INLINE:
            text = _blank(text, pattern)
        for match in _DIGITS.finditer(text):
            line = first + text.count("\n", 0, match.start())
            found.append(Finding(f"{where}:{line}", "typed number", match.group(0)))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Find project process and typed numbers in the book's sources.")
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--no-numbers", action="store_true", help="check for process wording only")
    args = parser.parse_args(argv)
    findings = []
    for path in args.files:
        text = path.read_text(encoding="utf-8")
        findings += process_findings(text, str(path))
        if not args.no_numbers and path.parent.name == "notebooks":
            findings += typed_numbers(text, str(path))
    for f in findings:
        print(f"{f.where}: {f.kind}: {f.text}")
    print(f"{len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

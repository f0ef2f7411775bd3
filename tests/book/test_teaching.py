"""The teaching layer of every chapter (issue 14): learning goals, graded exercises with checked solutions, links.

For each chapter of ``_toc.yml`` under ``notebooks/``:

- a ``Learning goals`` admonition that names the ``Prerequisites``, before the first
  ``## `` heading;
- a ``## Exercises`` section with at least three gated exercises
  (``{exercise-start}``), each titled ``... (easy)``, ``(medium)`` or ``(hard)``,
  labelled, and followed by exactly one gated solution (``{solution-start} <label>``)
  with at least one code cell that ``assert``\\ s its answer (the build runs it, so a
  wrong solution fails the build);
- every ``{prf:ref}`` names a definition, theorem or other ``prf`` block of the
  book, and every ``{term}`` a term of ``book/glossary.md``.

And book-wide: exercise labels are unique, and every glossary term is linked from
at least one chapter. The conventions are in the chapter writers' notes; the same
checks run on small synthetic books below, one that passes and broken ones.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

pytest.importorskip("yaml")

from ipynb_download import toc_docnames  # noqa: E402
from myst_to_markdown import directives, labelled_blocks  # noqa: E402

LEVELS = ("easy", "medium", "hard")
MIN_EXERCISES = 3
_LEVEL = re.compile(r"\((?:easy|medium|hard)\)$")
_HEADING = re.compile(r"^## +(?P<title>.+?)\s*$", re.MULTILINE)
_ROLE = re.compile(r"\{(?P<role>prf:ref|term)\}`(?:[^`<]*<(?P<explicit>[^>`]+)>|(?P<plain>[^`]+))`")
_ASSERT = re.compile(r"^\s*assert\b", re.MULTILINE)


def chapters(root: Path) -> list[str]:
    """Docnames of the toc's chapters under ``notebooks/``."""
    return [d for d in toc_docnames(root / "_toc.yml") if d.startswith("notebooks/")]


def glossary_terms(root: Path) -> list[str]:
    """The terms of ``book/glossary.md``'s ``{glossary}`` directive (its unindented lines)."""
    text = (root / "book" / "glossary.md").read_text(encoding="utf-8")
    return [line.strip() for d in directives(text) if d.name == "glossary"
            for line in d.body if line.strip() and not line[0].isspace()]


def prf_labels(root: Path) -> set[str]:
    """Labels of every definition, theorem, proof, ... block of the toc's pages."""
    labels = set()
    for docname in toc_docnames(root / "_toc.yml"):
        path = root / f"{docname}.md"
        if path.is_file():
            labels |= {k for k, b in labelled_blocks(path.read_text(encoding="utf-8")).items() if b.kind != "exercise"}
    return labels


def _roles(text: str, role: str) -> list[str]:
    """The targets of every ``{role}`...``` of a text, outside code cells."""
    code = [(d.start, d.end) for d in directives(text) if d.name == "code-cell"]
    lines = text.split("\n")
    prose = "\n".join(line for i, line in enumerate(lines) if not any(a <= i < b for a, b in code))
    return [m["explicit"] or m["plain"] for m in _ROLE.finditer(prose) if m["role"] == role]


def chapter_problems(root: Path, docname: str, prf: set[str], terms: list[str]) -> list[str]:
    """What the chapter ``docname`` misses of the teaching layer, one message per problem naming it."""
    text = (root / f"{docname}.md").read_text(encoding="utf-8")
    n_lines = text.count("\n") + 1
    headings = [(text[: m.start()].count("\n"), m["title"]) for m in _HEADING.finditer(text)]
    found = list(directives(text))
    code = [d for d in found if d.name == "code-cell"]
    headings = [(n, title) for n, title in headings if not any(d.start < n < d.end for d in code)]
    first_heading = headings[0][0] if headings else n_lines
    problems = []

    goals = [d for d in found if d.name == "admonition" and d.argument.strip() == "Learning goals"]
    if not goals or goals[0].start > first_heading:
        problems.append(f"{docname}: no 'Learning goals' admonition before the first '## ' heading")
    elif not any("Prerequisites" in line for line in goals[0].body):
        problems.append(f"{docname}: its 'Learning goals' admonition names no 'Prerequisites'")

    section = next(((n, i) for i, (n, title) in enumerate(headings) if title == "Exercises"), None)
    if section is None:
        problems.append(f"{docname}: no '## Exercises' section")
        return problems + _link_problems(docname, text, prf, terms)
    start, index = section
    end = headings[index + 1][0] if index + 1 < len(headings) else n_lines
    exercises = [d for d in found if d.name == "exercise-start" and start < d.start < end]
    if len(exercises) < MIN_EXERCISES:
        problems.append(f"{docname}: '## Exercises' holds {len(exercises)} gated exercise(s), "
                        f"at least {MIN_EXERCISES} wanted")
    solutions = [d for d in found if d.name == "solution-start"]
    ends = [d.start for d in found if d.name == "solution-end"]
    for exercise in exercises:
        label = exercise.options.get("label")
        name = f"exercise {label or '(no label)'} {exercise.argument!r}"
        if not _LEVEL.search(exercise.argument):
            problems.append(f"{docname}: {name}: its title does not end with "
                            f"{', '.join(f'({level})' for level in LEVELS)}")
        if not label:
            problems.append(f"{docname}: {name}: no :label:")
            continue
        mine = [s for s in solutions if s.argument.strip() == label]
        if len(mine) != 1:
            problems.append(f"{docname}: {name}: {len(mine)} solution(s) ({{solution-start}} {label}), one wanted")
            continue
        stop = min((e for e in ends if e > mine[0].start), default=None)
        if stop is None:
            problems.append(f"{docname}: {name}: its solution has no {{solution-end}}")
            continue
        cells = [d for d in code if mine[0].start < d.start < stop]
        if not any(_ASSERT.search("\n".join(d.body)) for d in cells):
            problems.append(f"{docname}: {name}: its solution has {len(cells)} code cell(s), none with an assert")
    labels = {d.options.get("label") for d in exercises}
    for solution in solutions:
        if solution.argument.strip() not in labels:
            problems.append(f"{docname}: a solution for {solution.argument.strip()!r}, "
                            f"no exercise of its '## Exercises' section")
    return problems + _link_problems(docname, text, prf, terms)


def _link_problems(docname: str, text: str, prf: set[str], terms: list[str]) -> list[str]:
    problems = [f"{docname}: {{prf:ref}}`{label}` names no definition, theorem or other prf block of the book"
                for label in _roles(text, "prf:ref") if label not in prf]
    problems += [f"{docname}: {{term}}`{term}` is no term of book/glossary.md" for term in _roles(text, "term")
                 if term not in terms]
    return problems


def book_problems(root: Path) -> list[str]:
    """Book-wide: exercise labels used twice, glossary terms no chapter links."""
    texts = {d: (root / f"{d}.md").read_text(encoding="utf-8") for d in chapters(root)}
    owners = [(d.options["label"], docname) for docname, text in texts.items() for d in directives(text)
              if d.name == "exercise-start" and "label" in d.options]
    counts = Counter(label for label, _ in owners)
    problems = [f"exercise label {label!r} is used {counts[label]} times: "
                f"{', '.join(sorted(docname for lab, docname in owners if lab == label))}"
                for label in sorted(counts) if counts[label] > 1]
    linked = {term for text in texts.values() for term in _roles(text, "term")}
    problems += [f"glossary term {term!r} is linked from no chapter ({{term}}`{term}`)"
                 for term in glossary_terms(root) if term not in linked]
    return problems


# ------------------------------------------------------------------------ the book
@pytest.mark.parametrize("docname", chapters(ROOT))
def test_each_chapter_has_learning_goals_graded_exercises_and_checked_solutions(docname):
    problems = chapter_problems(ROOT, docname, prf_labels(ROOT), glossary_terms(ROOT))
    assert not problems, "\n".join(problems)


def test_exercise_labels_are_unique_and_every_glossary_term_is_linked():
    problems = book_problems(ROOT)
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------- synthetic books
HEADER = """---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {name: python3, display_name: Python 3, language: python}
---
"""


def _exercise(label: str, title: str, code: str = "assert 1 + 1 == 2") -> str:
    return f"""
```{{exercise-start}} {title}
:label: {label}
```
Compute something.
```{{exercise-end}}
```

```{{solution-start}} {label}
:class: dropdown
```
Worked out:

```{{code-cell}} ipython3
{code}
```

```{{solution-end}}
```
"""


def _chapter(name: str, terms: str) -> str:
    return HEADER + f"""
({name})=
# Chapter {name}

:::{{admonition}} Learning goals
:class: note

After this chapter you can compute a {{term}}`pruned set <pruned set>`.

**Prerequisites:** {{ref}}`background`.
:::

```{{code-cell}} ipython3
import numpy as np
# {{term}}`not a link` in code is ignored
```

:::{{prf:definition}} Pruning
:label: def-{name}

Uses {terms} and {{prf:ref}}`def-other`.
:::

## Exercises
""" + "".join(_exercise(f"ex-{name}-{k}", f"Part {k} ({level})") for k, level in enumerate(LEVELS)) + """
## References
"""


GLOSSARY = """(glossary)=
# Glossary

```{glossary}
pruned set
  The set $S$.

CPT label
  One entry.
```
"""


def _book(tmp_path: Path, a: str | None = None, glossary: str = GLOSSARY) -> Path:
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks" / "a.md").write_text(a or _chapter("a", "{term}`CPT label`"))
    (tmp_path / "notebooks" / "b.md").write_text(_chapter("b", "the {term}`labels <CPT label>`"))
    (tmp_path / "book" / "glossary.md").write_text(glossary)
    (tmp_path / "book" / "other.md").write_text(
        "# Other\n\n```{prf:theorem} Converges\n:label: def-other\n\nText.\n```\n")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/other\nchapters:\n  - file: notebooks/a\n"
                                       "  - file: notebooks/b\n  - file: book/glossary\n")
    return tmp_path


def _problems(root: Path) -> list[str]:
    prf, terms = prf_labels(root), glossary_terms(root)
    return [p for d in chapters(root) for p in chapter_problems(root, d, prf, terms)] + book_problems(root)


def test_a_book_with_the_whole_teaching_layer_passes(tmp_path):
    root = _book(tmp_path)
    assert glossary_terms(root) == ["pruned set", "CPT label"]
    assert prf_labels(root) == {"def-a", "def-b", "def-other"}
    assert _problems(root) == []


GOOD = _chapter("a", "{term}`CPT label`")


@pytest.mark.parametrize("broken, expected", [
    (GOOD.replace(":::{admonition} Learning goals", ":::{admonition} Goals"),
     ["notebooks/a: no 'Learning goals' admonition before the first '## ' heading"]),
    (GOOD.replace("**Prerequisites:**", "**Needs:**"),
     ["notebooks/a: its 'Learning goals' admonition names no 'Prerequisites'"]),
    (GOOD.replace("## Exercises", "## Problems"), ["notebooks/a: no '## Exercises' section"]),
    (GOOD.replace("Part 2 (hard)", "Part 2 (tricky)"),
     ["notebooks/a: exercise ex-a-2 'Part 2 (tricky)': its title does not end with (easy), (medium), (hard)"]),
    (GOOD.replace("assert 1 + 1 == 2", "print(1 + 1)", 1),
     ["notebooks/a: exercise ex-a-0 'Part 0 (easy)': its solution has 1 code cell(s), none with an assert"]),
    (GOOD.replace("```{solution-start} ex-a-1", "```{solution-start} ex-a-0"),
     ["notebooks/a: exercise ex-a-0 'Part 0 (easy)': 2 solution(s) ({solution-start} ex-a-0), one wanted",
      "notebooks/a: exercise ex-a-1 'Part 1 (medium)': 0 solution(s) ({solution-start} ex-a-1), one wanted"]),
    (GOOD.replace(":label: ex-a-2", ":label: ex-b-2").replace("{solution-start} ex-a-2", "{solution-start} ex-b-2"),
     ["exercise label 'ex-b-2' is used 2 times: notebooks/a, notebooks/b"]),
    (GOOD.replace(_exercise("ex-a-2", "Part 2 (hard)"), ""),
     ["notebooks/a: '## Exercises' holds 2 gated exercise(s), at least 3 wanted"]),
    (GOOD.replace("{prf:ref}`def-other`", "{prf:ref}`def-nowhere`"),
     ["notebooks/a: {prf:ref}`def-nowhere` names no definition, theorem or other prf block of the book"]),
    (GOOD.replace("{term}`CPT label`", "{term}`CPT labels`"),
     ["notebooks/a: {term}`CPT labels` is no term of book/glossary.md"]),
])
def test_a_chapter_missing_part_of_the_teaching_layer_is_named_with_what_is_missing(tmp_path, broken, expected):
    assert broken != GOOD
    assert _problems(_book(tmp_path, a=broken)) == expected


def test_a_glossary_term_no_chapter_links_is_named(tmp_path):
    root = _book(tmp_path, glossary=GLOSSARY.replace("  One entry.\n", "  One entry.\n\nAHD\n  Average Hellinger.\n"))
    assert "AHD" in glossary_terms(root)
    assert _problems(root) == ["glossary term 'AHD' is linked from no chapter ({term}`AHD`)"]

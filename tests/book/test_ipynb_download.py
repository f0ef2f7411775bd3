"""A downloaded chapter reads in plain Jupyter as the book shows it (scripts/ipynb_download.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

pytest.importorskip("myst_nb")
pytest.importorskip("pybtex")
jupytext = pytest.importorskip("jupytext")

import check_site  # noqa: E402
import ipynb_download  # noqa: E402
import myst_to_markdown  # noqa: E402
from myst_to_markdown import TranslationError, unresolved  # noqa: E402

CHAPTER = """---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {name: python3, display_name: Python 3, language: python}
---

(toy)=
# Toy examples

:::{admonition} Key take-aways
:class: tip

- Gibbs stays put for {glue:text}`n_draws:,d` draws; prune moves {glue:text}`rate:.1%` of the time.
:::

As {cite:t}`geman1984`, and as the paper says {cite:p}`geman1984,phillipson2019`, see {ref}`toy` and
{ref}`the other chapter <other>`; the trapped networks: {glue:md}`trapped`.

```{code-cell} ipython3
from prunelab.lab.notebook import glue
glue("n_draws", 25000)
```

## References

```{bibliography}
:filter: docname in docnames
```
"""

BIB = r"""
@article{geman1984, author = {Geman, Stuart and Geman, Donald}, title = {Stochastic Relaxation},
  journal = {IEEE {PAMI}}, year = {1984}}
@misc{phillipson2019, author = {Phillipson, F. and Parie, J. and Weikamp, R.},
  title = {Prune Sampling: a {MCMC} technique}, year = {2019}}
@misc{b\"urkner, author = {B\"urkner, P.}, title = {Unused}, year = {2021}}
"""

GLUE = {
    "n_draws": {"output_type": "display_data", "data": {"text/plain": "25000"}},
    "rate": {"output_type": "display_data", "data": {"text/plain": "0.2512"}},
    "trapped": {"output_type": "display_data", "data": {"text/plain": "'x'", "text/markdown": "asia, *alarm*"}},
}


def _book(tmp_path: Path, chapter: str = CHAPTER) -> tuple[Path, Path]:
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks" / "toy.md").write_text(chapter)
    (tmp_path / "book" / "intro.md").write_text("(intro)=\n# Preface\n")
    (tmp_path / "book" / "other.md").write_text("(other)=\n\n# The other chapter\n")
    (tmp_path / "book" / "references.bib").write_text(BIB)
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nchapters:\n"
                                       "  - file: notebooks/toy\n  - file: book/other\n")
    execute = tmp_path / "_build" / "jupyter_execute" / "notebooks"
    execute.mkdir(parents=True)
    (execute / "toy.glue.json").write_text(json.dumps(GLUE))
    html = tmp_path / "_build" / "html"
    html.mkdir()
    return tmp_path, html


def _markdown(ipynb: Path) -> str:
    nb = json.loads(ipynb.read_text())
    return "\n\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def test_a_download_has_its_numbers_references_and_citations_as_plain_text(tmp_path):
    root, html = _book(tmp_path)
    ipynb, _student = ipynb_download.export_all(html, root=root)
    text = _markdown(ipynb)

    assert unresolved(text) == []
    assert "(toy)=" not in text and "{bibliography}" not in text
    assert "> **Key take-aways**" in text and ":class:" not in text
    assert "Gibbs stays put for 25,000 draws; prune moves 25.1% of the time." in text
    assert "As Geman and Geman (1984), and as the paper says (Geman and Geman, 1984; Phillipson et al., 2019)" in text
    assert "see *Toy examples* and\n*the other chapter*" in text
    assert "the trapped networks: asia, *alarm*." in text
    assert "- Geman and Geman (1984). Stochastic Relaxation. IEEE PAMI." in text
    assert "- Phillipson, Parie and Weikamp (2019). Prune Sampling: a MCMC technique." in text
    assert "Bürkner" not in text  # listed only when cited
    # the code cells are untouched: a teacher runs them as they are
    nb = json.loads(ipynb.read_text())
    assert ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"] == [
        'from prunelab.lab.notebook import glue\nglue("n_draws", 25000)']


@pytest.mark.parametrize("broken, message", [
    ("{glue:text}`no_such_key`", "names no glued value"),
    ("{ref}`no-such-label`", "names no label"),
    ("{cite:p}`no_such_work`", "cites no known work"),
])
def test_a_role_the_build_cannot_resolve_fails_the_export(tmp_path, broken, message):
    root, html = _book(tmp_path, CHAPTER.replace("{ref}`toy`", broken))
    with pytest.raises(TranslationError, match=message):
        ipynb_download.export_all(html, root=root)


def test_the_site_check_rejects_a_download_that_shows_myst_raw(tmp_path):
    root, html = _book(tmp_path)
    ipynb, _student = ipynb_download.export_all(html, root=root)
    page = html / "notebooks" / "toy.html"
    page.parent.mkdir(parents=True)
    page.write_text('<main><article role="main"><h1>Toy</h1>toy.ipynb toy-student.ipynb</article></main>')
    assert check_site.check_page("notebooks/toy", html, notebook=True) == []

    nb = json.loads(ipynb.read_text())
    nb["cells"][0]["source"] = "left raw: {glue:text}`n_draws`"
    ipynb.write_text(json.dumps(nb))
    [problem] = check_site.check_page("notebooks/toy", html, notebook=True)
    assert "shows MyST raw" in problem and "{glue:text}`n_draws`" in problem


def test_unresolved_finds_every_kind_of_leftover():
    text = "a {glue:md}`x`\n:::{note}\nbody\n:::\n(label)=\n```{figure} f.png\n```\n`code {n}` and $\\{a\\}$"
    assert unresolved(text) == ["{glue:md}`x`", ":::{note}", "(label)=", "```{figure}"]


TEACHING = """---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {name: python3, display_name: Python 3, language: python}
---

(toy)=
# Toy examples

:::{admonition} Learning goals
:class: note

After this chapter you can compute a {term}`pruned set <pruned set>` by hand.

**Prerequisites:** {ref}`the other chapter <other>`; see {ref}`glossary`.
:::

```{code-cell} ipython3
total = 0
```

:::{prf:definition} Pruning around $\\mathbf{x}$
:label: def-pruning

Every {term}`CPT label` the state does not use goes with probability $1 - c$.
:::

````{prf:theorem} Prune sampling converges
:label: thm-converges

The chain is regular, by {prf:ref}`def-pruning` and {prf:ref}`def-remote`.
````

```{prf:proof}
By {prf:ref}`the definition <def-pruning>`.
```

```{prf:lemma}
A lemma with no title.
```

## Exercises

```{exercise-start} Self-transition (easy)
:label: ex-toy-self
```
Compute $Q(x, x)$ with {term}`AHD`.
```{exercise-end}
```

```{solution-start} ex-toy-self
:class: dropdown
```
Count the pruned sets.

```{code-cell} ipython3
total += 3
assert total == 3
```

```{solution-end}
```

```{exercise-start} Everything at once (hard)
:label: ex-toy-all
```
Combine {ref}`ex-toy-self` with {prf:ref}`thm-converges`.
```{exercise-end}
```

```{solution-start} ex-toy-all
```

```{code-cell} ipython3
total *= 2
assert total == 6
```

```{solution-end}
```
"""

OTHER = """(other)=
# The other chapter

```{prf:definition} CPT label
:label: def-remote

An entry of a CPT.
```
"""


def _teaching_book(tmp_path: Path, chapter: str = TEACHING) -> tuple[Path, Path]:
    root, html = _book(tmp_path, chapter)
    (root / "book" / "other.md").write_text(OTHER)
    (root / "_build" / "jupyter_execute" / "notebooks" / "toy.glue.json").write_text("{}")
    return root, html


def test_a_download_reads_exercises_definitions_and_glossary_terms_as_plain_markdown(tmp_path):
    root, html = _teaching_book(tmp_path)
    ipynb, _student = ipynb_download.export_all(html, root=root)
    nb = json.loads(ipynb.read_text())
    cells = [(c["cell_type"], "".join(c["source"])) for c in nb["cells"]]
    text = _markdown(ipynb)

    assert unresolved(text) == []
    for raw in ("{exercise", "{solution", "{prf", "{term}", "{ref}", ":label:", ":class:"):
        assert raw not in text, raw
    assert "After this chapter you can compute a pruned set by hand." in text
    assert "**Prerequisites:** *the other chapter*; see the glossary." in text
    # definitions, theorems, proofs and lemmas read as quotations, headed by kind and title
    assert ("> **Definition (Pruning around $\\mathbf{x}$).**\n>\n"
            "> Every CPT label the state does not use goes with probability $1 - c$.") in text
    assert ("> **Theorem (Prune sampling converges).**\n>\n> The chain is regular, by "
            "Definition (Pruning around $\\mathbf{x}$) and Definition (CPT label).") in text  # the latter: book-wide
    assert "> **Proof.**\n>\n> By the definition." in text
    assert "> **Lemma.**\n>\n> A lemma with no title." in text
    # exercises numbered in the chapter, graded, each solution headed by its exercise's number
    assert "**Exercise 1 (easy): Self-transition**\n\nCompute $Q(x, x)$ with AHD." in text
    assert "**Exercise 2 (hard): Everything at once**\n\nCombine Exercise 1 with Theorem (Prune sampling converges)." \
        in text
    solutions = [i for i, (kind, source) in enumerate(cells) if "**Solution to exercise" in source]
    assert [cells[i][1][cells[i][1].index("**Solution"):] for i in solutions] == [
        "**Solution to exercise 1.**\n\nCount the pruned sets.", "**Solution to exercise 2.**"]
    # the solutions' code stays code, right after its heading, and runs top to bottom
    assert [cells[i + 1] for i in solutions] == [("code", "total += 3\nassert total == 3"),
                                                 ("code", "total *= 2\nassert total == 6")]
    namespace = {}
    for kind, source in cells:
        if kind == "code":
            exec(source, namespace)
    assert namespace["total"] == 6
    assert all(source.strip() for _, source in cells)  # no cell left empty by {solution-end}


@pytest.mark.parametrize("broken, replacement, message", [
    ("{prf:ref}`def-remote`", "{prf:ref}`def-nowhere`", r"\{prf:ref\}`def-nowhere` names no definition"),
    ("{prf:ref}`def-remote`", "{prf:ref}`ex-toy-self`", r"\{prf:ref\}`ex-toy-self` names no definition"),
    ("```{solution-start} ex-toy-all", "```{solution-start} ex-toy-nowhere",
     r"\{solution-start\} ex-toy-nowhere names no exercise"),
])
def test_a_teaching_block_the_book_does_not_have_fails_the_export(tmp_path, broken, replacement, message):
    root, html = _teaching_book(tmp_path, TEACHING.replace(broken, replacement))
    with pytest.raises(TranslationError, match=message):
        ipynb_download.export_all(html, root=root)


@pytest.mark.parametrize("leftover, found", [
    ("```{exercise-start} Left (easy)", "```{exercise-start}"), (":::{solution-start} ex-a", ":::{solution-start}"),
    ("```{prf:definition} Left", "```{prf:definition}"), ("> :::{prf:proof}", "> :::{prf:proof}"),
    ("a {prf:ref}`def-a` here", "{prf:ref}`def-a`"), ("a {term}`AHD` here", "{term}`AHD`"),
    ("::::{exercise} Left", "::::{exercise}"),
])
def test_the_site_check_catches_every_teaching_construct_left_raw(leftover, found):
    assert unresolved(f"before\n{leftover}\nafter") == [found]


def test_the_exercises_of_a_numbered_chapter_carry_its_number_as_in_the_html(tmp_path):
    """Sphinx numbers exercises "Exercise 3.1"; the download says the same, in headings and references."""
    root, html = _teaching_book(tmp_path)
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/intro\ndefaults: {numbered: true}\nparts:\n"
                                   "  - {caption: Front, numbered: false, chapters: [{file: book/other}]}\n"
                                   "  - {caption: Main, chapters: [{file: book/first}, {file: notebooks/toy}]}\n")
    (root / "book" / "first.md").write_text("(first)=\n# First\n")
    ipynb, student = ipynb_download.export_all(html, root=root)
    text = _markdown(ipynb)
    assert "**Exercise 2.1 (easy): Self-transition**" in text
    assert "Combine Exercise 2.1 with Theorem" in text
    assert "**Solution to exercise 2.1.**" in text and "**Solution to exercise 2.2.**" in text
    assert "**Exercise 2.2 (hard): Everything at once**" in _markdown(student)


def test_the_student_edition_has_the_exercises_and_no_solution(tmp_path):
    root, html = _teaching_book(tmp_path)
    ipynb, student = ipynb_download.export_all(html, root=root)
    assert student.name == "toy-student.ipynb" and student.parent == ipynb.parent
    full, edition = json.loads(ipynb.read_text()), json.loads(student.read_text())
    text = _markdown(student)
    assert unresolved(text) == []
    assert "**Exercise 1 (easy): Self-transition**\n\nCompute $Q(x, x)$ with AHD." in text
    assert "**Exercise 2 (hard): Everything at once**" in text
    assert "Solution" not in text and "Count the pruned sets." not in text
    code = ["".join(c["source"]) for c in edition["cells"] if c["cell_type"] == "code"]
    assert code == ["total = 0"]  # the solutions' code cells are gone, the chapter's stay
    # the rest of the chapter is there, as in the full notebook
    for passage in ("After this chapter you can compute a pruned set by hand.", "> **Theorem (Prune sampling converges).**",
                    "Combine Exercise 1 with Theorem (Prune sampling converges)."):
        assert passage in text and passage in _markdown(ipynb)
    assert len(edition["cells"]) < len(full["cells"])


def test_a_solution_that_shares_a_cell_with_prose_leaves_only_the_prose():
    from nbformat.v4 import new_code_cell, new_markdown_cell

    cells = [new_markdown_cell("Before.\n```{solution-start} ex-a\n:class: dropdown\n```\nHidden."),
             new_code_cell("secret = 1"),
             new_markdown_cell("Still hidden.\n```{solution-end}\n```\nAfter."),
             new_code_cell("shown = 2")]
    kept = ipynb_download.without_solutions(cells)
    assert [(c.cell_type, c.source) for c in kept] == [("markdown", "Before."), ("markdown", "After."),
                                                       ("code", "shown = 2")]


def test_the_site_check_rejects_a_download_whose_exercise_numbers_differ_from_the_page(tmp_path):
    root, html = _teaching_book(tmp_path)
    ipynb_download.export_all(html, root=root)  # unnumbered toc: "Exercise 1", "Exercise 2"
    page = html / "notebooks" / "toy.html"
    page.parent.mkdir(parents=True)
    body = "<h1>Toy</h1>Exercise {0}.1 Exercise {0}.2 toy.ipynb toy-student.ipynb"
    page.write_text(f'<main><article role="main">{body.format(1)}</article></main>')
    problems = check_site.check_page("notebooks/toy", html, notebook=True)
    assert problems and all("has Exercise" in p for p in problems), problems
    page.write_text('<main><article role="main"><h1>Toy</h1>Exercise 1 Exercise 2 toy.ipynb toy-student.ipynb'
                    '</article></main>')
    assert check_site.check_page("notebooks/toy", html, notebook=True) == []


def test_the_translators_examples_hold():
    """Its docstring examples, a named admonition (``:::{note}``) read as a quotation among them."""
    import doctest

    failures, tried = doctest.testmod(myst_to_markdown)
    assert tried > 0 and failures == 0


def test_a_named_admonition_leaves_no_myst_raw():
    assert unresolved(":::{note}\nSkip it.\n:::") != []  # the site check finds it raw ...
    text = "\n".join(myst_to_markdown._translate_directive(next(myst_to_markdown.directives(":::{note}\nSkip it.\n:::")),
                                                             None, myst_to_markdown.Progress()))
    assert text.startswith("> **Note**") and unresolved(text) == []  # ... and the download has none

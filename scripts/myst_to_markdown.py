#!/usr/bin/env python3
"""Turn a chapter's MyST Markdown prose into plain Markdown that Jupyter shows as meant.

The book's chapters write their prose in MyST: glued numbers (``{glue:text}`key```),
cross-references (``{ref}`label```, ``{prf:ref}`label```), glossary terms
(``{term}`X```), citations (``{cite:p}`key```), admonitions (``:::{admonition}``),
definitions and theorems (``{prf:definition}``, sphinx-proof), exercises and their
solutions (``{exercise-start}``, ``{solution-start}``, sphinx-exercise's gated form),
label targets (``(label)=``) and a ``{bibliography}`` directive. Jupyter's Markdown
renderer knows none of them and shows them raw. A downloaded ``.ipynb`` gets its
Markdown cells rewritten with :func:`plain_markdown`:

=============================  ===================================================
MyST                           plain Markdown
=============================  ===================================================
``{glue:text}`key:fmt```       the value the build computed, formatted as the book
                               formats it (MyST-NB's ``format_plain_text``)
``{glue:md}`key```             the glued Markdown
``{glue}`key```                the glued value's plain text
``{ref}`label```               the title of the section or chapter (in italics)
``{cite:p}`a,b```              ``(Author, Year; Author, Year)``; ``{cite:t}``:
                               ``Author (Year)``
``:::{admonition} Title``      a quotation block headed by the title in bold
``:::{note}`` (tip, warning…)  a quotation block headed by its kind in bold
``{prf:definition} Title``     a quotation block headed ``**Definition (Title).**``
                               (likewise ``prf:theorem``, ``prf:lemma``,
                               ``prf:proof``: ``**Proof.**``, ...)
``{prf:ref}`label```           the target's kind and title: ``Definition (Title)``
``{exercise-start} T (easy)``  ``**Exercise C.N (easy): T**``, C the chapter's number
                               in the book, N counted in the chapter, as the HTML
                               numbers it; ``{exercise-end}`` is removed
``{solution-start} label``     ``**Solution to exercise C.N.**``; ``{solution-end}``
                               is removed (the code cells between stay code cells)
``{term}`X```                  ``X``; ``{term}`t <X>``` gives ``t``
``{ref}`glossary```            ``the glossary``
``(label)=``, ``% comment``     removed
``{bibliography}``             the list of works the chapter cites
``{glue:figure} key``          ``*Figure C.N. caption*`` under the cell that makes the
                               figure (``prunelab.lab.notebook.glue`` shows a figure
                               where MyST-NB is absent), numbered as the HTML does
=============================  ===================================================

:func:`unresolved` lists what is left of MyST in a text, so that a test and the site
check can fail on anything this module does not yet translate.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import NamedTuple

__all__ = ["Block", "Context", "Directive", "Progress", "Work", "directives", "labelled_blocks", "plain_markdown",
           "unresolved"]

GLOSSARY_LABEL = "glossary"
"""The label of the glossary page: a reference to it reads "the glossary"."""


class Work(NamedTuple):
    """A cited work, as the chapter's reference list shows it."""

    authors: tuple[str, ...]  # last names
    year: str
    title: str
    venue: str = ""

    def author_text(self) -> str:
        """``Smith``, ``Smith and Jones`` or ``Smith et al.``."""
        if len(self.authors) == 1:
            return self.authors[0]
        if len(self.authors) == 2:
            return f"{self.authors[0]} and {self.authors[1]}"
        return f"{self.authors[0]} et al."


class Block(NamedTuple):
    """A labelled exercise or ``prf`` block (definition, theorem, ...) of the book."""

    kind: str  # "exercise", "definition", "theorem", ...
    title: str  # as written in the source (may hold roles and maths)
    number: int | str | None = None  # an exercise's number: 2 in its chapter, or "3.2" with the chapter's number

    def text(self) -> str:
        """How a reference to the block reads: ``Definition (Pruning)``, ``Exercise 3.2``."""
        if self.kind == "exercise":
            return f"Exercise {self.number}"
        return f"{self.kind.capitalize()} ({self.title})" if self.title else self.kind.capitalize()


class Context(NamedTuple):
    """What the translation needs from the build: glued values, section titles, works, labelled blocks."""

    glue: Mapping[str, Mapping]  # key -> the glued output's mime bundle ("text/plain", "text/markdown", ...)
    titles: Mapping[str, str]  # label -> title of the section it names
    works: Mapping[str, Work]  # BibTeX key -> work
    format_plain_text: Callable[[str, str], str]  # MyST-NB's formatter of glued text
    blocks: Mapping[str, Block] = {}  # label -> exercise or prf block, book-wide (see labelled_blocks)
    chapter: str = ""  # the chapter's number in the book ("3"), "" for an unnumbered page


class Progress:
    """What the translation of a chapter carries from one Markdown cell to the next."""

    def __init__(self) -> None:
        self.cited: list[str] = []  # keys cited so far, for a later {bibliography}
        self.exercises = 0  # exercises numbered so far
        self.figures = 0  # figures numbered so far


class TranslationError(ValueError):
    """A role or directive that names something the build does not have."""


_ROLE = re.compile(
    r"\{(?P<role>glue:text|glue:md|glue:|glue|ref|prf:ref|term|cite:p|cite:t|cite)\}`(?P<content>[^`]+)`")
_EXPLICIT = re.compile(r"(?P<text>.+?)\s*<(?P<target>[^>]+)>", re.DOTALL)
_DIRECTIVE = re.compile(r"^(?P<fence>:{3,}|`{3,})\{(?P<name>[a-z][\w:-]*)\}\s*(?P<argument>.*?)\s*$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*?)\s*$")
_LEVEL = re.compile(r"^(?P<title>.*?)\s*\((?P<level>easy|medium|hard)\)$")
_LABEL_TARGET = re.compile(r"^\([\w.:-]+\)=\s*$")
_LEFTOVER = re.compile(
    r"\{[a-z][\w:-]*\}`[^`]*`|^[ \t>]*(?::{3,}|`{3,})\{[a-z][\w:-]*\}|^[ \t>]*\([\w.:-]+\)=\s*$", re.MULTILINE)


def _glue(key: str, fmt: str | None, role: str, ctx: Context) -> str:
    if key not in ctx.glue:
        raise TranslationError(f"{{{role}}}`{key}` names no glued value")
    data = ctx.glue[key]
    if role == "glue:md":
        if "text/markdown" not in data:
            raise TranslationError(f"{{glue:md}}`{key}` has no text/markdown")
        return str(data["text/markdown"]).strip()
    if "text/plain" not in data:
        raise TranslationError(f"{{{role}}}`{key}` has no text/plain")
    return ctx.format_plain_text(data["text/plain"], fmt if fmt is not None else "")


def _cite(keys: str, role: str, ctx: Context, cited: list[str]) -> str:
    parts = []
    for key in (k.strip() for k in keys.split(",")):
        if key not in ctx.works:
            raise TranslationError(f"{{{role}}}`{key}` cites no known work")
        if key not in cited:
            cited.append(key)
        work = ctx.works[key]
        year = work.year
        parts.append(f"{work.author_text()} ({year})" if role == "cite:t" else f"{work.author_text()}, {year}")
    return "; ".join(parts) if role == "cite:t" else f"({'; '.join(parts)})"


def _roles(line: str, ctx: Context, progress: Progress) -> str:
    def replace(match: re.Match) -> str:
        role, content = match["role"], match["content"]
        if role.startswith("glue"):
            key, fmt = (content.rsplit(":", 1) + [None])[:2] if role == "glue:text" else (content, None)
            return _glue(key, fmt, role, ctx)
        if role.startswith("cite"):
            return _cite(content, "cite:p" if role == "cite" else role, ctx, progress.cited)
        explicit = _EXPLICIT.fullmatch(content)
        if role == "term":
            return explicit["text"] if explicit else content
        target = explicit["target"] if explicit else content
        if role == "prf:ref":
            if target not in ctx.blocks or ctx.blocks[target].kind == "exercise":
                raise TranslationError(f"{{prf:ref}}`{content}` names no definition, theorem or other prf block")
            return explicit["text"] if explicit else ctx.blocks[target].text()
        if explicit:
            return f"*{explicit['text']}*"
        if content == GLOSSARY_LABEL:
            return "the glossary"
        if content in ctx.blocks:
            return ctx.blocks[content].text()
        if content not in ctx.titles:
            raise TranslationError(f"{{ref}}`{content}` names no label")
        return f"*{ctx.titles[content]}*"

    return _ROLE.sub(replace, line)


def _reference_list(cited: list[str], ctx: Context) -> list[str]:
    lines = []
    for key in sorted(cited, key=lambda k: (ctx.works[k].authors, ctx.works[k].year)):
        work = ctx.works[key]
        venue = f" {work.venue}." if work.venue else ""
        names = work.authors[0] if len(work.authors) == 1 else f"{', '.join(work.authors[:-1])} and {work.authors[-1]}"
        lines.append(f"- {names} ({work.year}). {work.title}.{venue}")
    return lines or ["(no works cited)"]


class Directive(NamedTuple):
    """A fenced MyST directive: ``{name} argument``, its ``:key: value`` options and its body lines."""

    name: str
    argument: str
    options: dict[str, str]
    body: list[str]
    start: int  # index of its opening line
    end: int  # index of the line after the closing fence


def directives(text: str) -> Iterator[Directive]:
    r"""Every fenced directive of a MyST text, in order, nested ones too (``{code-cell}`` is one).

    Examples
    --------
    >>> [(d.name, d.argument, d.options, d.body) for d in directives("```{solution-start} ex-a\n:class: dropdown\n```")]
    [('solution-start', 'ex-a', {'class': 'dropdown'}, [])]
    """
    lines = text.split("\n")
    for i in range(len(lines)):
        directive = _directive(lines, i)
        if directive is not None:
            yield directive


def _directive(lines: list[str], i: int) -> Directive | None:
    """The directive that opens at ``lines[i]`` (its options, its body up to the closing fence), if one does."""
    opened = _DIRECTIVE.match(lines[i])
    if not opened:
        return None
    fence, j, options = opened["fence"], i + 1, {}
    while j < len(lines) and (option := _OPTION.match(lines[j])):
        options[option["key"]] = option["value"]
        j += 1
    body = []
    while j < len(lines) and lines[j].strip() != fence:
        body.append(lines[j])
        j += 1
    while body and not body[0].strip():
        body.pop(0)
    return Directive(opened["name"], opened["argument"], options, body, i, j + 1)


NAMED_ADMONITIONS = {name: name.capitalize() for name in (
    "attention", "caution", "danger", "error", "hint", "important", "note", "tip", "warning")} | {"seealso": "See also"}
"""The admonitions MyST names by kind (``:::{note}``), each read as a quotation headed by its kind."""


def _quote(header: str, body: list[str], ctx: Context, progress: Progress) -> list[str]:
    """A quotation block: the header in bold, then the (translated) body."""
    inner = plain_markdown("\n".join(body), ctx, progress).rstrip("\n")
    return [f"> **{header}**", ">"] + [f"> {b}".rstrip() for b in inner.split("\n")] if inner else [f"> **{header}**"]


def _translate_directive(d: Directive, ctx: Context, progress: Progress) -> list[str] | None:
    """Plain Markdown for one directive, or None for a directive this module leaves as it is."""
    if d.name == "admonition":
        return _quote(_roles(d.argument, ctx, progress), d.body, ctx, progress)
    if d.name in NAMED_ADMONITIONS:  # their title is their kind (a note, a tip ...)
        return _quote(NAMED_ADMONITIONS[d.name], d.body, ctx, progress)
    if d.name.startswith("prf:"):
        kind = d.name.removeprefix("prf:").capitalize()
        title = _roles(d.argument, ctx, progress)
        return _quote(f"{kind} ({title})." if title else f"{kind}.", d.body, ctx, progress)
    if d.name == "exercise-start":
        progress.exercises += 1
        level = _LEVEL.match(d.argument)
        title, grade = (level["title"], f" ({level['level']})") if level else (d.argument, "")
        title = _roles(title, ctx, progress)
        number = f"{ctx.chapter}.{progress.exercises}" if ctx.chapter else progress.exercises
        return [f"**Exercise {number}{grade}{': ' + title if title else ''}**", ""]
    if d.name == "solution-start":
        label = d.argument
        if label not in ctx.blocks or ctx.blocks[label].kind != "exercise":
            raise TranslationError(f"{{solution-start}} {label} names no exercise")
        return [f"**Solution to exercise {ctx.blocks[label].number}.**", ""]
    if d.name in {"exercise-end", "solution-end"}:
        return []
    if d.name == "bibliography":
        return _reference_list(progress.cited, ctx)
    if d.name == "glue:figure":  # the figure itself is the output of the cell that glues it (prunelab's glue)
        progress.figures += 1
        number = f"{ctx.chapter}.{progress.figures}" if ctx.chapter else progress.figures
        caption = plain_markdown("\n".join(d.body), ctx, progress).strip()
        return [f"*Figure {number}. {' '.join(caption.split())}*", ""]
    return None


def plain_markdown(text: str, ctx: Context, progress: Progress | None = None) -> str:
    """Translate one Markdown cell of a chapter into plain Markdown.

    Parameters
    ----------
    text : str
        The cell's MyST Markdown.
    ctx : Context
        Glued values, section titles, works and labelled blocks from the build.
    progress : Progress, optional
        What the chapter's earlier cells left: the works cited so far (a
        ``{bibliography}`` directive in a later cell lists every work the chapter
        cites before it) and the number of exercises so far. Updated in place; pass
        the same one for every cell of a chapter.

    Returns
    -------
    str

    Raises
    ------
    TranslationError
        A glue key, label, citation or exercise the build does not know.

    Examples
    --------
    >>> from myst_nb.core.variables import format_plain_text
    >>> ctx = Context({"n": {"text/plain": "12345"}}, {"toy": "Toy examples"},
    ...               {"smith2001": Work(("Smith",), "2001", "A title")}, format_plain_text,
    ...               {"def-s": Block("definition", "Pruned set")})
    >>> print(plain_markdown("We ran {glue:text}`n:,d` draws ({ref}`toy`) {cite:p}`smith2001`.", ctx))
    We ran 12,345 draws (*Toy examples*) (Smith, 2001).
    >>> print(plain_markdown("The {term}`set <pruned set>` of {prf:ref}`def-s`, in {ref}`glossary`.", ctx))
    The set of Definition (Pruned set), in the glossary.
    >>> print(plain_markdown(":::{note}\\nSkip it on a first reading.\\n:::", ctx))
    > **Note**
    >
    > Skip it on a first reading.
    """
    progress = Progress() if progress is None else progress
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if _LABEL_TARGET.match(lines[i]) or lines[i].startswith("%"):  # a label target, a MyST comment
            i += 1
            continue
        directive = _directive(lines, i)
        translated = None if directive is None else _translate_directive(directive, ctx, progress)
        if translated is None:
            out.append(_roles(lines[i], ctx, progress))
            i += 1
        else:
            out.extend(translated)
            i = directive.end
    return "\n".join(out)


def labelled_blocks(text: str, chapter: str = "") -> dict[str, Block]:
    r"""The labelled exercises and ``prf`` blocks of one page's MyST source, exercises numbered in order.

    With the page's ``chapter`` number, an exercise's number is ``"<chapter>.<n>"``, as
    the book numbers it (``labelled_blocks(text, "3")`` gives ``ex-a`` the number ``"3.1"``).

    Examples
    --------
    >>> text = "```{exercise-start} Count (easy)\n:label: ex-a\n```\n\n:::{prf:definition} Pruning\n:label: d\n"
    >>> labelled_blocks(text + "Text\n:::\n```{exercise-start}\n:label: ex-b\n```")  # doctest: +NORMALIZE_WHITESPACE
    {'ex-a': Block(kind='exercise', title='Count (easy)', number=1),
     'd': Block(kind='definition', title='Pruning', number=None),
     'ex-b': Block(kind='exercise', title='', number=2)}
    """
    blocks, exercises = {}, 0
    for directive in directives(text):
        if not (directive.name == "exercise-start" or directive.name.startswith("prf:")):
            continue
        exercises += directive.name == "exercise-start"
        label = directive.options.get("label")
        if label:
            kind = "exercise" if directive.name == "exercise-start" else directive.name.removeprefix("prf:")
            number = (f"{chapter}.{exercises}" if chapter else exercises) if kind == "exercise" else None
            blocks[label] = Block(kind, directive.argument, number)
    return blocks


def unresolved(text: str) -> list[str]:
    r"""The MyST roles, directives and label targets left in ``text`` (none in plain Markdown).

    Examples
    --------
    >>> unresolved("a {glue:text}`x` and a {ref}`y`")
    ['{glue:text}`x`', '{ref}`y`']
    >>> unresolved("plain *Markdown* with $x^2$ and `code {n}`")
    []
    >>> unresolved("> ```{prf:proof}\n{term}`AHD`")
    ['> ```{prf:proof}', '{term}`AHD`']
    """
    return [m.group(0).strip() for m in _LEFTOVER.finditer(text)]

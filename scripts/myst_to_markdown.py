#!/usr/bin/env python3
"""Turn a chapter's MyST Markdown prose into plain Markdown that Jupyter shows as meant.

The book's chapters write their prose in MyST: glued numbers (``{glue:text}`key```),
cross-references (``{ref}`label```), citations (``{cite:p}`key```), admonitions
(``:::{admonition}``), label targets (``(label)=``) and a ``{bibliography}``
directive. Jupyter's Markdown renderer knows none of them and shows them raw. A
downloaded ``.ipynb`` gets its Markdown cells rewritten with :func:`plain_markdown`:

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
``(label)=``                   removed
``{bibliography}``             the list of works the chapter cites
=============================  ===================================================

:func:`unresolved` lists what is left of MyST in a text, so that a test and the site
check can fail on anything this module does not yet translate.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import NamedTuple

__all__ = ["Context", "Work", "plain_markdown", "unresolved"]


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


class Context(NamedTuple):
    """What the translation needs from the build: glued values, section titles, works."""

    glue: Mapping[str, Mapping]  # key -> the glued output's mime bundle ("text/plain", "text/markdown", ...)
    titles: Mapping[str, str]  # label -> title of the section it names
    works: Mapping[str, Work]  # BibTeX key -> work
    format_plain_text: Callable[[str, str], str]  # MyST-NB's formatter of glued text


class TranslationError(ValueError):
    """A role or directive that names something the build does not have."""


_ROLE = re.compile(r"\{(?P<role>glue:text|glue:md|glue:|glue|ref|cite:p|cite:t|cite)\}`(?P<content>[^`]+)`")
_ADMONITION_OPEN = re.compile(r"^(?P<fence>:{3,}|`{3,})\{admonition\}\s*(?P<title>.*)$")
_LABEL_TARGET = re.compile(r"^\([\w.:-]+\)=\s*$")
_BIBLIOGRAPHY = re.compile(r"^(?P<fence>`{3,}|:{3,})\{bibliography\}.*$")
_LEFTOVER = re.compile(r"\{[a-z][\w:-]*\}`[^`]*`|^(?::{3,}|`{3,})\{[a-z][\w-]*\}|^\([\w.:-]+\)=\s*$", re.MULTILINE)


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


def _roles(line: str, ctx: Context, cited: list[str]) -> str:
    def replace(match: re.Match) -> str:
        role, content = match["role"], match["content"]
        if role.startswith("glue"):
            key, fmt = (content.rsplit(":", 1) + [None])[:2] if role == "glue:text" else (content, None)
            return _glue(key, fmt, role, ctx)
        if role == "ref":
            explicit = re.fullmatch(r"(?P<text>.+?)\s*<(?P<label>[^>]+)>", content)
            if explicit:
                return f"*{explicit['text']}*"
            if content not in ctx.titles:
                raise TranslationError(f"{{ref}}`{content}` names no label")
            return f"*{ctx.titles[content]}*"
        return _cite(content, "cite:p" if role == "cite" else role, ctx, cited)

    return _ROLE.sub(replace, line)


def _reference_list(cited: list[str], ctx: Context) -> list[str]:
    lines = []
    for key in sorted(cited, key=lambda k: (ctx.works[k].authors, ctx.works[k].year)):
        work = ctx.works[key]
        venue = f" {work.venue}." if work.venue else ""
        names = work.authors[0] if len(work.authors) == 1 else f"{', '.join(work.authors[:-1])} and {work.authors[-1]}"
        lines.append(f"- {names} ({work.year}). {work.title}.{venue}")
    return lines or ["(no works cited)"]


def plain_markdown(text: str, ctx: Context, cited: list[str] | None = None) -> str:
    """Translate one Markdown cell of a chapter into plain Markdown.

    Parameters
    ----------
    text : str
        The cell's MyST Markdown.
    ctx : Context
        Glued values, section titles and works from the build.
    cited : list of str, optional
        Keys cited so far in the chapter; extended in place, so that a
        ``{bibliography}`` directive in a later cell lists every work the chapter
        cites before it.

    Returns
    -------
    str

    Raises
    ------
    TranslationError
        A glue key, label or citation the build does not know.

    Examples
    --------
    >>> from myst_nb.core.variables import format_plain_text
    >>> ctx = Context({"n": {"text/plain": "12345"}}, {"toy": "Toy examples"},
    ...               {"smith2001": Work(("Smith",), "2001", "A title")}, format_plain_text)
    >>> print(plain_markdown("We ran {glue:text}`n:,d` draws ({ref}`toy`) {cite:p}`smith2001`.", ctx))
    We ran 12,345 draws (*Toy examples*) (Smith, 2001).
    """
    cited = [] if cited is None else cited
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if _LABEL_TARGET.match(line):
            i += 1
            continue
        admonition = _ADMONITION_OPEN.match(line)
        if admonition:
            fence = admonition["fence"]
            body = []
            i += 1
            while i < len(lines) and lines[i].strip() != fence:
                if not re.match(r"^:\w+:", lines[i]):  # directive options such as :class: tip
                    body.append(lines[i])
                i += 1
            i += 1  # the closing fence
            while body and not body[0].strip():
                body.pop(0)
            inner = plain_markdown("\n".join(body), ctx, cited)
            out.append(f"> **{admonition['title'].strip()}**")
            out.append(">")
            out.extend(f"> {b}".rstrip() for b in inner.split("\n"))
            continue
        bibliography = _BIBLIOGRAPHY.match(line)
        if bibliography:
            i += 1
            while i < len(lines) and lines[i].strip() != bibliography["fence"]:
                i += 1
            i += 1
            out.extend(_reference_list(cited, ctx))
            continue
        out.append(_roles(line, ctx, cited))
        i += 1
    return "\n".join(out)


def unresolved(text: str) -> list[str]:
    """The MyST roles, directives and label targets left in ``text`` (none in plain Markdown).

    Examples
    --------
    >>> unresolved("a {glue:text}`x` and a {ref}`y`")
    ['{glue:text}`x`', '{ref}`y`']
    >>> unresolved("plain *Markdown* with $x^2$ and `code {n}`")
    []
    """
    return [m.group(0).strip() for m in _LEFTOVER.finditer(text)]

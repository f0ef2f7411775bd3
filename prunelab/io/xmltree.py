"""A small, guarded XML tree for the GeNIe ``.xdsl``, BIFXML and Ace ``.inst`` readers.

:func:`parse_xml` reads a file (at most :data:`~prunelab.io.tokens.MAX_FILE_BYTES`,
gunzipped if it ends in ``.gz``) with the standard library's expat parser, fed a
piece at a time, and refuses a document type declaration as the parser meets it,
before its first declaration is read: no entity is ever declared or expanded, so
no "billion laughs" and no external file is read (in any encoding; a
``<!DOCTYPE`` in a comment or CDATA section is text, not a declaration).

Only the elements a reader asks for are built (its ``keep`` rule sees each
element's path from the document element as it starts): a subtree it skips, such
as GeNIe's ``<extensions>``, costs nothing but its depth, and an element it refuses
stops the parse at once. Every :class:`Element` keeps the line it starts on, so
errors name ``file:line`` and the element. Tables are read from an element's text
a piece at a time into float64 (:func:`numbers`) or state indices
(:func:`state_codes`), never as a list of every word.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

import numpy as np

from .lexer import MAX_NESTING
from .tokens import FileFormatError, LineCounter, excerpt, parse_probability, probability_row, read_bytes

__all__ = ["Element", "Keep", "element_error", "numbers", "parse_xml", "state_codes", "words"]

Keep = Callable[[tuple[str, ...]], "bool | str"]
"""A reader's rule: given the tags from the document element down to an element, build it (True), skip its
subtree (False), or refuse the file (a message)."""

_FEED = 1 << 20
"""Bytes handed to the parser at a time (so that it never copies the whole file)."""

_PIECE = 1 << 16
"""Characters of an element's text split into words at a time."""

_NO_ATTRIBUTES: dict[str, str] = {}

_SPACE = re.compile(r"\s")

_WORD = re.compile(r"\S+")


@dataclass(slots=True)
class Element:
    """An XML element: tag, attributes, children, text (its own, not its children's) and lines."""

    tag: str
    attrs: dict[str, str]
    line: int
    children: list[Element] = field(default_factory=list)
    text: str = ""
    text_line: int = 0

    def find(self, tag: str) -> Element | None:
        """The first child with ``tag``."""
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> list[Element]:
        """The children with ``tag``."""
        return [c for c in self.children if c.tag == tag]

    def label(self) -> str:
        """``<tag id="...">`` for a message (the ``id`` only if it has one)."""
        return f"<{self.tag} id={self.attrs['id']!r}>" if "id" in self.attrs else f"<{self.tag}>"


def parse_xml(path: Path, keep: Keep) -> Element:
    """The document element of an XML file, with the elements ``keep`` builds.

    Raises
    ------
    FileFormatError
        Malformed XML, a DTD or entity, elements nested more than
        :data:`~prunelab.io.lexer.MAX_NESTING` deep, or an element ``keep``
        refuses; the message names ``file:line`` (and the element).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.xml"
    >>> _ = path.write_text('<r><a x="1">hi</a><skip><a/></skip></r>')
    >>> root = parse_xml(path, lambda tags: tags[-1] != "skip")
    >>> [(c.tag, c.attrs, c.text) for c in root.children]
    [('a', {'x': '1'}, 'hi')]
    """
    raw = read_bytes(path)
    parser = expat.ParserCreate()
    stack: list[Element] = []
    pieces: list[list[str]] = []
    root: list[Element] = []
    skipped = 0  # open elements inside a skipped subtree, its top included

    def start(tag, attrs):
        nonlocal skipped
        if len(stack) + skipped >= MAX_NESTING:
            raise FileFormatError(
                f"{path}:{parser.CurrentLineNumber}: elements nested more than MAX_NESTING = {MAX_NESTING} deep"
            )
        if skipped:
            skipped += 1
            return
        verdict = keep(tuple(e.tag for e in stack) + (tag,))
        if not verdict:
            skipped = 1
            return
        element = Element(tag, attrs or _NO_ATTRIBUTES, parser.CurrentLineNumber)
        if isinstance(verdict, str):
            raise element_error(path, element, verdict)
        (stack[-1].children if stack else root).append(element)
        stack.append(element)
        pieces.append([])

    def end(tag):
        nonlocal skipped
        if skipped:
            skipped -= 1
            return
        element = stack.pop()
        element.text = "".join(pieces.pop())

    def text(data):
        if stack and not skipped:
            if not pieces[-1]:
                stack[-1].text_line = parser.CurrentLineNumber
            pieces[-1].append(data)

    def refuse(*args):
        raise FileFormatError(f"{path}:{parser.CurrentLineNumber}: a DTD or entity is refused (none is read)")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    view = memoryview(raw)
    try:
        for at in range(0, len(raw), _FEED):
            parser.Parse(view[at:at + _FEED], False)
        parser.Parse(b"", True)
    except expat.ExpatError as exc:
        raise FileFormatError(f"{path}:{exc.lineno}: not well-formed XML ({expat.ErrorString(exc.code)})") from None
    return root[0]


def element_error(path: Path, element: Element, message: str, line: int | None = None) -> FileFormatError:
    """A FileFormatError naming ``file:line`` and ``element`` (long tokens cut, :func:`~prunelab.io.tokens.excerpt`)."""
    return FileFormatError(excerpt(f"{path}:{line or element.line}: {element.label()}: {message}"))


def words(element: Element) -> list[str]:
    """The white-space separated words of ``element``'s text (a short list: parents, say)."""
    return element.text.split()


def _pieces(text: str) -> Iterator[tuple[int, str]]:
    """``text`` in pieces of about :data:`_PIECE` characters, each cut after white space, with its offset."""
    start = 0
    while start < len(text):
        end = start + _PIECE
        if end < len(text):
            space = _SPACE.search(text, end)
            end = space.end() if space else len(text)
        yield start, text[start:end]
        start = end


def _count(path: Path, element: Element, owner: str, what: str, size: int) -> None:
    """The words of ``element``'s text must be ``size``; counted a piece at a time."""
    found = sum(len(piece.split()) for _, piece in _pieces(element.text))
    if found != size:
        raise element_error(path, element, f"{owner}: {found} {what}, expected {size}")


def _word_line(element: Element, offset: int) -> int:
    """The file line of the character at ``offset`` of ``element``'s text."""
    return (element.text_line or element.line) + LineCounter(element.text).line(offset) - 1


def numbers(path: Path, element: Element, owner: str, size: int) -> np.ndarray:
    """``size`` probabilities from ``element``'s text, as float64; an error names the line and the culprit."""
    _count(path, element, owner, "numbers", size)
    values = array("d")
    for start, piece in _pieces(element.text):
        row = probability_row(piece.split())
        if row is None:
            for match in _WORD.finditer(piece):
                try:
                    values.append(parse_probability(match.group()))
                except ValueError as exc:
                    raise element_error(path, element, f"{owner}: expected a probability, {exc}",
                                        _word_line(element, start + match.start())) from None
        else:
            values.extend(row)
    return np.frombuffer(values)


def state_codes(path: Path, element: Element, owner: str, size: int, index: Mapping[str, int], listing: str):
    """``size`` state names from ``element``'s text as their indices in ``index`` (intp); ``listing`` names them."""
    _count(path, element, owner, "states", size)
    codes = np.empty(size, dtype=np.intp)
    k = 0
    for start, piece in _pieces(element.text):
        for match in _WORD.finditer(piece):
            code = index.get(match.group())
            if code is None:
                raise element_error(path, element, f"{owner}: unknown state {match.group()!r}; states are {listing}",
                                    _word_line(element, start + match.start()))
            codes[k] = code
            k += 1
    return codes

"""A small, guarded XML tree for the GeNIe ``.xdsl`` and BIFXML readers.

:func:`parse_xml` reads a file (at most :data:`~prunelab.io.tokens.MAX_FILE_BYTES`,
gunzipped if it ends in ``.gz``) with the standard library's expat parser, and
refuses a document type declaration as the parser meets it, before its first
declaration is read: no entity is ever declared or expanded, so no "billion laughs"
and no external file is read (in any encoding; a ``<!DOCTYPE`` in a comment or
CDATA section is text, not a declaration). Every :class:`Element` keeps the line it starts on, so errors name
``file:line`` and the element.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from .tokens import FileFormatError, excerpt, parse_probability, read_bytes

__all__ = ["Element", "parse_xml", "element_error", "numbers", "words"]


@dataclass
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


class _Refused(Exception):
    """A DTD or entity met by the parser, at ``line``."""

    def __init__(self, line: int):
        super().__init__(line)
        self.line = line


def parse_xml(path: Path) -> Element:
    """The document element of an XML file; FileFormatError on malformed XML, a DTD or an entity."""
    raw = read_bytes(path)
    parser = expat.ParserCreate()
    stack: list[Element] = []
    pieces: list[list[str]] = []
    root: list[Element] = []

    def start(tag, attrs):
        element = Element(tag, attrs, parser.CurrentLineNumber)
        if stack:
            stack[-1].children.append(element)
        else:
            root.append(element)
        stack.append(element)
        pieces.append([])

    def end(tag):
        element = stack.pop()
        element.text = "".join(pieces.pop())

    def text(data):
        if stack:
            if not pieces[-1]:
                stack[-1].text_line = parser.CurrentLineNumber
            pieces[-1].append(data)

    def refuse(*args):
        raise _Refused(parser.CurrentLineNumber)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        parser.Parse(raw, True)
    except expat.ExpatError as exc:
        raise FileFormatError(f"{path}:{exc.lineno}: not well-formed XML ({expat.ErrorString(exc.code)})") from None
    except _Refused as exc:
        raise FileFormatError(f"{path}:{exc.line}: a DTD or entity is refused (none is read)") from None
    return root[0]


def element_error(path: Path, element: Element, message: str, line: int | None = None) -> FileFormatError:
    """A FileFormatError naming ``file:line`` and ``element``."""
    return FileFormatError(excerpt(f"{path}:{line or element.line}: {element.label()}: {message}"))


def words(element: Element) -> list[tuple[str, int]]:
    """The white-space separated words of ``element``'s text, each with its line."""
    out = []
    line = element.text_line or element.line
    for chunk_line, chunk in enumerate(element.text.split("\n")):
        out.extend((w, line + chunk_line) for w in chunk.split())
    return out


def numbers(path: Path, element: Element, owner: str, size: int) -> list[float]:
    """``size`` probabilities from ``element``'s text; an error names the line and the culprit."""
    found = words(element)
    if len(found) != size:
        raise element_error(path, element, f"{owner}: {len(found)} numbers, expected {size}")
    values = []
    for word, line in found:
        try:
            values.append(parse_probability(word))
        except ValueError as exc:
            raise element_error(path, element, f"{owner}: expected a probability, {exc}", line) from None
    return values

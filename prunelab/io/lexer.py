"""A token reader for the Hugin, Netica and GeNIe text formats, and their nested tables.

:class:`Lexer` reads a text a token at a time by one compiled pattern; each token
keeps its offset, and an error works out the line from it. Unlike
:class:`~prunelab.io.tokens.Tokens` (BIF, UAI) it reads the text in one piece, so
a string may run over lines (Netica writes long comments that way).
:func:`read_table` reads a parenthesized table of numbers or state names, flat or
nested one level per parent, checking every group's length as it closes.
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path

from ..network import format_config
from .tokens import FileFormatError, LineCounter, excerpt, parse_probability

__all__ = [
    "MAX_NESTING", "Lexer", "Token", "checked_states", "probability", "read_block", "read_table", "token_pattern",
]

MAX_NESTING = 100
"""Deepest nesting of parentheses, braces or blocks read (a table nests one level per parent, at most)."""

Token = tuple[str, str, int]
"""``(kind, value, offset)``: kind is ``"string"``, ``"punct"`` or ``"word"``; a string's value is unquoted."""


def token_pattern(comment: str, punct: str = "{}()=;,|") -> re.Pattern:
    """The pattern of a format: ``comment`` and white space skipped, then a string, a punctuation mark or a word."""
    escaped = re.escape(punct)
    return re.compile(
        rf"""(?:\s+|{comment})*+
        (?:(?P<string>"(?:[^"\\]|\\.)*+")|(?P<punct>[{escaped}])|(?P<word>[^\s{escaped}"]+))?""",
        re.VERBOSE | re.DOTALL,
    )


_RUN = re.compile(r"[0-9eE.+\-]+(?:[\s,]+[0-9eE.+\-]+)*(?=[\s,)]|\Z)")
"""Number-like words joined by white space and commas, ending at a token boundary (the fast path of tables)."""

_ESCAPE = re.compile(r"\\((?:\r\n|\r|\n)[ \t]*|.)", re.DOTALL)
"""A backslash escape in a string: before a line end, both are dropped (and the next line's indent); ``\\n`` and
``\\t`` are a line end and a tab; any other character stands for itself."""


def _unescape(match: re.Match) -> str:
    char = match.group(1)
    return "" if char[0] in "\r\n" else {"n": "\n", "t": "\t"}.get(char, char)


class Lexer:
    """The tokens of a text, one at a time, with one token of look-ahead.

    Parameters
    ----------
    text : str
    path : Path
        Named in errors.
    pattern : re.Pattern
        From :func:`token_pattern`.
    start : int, default 0
        The offset to read from.
    """

    def __init__(self, text: str, path: Path, pattern: re.Pattern, start: int = 0):
        self.text = text
        self.path = path
        self._pattern = pattern
        self._pos = start
        self._lines = LineCounter(text)
        self._ahead = self._scan()

    def at(self, offset: int) -> Lexer:
        """A second reader of the same text from ``offset`` (to read a table whose shape was not yet known)."""
        return Lexer(self.text, self.path, self._pattern, offset)

    def _scan(self) -> Token | None:
        match = self._pattern.match(self.text, self._pos)
        kind = match.lastgroup
        if kind is None:
            start = match.end()
            if start < len(self.text):  # every character starts a token but a quote that is never closed
                raise FileFormatError(f"{self.path}:{self.line(start)}: a string that is never closed")
            self._pos = start
            return None
        self._pos = match.end()
        value = match.group(kind)
        if kind == "string":
            value = _ESCAPE.sub(_unescape, value[1:-1])
        return kind, value, match.start(kind)

    def line(self, offset: int | None) -> int:
        """The line (from 1) of ``offset``; None is the end of the text."""
        if offset is None:
            offset = len(self.text.rstrip())
        return self._lines.line(offset)

    def error(self, message: str, offset: int | None = None) -> FileFormatError:
        """A FileFormatError at ``offset`` (default: the next token, or the end)."""
        if offset is None and self._ahead is not None:
            offset = self._ahead[2]
        return FileFormatError(f"{self.path}:{self.line(offset)}: {excerpt(message)}")

    def peek(self) -> Token | None:
        """The next token without consuming it; None at the end of the text."""
        return self._ahead

    def next(self, what: str = "a token") -> Token:
        """The next token; an error naming ``what`` at the end of the text."""
        token = self._ahead
        if token is None:
            raise self.error(f"unexpected end of file, expected {what}")
        self._ahead = self._scan()
        return token

    def expect(self, value: str) -> int:
        """Consume the next token, which must be the punctuation or word ``value``; its offset."""
        kind, found, offset = self.next(repr(value))
        if found != value or kind == "string":
            raise self.error(f"expected {value!r}, found {_shown(kind, found)}", offset)
        return offset

    def name(self, what: str) -> tuple[str, int]:
        """A word or a string (a name); an error naming ``what`` otherwise."""
        kind, value, offset = self.next(what)
        if kind == "punct":
            raise self.error(f"expected {what}, found {value!r}", offset)
        return value, offset

    def run(self) -> tuple[list[str], int]:
        """Consume the number-like words ahead (joined by white space and commas) at once; them and their offset.

        Returns no words, consuming nothing, when the next token is not one. The
        words hold no comment, string or parenthesis; :meth:`rewind` to the offset
        reads them again one at a time (to place an error).
        """
        ahead = self._ahead
        if ahead is None or ahead[0] != "word":
            return [], -1
        match = _RUN.match(self.text, ahead[2])
        if match is None:
            return [], -1
        self._pos = match.end()
        self._ahead = self._scan()
        return match.group().replace(",", " ").split(), ahead[2]

    def rewind(self, offset: int) -> None:
        """Read on from ``offset`` (the start of a token), as after :meth:`run`."""
        self._pos = offset
        self._ahead = self._scan()

    def skip_value(self) -> None:
        """Skip one value: a word, a string, or a balanced ``( ... )`` or ``{ ... }`` group."""
        kind, value, offset = self.next("a value")
        if kind != "punct":
            return
        if value not in "({":
            raise self.error(f"expected a value, found {value!r}", offset)
        closing = {"(": ")", "{": "}"}
        stack = [closing[value]]
        while stack:
            self.run()
            kind, value, offset = self.next(repr(stack[-1]))
            if kind != "punct":
                continue
            if value in closing:
                stack.append(closing[value])
                if len(stack) > MAX_NESTING:
                    raise self.error(f"parentheses or braces nested more than MAX_NESTING = {MAX_NESTING} deep",
                                     offset)
            elif value in ")}":
                if value != stack[-1]:
                    raise self.error(f"expected {stack[-1]!r}, found {value!r}", offset)
                stack.pop()

    def names(self, what: str) -> tuple[list[str], list[int]]:
        """A parenthesized list of names (commas optional) and their offsets."""
        self.expect("(")
        names, offsets = [], []
        while True:
            kind, value, offset = self.next("')'")
            if kind == "punct":
                if value == ")":
                    return names, offsets
                if value == ",":
                    continue
                raise self.error(f"expected {what} or ')', found {value!r}", offset)
            names.append(value)
            offsets.append(offset)


def read_block(
    lex: Lexer,
    owner: str,
    values: dict[str, Callable[[Lexer], object]] | None = None,
    blocks: dict[str, Callable[[Lexer, str, int], None]] | None = None,
) -> dict[str, tuple[object, int]]:
    """Read ``{ key = value; ... keyword NAME { ... }; ... }`` up to its closing brace.

    A value whose key is in ``values`` is read by that reader, a named block whose
    keyword is in ``blocks`` is handed to that reader (after its name), the rest are
    skipped. A ``;`` after a named block is optional.

    Returns
    -------
    dict
        ``{key: (what its reader returned, or None if skipped; offset of the value)}``
        for every ``key = value`` of the block.
    """
    values, blocks = values or {}, blocks or {}
    found: dict[str, tuple[object, int]] = {}
    lex.expect("{")
    while True:
        kind, key, offset = lex.next("'}'")
        if kind == "punct" and key == "}":
            return found
        if kind != "word":
            raise lex.error(f"{owner}: expected a name or '}}', found {_shown(kind, key)}", offset)
        ahead = lex.peek()
        if ahead is not None and ahead[:2] == ("punct", "="):
            lex.next()
            if key in found and key in values:
                raise lex.error(f"{owner}: a second {key!r}", offset)
            at = lex.peek()[2] if lex.peek() is not None else offset
            found[key] = (values[key](lex) if key in values else lex.skip_value(), at)
            lex.expect(";")
            continue
        label, _ = lex.name(f"'=' or a name after {key!r}")
        ahead = lex.peek()
        if ahead is None or ahead[:2] != ("punct", "{"):
            raise lex.error(f"{owner}: expected '{{' after {key} {label}", ahead[2] if ahead else None)
        if key in blocks:
            blocks[key](lex, label, offset)
        else:
            lex.skip_value()
        if lex.peek() is not None and lex.peek()[:2] == ("punct", ";"):
            lex.next()


def checked_states(lex: Lexer, var: str, listed: tuple[tuple[list[str], list[int]], int]) -> tuple[str, ...]:
    """The state names read by :meth:`Lexer.names` (with the list's offset): at least one, none twice."""
    (names, offsets), at = listed
    if not names:
        raise lex.error(f"node {var!r} has no states", at)
    seen: set[str] = set()
    for s, offset in zip(names, offsets):
        if s in seen:
            raise lex.error(f"node {var!r} lists state {s!r} twice", offset)
        seen.add(s)
    return tuple(names)


def probability(tok: str) -> float:
    """``tok`` as a probability (:func:`~prunelab.io.tokens.parse_probability`), the error worded for a table."""
    try:
        return parse_probability(tok)
    except ValueError as exc:
        raise ValueError(f"expected a probability, {exc}") from None


def _shown(kind: str, value: str) -> str:
    return f'the string "{value}"' if kind == "string" else repr(value)


def read_table(
    lex: Lexer,
    shape: Sequence[int],
    item: Callable[[str], float],
    what: str,
    parents: Sequence[tuple[str, Sequence[str]]] = (),
) -> array:
    """A parenthesized table of ``prod(shape)`` items, the last axis fastest; flat values.

    The table is given flat, ``(x1 x2 ...)``, or nested: a group per value of each
    leading axis, ``((x1 x2) (x3 x4))``, as deep as the first item is. Every group
    must hold exactly as many entries as its axis has values; a group's length is
    checked as it closes (and an item past it at once), so nothing longer than the
    declared table is ever held. Commas between entries are optional.

    Parameters
    ----------
    lex : Lexer
        Positioned at the table's opening parenthesis.
    shape : sequence of int
        The table's axes, slowest first.
    item : callable
        Converts one word to a value; a ValueError says what is wrong with it.
    what : str
        The table's owner, for messages (``"'X'"``).
    parents : sequence of (name, states)
        The leading axes' variables, to name a group in a message.

    Returns
    -------
    array.array
        The values, the last axis fastest.
    """
    lex.expect("(")
    values = array("d")
    counts = [0]  # entries so far of each open group
    depth_of_items = None

    def expected(depth: int) -> int:  # entries of a group opened at ``depth`` (1 = the whole table)
        return shape[depth - 1] if depth < depth_of_items else math.prod(shape[depth_of_items - 1:])

    def group(depth: int) -> str:
        if depth <= 1:
            return "the table"
        config = tuple(c - 1 for c in counts[: depth - 1])
        names = [p for p, _ in parents[: depth - 1]]
        return "the group " + format_config(names, dict(parents), config)

    while counts:
        depth = len(counts)
        if depth == depth_of_items:
            words, start = lex.run()
            if words:
                room = expected(depth) - counts[-1]
                try:
                    if len(words) > room:
                        raise ValueError
                    values.extend([item(w) for w in words])
                    counts[-1] += len(words)
                    continue
                except ValueError:  # read them one at a time to place the error
                    lex.rewind(start)
        kind, value, offset = lex.next("')'")
        if kind == "punct" and value == ",":
            continue
        if kind == "punct" and value == ")":
            if depth_of_items is None:
                raise lex.error(f"{what}: empty parentheses in the table", offset)
            if counts[-1] != expected(depth):
                raise lex.error(
                    f"{what}: {group(depth)} has {counts[-1]} entries, expected {expected(depth)}", offset
                )
            counts.pop()
            continue
        if kind == "punct" and value != "(":
            raise lex.error(f"{what}: expected a table entry, found {value!r}", offset)
        if kind == "punct":  # "(": a new group
            if depth_of_items is not None and depth >= depth_of_items:
                raise lex.error(f"{what}: a group nested deeper than the first entry ({depth_of_items} levels)", offset)
            if depth >= len(shape):
                raise lex.error(f"{what}: the table nests deeper than its {len(shape)} axes", offset)
            if depth >= MAX_NESTING:
                raise lex.error(f"{what}: the table nests more than MAX_NESTING = {MAX_NESTING} deep", offset)
            counts[-1] += 1
            counts.append(0)
            if depth_of_items is not None and counts[-2] > expected(depth):
                raise lex.error(f"{what}: {group(depth)} has more than {expected(depth)} entries", offset)
            continue
        if depth_of_items is None:
            depth_of_items = depth
        elif depth != depth_of_items:
            raise lex.error(f"{what}: an entry at nesting level {depth}, the first one was at {depth_of_items}", offset)
        counts[-1] += 1
        if counts[-1] > expected(depth):
            raise lex.error(f"{what}: {group(depth)} has more than {expected(depth)} entries", offset)
        try:
            values.append(item(value))
        except ValueError as exc:
            raise lex.error(f"{what}: {exc}", offset) from None
    return values  # every group had its length, so there are prod(shape) values

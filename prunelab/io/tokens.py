"""Reading network files a token at a time, with errors that name the file and the line.

:class:`Tokens` tokenizes a text a chunk at a time (no list of every token is
ever held); :func:`parse_probability` and :data:`COUNT` say what a number in a
file may look like, strictly.
"""

from __future__ import annotations

import bisect
import codecs
import errno
import itertools
import math
import os
import re
import stat
import zlib
from pathlib import Path

__all__ = [
    "COUNT", "MAX_FILE_BYTES", "FileFormatError", "LineCounter", "Tokens", "excerpt", "gzipped", "line_comment",
    "open_text",
    "parse_probability", "probability_row", "read_bytes",
]


class FileFormatError(ValueError):
    """A network file that cannot be read; the message names file, line and token."""


MAX_FILE_BYTES = 2**28
"""Largest network file read, in bytes (256 MiB), counted after gunzipping.

The largest file among the networks pgmpy ships (``mildew``) is 5.3 MB; reading
takes 13-20 bytes of memory per byte of file (the XML readers 10-14: they build
only the elements they read), so the cap keeps a read under about 5 GiB, plus the
tables a file fills from a few bytes (BIF ``default`` rows, deterministic tables),
at most :data:`~prunelab.io.assemble.MAX_NETWORK_ENTRIES` entries. A larger file,
or a ``.gz`` that inflates past the cap, is refused before more than the cap is
held.
"""


_EXCERPT = 40
"""Characters of a long token quoted in an error message."""

_LONG_TOKEN = re.compile(rf"\S{{{2 * _EXCERPT},}}")


def excerpt(text: str) -> str:
    """``text`` with every run of more than 80 non-space characters cut to its first 40 and its length.

    Error messages quote tokens of a file; a file may hold one token of a billion
    characters.

    Examples
    --------
    >>> excerpt("found 'x" + "9" * 1000 + "'")
    "found 'x99999999999999999999999999999999999999... (1,003 characters)"
    """
    return _LONG_TOKEN.sub(lambda m: f"{m.group()[:_EXCERPT]}... ({len(m.group()):,} characters)", text)


def line_comment(opener: str) -> str:
    """The pattern of a comment from ``opener`` to the end of its line.

    A line ends at ``\\r\\n``, ``\\r`` (classic Mac files) or ``\\n``, in every reader;
    :class:`LineCounter` counts lines the same way.

    Examples
    --------
    >>> import re
    >>> re.findall(line_comment("%"), "a % one\\rb % two\\r\\nc")
    ['% one', '% two']
    """
    return re.escape(opener) + r"[^\r\n]*"


class LineCounter:
    """The line (from 1) of an offset in a text, where ``\\r\\n``, ``\\r`` and ``\\n`` each end a line.

    Offsets asked in increasing order are counted from the last one asked (a
    reader that asks the line of each table as it goes stays linear).

    Examples
    --------
    >>> lines = LineCounter("a\\r\\nb\\rc\\nd")
    >>> [lines.line(i) for i in (0, 3, 5, 7)]
    [1, 2, 3, 4]
    """

    def __init__(self, text: str):
        self.text = text
        self._offset, self._line = 0, 1

    def line(self, offset: int) -> int:
        """The line of ``offset``."""
        if offset < self._offset:
            self._offset, self._line = 0, 1
        text, start = self.text, self._offset
        ends = text.count("\n", start, offset) + text.count("\r", start, offset) - text.count("\r\n", start, offset)
        if 0 < start < offset and text[start - 1] == "\r" and text[start] == "\n":  # the \r\n counted once
            ends -= 1
        self._offset, self._line = offset, self._line + ends
        return self._line


def read_bytes(path: Path) -> bytes:
    """The file's bytes, gunzipped if it ends in ``.gz`` (any case); at most :data:`MAX_FILE_BYTES` of them.

    A device, pipe or socket (``/dev/zero``, a FIFO) is refused without reading it;
    a directory raises IsADirectoryError. A regular file is read to its end, also
    past the size it reports (procfs and sysfs report 0), up to the cap. Memory
    held stays within the file's size and the cap (a gzip is inflated a bounded
    piece at a time).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens without waiting for a writer
    try:
        info = os.fstat(fd)
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise FileFormatError(f"{path}: not a regular file (a device, pipe or socket); nothing was read")
        raise FileFormatError(f"{path}: {info.st_size} bytes, more than MAX_FILE_BYTES = {MAX_FILE_BYTES}")
    with os.fdopen(fd, "rb") as file:
        raw = file.read(info.st_size + 1)
        if len(raw) > info.st_size:  # a file that reports no size (procfs, sysfs) or grew: read on, to the cap
            pieces, total = [raw], len(raw)
            while total <= MAX_FILE_BYTES and (piece := file.read(min(_PIECE, MAX_FILE_BYTES + 1 - total))):
                pieces.append(piece)
                total += len(piece)
            if total > MAX_FILE_BYTES:
                raise FileFormatError(
                    f"{path}: more than MAX_FILE_BYTES = {MAX_FILE_BYTES} bytes (its size was reported as "
                    f"{info.st_size})"
                )
            raw = b"".join(pieces)
    return _gunzip(raw, path) if gzipped(path) else raw


def gzipped(path) -> bool:
    """Whether ``path`` names a gzip file: its suffix is ``.gz`` in any case (``.GZ`` too), read and written alike."""
    return Path(path).suffix.lower() == ".gz"


_PIECE = 1 << 20
"""Bytes read at a time from a file whose size is not known beforehand."""


def _gunzip(raw: bytes, path: Path) -> bytes:
    """The members of a gzip file inflated, refused as soon as they pass :data:`MAX_FILE_BYTES`."""
    if not raw.startswith(b"\x1f\x8b"):
        raise FileFormatError(f"{path}: not a readable gzip file (Not a gzipped file ({raw[:2]!r}))")
    pieces, total, data = [], 0, raw
    try:
        while data:
            member = zlib.decompressobj(wbits=31)
            while not member.eof:
                piece = member.decompress(data, MAX_FILE_BYTES + 1 - total)
                data = member.unconsumed_tail
                total += len(piece)
                if total > MAX_FILE_BYTES:
                    raise FileFormatError(
                        f"{path}: decompresses to more than MAX_FILE_BYTES = {MAX_FILE_BYTES} bytes"
                    )
                if not piece and not data:
                    raise EOFError("Compressed file ended before the end-of-stream marker was reached")
                pieces.append(piece)
            data = member.unused_data
    except (EOFError, zlib.error) as exc:
        raise FileFormatError(f"{path}: not a readable gzip file ({exc})") from None
    return b"".join(pieces)


def open_text(path: Path) -> str:
    """The file's text (:func:`read_bytes`): UTF-8, a leading BOM dropped."""
    raw = read_bytes(path)
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"{path}: not UTF-8 text ({exc})") from None


COUNT = re.compile(r"[0-9]+")
"""A count in a file: ASCII digits only (``int`` would also take ``'٢'`` or ``'1_0'``)."""


_NUMBER = r"[+-]?(?:[0-9]++(?:\.[0-9]*+)?|\.[0-9]++)(?:[eE][+-]?[0-9]++)?"
"""A decimal number; possessive, so that a long run of digits is matched in linear time."""


_PROBABILITY = re.compile(_NUMBER)


_ZERO = re.compile(r"[+-]?(?:0++(?:\.0*+)?|\.0++)(?:[eE][+-]?[0-9]++)?")
"""A number written as zero (``0``, ``0.000``, ``0e5``), as opposed to one that underflows to it (``1e-400``)."""


_NUMBER_LIST = re.compile(rf"(?:{_NUMBER} )*+{_NUMBER}")
"""Numbers joined by single spaces (the fast path of a row of tokens); the repeat is possessive, so the match holds
no backtracking state per number (a greedy one held about 550 bytes per number)."""


_CHUNK = 1 << 20
"""Characters tokenized at a time (the cut is moved to the next line break outside a comment)."""


_LINE_END = re.compile(r"[\r\n]")


def _line_end(text: str, start: int) -> int:
    """The offset of the first ``\\r`` or ``\\n`` at or after ``start``; -1 if none."""
    match = _LINE_END.search(text, start)
    return match.start() if match else -1


def probability_row(words: list[str]) -> list[float] | None:
    """``words`` as probabilities at once, as :func:`parse_probability` reads each; None if one is not.

    The fast path of a table: one pattern match over the row. On None, read the
    words one at a time to name the culprit.

    Examples
    --------
    >>> probability_row(["0.5", "5e-1"]), probability_row(["0.5", "-1"]), probability_row(["1e-400"])
    ([0.5, 0.5], None, None)
    """
    if not words or not _NUMBER_LIST.fullmatch(" ".join(words)):
        return None
    values = [float(t) for t in words]
    underflow = any(v == 0.0 and not _ZERO.fullmatch(t) for v, t in zip(values, words))
    if min(values) < 0.0 or max(values) == math.inf or underflow:
        return None
    return values


def parse_probability(tok: str) -> float:
    """``tok`` as a finite non-negative number; ValueError says what is wrong."""
    if not _PROBABILITY.fullmatch(tok):
        raise ValueError(f"found {tok!r}")
    value = float(tok)
    if value < 0:
        raise ValueError(f"found the negative number {tok!r}")
    if value == math.inf:
        raise ValueError(f"found {tok!r}, too large for a float")
    if value == 0.0 and not _ZERO.fullmatch(tok):
        raise ValueError(
            f"found {tok!r}, below the smallest float: it would become an exact zero, a deterministic entry the file "
            "does not state; write 0 if a zero is meant"
        )
    return value


class Tokens:
    """The tokens of a text, read one at a time.

    The text is tokenized a chunk (about ``_CHUNK`` characters) at a time by
    one ``findall``. A token is known by its mark, its index in the whole
    stream; its line is worked out only for an error, by tokenizing its chunk
    again.

    Parameters
    ----------
    text : str
    path : Path
        Named in errors.
    pattern : re.Pattern
        Matches what is skipped before a token (possessively), then the token in
        its one group (empty at the end of the text). Tokens hold no line break.
    """

    def __init__(self, text: str, path: Path, pattern: re.Pattern):
        self.text = text
        self.path = path
        self._pattern = pattern
        self._lines = LineCounter(text)
        self._chunks: list[tuple[int, int, int]] = []  # (first mark, start, end) of each chunk
        self._toks: list[str] = []
        self._i = 0  # position in _toks of the next token
        self._base = 0  # mark of _toks[0]
        self._fill()

    def _fill(self) -> None:
        """Tokenize chunks until a token is waiting or the text is used up."""
        end = self._chunks[-1][2] if self._chunks else 0
        while self._i >= len(self._toks) and end < len(self.text):
            start, end = end, self._chunk_end(end)
            self._base += len(self._toks)
            self._toks = self._pattern.findall(self.text, start, end)
            while self._toks and not self._toks[-1]:  # the empty matches at the end
                self._toks.pop()
            self._i = 0
            self._chunks.append((self._base, start, end))

    def _chunk_end(self, start: int) -> int:
        """A line end after ``start + _CHUNK`` that is not inside a ``/* */`` comment."""
        text = self.text
        end = _line_end(text, start + _CHUNK)
        while end >= 0:
            opened = text.rfind("/*", start, end)
            if opened < 0 or text.find("*/", opened + 2, end) >= 0:
                return end
            closed = text.find("*/", opened + 2)
            end = -1 if closed < 0 else _line_end(text, closed + 2)
        return len(text)

    def line(self, mark: int | None) -> int:
        """The line (from 1) of the token with ``mark``; None is the end of the text."""
        if mark is None:
            offset = len(self.text.rstrip())
        else:
            base, start, end = self._chunks[bisect.bisect_right(self._chunks, (mark, math.inf)) - 1]
            matches = self._pattern.finditer(self.text, start, end)
            offset = next(itertools.islice(matches, mark - base, None)).start(1)
        return self._lines.line(offset)

    def error(self, message: str, mark: int | None = None) -> FileFormatError:
        """A FileFormatError at the token with ``mark`` (default: the next token, or the end)."""
        if mark is None and self._i < len(self._toks):
            mark = self._base + self._i
        return FileFormatError(f"{self.path}:{self.line(mark)}: {excerpt(message)}")

    def peek(self) -> str | None:
        """The next token without consuming it; None at the end of the text."""
        return self._toks[self._i] if self._i < len(self._toks) else None

    def next(self, what: str = "a token") -> tuple[str, int]:
        """The next token and its mark; an error naming ``what`` at the end of the text."""
        i = self._i
        if i >= len(self._toks):
            raise self.error(f"unexpected end of file, expected {what}")
        item = (self._toks[i], self._base + i)
        self._i = i + 1
        if self._i == len(self._toks):
            self._fill()
        return item

    def expect(self, token: str) -> int:
        """Consume the next token, which must be ``token``; its mark."""
        tok, mark = self.next(repr(token))
        if tok != token:
            raise self.error(f"expected {token!r}, found {tok!r}", mark)
        return mark

    def until(self, stop: str) -> tuple[list[str], int]:
        """The tokens before the next ``stop`` (which is consumed), and the mark of the first.

        The k-th token returned has mark ``first + k``.
        """
        first = self._base + self._i
        try:
            j = self._toks.index(stop, self._i)
        except ValueError:  # across chunks, or missing: token by token
            found = []
            while (tok := self.next(repr(stop))[0]) != stop:
                found.append(tok)
            return found, first
        found = self._toks[self._i:j]
        self._i = j
        self.next()
        return found, first

    def skip_to(self, token: str) -> None:
        """Skip up to and including ``token``."""
        while self.next(repr(token))[0] != token:
            pass

    def skip_block(self) -> None:
        """Skip a balanced ``{ ... }`` block (network and property sections)."""
        self.expect("{")
        depth = 1
        while depth:
            tok, _ = self.next("'}'")
            depth += {"{": 1, "}": -1}.get(tok, 0)

    def numbers(self, what: str) -> list[float]:
        """Probabilities up to the next ``;`` (commas between them optional), which is consumed."""
        toks, i = self._toks, self._i
        try:
            stop = toks.index(";", i)
        except ValueError:
            stop = -1
        if stop > i:
            values = probability_row([t for t in toks[i:stop] if t != ","])
            if values is not None:
                self._i = stop
                self.next()
                return values
        # a bad token or value, or a row across chunks: token by token
        values = []
        while True:
            tok, mark = self.next("';'")
            if tok == ";":
                return values
            if tok != ",":
                try:
                    values.append(parse_probability(tok))
                except ValueError as exc:
                    raise self.error(f"{what}: expected a probability, {exc}", mark) from None

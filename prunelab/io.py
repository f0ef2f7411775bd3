"""Networks in and out: BIF and UAI files, and pgmpy models.

Errors on malformed files name the file and the line (and the token) at fault,
and come before anything larger than the file itself is allocated: a CPT's
declared size is checked against :data:`~prunelab.network.MAX_CPT_ENTRIES` and
against the numbers the file gives. Reading is linear in the file size.
"""

from __future__ import annotations

import bisect
import codecs
import gzip
import itertools
import json
import math
import os
import re
import zlib
from pathlib import Path

import numpy as np

from .network import BayesianNetwork, NetworkError, format_config, format_listing, check_cpt_size

__all__ = ["FileFormatError", "read_bif", "read_uai", "write_uai", "from_pgmpy", "to_pgmpy"]


class FileFormatError(ValueError):
    """A network file that cannot be read; the message names file, line and token."""


def _open_text(path: Path) -> str:
    """The file's text: gunzipped if it ends in ``.gz``, UTF-8, a leading BOM dropped."""
    raw = path.read_bytes()
    if path.suffix == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise FileFormatError(f"{path}: not a readable gzip file ({exc})") from None
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"{path}: not UTF-8 text ({exc})") from None


_COUNT = re.compile(r"[0-9]+")
"""A count in a file: ASCII digits only (``int`` would also take ``'٢'`` or ``'1_0'``)."""

_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_PROBABILITY = re.compile(_NUMBER)
_NUMBER_LIST = re.compile(rf"(?:{_NUMBER} )*{_NUMBER}")
"""Numbers joined by single spaces (the fast path of a row of tokens)."""

_CHUNK = 1 << 20
"""Characters tokenized at a time (the cut is moved to the next line break outside a comment)."""


def _probability(tok: str) -> float:
    """``tok`` as a finite non-negative number; ValueError says what is wrong."""
    if not _PROBABILITY.fullmatch(tok):
        raise ValueError(f"found {tok!r}")
    value = float(tok)
    if value < 0:
        raise ValueError(f"found the negative number {tok!r}")
    if value == math.inf:
        raise ValueError(f"found {tok!r}, too large for a float")
    return value


class _Tokens:
    """The tokens of a text, read one at a time.

    The text is tokenized a chunk (about :data:`_CHUNK` characters) at a time by
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
        """A line break after ``start + _CHUNK`` that is not inside a ``/* */`` comment."""
        text = self.text
        end = text.find("\n", start + _CHUNK)
        while end >= 0:
            opened = text.rfind("/*", start, end)
            if opened < 0 or text.find("*/", opened + 2, end) >= 0:
                return end
            closed = text.find("*/", opened + 2)
            end = -1 if closed < 0 else text.find("\n", closed + 2)
        return len(text)

    def line(self, mark: int | None) -> int:
        """The line (from 1) of the token with ``mark``; None is the end of the text."""
        if mark is None:
            offset = len(self.text.rstrip())
        else:
            base, start, end = self._chunks[bisect.bisect_right(self._chunks, (mark, math.inf)) - 1]
            matches = self._pattern.finditer(self.text, start, end)
            offset = next(itertools.islice(matches, mark - base, None)).start(1)
        return self.text.count("\n", 0, offset) + 1

    def error(self, message: str, mark: int | None = None) -> FileFormatError:
        """A FileFormatError at the token with ``mark`` (default: the next token, or the end)."""
        if mark is None and self._i < len(self._toks):
            mark = self._base + self._i
        return FileFormatError(f"{self.path}:{self.line(mark)}: {message}")

    def peek(self) -> str | None:
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
            row = [t for t in toks[i:stop] if t != ","]
            if _NUMBER_LIST.fullmatch(" ".join(row)):
                values = [float(t) for t in row]
                if min(values) >= 0.0 and max(values) < math.inf:
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
                    values.append(_probability(tok))
                except ValueError as exc:
                    raise self.error(f"{what}: expected a probability, {exc}", mark) from None


# --------------------------------------------------------------------------- BIF
_BIF_TOKEN = re.compile(
    r"""
    (?:\s+|//[^\n]*|/\*.*?\*/)*+                        # spaces and comments, skipped
    (?P<token>[{}()\[\],;|]|[^\s{}()\[\],;|]+)?
    """,
    re.VERBOSE | re.DOTALL,
)


def read_bif(path, normalize: bool = False, name: str | None = None) -> BayesianNetwork:
    """Read a network from a BIF file (optionally gzipped).

    Parameters
    ----------
    path : str or Path
        A ``.bif`` or ``.bif.gz`` file (UTF-8, with or without a byte-order mark).
    normalize : bool, default False
        Rescale each conditional distribution to sum to 1 (for files printed to
        few digits). Without it, a row off by more than 1e-6 is an error.
    name : str, optional
        The network's name; defaults to the file name without suffixes.

    Returns
    -------
    BayesianNetwork

    Raises
    ------
    FileFormatError
        A malformed file: the message names ``file:line`` and the token. Among
        them: a probability that is not a plain non-negative decimal number, a
        row given twice or missing, a table and rows for the same variable, a
        repeated state or parent, a CPT above
        :data:`~prunelab.network.MAX_CPT_ENTRIES` entries.
    NetworkError
        A well-formed file that describes an invalid network (a cycle, a row that
        does not sum to 1, ...); the message names the file too.
    OSError
        The file cannot be read (missing, a directory, ...).

    Notes
    -----
    Rows are given either as ``(parent states) p1, p2, ...;`` or as a ``table``
    listing, which (as pgmpy reads it) lists the child's states slowest; a
    ``default`` line fills the rows not given.

    Reading takes time linear in the file size. Measured by
    ``benchmarks/bench_io.py`` (one shared 2-core machine): chain BIFs of
    0.25-4 MB read at 3.3-3.5 MB/s, a 53 MB one (398k nodes) in 19 CPU s
    (2.8 MB/s); the peak memory is 13-20 MB per MB of file (13 for the 53 MB
    file). The 24 BIFs pgmpy ships (20 MB) read at 9.9 MB/s.

    Examples
    --------
    >>> from prunelab import read_bif
    >>> from prunelab.catalogue import pgmpy_example_path
    >>> read_bif(pgmpy_example_path("asia")).variables[:3]
    ('asia', 'smoke', 'tub')
    """
    path = Path(path)
    tokens = _Tokens(_open_text(path), path, _BIF_TOKEN)
    states: dict[str, dict[str, int]] = {}  # state name -> index, in order
    parents: dict[str, tuple[str, ...]] = {}
    cpts: dict[str, np.ndarray] = {}
    declared_at: dict[str, int] = {}
    block_at: dict[str, int] = {}
    while tokens.peek() is not None:
        tok, mark = tokens.next()
        if tok == "network":
            while tokens.peek() not in ("{", None):
                tokens.next()
            tokens.skip_block()
        elif tok == "variable":
            var, vmark = tokens.next("a variable name")
            if var in states:
                raise tokens.error(
                    f"variable {var!r} declared twice (first at line {tokens.line(declared_at[var])})", vmark
                )
            declared_at[var] = vmark
            states[var] = _parse_variable_body(tokens, var)
        elif tok == "probability":
            _parse_probability(tokens, states, parents, cpts, block_at)
        else:
            raise tokens.error(f"expected 'network', 'variable' or 'probability', found {tok!r}", mark)
    if not states:
        raise FileFormatError(f"{path}: no variable declared")
    missing = [v for v in states if v not in cpts]
    if missing:
        raise FileFormatError(f"{path}: no probability block for variable(s) {format_listing(missing)}")
    try:
        return BayesianNetwork(
            states={v: tuple(s) for v, s in states.items()},
            parents=parents,
            cpts=cpts,
            name=name or path.name.split(".")[0],
            normalize=normalize,
        )
    except NetworkError as exc:
        raise NetworkError(f"{path}: {exc}") from None


def _parse_variable_body(tokens: _Tokens, var: str) -> dict[str, int]:
    """A variable's state names, in order, each with its index."""
    tokens.expect("{")
    result = None
    while True:
        tok, mark = tokens.next("'}'")
        if tok == "}":
            break
        if tok == "property":
            tokens.skip_to(";")
        elif tok == "type":
            if result is not None:
                raise tokens.error(f"variable {var!r} has a second 'type' line", mark)
            kind, kmark = tokens.next("'discrete'")
            if kind != "discrete":
                raise tokens.error(f"variable {var!r}: only discrete variables are supported, found {kind!r}", kmark)
            tokens.expect("[")
            count_tok, cmark = tokens.next("a state count")
            if not _COUNT.fullmatch(count_tok):
                raise tokens.error(f"variable {var!r}: expected a state count, found {count_tok!r}", cmark)
            if int(count_tok) == 0:
                raise tokens.error(f"variable {var!r} declares 0 states; a variable needs at least one", cmark)
            tokens.expect("]")
            tokens.expect("{")
            listed, first = tokens.until("}")
            names: dict[str, int] = {}  # name -> index, in order
            for k, s in enumerate(listed):
                if s == ",":
                    continue
                if s in "{}()[];|":
                    raise tokens.error(f"variable {var!r}: unexpected {s!r} in the state list", first + k)
                if s in names:
                    raise tokens.error(f"variable {var!r} lists state {s!r} twice", first + k)
                names[s] = len(names)
            tokens.expect(";")
            if len(names) != int(count_tok):
                raise tokens.error(
                    f"variable {var!r} declares {count_tok} states but lists {len(names)}: "
                    f"{format_listing(list(names))}",
                    cmark,
                )
            result = names
        else:
            raise tokens.error(f"variable {var!r}: expected 'type' or 'property', found {tok!r}", mark)
    if result is None:
        raise tokens.error(f"variable {var!r} has no 'type discrete' line")
    return result


def _parse_probability(tokens: _Tokens, states, parents, cpts, block_at) -> None:
    """One ``probability ( child | parents ) { ... }`` block into ``parents`` and ``cpts``.

    Rows, ``table`` and ``default`` lines are collected first; the CPT is
    allocated only once their count matches its declared size.
    """
    start = tokens.expect("(")
    listed, first = tokens.until(")")
    names: list[str] = []
    for k, tok in enumerate(listed):
        if tok in (",", "|"):
            continue
        if tok not in states:
            raise tokens.error(f"probability block names undeclared variable {tok!r}", first + k)
        if tok in names:
            role = "itself as a parent" if tok == names[0] else f"parent {tok!r} twice"
            raise tokens.error(f"probability block of {names[0]!r} lists {role}", first + k)
        names.append(tok)
    if not names:
        raise tokens.error("probability block names no variable", start)
    child, pars = names[0], tuple(names[1:])
    if child in cpts:
        raise tokens.error(
            f"second probability block for {child!r} (first at line {tokens.line(block_at[child])})", start
        )
    block_at[child] = start
    card = len(states[child])
    pcards = tuple(len(states[p]) for p in pars)
    try:
        size = check_cpt_size(child, pcards + (card,))
    except NetworkError as exc:
        raise tokens.error(str(exc), start) from None
    table = default = None
    rows: dict[tuple[int, ...], list[float]] = {}
    row_at: dict[tuple[int, ...], int] = {}
    tokens.expect("{")
    while True:
        tok, mark = tokens.next("'}'")
        if tok == "}":
            break
        if tok == "property":
            tokens.skip_to(";")
            continue
        if tok not in ("table", "default", "("):
            raise tokens.error(f"{child!r}: expected a row '(...)', 'table' or 'default', found {tok!r}", mark)
        if table is not None or (tok == "table" and (rows or default is not None)):
            raise tokens.error(f"{child!r}: a 'table' line and other rows; give one or the other", mark)
        if tok == "table":
            table = tokens.numbers(f"{child!r}")
            if len(table) != size:
                raise tokens.error(f"{child!r}: table has {len(table)} numbers, expected {size}", mark)
        elif tok == "default":
            if default is not None:
                raise tokens.error(f"{child!r}: a second 'default' row", mark)
            default = tokens.numbers(f"{child!r}")
            if len(default) != card:
                raise tokens.error(f"{child!r}: default row has {len(default)} numbers, expected {card}", mark)
        else:
            config = _parse_config(tokens, child, pars, states, mark)
            if config in rows:
                raise tokens.error(
                    f"{child!r}: second row given {format_config(pars, {p: tuple(states[p]) for p in pars}, config)} "
                    f"(first at line {tokens.line(row_at[config])})",
                    mark,
                )
            values = tokens.numbers(f"{child!r}")
            if len(values) != card:
                raise tokens.error(f"{child!r}: row has {len(values)} numbers, expected {card}", mark)
            rows[config] = values
            row_at[config] = mark
    if table is None and default is None and len(rows) < size // card:
        # the first missing configuration is among the first len(rows) + 1
        gap = next(c for c in np.ndindex(*pcards) if c not in rows)
        raise tokens.error(
            f"{child!r}: no row given {format_config(pars, {p: tuple(states[p]) for p in pars}, gap)}; "
            f"{len(rows)} of {size // card} rows given",
            start,
        )
    if table is not None:
        cpt = np.asarray(table).reshape(card, -1).T.reshape(pcards + (card,))
    else:
        cpt = np.empty(pcards + (card,))
        if default is not None:
            cpt[...] = default
        for config, values in rows.items():
            cpt[config] = values
    parents[child] = pars
    cpts[child] = cpt


def _parse_config(tokens: _Tokens, child: str, pars, states, mark: int) -> tuple[int, ...]:
    """The parent states of a row ``(s1, s2, ...)`` as indices (the ``(`` is read)."""
    listed, first = tokens.until(")")
    config: list[int] = []
    for j, s in enumerate(listed):
        if s == ",":
            continue
        k = len(config)
        if k >= len(pars):
            raise tokens.error(f"{child!r}: row names more parent states than its {len(pars)} parents", first + j)
        index = states[pars[k]].get(s)
        if index is None:
            raise tokens.error(
                f"{child!r}: unknown state {s!r} of parent {pars[k]!r}; states are {format_listing(states[pars[k]])}",
                first + j,
            )
        config.append(index)
    if len(config) != len(pars):
        raise tokens.error(f"{child!r}: row gives {len(config)} parent states, expected {len(pars)}", mark)
    return tuple(config)


# --------------------------------------------------------------------------- UAI
def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".names.json")


def write_uai(bn: BayesianNetwork, path, names: bool = True) -> Path:
    """Write ``bn`` as a UAI ``BAYES`` file, with names in a JSON sidecar.

    UAI files carry no names; unless ``names=False``, the variable and state names
    go to ``<path>.names.json`` so that :func:`read_uai` gives back the same
    network. Numbers are written with 17 significant digits (exact round trip).

    Parameters
    ----------
    bn : BayesianNetwork
    path : str or Path
    names : bool, default True
        Also write the names sidecar.

    Returns
    -------
    Path
        The UAI file written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from prunelab import load_network, read_uai, write_uai
    >>> bn = load_network("deterministic_pair")
    >>> p = write_uai(bn, pathlib.Path(tempfile.mkdtemp()) / "pair.uai")
    >>> read_uai(p) == bn
    True
    """
    path = Path(path)
    lines = ["BAYES", str(bn.n_variables), " ".join(str(len(bn.states[v])) for v in bn.variables)]
    lines.append(str(bn.n_variables))
    for v in bn.variables:
        scope = [bn.index(p) for p in bn.parents[v]] + [bn.index(v)]
        lines.append(" ".join(str(x) for x in [len(scope), *scope]))
    lines.append("")
    for v in bn.variables:
        flat = bn.cpts[v].ravel()
        lines.append(str(flat.size))
        card = len(bn.states[v])
        for row in flat.reshape(-1, card):
            lines.append(" ".join(repr(float(x)) for x in row))
        lines.append("")
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines))
    os.replace(tmp, path)
    if names:
        side = {"name": bn.name, "variables": list(bn.variables), "states": {v: list(s) for v, s in bn.states.items()}}
        _sidecar(path).write_text(json.dumps(side, indent=1) + "\n")
    return path


_UAI_TOKEN = re.compile(r"\s*+(?P<token>\S+)?")


def read_uai(path, normalize: bool = False, name: str | None = None) -> BayesianNetwork:
    """Read a UAI ``BAYES`` file (names from ``<path>.names.json`` when present).

    Parameters
    ----------
    path : str or Path
    normalize : bool, default False
        Rescale each conditional distribution to sum to 1.
    name : str, optional

    Returns
    -------
    BayesianNetwork
        Variables are named ``v0, v1, ...`` and states ``0, 1, ...`` unless a
        names sidecar (written by :func:`write_uai`) is present.

    Raises
    ------
    FileFormatError
        A malformed file; the message names ``file:line`` and the token. A
        malformed sidecar; the message names the sidecar.
    NetworkError
        A well-formed file that describes an invalid network; the message names
        the file too.

    Examples
    --------
    >>> from prunelab import read_uai
    >>> from prunelab.catalogue import frozen_network_path
    >>> read_uai(frozen_network_path("grid-3x3")).variables[-1]
    'v_3_3'
    """
    path = Path(path)
    tokens = _Tokens(_open_text(path), path, _UAI_TOKEN)

    def next_int(what):
        tok, mark = tokens.next(what)
        if not _COUNT.fullmatch(tok):
            raise tokens.error(f"expected {what} (a non-negative integer), found {tok!r}", mark)
        return int(tok), mark

    if tokens.peek() is None:
        raise tokens.error("empty file, expected the preamble 'BAYES'")
    tok, mark = tokens.next()
    if tok.upper() != "BAYES":
        raise tokens.error(f"expected the preamble 'BAYES', found {tok!r}", mark)
    n, _ = next_int("the number of variables")
    cards = []
    for i in range(n):
        card, mark = next_int(f"the cardinality of variable {i}")
        if card == 0:
            raise tokens.error(f"variable {i} has cardinality 0; a variable needs at least one state", mark)
        cards.append(card)
    n_factors, mark = next_int("the number of factors")
    if n_factors != n:
        raise tokens.error(f"a BAYES file has one factor per variable: {n_factors} factors for {n} variables", mark)
    scopes = []
    owner: dict[int, int] = {}
    for f in range(n_factors):
        k, mark = next_int(f"the scope size of factor {f}")
        if k == 0:
            raise tokens.error(f"factor {f} has an empty scope", mark)
        scope: list[int] = []
        for _ in range(k):
            v, vmark = next_int(f"a variable of factor {f}")
            if v >= n:
                raise tokens.error(f"factor {f} names variable {v}, but there are only {n}", vmark)
            if v in scope:
                raise tokens.error(f"factor {f} lists variable {v} twice", vmark)
            scope.append(v)
        child = scope[-1]
        if child in owner:
            raise tokens.error(
                f"factor {f} and factor {owner[child]} both have variable {child} last (its CPT)", mark
            )
        owner[child] = f
        scopes.append(scope)
    var_names, state_names, side_name = _read_names(path, cards)
    cpts = {}
    for f, scope in enumerate(scopes):
        size, mark = next_int(f"the table size of factor {f}")
        shape = [cards[v] for v in scope]
        try:
            expected = check_cpt_size(var_names[scope[-1]], shape)
        except NetworkError as exc:
            raise tokens.error(f"factor {f}: {exc}", mark) from None
        if size != expected:
            raise tokens.error(f"factor {f} declares {size} entries, its scope {scope} needs {expected}", mark)
        table = []
        for i in range(size):
            tok, vmark = tokens.next(f"entry {i} of factor {f}")
            try:
                table.append(_probability(tok))
            except ValueError as exc:
                raise tokens.error(f"expected entry {i} of factor {f}, {exc}", vmark) from None
        cpts[var_names[scope[-1]]] = np.asarray(table).reshape(shape)
    if tokens.peek() is not None:
        raise tokens.error(f"unexpected extra token {tokens.peek()!r} after the last table")
    if state_names is None:  # made now: the tables have shown that every state exists
        state_names = [[str(s) for s in range(c)] for c in cards]
    try:
        return BayesianNetwork(
            states={var_names[i]: state_names[i] for i in range(n)},
            parents={var_names[s[-1]]: [var_names[p] for p in s[:-1]] for s in scopes},
            cpts=cpts,
            name=name or side_name or path.name.split(".")[0],
            normalize=normalize,
        )
    except NetworkError as exc:
        raise NetworkError(f"{path}: {exc}") from None


def _read_names(path: Path, cards: list[int]) -> tuple[list[str], list[list[str]] | None, str | None]:
    """Variable names, state names and network name from the sidecar of ``path``.

    Without a sidecar: ``v0, v1, ...``, no state names and no name.
    """
    side = _sidecar(path)
    if not side.exists():
        return [f"v{i}" for i in range(len(cards))], None, None
    try:
        meta = json.loads(side.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FileFormatError(f"{side}: not a JSON file ({exc})") from None
    shaped = isinstance(meta, dict) and isinstance(meta.get("variables"), list) and isinstance(meta.get("states"), dict)
    if not shaped:
        raise FileFormatError(f"{side}: expected an object with a 'variables' list and a 'states' object")
    var_names, states = meta["variables"], meta["states"]
    if not isinstance(meta.get("name", ""), str):
        raise FileFormatError(f"{side}: 'name' must be a string, found {meta['name']!r}")
    if len(var_names) != len(cards):
        raise FileFormatError(f"{side}: {len(var_names)} variable names for the {len(cards)} variables of {path}")
    seen: set[str] = set()
    for i, v in enumerate(var_names):
        if not isinstance(v, str):
            raise FileFormatError(f"{side}: variable name {v!r} is not a string")
        if v in seen:
            raise FileFormatError(f"{side}: variable name {v!r} given twice")
        seen.add(v)
        sv = states.get(v)
        if not (isinstance(sv, list) and all(isinstance(s, str) for s in sv)):
            raise FileFormatError(f"{side}: no list of state names (strings) for variable {v!r}")
        if len(sv) != cards[i]:
            raise FileFormatError(
                f"{side}: variable {v!r} has {len(sv)} state names, but {cards[i]} states in {path}"
            )
        if len(set(sv)) != len(sv):
            raise FileFormatError(f"{side}: variable {v!r} has repeated state names {format_listing(sv)}")
    return var_names, [states[v] for v in var_names], meta.get("name")


# ------------------------------------------------------------------------ pgmpy
def to_pgmpy(bn: BayesianNetwork):
    """Convert to a pgmpy ``DiscreteBayesianNetwork`` with the same names and CPTs.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.io import to_pgmpy
    >>> sorted(to_pgmpy(load_network("deterministic_pair")).nodes())
    ['A', 'B']
    """
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    model = DiscreteBayesianNetwork()
    model.add_nodes_from(bn.variables)
    model.add_edges_from([(p, v) for v in bn.variables for p in bn.parents[v]])
    cpds = []
    for v in bn.variables:
        pars = list(bn.parents[v])
        card = len(bn.states[v])
        values = np.moveaxis(bn.cpts[v], -1, 0).reshape(card, -1)
        cpds.append(
            TabularCPD(
                variable=v,
                variable_card=card,
                values=values,
                evidence=pars or None,
                evidence_card=[len(bn.states[p]) for p in pars] or None,
                state_names={x: list(bn.states[x]) for x in [v, *pars]},
            )
        )
    model.add_cpds(*cpds)
    return model


def from_pgmpy(model, name: str | None = None, normalize: bool = False) -> BayesianNetwork:
    """Convert a pgmpy discrete Bayesian network (TabularCPDs) to a :class:`BayesianNetwork`.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.io import from_pgmpy, to_pgmpy
    >>> bn = load_network("blood_pressure")
    >>> from_pgmpy(to_pgmpy(bn)) == bn
    True
    """
    states, parents, cpts = {}, {}, {}
    for cpd in model.get_cpds():
        v = cpd.variable
        pars = list(cpd.variables[1:])
        states[v] = [str(s) for s in cpd.state_names[v]]
        parents[v] = pars
        cpts[v] = np.moveaxis(np.asarray(cpd.values, dtype=float), 0, -1)
    missing = set(model.nodes()) - set(states)
    if missing:
        raise NetworkError(f"pgmpy model has no CPD for {sorted(missing)}")
    order = [v for v in model.nodes()]
    return BayesianNetwork(
        states={v: states[v] for v in order},
        parents={v: parents[v] for v in order},
        cpts={v: cpts[v] for v in order},
        name=name or getattr(model, "name", None) or "pgmpy",
        normalize=normalize,
    )

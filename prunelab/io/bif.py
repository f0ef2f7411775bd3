"""BIF files in: :func:`read_bif`."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..network import BayesianNetwork, NetworkError, format_config, format_listing
from .assemble import TableBudget, build_network
from .tokens import COUNT, FileFormatError, Tokens, line_comment, open_text

__all__ = ["read_bif"]


_BIF_TOKEN = re.compile(
    rf"""
    (?:\s+|{line_comment("//")}|/\*.*?\*/)*+            # spaces and comments, skipped
    (?P<token>"[^"\r\n]*"|[{{}}()\[\],;|]|[^\s{{}}()\[\],;|]+)?  # a quoted string (one line) is one token
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
    tokens = Tokens(open_text(path), path, _BIF_TOKEN)
    states: dict[str, dict[str, int]] = {}  # state name -> index, in order
    parents: dict[str, tuple[str, ...]] = {}
    cpts: dict[str, np.ndarray] = {}
    declared_at: dict[str, int] = {}
    block_at: dict[str, int] = {}
    budget = TableBudget()
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
            _parse_probability(tokens, states, parents, cpts, block_at, budget)
        else:
            raise tokens.error(f"expected 'network', 'variable' or 'probability', found {tok!r}", mark)
    if not states:
        raise FileFormatError(f"{path}: no variable declared")
    missing = [v for v in states if v not in cpts]
    if missing:
        raise FileFormatError(f"{path}: no probability block for variable(s) {format_listing(missing)}")
    return build_network(path, states, parents, cpts, {}, name, normalize)


def _parse_variable_body(tokens: Tokens, var: str) -> dict[str, int]:
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
            if not COUNT.fullmatch(count_tok):
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


def _parse_probability(tokens: Tokens, states, parents, cpts, block_at, budget: TableBudget) -> None:
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
        size = budget.take(child, pcards + (card,))
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


def _parse_config(tokens: Tokens, child: str, pars, states, mark: int) -> tuple[int, ...]:
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

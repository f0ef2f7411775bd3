"""UAI ``BAYES`` files in and out (:func:`read_uai`, :func:`write_uai`), names in a JSON sidecar."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
from pathlib import Path

import numpy as np

from ..network import BayesianNetwork, NetworkError, check_cpt_size, format_listing
from .tokens import COUNT, FileFormatError, Tokens, gzipped, line_comment, open_text, parse_probability

__all__ = ["read_uai", "write_uai"]


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".names.json")


def write_uai(bn: BayesianNetwork, path, names: bool = True) -> Path:
    """Write ``bn`` as a UAI ``BAYES`` file, with names in a JSON sidecar.

    UAI files carry no names; unless ``names=False``, the variable and state names
    go to ``<path>.names.json`` so that :func:`read_uai` gives back the same
    network. The sidecar records the SHA-256 of the UAI file it names, and
    :func:`read_uai` refuses a sidecar written for another file; with
    ``names=False`` a sidecar left by an earlier write is removed. Numbers are
    written with 17 significant digits (exact round trip).

    Parameters
    ----------
    bn : BayesianNetwork
    path : str or Path
        A path ending in ``.gz`` (in any case) is written gzip-compressed (as :func:`read_uai`
        reads it).
    names : bool, default True
        Also write the names sidecar.

    Returns
    -------
    Path
        The UAI file written.

    Notes
    -----
    Each CPT's scope is its parents in ``bn.parents`` order, then the child (the
    format puts the child last), and its table is listed in that scope's order
    with the last variable varying fastest: the child, then the last parent, and
    the first parent slowest (``bn.cpts[v].ravel()``). pyAgrum (3.x) reads and
    writes a many-parent table the other way round, its first parent varying
    fastest after the child, and parses every number in single precision: it
    reads these files' tables of at most one parent right (to about 7 digits)
    and a table of two or more parents with its rows permuted.

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
    data = "\n".join(lines).encode()
    if gzipped(path):
        data = gzip.compress(data, mtime=0)
    side = _sidecar(path)
    if names:
        meta = {"name": bn.name, "uai_sha256": hashlib.sha256(data).hexdigest(), "variables": list(bn.variables),
                "states": {v: list(s) for v, s in bn.states.items()}}
        _write_atomically(side, (json.dumps(meta, indent=1) + "\n").encode())
    else:
        side.unlink(missing_ok=True)  # it would name another network's tables
    _write_atomically(path, data)
    return path


def _write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


_UAI_TOKEN = re.compile(rf"(?:\s+|{line_comment('#')})*+(?P<token>[^\s#]+)?")
"""A token; ``#`` starts a comment to the end of the line (pyAgrum writes one naming each factor's variable)."""


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
    tokens = Tokens(open_text(path), path, _UAI_TOKEN)
    cards = _read_cardinalities(tokens)
    scopes = _read_scopes(tokens, len(cards))
    var_names, state_names, side_name = _read_names(path, cards)
    cpts = _read_tables(tokens, scopes, cards, var_names)
    if tokens.peek() is not None:
        raise tokens.error(f"unexpected extra token {tokens.peek()!r} after the last table")
    if state_names is None:  # made now: the tables have shown that every state exists
        state_names = [[str(s) for s in range(c)] for c in cards]
    try:
        return BayesianNetwork(
            states={var_names[i]: state_names[i] for i in range(len(cards))},
            parents={var_names[s[-1]]: [var_names[p] for p in s[:-1]] for s in scopes},
            cpts=cpts,
            name=name or side_name or path.name.split(".")[0],
            normalize=normalize,
        )
    except NetworkError as exc:
        raise NetworkError(f"{path}: {exc}") from None


def _next_count(tokens: Tokens, what: str) -> tuple[int, int]:
    """The next token as a non-negative integer, and its mark."""
    tok, mark = tokens.next(what)
    if not COUNT.fullmatch(tok):
        raise tokens.error(f"expected {what} (a non-negative integer), found {tok!r}", mark)
    return int(tok), mark


def _read_cardinalities(tokens: Tokens) -> list[int]:
    """The preamble ``BAYES``, the number of variables and their cardinalities (each at least 1)."""
    if tokens.peek() is None:
        raise tokens.error("empty file, expected the preamble 'BAYES'")
    tok, mark = tokens.next()
    if tok.upper() != "BAYES":
        raise tokens.error(f"expected the preamble 'BAYES', found {tok!r}", mark)
    n, _ = _next_count(tokens, "the number of variables")
    cards = []
    for i in range(n):
        card, mark = _next_count(tokens, f"the cardinality of variable {i}")
        if card == 0:
            raise tokens.error(f"variable {i} has cardinality 0; a variable needs at least one state", mark)
        cards.append(card)
    return cards


def _read_scopes(tokens: Tokens, n: int) -> list[list[int]]:
    """One scope per variable (parents, then the variable whose CPT the factor is), checked."""
    n_factors, mark = _next_count(tokens, "the number of factors")
    if n_factors != n:
        raise tokens.error(f"a BAYES file has one factor per variable: {n_factors} factors for {n} variables", mark)
    scopes = []
    owner: dict[int, int] = {}
    for f in range(n_factors):
        k, mark = _next_count(tokens, f"the scope size of factor {f}")
        if k == 0:
            raise tokens.error(f"factor {f} has an empty scope", mark)
        scope: list[int] = []
        for _ in range(k):
            v, vmark = _next_count(tokens, f"a variable of factor {f}")
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
    return scopes


def _read_tables(tokens: Tokens, scopes, cards, var_names) -> dict[str, np.ndarray]:
    """Every factor's table, by the name of its variable; sizes checked before anything is allocated."""
    cpts = {}
    for f, scope in enumerate(scopes):
        size, mark = _next_count(tokens, f"the table size of factor {f}")
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
                table.append(parse_probability(tok))
            except ValueError as exc:
                raise tokens.error(f"expected entry {i} of factor {f}, {exc}", vmark) from None
        cpts[var_names[scope[-1]]] = np.asarray(table).reshape(shape)
    return cpts


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
    if "uai_sha256" in meta and meta["uai_sha256"] != hashlib.sha256(path.read_bytes()).hexdigest():
        raise FileFormatError(
            f"{side}: this names sidecar was written for another version of {path} (its SHA-256 differs); "
            "delete the sidecar to read the file with names v0, v1, ..., or write both again with write_uai"
        )
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

"""Networks in and out: BIF and UAI files, and pgmpy models.

Errors on malformed files name the file and the line (and the token) at fault.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path

import numpy as np

from .network import BayesianNetwork, NetworkError

__all__ = ["FileFormatError", "read_bif", "read_uai", "write_uai", "from_pgmpy", "to_pgmpy"]


class FileFormatError(ValueError):
    """A network file that cannot be read; the message names file, line and token."""


def _open_text(path: Path) -> str:
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"{path}: not UTF-8 text ({exc})") from None


# --------------------------------------------------------------------------- BIF
_BIF_TOKEN = re.compile(
    r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<space>\s+)
  | (?P<punct>[{}()\[\],;|])
  | (?P<word>[^\s{}()\[\],;|]+)
    """,
    re.VERBOSE | re.DOTALL,
)


class _Tokens:
    """A token stream that remembers the line of each token."""

    def __init__(self, text: str, path: Path):
        self.path = path
        self.items: list[tuple[str, int]] = []
        line = 1
        for m in _BIF_TOKEN.finditer(text):
            kind = m.lastgroup
            tok = m.group()
            if kind in ("word", "punct"):
                self.items.append((tok, line))
            line += tok.count("\n")
        self.pos = 0
        self.last_line = line

    def error(self, message: str, line: int | None = None) -> FileFormatError:
        if line is None:
            line = self.items[self.pos][1] if self.pos < len(self.items) else self.last_line
        return FileFormatError(f"{self.path}:{line}: {message}")

    def peek(self) -> str | None:
        return self.items[self.pos][0] if self.pos < len(self.items) else None

    def next(self, what: str = "a token") -> tuple[str, int]:
        if self.pos >= len(self.items):
            raise self.error(f"unexpected end of file, expected {what}")
        item = self.items[self.pos]
        self.pos += 1
        return item

    def expect(self, token: str) -> int:
        tok, line = self.next(repr(token))
        if tok != token:
            raise self.error(f"expected {token!r}, found {tok!r}", line)
        return line

    def skip_block(self) -> None:
        """Skip a balanced ``{ ... }`` block (network and property sections)."""
        self.expect("{")
        depth = 1
        while depth:
            tok, _ = self.next("'}'")
            depth += {"{": 1, "}": -1}.get(tok, 0)


def _parse_number(tokens: _Tokens, tok: str, line: int) -> float:
    try:
        return float(tok)
    except ValueError:
        raise tokens.error(f"expected a probability, found {tok!r}", line) from None


def read_bif(path, normalize: bool = False, name: str | None = None) -> BayesianNetwork:
    """Read a network from a BIF file (optionally gzipped).

    Parameters
    ----------
    path : str or Path
        A ``.bif`` or ``.bif.gz`` file.
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
        A malformed file: the message names ``file:line`` and the token.
    NetworkError
        A well-formed file that describes an invalid network (a cycle, a row that
        does not sum to 1, ...); the message names the file too.

    Notes
    -----
    Rows are given either as ``(parent states) p1, p2, ...;`` or as a ``table``
    listing, which (as pgmpy reads it) lists the child's states slowest.

    Examples
    --------
    >>> from prunelab import read_bif
    >>> from prunelab.catalogue import pgmpy_example_path
    >>> read_bif(pgmpy_example_path("asia")).variables[:3]
    ('asia', 'smoke', 'tub')
    """
    path = Path(path)
    tokens = _Tokens(_open_text(path), path)
    states: dict[str, tuple[str, ...]] = {}
    parents: dict[str, tuple[str, ...]] = {}
    cpts: dict[str, np.ndarray] = {}
    declared_at: dict[str, int] = {}
    while tokens.peek() is not None:
        tok, line = tokens.next()
        if tok == "network":
            while tokens.peek() not in ("{", None):
                tokens.next()
            tokens.skip_block()
        elif tok == "variable":
            var, vline = tokens.next("a variable name")
            if var in states:
                raise tokens.error(f"variable {var!r} declared twice (first at line {declared_at[var]})", vline)
            declared_at[var] = vline
            states[var] = _parse_variable_body(tokens, var)
        elif tok == "probability":
            _parse_probability(tokens, states, parents, cpts)
        else:
            raise tokens.error(f"expected 'network', 'variable' or 'probability', found {tok!r}", line)
    missing = [v for v in states if v not in cpts]
    if missing:
        raise FileFormatError(f"{path}: no probability block for variable(s) {missing}")
    try:
        return BayesianNetwork(
            states=states,
            parents=parents,
            cpts=cpts,
            name=name or path.name.split(".")[0],
            normalize=normalize,
        )
    except NetworkError as exc:
        raise NetworkError(f"{path}: {exc}") from None


def _parse_variable_body(tokens: _Tokens, var: str) -> tuple[str, ...]:
    tokens.expect("{")
    result = None
    while True:
        tok, line = tokens.next("'}'")
        if tok == "}":
            break
        if tok == "property":
            while tokens.next("';'")[0] != ";":
                pass
        elif tok == "type":
            kind, kline = tokens.next("'discrete'")
            if kind != "discrete":
                raise tokens.error(f"variable {var!r}: only discrete variables are supported, found {kind!r}", kline)
            tokens.expect("[")
            count_tok, cline = tokens.next("a state count")
            if not count_tok.isdigit():
                raise tokens.error(f"variable {var!r}: expected a state count, found {count_tok!r}", cline)
            tokens.expect("]")
            tokens.expect("{")
            names = []
            while True:
                s, sline = tokens.next("a state name")
                if s in (",",):
                    continue
                if s == "}":
                    break
                if s in "{}()[];|":
                    raise tokens.error(f"variable {var!r}: unexpected {s!r} in the state list", sline)
                names.append(s)
            tokens.expect(";")
            if len(names) != int(count_tok):
                raise tokens.error(
                    f"variable {var!r} declares {count_tok} states but lists {len(names)}: {names}", cline
                )
            result = tuple(names)
        else:
            raise tokens.error(f"variable {var!r}: expected 'type' or 'property', found {tok!r}", line)
    if result is None:
        raise tokens.error(f"variable {var!r} has no 'type discrete' line")
    return result


def _parse_probability(tokens, states, parents, cpts) -> None:
    start = tokens.expect("(")
    names = []
    while True:
        tok, line = tokens.next("')'")
        if tok == ")":
            break
        if tok in (",", "|"):
            continue
        if tok not in states:
            raise tokens.error(f"probability block names undeclared variable {tok!r}", line)
        names.append(tok)
    if not names:
        raise tokens.error("probability block names no variable", start)
    child, pars = names[0], tuple(names[1:])
    if child in cpts:
        raise tokens.error(f"second probability block for {child!r}", start)
    card = len(states[child])
    pcards = [len(states[p]) for p in pars]
    table = np.full(tuple(pcards) + (card,), np.nan)
    tokens.expect("{")
    while True:
        tok, line = tokens.next("'}'")
        if tok == "}":
            break
        if tok == "property":
            while tokens.next("';'")[0] != ";":
                pass
        elif tok in ("table", "default"):
            values = _read_numbers(tokens, line)
            if tok == "default":
                if len(values) != card:
                    raise tokens.error(f"{child!r}: default row has {len(values)} numbers, expected {card}", line)
                mask = np.isnan(table[..., 0])
                table[mask] = values
                continue
            expected = card * int(np.prod(pcards))
            if len(values) != expected:
                raise tokens.error(f"{child!r}: table has {len(values)} numbers, expected {expected}", line)
            arr = np.asarray(values).reshape(card, -1)
            table[...] = arr.T.reshape(table.shape)
        elif tok == "(":
            config = []
            while True:
                s, sline = tokens.next("')'")
                if s == ")":
                    break
                if s == ",":
                    continue
                k = len(config)
                if k >= len(pars):
                    raise tokens.error(f"{child!r}: row names more parent states than its {len(pars)} parents", sline)
                if s not in states[pars[k]]:
                    raise tokens.error(
                        f"{child!r}: unknown state {s!r} of parent {pars[k]!r}; states are {list(states[pars[k]])}",
                        sline,
                    )
                config.append(states[pars[k]].index(s))
            if len(config) != len(pars):
                raise tokens.error(f"{child!r}: row gives {len(config)} parent states, expected {len(pars)}", line)
            values = _read_numbers(tokens, line)
            if len(values) != card:
                raise tokens.error(f"{child!r}: row has {len(values)} numbers, expected {card}", line)
            table[tuple(config)] = values
        else:
            raise tokens.error(f"{child!r}: expected a row '(...)', 'table' or 'default', found {tok!r}", line)
    if np.isnan(table).any():
        idx = tuple(int(i) for i in np.argwhere(np.isnan(table))[0][:-1])
        cfg = ", ".join(f"{p}={states[p][i]}" for p, i in zip(pars, idx))
        raise tokens.error(f"{child!r}: no row for parent configuration ({cfg})", start)
    parents[child] = pars
    cpts[child] = table


def _read_numbers(tokens: _Tokens, line: int) -> list[float]:
    values = []
    while True:
        tok, tline = tokens.next("';'")
        if tok == ";":
            return values
        if tok == ",":
            continue
        values.append(_parse_number(tokens, tok, tline))


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
        A malformed file; the message names ``file:line`` and the token.

    Examples
    --------
    >>> from prunelab import read_uai
    >>> from prunelab.catalogue import frozen_network_path
    >>> read_uai(frozen_network_path("grid-3x3")).variables[-1]
    'v_3_3'
    """
    path = Path(path)
    text = _open_text(path)
    toks: list[tuple[str, int]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        toks.extend((t, lineno) for t in line.split())
    pos = 0

    def error(msg, line=None):
        if line is None:
            line = toks[pos][1] if pos < len(toks) else len(text.splitlines())
        return FileFormatError(f"{path}:{line}: {msg}")

    def next_int(what):
        nonlocal pos
        if pos >= len(toks):
            raise error(f"unexpected end of file, expected {what}")
        tok, line = toks[pos]
        pos += 1
        try:
            value = int(tok)
        except ValueError:
            raise error(f"expected {what} (an integer), found {tok!r}", line) from None
        if value < 0:
            raise error(f"expected {what}, found negative {tok!r}", line)
        return value

    def next_float(what):
        nonlocal pos
        if pos >= len(toks):
            raise error(f"unexpected end of file, expected {what}")
        tok, line = toks[pos]
        pos += 1
        try:
            return float(tok)
        except ValueError:
            raise error(f"expected {what}, found {tok!r}", line) from None

    if not toks or toks[0][0].upper() != "BAYES":
        found = toks[0][0] if toks else "an empty file"
        raise error(f"expected the preamble 'BAYES', found {found!r}", toks[0][1] if toks else 1)
    pos = 1
    n = next_int("the number of variables")
    cards = [next_int(f"the cardinality of variable {i}") for i in range(n)]
    n_factors = next_int("the number of factors")
    if n_factors != n:
        raise error(f"a BAYES file has one factor per variable: {n_factors} factors for {n} variables")
    scopes = []
    owner: dict[int, int] = {}
    for f in range(n_factors):
        line = toks[pos][1] if pos < len(toks) else None
        k = next_int(f"the scope size of factor {f}")
        if k == 0:
            raise error(f"factor {f} has an empty scope", line)
        scope = [next_int(f"a variable of factor {f}") for _ in range(k)]
        for v in scope:
            if v >= n:
                raise error(f"factor {f} names variable {v}, but there are only {n}", line)
        child = scope[-1]
        if child in owner:
            raise error(f"factor {f} and factor {owner[child]} both have variable {child} last (its CPT)", line)
        owner[child] = f
        scopes.append(scope)
    tables = []
    for f, scope in enumerate(scopes):
        line = toks[pos][1] if pos < len(toks) else None
        size = next_int(f"the table size of factor {f}")
        expected = int(np.prod([cards[v] for v in scope]))
        if size != expected:
            raise error(f"factor {f} declares {size} entries, its scope {scope} needs {expected}", line)
        tables.append([next_float(f"entry {i} of factor {f}") for i in range(size)])
    if pos != len(toks):
        raise error(f"unexpected extra token {toks[pos][0]!r} after the last table")
    side = _sidecar(path)
    if side.exists():
        meta = json.loads(side.read_text())
        var_names = meta["variables"]
        state_names = [meta["states"][v] for v in var_names]
        name = name or meta.get("name")
        if len(var_names) != n or any(len(s) != c for s, c in zip(state_names, cards)):
            raise FileFormatError(f"{side}: names do not match {path} ({n} variables, cardinalities {cards})")
    else:
        var_names = [f"v{i}" for i in range(n)]
        state_names = [[str(s) for s in range(c)] for c in cards]
    states = {var_names[i]: state_names[i] for i in range(n)}
    parents, cpts = {}, {}
    for scope, table in zip(scopes, tables):
        child = scope[-1]
        parents[var_names[child]] = [var_names[p] for p in scope[:-1]]
        cpts[var_names[child]] = np.asarray(table).reshape([cards[v] for v in scope])
    try:
        return BayesianNetwork(states=states, parents=parents, cpts=cpts, name=name or path.name.split(".")[0],
                               normalize=normalize)
    except NetworkError as exc:
        raise NetworkError(f"{path}: {exc}") from None


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

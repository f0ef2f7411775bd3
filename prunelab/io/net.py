"""Hugin ``.net`` files in: :func:`read_net`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..network import BayesianNetwork, NetworkError, format_listing
from .assemble import TableBudget, build_network, parents_problem, table_shape
from .lexer import Lexer, checked_states, probability, read_block, read_table, token_pattern
from .tokens import FileFormatError, line_comment, open_text

__all__ = ["read_net"]

_NET_TOKEN = token_pattern(line_comment("%"))

_UNSUPPORTED = {
    "continuous": "continuous nodes",
    "decision": "decision nodes",
    "utility": "utility nodes",
    "function": "function nodes",
    "class": "object-oriented classes ('class'); save the network unfolded",
}


def read_net(path, normalize: bool = False, name: str | None = None) -> BayesianNetwork:
    """Read a network from a Hugin ``.net`` file (optionally gzipped).

    Parameters
    ----------
    path : str or Path
        A ``.net`` or ``.net.gz`` file (UTF-8).
    normalize : bool, default False
        Rescale each conditional distribution to sum to 1.
    name : str, optional
        The network's name; defaults to the file name without suffixes.

    Returns
    -------
    BayesianNetwork

    Raises
    ------
    FileFormatError
        A malformed file; the message names ``file:line`` and the token. Among
        them: a node declared twice, a repeated state, a potential naming an
        undeclared node or a parent twice, a table of the wrong size, a number that
        is not a plain non-negative decimal, a node type other than a discrete
        chance node, a CPT above :data:`~prunelab.network.MAX_CPT_ENTRIES` entries.
    NetworkError
        A well-formed file that describes an invalid network (a cycle, a row that
        does not sum to 1); the message names the file and the potential's line.
    OSError
        The file cannot be read.

    Notes
    -----
    ``node X { states = ("a" "b"); ... }`` declares a node (states quoted or not);
    ``potential (X | A B) { data = ...; }`` gives its table, with the parents in
    the order listed, the first slowest and ``X``'s own states fastest: flat, or
    nested a pair of parentheses per parent, ``data = ((0.1 0.9) (0.4 0.6));``.
    ``%`` starts a comment. Attributes other than ``states`` and ``data`` are
    skipped. Tables given by expressions (``model_nodes``) are refused.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from prunelab.io import read_net
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pair.net"
    >>> _ = path.write_text('''
    ... node A { states = ("no" "yes"); }
    ... node B { states = ("no" "yes"); }
    ... potential (A) { data = (0.5 0.5); }
    ... potential (B | A) { data = ((1 0) (0 1)); }  % B copies A
    ... ''')
    >>> read_net(path).cpts["B"].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    path = Path(path)
    lex = Lexer(open_text(path), path, _NET_TOKEN)
    states: dict[str, tuple[str, ...]] = {}
    declared_at: dict[str, int] = {}
    parents: dict[str, tuple[str, ...]] = {}
    cpts: dict[str, np.ndarray] = {}
    lines: dict[str, int] = {}
    budget = TableBudget()
    while lex.peek() is not None:
        kind, word, offset = lex.next()
        if kind == "word" and word == "discrete":
            kind, word, offset = lex.next("'node'")
            if word != "node":
                raise lex.error(f"expected 'node' after 'discrete', found {word!r}", offset)
        if kind == "word" and word in _UNSUPPORTED:
            raise lex.error(f"only discrete chance nodes are supported, found {_UNSUPPORTED[word]}", offset)
        if kind == "word" and word == "net":
            read_block(lex, "the net block")
        elif kind == "word" and word == "node":
            var, vat = lex.name("a node name")
            if var in states:
                raise lex.error(f"node {var!r} declared twice (first at line {lex.line(declared_at[var])})", vat)
            declared_at[var] = vat
            states[var] = _states(lex, var)
        elif kind == "word" and word == "potential":
            _potential(lex, states, parents, cpts, lines, budget, offset)
        else:
            raise lex.error(f"expected 'net', 'node' or 'potential', found {word!r}", offset)
    if not states:
        raise FileFormatError(f"{path}: no node declared")
    return build_network(path, states, parents, cpts, lines, name, normalize)


def _states(lex: Lexer, var: str) -> tuple[str, ...]:
    """The state names of a node body."""
    body = lex.peek()
    found = read_block(lex, f"node {var!r}", {"states": lambda lex: lex.names("a state name")})
    if "states" not in found:
        raise lex.error(f"node {var!r} has no 'states'", body[2] if body else None)
    return checked_states(lex, var, found["states"])


def _potential(lex: Lexer, states, parents, cpts, lines, budget: TableBudget, start: int) -> None:
    """One ``potential (X | parents) { data = ...; }`` into ``parents``, ``cpts`` and ``lines``."""
    lex.expect("(")
    head: list[str] = []
    pars: list[str] = []
    offsets: list[int] = []
    side = head
    while True:
        kind, word, offset = lex.next("')'")
        if kind == "punct" and word == ")":
            break
        if kind == "punct" and word == "|" and side is head:
            side = pars
            continue
        if kind == "punct":
            if word == ",":
                continue
            raise lex.error(f"potential: expected a node name, '|' or ')', found {word!r}", offset)
        if word not in states:
            raise lex.error(f"potential names undeclared node {word!r}", offset)
        side.append(word)
        if side is pars:
            offsets.append(offset)
    if len(head) != 1:
        found = "no node" if not head else f"{len(head)} nodes {format_listing(head)}"
        raise lex.error(f"potential: expected one node before '|', found {found}", start)
    child = head[0]
    if child in cpts:
        raise lex.error(f"second potential for {child!r} (first at line {lines[child]})", start)
    problem = parents_problem(child, pars, states)
    if problem:
        raise lex.error(f"potential of {problem[0]}", offsets[problem[1]])
    try:
        shape = table_shape(child, pars, states, budget)
    except NetworkError as exc:
        raise lex.error(str(exc), start) from None
    labels = [(p, states[p]) for p in pars]
    found = read_block(lex, f"potential of {child!r}", {
        "data": lambda lex: read_table(lex, shape, probability, repr(child), labels),
    })
    if "data" not in found:
        if "model_nodes" in found:
            raise lex.error(f"potential of {child!r} is given by an expression ('model_nodes'); save it as a table",
                            start)
        raise lex.error(f"potential of {child!r} has no 'data'", start)
    parents[child] = tuple(pars)
    cpts[child] = np.frombuffer(found["data"][0]).reshape(shape)
    lines[child] = lex.line(start)

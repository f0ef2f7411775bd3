"""Netica ``.dne`` files in: :func:`read_dne`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..network import BayesianNetwork, NetworkError, format_listing
from .assemble import TableBudget, build_network, one_hot, parents_problem, table_shape
from .lexer import Lexer, checked_states, probability, read_block, read_table, token_pattern
from .tokens import COUNT, FileFormatError, line_comment, open_text

__all__ = ["read_dne"]

_DNE_TOKEN = token_pattern(line_comment("//"))


def _word(lex: Lexer) -> str:
    return lex.name("a value")[0]


_NODE_VALUES = {
    "kind": _word,
    "discrete": _word,
    "numstates": _word,
    "states": lambda lex: lex.names("a state name"),
    "parents": lambda lex: lex.names("a parent name"),
}


def read_dne(path, normalize: bool = False, name: str | None = None) -> BayesianNetwork:
    """Read a network from a Netica ``.dne`` file (optionally gzipped).

    Parameters
    ----------
    path : str or Path
        A ``.dne`` or ``.dne.gz`` file (UTF-8).
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
        them: a node declared twice, a repeated state, an unknown or repeated
        parent, a table of the wrong shape, a number that is not a plain
        non-negative decimal, a node that is not a discrete nature node, a CPT
        above :data:`~prunelab.network.MAX_CPT_ENTRIES` entries.
    NetworkError
        A well-formed file that describes an invalid network (a cycle, a row that
        does not sum to 1); the message names the file and the node's line.
    OSError
        The file cannot be read.

    Notes
    -----
    Inside ``bnet NAME { ... };`` each ``node X { ... };`` gives ``states = (a, b);``
    (or only ``numstates = 2;``: states ``0, 1``), ``parents = (A, B);`` (a parent
    may be declared later in the file) and ``probs``: the parents in the order
    listed, the first slowest and ``X``'s own states fastest, nested a pair of
    parentheses per parent or flat. A deterministic node may give ``functable``
    instead, a state of ``X`` per parent configuration; when both are given,
    ``probs`` is read. ``//`` starts a comment; other attributes and blocks
    (``visual``, ``user``, ``nodeset``) are skipped.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from prunelab.io import read_dne
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pair.dne"
    >>> _ = path.write_text('''// ~->[DNET-1]->~
    ... bnet pair {
    ... node A { kind = NATURE; discrete = TRUE; states = (no, yes); parents = (); probs = (0.5, 0.5); };
    ... node B { kind = NATURE; discrete = TRUE; states = (no, yes); parents = (A); functable = (no, yes); };
    ... };''')
    >>> read_dne(path).cpts["B"].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    path = Path(path)
    lex = Lexer(open_text(path), path, _DNE_TOKEN)
    nodes: dict[str, tuple[dict, int]] = {}  # name -> (attributes, offset of the name)

    def node(lex: Lexer, var: str, offset: int) -> None:
        if var in nodes:
            raise lex.error(f"node {var!r} declared twice (first at line {lex.line(nodes[var][1])})", offset)
        values = dict(_NODE_VALUES, probs=Lexer.skip_value, functable=Lexer.skip_value)
        nodes[var] = (read_block(lex, f"node {var!r}", values), offset)

    kind, word, offset = lex.next("'bnet'")
    if word != "bnet":
        raise lex.error(f"expected 'bnet', found {word!r}", offset)
    lex.name("the network's name")
    read_block(lex, "bnet", blocks={"node": node})
    if lex.peek() is not None and lex.peek()[:2] == ("punct", ";"):
        lex.next()
    if lex.peek() is not None:
        raise lex.error(f"unexpected {lex.peek()[1]!r} after the bnet block")
    if not nodes:
        raise FileFormatError(f"{path}: no node declared")
    states = {var: _states(lex, var, found, at) for var, (found, at) in nodes.items()}
    parents, cpts, lines = {}, {}, {}
    budget = TableBudget()
    for var, (found, at) in nodes.items():
        pars, pat = _parents(lex, var, found, at, states)
        try:
            shape = table_shape(var, pars, states, budget)
        except NetworkError as exc:
            raise lex.error(str(exc), pat) from None
        labels = [(p, states[p]) for p in pars]
        if "probs" in found:
            values = read_table(lex.at(found["probs"][1]), shape, probability, repr(var), labels)
            cpts[var] = np.frombuffer(values).reshape(shape)
        elif "functable" in found:
            names = states[var]
            position = names.position if isinstance(names, _Numbered) else {s: i for i, s in enumerate(names)}.get

            def state(tok: str, var=var, names=names, position=position) -> float:
                i = position(tok)
                if i is None:
                    raise ValueError(f"unknown state {tok!r} of {var!r}; states are {_listing(names)}")
                return i

            codes = read_table(lex.at(found["functable"][1]), shape[:-1] or (1,), state, repr(var), labels)
            cpts[var] = one_hot(np.frombuffer(codes).astype(np.intp).reshape(shape[:-1]), shape[-1])
        else:
            raise lex.error(f"node {var!r} has neither 'probs' nor 'functable'", at)
        parents[var] = pars
        lines[var] = lex.line(pat)
    return build_network(path, states, parents, cpts, lines, name, normalize)


class _Numbered:
    """The states ``'0', '1', ...`` of a node given by ``numstates`` alone, named one by one when asked.

    Its tables are sized (and refused past their caps) by its length before any
    state is named.

    Examples
    --------
    >>> states = _Numbered(3)
    >>> len(states), tuple(states), states.position("2"), states.position("02"), states.position("3")
    (3, ('0', '1', '2'), 2, None, None)
    """

    def __init__(self, count: int):
        self._count = count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i: int) -> str:
        if not 0 <= i < self._count:
            raise IndexError(i)
        return str(i)

    def position(self, name: str) -> int | None:
        """The index of the state ``name``, or None."""
        if COUNT.fullmatch(name) and (name == "0" or name[0] != "0") and int(name) < self._count:
            return int(name)
        return None


def _listing(names) -> str:
    """The states of a node for a message; numbered ones by their range."""
    if isinstance(names, _Numbered) and len(names) > 10:
        return f"'0' to '{len(names) - 1}' (numstates = {len(names)})"
    return format_listing(names)


def _states(lex: Lexer, var: str, found: dict, at: int) -> tuple[str, ...] | _Numbered:
    """A node's state names, checked against its kind and ``numstates`` (named later if only counted)."""
    for key, allowed, what in (("kind", "NATURE", "nature (chance) nodes"), ("discrete", "TRUE", "discrete nodes")):
        if key in found and found[key][0] != allowed:
            raise lex.error(f"node {var!r} is {key} = {found[key][0]}; only {what} are supported", found[key][1])
    count = None
    if "numstates" in found:
        word, nat = found["numstates"]
        if not COUNT.fullmatch(word) or int(word) == 0:
            raise lex.error(f"node {var!r}: expected a positive state count, found {word!r}", nat)
        count = int(word)
    if "states" not in found:
        if count is None:
            raise lex.error(f"node {var!r} has neither 'states' nor 'numstates'", at)
        return _Numbered(count)
    names = checked_states(lex, var, found["states"])
    if count is not None and count != len(names):
        raise lex.error(f"node {var!r} has numstates = {count} but lists {len(names)} states", found["states"][1])
    return names


def _parents(lex: Lexer, var: str, found: dict, at: int, states) -> tuple[tuple[str, ...], int]:
    """A node's parents, checked, and the offset of their list (of the node if none is given)."""
    if "parents" not in found:
        return (), at
    (names, offsets), pat = found["parents"]
    problem = parents_problem(var, names, states)
    if problem:
        raise lex.error(f"node {problem[0]}", offsets[problem[1]])
    return tuple(names), pat

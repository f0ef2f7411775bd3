"""GeNIe's older text format, ``.dsl``, in: :func:`read_dsl`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..network import BayesianNetwork, NetworkError, format_listing
from .assemble import TableBudget, build_network, one_hot, parents_problem, table_shape
from .lexer import MAX_NESTING, Lexer, checked_states, probability, read_block, read_table, token_pattern
from .tokens import FileFormatError, line_comment, open_text

__all__ = ["read_dsl"]

_DSL_TOKEN = token_pattern(line_comment("//") + r"|/\*.*?\*/")

_TYPES = ("CPT", "TRUTHTABLE")


def _definition(lex: Lexer) -> dict:
    return read_block(lex, "DEFINITION", {
        "NAMESTATES": lambda lex: lex.names("a state name"),
        "PROBABILITIES": Lexer.skip_value,
        "RESULTINGSTATES": Lexer.skip_value,
    })


_NODE_VALUES = {
    "TYPE": lambda lex: lex.name("a node type")[0],
    "PARENTS": lambda lex: lex.names("a parent name"),
    "DEFINITION": _definition,
}


def read_dsl(path, normalize: bool = False, name: str | None = None) -> BayesianNetwork:
    """Read a network from a GeNIe ``.dsl`` file (optionally gzipped).

    Parameters
    ----------
    path : str or Path
        A ``.dsl`` or ``.dsl.gz`` file (UTF-8).
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
        parent, a table of the wrong size, a number that is not a plain
        non-negative decimal, a node type other than ``CPT`` or ``TRUTHTABLE``
        (noisy-MAX, decision, utility, equation nodes), a CPT above
        :data:`~prunelab.network.MAX_CPT_ENTRIES` entries.
    NetworkError
        A well-formed file that describes an invalid network (a cycle, a row that
        does not sum to 1); the message names the file and the node's line.
    OSError
        The file cannot be read.

    Notes
    -----
    Inside ``net NAME { ... };`` (and its ``submodel NAME { ... };`` blocks) each
    ``node ID { TYPE = CPT; PARENTS = (A, B); DEFINITION = { NAMESTATES = (s0, s1);
    PROBABILITIES = (...); }; };`` gives a node, its table flat with the first
    parent slowest and the node's own states fastest (GeNIe's order). A
    ``TRUTHTABLE`` node gives ``RESULTINGSTATES``, a state per parent
    configuration, instead. A parent may be declared later in the file. ``//``
    and ``/* */`` are comments; other attributes are skipped.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from prunelab.io import read_dsl
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pair.dsl"
    >>> _ = path.write_text('''net pair {
    ... node A { TYPE = CPT; PARENTS = (); DEFINITION = { NAMESTATES = (no, yes); PROBABILITIES = (0.5, 0.5); }; };
    ... node B { TYPE = TRUTHTABLE; PARENTS = (A);
    ...          DEFINITION = { NAMESTATES = (no, yes); RESULTINGSTATES = (no, yes); }; };
    ... };''')
    >>> read_dsl(path).cpts["B"].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    path = Path(path)
    lex = Lexer(open_text(path), path, _DSL_TOKEN)
    nodes: dict[str, tuple[dict, int]] = {}

    def node(lex: Lexer, var: str, offset: int) -> None:
        if var in nodes:
            raise lex.error(f"node {var!r} declared twice (first at line {lex.line(nodes[var][1])})", offset)
        nodes[var] = (read_block(lex, f"node {var!r}", _NODE_VALUES), offset)

    depth = [0]

    def submodel(lex: Lexer, label: str, offset: int) -> None:
        depth[0] += 1
        if depth[0] > MAX_NESTING:
            raise lex.error(f"submodels nested more than MAX_NESTING = {MAX_NESTING} deep", offset)
        read_block(lex, f"submodel {label!r}", blocks={"node": node, "submodel": submodel})
        depth[0] -= 1

    kind, word, offset = lex.next("'net'")
    if word != "net":
        raise lex.error(f"expected 'net', found {word!r}", offset)
    lex.name("the network's name")
    read_block(lex, "net", blocks={"node": node, "submodel": submodel})
    if lex.peek() is not None and lex.peek()[:2] == ("punct", ";"):
        lex.next()
    if lex.peek() is not None:
        raise lex.error(f"unexpected {lex.peek()[1]!r} after the net block")
    if not nodes:
        raise FileFormatError(f"{path}: no node declared")
    states = {var: _states(lex, var, found, at) for var, (found, at) in nodes.items()}
    parents, cpts, lines = {}, {}, {}
    budget = TableBudget()
    for var, (found, at) in nodes.items():
        pars: tuple[str, ...] = ()
        if "PARENTS" in found:
            (names, offsets), at = found["PARENTS"]
            problem = parents_problem(var, names, states)
            if problem:
                raise lex.error(f"node {problem[0]}", offsets[problem[1]])
            pars = tuple(names)
        try:
            shape = table_shape(var, pars, states, budget)
        except NetworkError as exc:
            raise lex.error(str(exc), at) from None
        labels = [(p, states[p]) for p in pars]
        definition = found["DEFINITION"][0]
        if found["TYPE"][0] == "CPT":
            if "PROBABILITIES" not in definition:
                raise lex.error(f"node {var!r} has no PROBABILITIES", found["DEFINITION"][1])
            values = read_table(lex.at(definition["PROBABILITIES"][1]), shape, probability, repr(var), labels)
            cpts[var] = np.frombuffer(values).reshape(shape)
        else:
            if "RESULTINGSTATES" not in definition:
                raise lex.error(f"node {var!r} has no RESULTINGSTATES", found["DEFINITION"][1])
            index = {s: i for i, s in enumerate(states[var])}

            def state(tok: str, var=var, index=index) -> float:
                if tok not in index:
                    raise ValueError(f"unknown state {tok!r} of {var!r}; states are {format_listing(index)}")
                return index[tok]

            codes = read_table(lex.at(definition["RESULTINGSTATES"][1]), shape[:-1] or (1,), state, repr(var),
                               labels)
            cpts[var] = one_hot(np.frombuffer(codes).astype(np.intp).reshape(shape[:-1]), shape[-1])
        parents[var] = pars
        lines[var] = lex.line(at)
    return build_network(path, states, parents, cpts, lines, name, normalize)


def _states(lex: Lexer, var: str, found: dict, at: int) -> tuple[str, ...]:
    """A node's state names, once its type is checked."""
    if "TYPE" not in found:
        raise lex.error(f"node {var!r} has no TYPE", at)
    kind, kat = found["TYPE"]
    if kind not in _TYPES:
        raise lex.error(f"node {var!r} has TYPE = {kind}; only CPT and TRUTHTABLE nodes are supported", kat)
    if "DEFINITION" not in found or "NAMESTATES" not in found["DEFINITION"][0]:
        raise lex.error(f"node {var!r} has no DEFINITION with NAMESTATES", at)
    return checked_states(lex, var, found["DEFINITION"][0]["NAMESTATES"])

"""GeNIe ``.xdsl`` files in: :func:`read_xdsl`."""

from __future__ import annotations

from pathlib import Path


from ..network import BayesianNetwork, NetworkError, format_listing
from .assemble import TableBudget, build_network, one_hot, parents_problem
from .tokens import FileFormatError
from .xmltree import Element, element_error, numbers, parse_xml, state_codes, words

__all__ = ["read_xdsl"]

_NODE_PARTS = ("state", "parents", "probabilities", "resultingstates")

_REFUSED = {
    "noisymax": "noisy-MAX", "noisyadder": "noisy-adder", "decision": "decision", "utility": "utility",
    "mau": "multi-attribute utility", "equation": "equation", "tdistribution": "t-distribution",
}


def read_xdsl(path, normalize: bool = False, name: str | None = None) -> BayesianNetwork:
    """Read a network from a GeNIe ``.xdsl`` file (optionally gzipped).

    Parameters
    ----------
    path : str or Path
        An ``.xdsl`` or ``.xdsl.gz`` file.
    normalize : bool, default False
        Rescale each conditional distribution to sum to 1.
    name : str, optional
        The network's name; defaults to the file name without suffixes.

    Returns
    -------
    BayesianNetwork
        Variables are named by the nodes' ``id`` (GeNIe's display names are not read).

    Raises
    ------
    FileFormatError
        A malformed file; the message names ``file:line`` and the element. Among
        them: XML that is not well-formed, a DTD or entity (refused, never
        expanded), a node declared twice, a repeated state, an unknown or repeated
        parent, a table of the wrong size, a number that is not a plain
        non-negative decimal, a node other than ``<cpt>`` or ``<deterministic>``,
        a CPT above :data:`~prunelab.network.MAX_CPT_ENTRIES` entries.
    NetworkError
        A well-formed file that describes an invalid network (a cycle, a row that
        does not sum to 1); the message names the file and the node's line.
    OSError
        The file cannot be read.

    Notes
    -----
    Under ``<smile><nodes>``, a ``<cpt id="X">`` lists ``<state id="..."/>``, then
    ``<parents>A B</parents>`` and ``<probabilities>``: the first parent slowest,
    ``X``'s own states fastest (GeNIe's order). A ``<deterministic>`` node gives
    ``<resultingstates>``, a state per parent configuration. A parent may be
    declared after its child.

    pyAgrum 3.3 writes ``<parents>`` in the reverse of GeNIe's order (the first
    listed parent fastest), and reads it back the same way, so its ``.xdsl`` files
    and GeNIe's disagree on nodes with two or more parents; this reader follows
    GeNIe.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from prunelab.io import read_xdsl
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pair.xdsl"
    >>> _ = path.write_text('''<?xml version="1.0"?>
    ... <smile version="1.0" id="pair"><nodes>
    ...   <cpt id="A"><state id="no"/><state id="yes"/><probabilities>0.5 0.5</probabilities></cpt>
    ...   <deterministic id="B"><state id="no"/><state id="yes"/><parents>A</parents>
    ...     <resultingstates>no yes</resultingstates></deterministic>
    ... </nodes></smile>''')
    >>> read_xdsl(path).cpts["B"].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    path = Path(path)
    root = parse_xml(path, _keep)
    nodes_element = root.find("nodes")
    if nodes_element is None:
        raise element_error(path, root, "no <nodes> element")
    nodes: dict[str, Element] = {}
    for node in nodes_element.children:
        var = node.attrs.get("id")
        if not var:
            raise element_error(path, node, "a node without an id")
        if var in nodes:
            raise element_error(path, node, f"node {var!r} declared twice (first at line {nodes[var].line})")
        nodes[var] = node
    if not nodes:
        raise FileFormatError(f"{path}: no node declared")
    states = {var: _states(path, node) for var, node in nodes.items()}
    parents, cpts, lines = {}, {}, {}
    budget = TableBudget()
    for var, node in nodes.items():
        listed = node.find("parents")
        pars = tuple(words(listed)) if listed is not None else ()
        problem = parents_problem(var, pars, states)
        if problem:
            raise element_error(path, listed, problem[0])
        shape = tuple(len(states[p]) for p in pars) + (len(states[var]),)
        try:
            size = budget.take(var, shape)
        except NetworkError as exc:
            raise element_error(path, node, str(exc)) from None
        if node.tag == "cpt":
            table = node.find("probabilities")
            if table is None:
                raise element_error(path, node, "no <probabilities>")
            cpts[var] = numbers(path, table, repr(var), size).reshape(shape)
        else:
            table = node.find("resultingstates")
            if table is None:
                raise element_error(path, node, "no <resultingstates>")
            index = {s: i for i, s in enumerate(states[var])}
            codes = state_codes(path, table, repr(var), size // shape[-1], index, format_listing(states[var]))
            cpts[var] = one_hot(codes, shape[-1]).reshape(shape)
        parents[var] = pars
        lines[var] = (listed if listed is not None else node).line
    return build_network(path, states, parents, cpts, lines, name, normalize)


def _keep(tags: tuple[str, ...]) -> bool | str:
    """What of the file is read: ``<smile><nodes>``, its nodes and their states, parents and tables."""
    if len(tags) == 1:
        return tags[0] == "smile" or "expected the document element <smile>"
    if len(tags) == 2:
        return tags[1] == "nodes"
    if len(tags) == 3:
        if tags[2] in _REFUSED:
            return f"{_REFUSED[tags[2]]} nodes are not supported; only <cpt> and <deterministic> nodes are"
        return tags[2] in ("cpt", "deterministic") or "expected a <cpt> or <deterministic> node"
    return len(tags) == 4 and tags[3] in _NODE_PARTS


def _states(path: Path, node: Element) -> tuple[str, ...]:
    """The ``<state id>`` names of a node, checked."""
    names: dict[str, None] = {}
    for state in node.findall("state"):
        s = state.attrs.get("id")
        if not s:
            raise element_error(path, state, "a state without an id")
        if s in names:
            raise element_error(path, state, f"node {node.attrs['id']!r} lists state {s!r} twice")
        names[s] = None
    if not names:
        raise element_error(path, node, "a node without states")
    return tuple(names)


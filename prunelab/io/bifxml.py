"""BIFXML (XMLBIF 0.3) files in: :func:`read_bifxml`."""

from __future__ import annotations

from pathlib import Path


from ..network import BayesianNetwork, NetworkError
from .assemble import TableBudget, build_network, parents_problem
from .tokens import FileFormatError
from .xmltree import Element, element_error, numbers, parse_xml

__all__ = ["read_bifxml"]


def read_bifxml(path, normalize: bool = False, name: str | None = None) -> BayesianNetwork:
    """Read a network from a BIFXML file (``.xml``, ``.bifxml``, ``.xmlbif``, optionally gzipped).

    Parameters
    ----------
    path : str or Path
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
        A malformed file; the message names ``file:line`` and the element. Among
        them: XML that is not well-formed, a DTD or entity (refused, never
        expanded), a variable declared twice, a repeated outcome, a definition for
        an undeclared variable or with an unknown or repeated parent, a table of
        the wrong size, a number that is not a plain non-negative decimal, a
        decision or utility variable, a CPT above
        :data:`~prunelab.network.MAX_CPT_ENTRIES` entries.
    NetworkError
        A well-formed file that describes an invalid network (a cycle, a row that
        does not sum to 1); the message names the file and the definition's line.
    OSError
        The file cannot be read.

    Notes
    -----
    Under ``<BIF><NETWORK>``, a ``<VARIABLE TYPE="nature">`` has a ``<NAME>`` and
    its ``<OUTCOME>`` states; a ``<DEFINITION>`` (or ``<PROBABILITY>``) names the
    variable in ``<FOR>``, its parents in ``<GIVEN>`` elements and lists its
    ``<TABLE>`` with the first parent slowest and the variable's own states
    fastest. ``<PROPERTY>`` elements are skipped.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from prunelab.io import read_bifxml
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pair.xml"
    >>> _ = path.write_text('''<?xml version="1.0"?>
    ... <BIF VERSION="0.3"><NETWORK><NAME>pair</NAME>
    ...   <VARIABLE TYPE="nature"><NAME>A</NAME><OUTCOME>no</OUTCOME><OUTCOME>yes</OUTCOME></VARIABLE>
    ...   <VARIABLE TYPE="nature"><NAME>B</NAME><OUTCOME>no</OUTCOME><OUTCOME>yes</OUTCOME></VARIABLE>
    ...   <DEFINITION><FOR>A</FOR><TABLE>0.5 0.5</TABLE></DEFINITION>
    ...   <DEFINITION><FOR>B</FOR><GIVEN>A</GIVEN><TABLE>1 0 0 1</TABLE></DEFINITION>
    ... </NETWORK></BIF>''')
    >>> read_bifxml(path).cpts["B"].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    path = Path(path)
    root = parse_xml(path, _keep)
    network = root.find("NETWORK")
    if network is None:
        raise element_error(path, root, "no <NETWORK> element")
    states: dict[str, tuple[str, ...]] = {}
    declared: dict[str, Element] = {}
    definitions: list[Element] = []
    for child in network.children:
        if child.tag == "VARIABLE":
            var = _text(path, child, "NAME")
            if var in declared:
                first = declared[var].line
                raise element_error(path, child, f"variable {var!r} declared twice (first at line {first})")
            kind = child.attrs.get("TYPE", "nature")
            if kind != "nature":
                raise element_error(path, child, f"variable {var!r} has TYPE={kind!r}; only nature variables are "
                                                 "supported")
            declared[var] = child
            states[var] = _outcomes(path, child, var)
        else:
            definitions.append(child)
    if not states:
        raise FileFormatError(f"{path}: no variable declared")
    parents, cpts, lines = {}, {}, {}
    budget = TableBudget()
    for definition in definitions:
        var = _text(path, definition, "FOR")
        if var not in states:
            raise element_error(path, definition.find("FOR"), f"definition for undeclared variable {var!r}")
        if var in cpts:
            raise element_error(path, definition, f"second definition for {var!r} (first at line {lines[var]})")
        given = definition.findall("GIVEN")
        pars = tuple(g.text.strip() for g in given)
        problem = parents_problem(var, pars, states)
        if problem:
            raise element_error(path, given[problem[1]], problem[0])
        shape = tuple(len(states[p]) for p in pars) + (len(states[var]),)
        try:
            size = budget.take(var, shape)
        except NetworkError as exc:
            raise element_error(path, definition, str(exc)) from None
        tables = definition.findall("TABLE")
        if len(tables) != 1:
            raise element_error(path, definition, f"{var!r}: {len(tables)} <TABLE> elements, expected one")
        parents[var] = pars
        cpts[var] = numbers(path, tables[0], repr(var), size).reshape(shape)
        lines[var] = definition.line
    return build_network(path, states, parents, cpts, lines, name, normalize)


_PARTS = {"VARIABLE": ("NAME", "OUTCOME"), "DEFINITION": ("FOR", "GIVEN", "TABLE"),
          "PROBABILITY": ("FOR", "GIVEN", "TABLE")}
"""The children read of each element under ``<NETWORK>``."""


def _keep(tags: tuple[str, ...]) -> bool | str:
    """What of the file is read: ``<BIF><NETWORK>``, its variables and definitions (no ``<PROPERTY>``)."""
    if len(tags) == 1:
        return tags[0] == "BIF" or "expected the document element <BIF>"
    if len(tags) == 2:
        return tags[1] == "NETWORK"
    if len(tags) == 3:
        if tags[2] in ("NAME", "PROPERTY"):
            return False
        return tags[2] in _PARTS or "expected <VARIABLE>, <DEFINITION> or <PROPERTY>"
    return len(tags) == 4 and tags[3] in _PARTS[tags[2]]


def _text(path: Path, element: Element, tag: str) -> str:
    """The stripped text of the one ``tag`` child of ``element``."""
    found = element.findall(tag)
    if len(found) != 1 or not found[0].text.strip():
        raise element_error(path, element, f"expected one non-empty <{tag}>, found {len(found)}")
    return found[0].text.strip()


def _outcomes(path: Path, element: Element, var: str) -> tuple[str, ...]:
    """The ``<OUTCOME>`` names of a variable, checked."""
    names: dict[str, None] = {}
    for outcome in element.findall("OUTCOME"):
        s = outcome.text.strip()
        if not s:
            raise element_error(path, outcome, f"variable {var!r} has an empty <OUTCOME>")
        if s in names:
            raise element_error(path, outcome, f"variable {var!r} lists outcome {s!r} twice")
        names[s] = None
    if not names:
        raise element_error(path, element, f"variable {var!r} has no <OUTCOME>")
    return tuple(names)

"""Ace evidence files in: :func:`read_instantiation`."""

from __future__ import annotations

from pathlib import Path

from .xmltree import element_error, parse_xml

__all__ = ["read_instantiation"]


def read_instantiation(path) -> dict[str, str]:
    """Read evidence from an Ace "instantiation" file (``.inst``, optionally gzipped).

    Parameters
    ----------
    path : str or Path
        An XML file ``<instantiation><inst id="VARIABLE" value="STATE"/>...</instantiation>``.

    Returns
    -------
    dict of str to str
        ``{variable: state}`` in the file's order; empty if the file holds no
        ``<inst>``. Names are not checked here: a network checks them when the
        evidence meets it (:meth:`~prunelab.BayesianNetwork.evidence_indices`
        refuses an unknown variable or state by name, listing the valid ones).

    Raises
    ------
    FileFormatError
        A malformed file; the message names ``file:line`` and the element. Among
        them: XML that is not well-formed, a DTD or entity (refused, never
        expanded), a document element other than ``<instantiation>``, a child
        other than ``<inst>``, an ``<inst>`` without a non-empty ``id`` or
        ``value``, a variable given twice. The file is read as the network readers
        read theirs, at most :data:`~prunelab.io.tokens.MAX_FILE_BYTES`.
    OSError
        The file cannot be read.

    Notes
    -----
    The benchmark families of the knowledge-compilation literature (the
    relational ``blockmap``, ``mastermind`` and friends-and-smokers networks, the
    DQMR networks) pair a network file with an ``.inst`` file, and their
    published answers follow one rule:

    * if the file holds at least one ``<inst>``, the answer is ``P(e)``, the
      probability of that evidence;
    * if it holds none (or there is no evidence file), the answer is
      ``P(goal = v)``: the goal is the *last* node declared in the network
      file, and ``v`` is its state ``"true"`` if it has one, else its first state.
      The last node declared need not be the network's last variable:
      :attr:`~prunelab.BayesianNetwork.variables` are in a topological order
      (in ``blockmap_05_01.net`` the last node declared is
      ``connectedIB1pA3I``, the last variable ``connectedIB1pB2I``).

    Attributes other than ``id`` and ``value`` (Ace writes a ``date`` on the
    document element) are ignored.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from prunelab import read_instantiation, read_network
    >>> from prunelab.exact import exact_marginals, probability_of_evidence
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "pair.net").write_text('''
    ... node rain { states = ("false" "true"); }
    ... node wet { states = ("false" "true"); }
    ... potential (rain) { data = (0.8 0.2); }
    ... potential (wet | rain) { data = ((0.9 0.1) (0 1)); }
    ... ''')
    >>> _ = (folder / "pair.inst").write_text('''<?xml version="1.0" encoding="UTF-8"?>
    ... <instantiation date="Aug 25, 2006 9:23:44 AM">
    ... <inst id="wet" value="true"/>
    ... </instantiation>''')
    >>> bn = read_network(folder / "pair.net")
    >>> evidence = read_instantiation(folder / "pair.inst")
    >>> evidence
    {'wet': 'true'}
    >>> round(probability_of_evidence(bn, evidence), 12)  # evidence given: the answer is P(e)
    0.28
    >>> _ = (folder / "none.inst").write_text('<instantiation date="Aug 25, 2006"/>')
    >>> read_instantiation(folder / "none.inst")  # no evidence: the answer is P(wet = "true"), wet declared last
    {}
    >>> round(float(exact_marginals(bn)["wet"][bn.states["wet"].index("true")]), 12)
    0.28
    """
    path = Path(path)
    root = parse_xml(path, _keep)
    evidence: dict[str, str] = {}
    lines: dict[str, int] = {}
    for inst in root.children:
        var, state = inst.attrs.get("id"), inst.attrs.get("value")
        if not var:
            raise element_error(path, inst, "an <inst> without an id (the variable)")
        if not state:
            raise element_error(path, inst, f"variable {var!r} has no value (the state)")
        if var in evidence:
            raise element_error(path, inst, f"variable {var!r} given twice (first at line {lines[var]})")
        evidence[var] = state
        lines[var] = inst.line
    return evidence


def _keep(tags: tuple[str, ...]) -> bool | str:
    """What of the file is read: the ``<inst>`` elements of ``<instantiation>`` (nothing inside them)."""
    if len(tags) == 1:
        return tags[0] == "instantiation" or "expected the document element <instantiation>"
    if len(tags) == 2:
        return tags[1] == "inst" or "expected an <inst id=... value=...> element"
    return False

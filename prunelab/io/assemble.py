"""What the Hugin, Netica, GeNIe and BIFXML readers share once a file is parsed.

:func:`parents_problem` checks a variable's parent list, :func:`table_shape` a
CPT's size against :data:`~prunelab.network.MAX_CPT_ENTRIES` and, with the tables
before it (:class:`TableBudget`), against :data:`MAX_NETWORK_ENTRIES`, :func:`one_hot`
turns a deterministic table (a state per parent configuration) into a CPT, and
:func:`build_network` builds the :class:`~prunelab.network.BayesianNetwork`,
naming in its errors the file and the line where the variable at fault was given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ..network import BayesianNetwork, NetworkError, check_cpt_size, format_listing
from .tokens import FileFormatError, excerpt

__all__ = ["MAX_NETWORK_ENTRIES", "TableBudget", "build_network", "one_hot", "parents_problem", "table_shape"]

MAX_NETWORK_ENTRIES = 2**25
"""Most CPT entries a network file may declare over all its tables (33,554,432 float64 entries, 256 MiB).

A table listed entry by entry costs its file at least two bytes an entry, but a
BIF ``default`` row or a deterministic table (a state per parent configuration)
fills a whole table from a few bytes, and :data:`~prunelab.network.MAX_CPT_ENTRIES`
bounds one table only. Every reader adds each table's size as soon as its shape is
known (:class:`TableBudget`) and refuses the file past this cap, before the table
is allocated. The network among pgmpy's with the most entries in all, ``mildew``,
has 547,158.
"""


class TableBudget:
    """The CPT entries a file declares, added up table by table against :data:`MAX_NETWORK_ENTRIES`.

    Examples
    --------
    >>> budget = TableBudget()
    >>> budget.take("A", (2, 3)), budget.total
    (6, 6)
    """

    def __init__(self):
        self.total = 0

    def take(self, variable: str, shape: Sequence[int]) -> int:
        """The size of ``variable``'s CPT of ``shape``, added to the total.

        Raises
        ------
        NetworkError
            The table is above :data:`~prunelab.network.MAX_CPT_ENTRIES`, or the
            tables so far above :data:`MAX_NETWORK_ENTRIES`; the message names the
            variable.
        """
        size = check_cpt_size(variable, shape)
        if self.total + size > MAX_NETWORK_ENTRIES:
            raise NetworkError(
                f"the CPT of {variable!r} ({size:,} entries) brings the network's tables to {self.total + size:,} "
                f"entries, more than MAX_NETWORK_ENTRIES = {MAX_NETWORK_ENTRIES}"
            )
        self.total += size
        return size


def parents_problem(child: str, parents: Sequence[str], known) -> tuple[str, int] | None:
    """What is first wrong with ``parents`` of ``child`` (an unknown name, a repeat, itself) and its position.

    Examples
    --------
    >>> parents_problem("B", ["A", "A"], {"A", "B"})
    ("'B' lists parent 'A' twice", 1)
    """
    seen = set()
    for i, p in enumerate(parents):
        if p == child:
            return f"{child!r} lists itself as a parent", i
        if p not in known:
            return f"{child!r} has unknown parent {p!r}", i
        if p in seen:
            return f"{child!r} lists parent {p!r} twice", i
        seen.add(p)
    return None


def table_shape(
    child: str, parents: Sequence[str], states: Mapping[str, Sequence[str]], budget: TableBudget
) -> tuple[int, ...]:
    """The CPT's shape, parents then ``child``, taken from ``budget`` (:meth:`TableBudget.take`).

    Examples
    --------
    >>> table_shape("B", ["A"], {"A": ["a0", "a1"], "B": ["b0", "b1", "b2"]}, TableBudget())
    (2, 3)
    """
    shape = tuple(len(states[p]) for p in parents) + (len(states[child]),)
    budget.take(child, shape)
    return shape


def one_hot(codes, card: int) -> np.ndarray:
    """A deterministic CPT: ``codes[config]`` is the child's state, probability 1.

    Examples
    --------
    >>> one_hot([1, 0], 2).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    codes = np.asarray(codes, dtype=np.intp)
    return (codes[..., None] == np.arange(card)).astype(np.float64)


def build_network(
    path: Path,
    states: Mapping[str, Sequence[str]],
    parents: Mapping[str, Sequence[str]],
    cpts: Mapping[str, np.ndarray],
    lines: Mapping[str, int],
    name: str | None,
    normalize: bool,
) -> BayesianNetwork:
    """The network, or a NetworkError naming ``path`` and, when one variable is at fault, its line.

    ``lines[v]`` is the line where ``v``'s table (or, for a cycle, its parents) was
    given. A variable without a table is an error before anything is built.
    """
    missing = [v for v in states if v not in cpts]
    if missing:
        raise FileFormatError(excerpt(f"{path}: no probability table for variable(s) {format_listing(missing)}"))
    try:
        return BayesianNetwork(
            states={v: tuple(s) for v, s in states.items()},
            parents=parents,
            cpts=cpts,
            name=name or path.name.split(".")[0],
            normalize=normalize,
        )
    except NetworkError as exc:
        message = str(exc)
        for v, line in lines.items():
            if message.startswith((f"CPT of {v!r} ", f"the graph has a cycle: {v} -> ")):
                raise NetworkError(excerpt(f"{path}:{line}: {message}")) from None
        raise NetworkError(excerpt(f"{path}: {message}")) from None

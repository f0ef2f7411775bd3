"""Compile a network with evidence into a sentential decision diagram (PySDD), and export it as arrays.

The CNF of :mod:`prunelab.circuit.encoding` is compiled *bottom-up by region*:
every clause is attached to the lowest vtree node whose leaves hold all its
Booleans, and the diagram of a vtree node is the conjunction of its two children's
diagrams and its own clauses. Each apply then works on a region of the network
(one side of a dissection), not on the whole CNF at once, which keeps the
intermediate diagrams near the size of the final one.

The compiler is the SDD library (Darwiche's, through PySDD); everything after it
is ours: the diagram is written in the library's text format, read back into
flat arrays with numba (:mod:`prunelab.circuit.sdd_file`), and the counting and
drawing passes run over those arrays (:mod:`prunelab.circuit.passes`).

Caps. Compilation stops with :class:`CircuitTooLargeError`, naming the size
reached, when the diagrams alive exceed ``max_size`` elements
(:data:`MAX_CIRCUIT_SIZE`) or the compilation has run for ``max_seconds``
(checked between applies).
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import NamedTuple

import numpy as np

from .encoding import CircuitEncoding
from .sdd_file import parse_sdd
from .vtree import Vtree, read_vtree, write_vtree

__all__ = ["CONJOIN", "Circuit", "CircuitTooLargeError", "MAX_CIRCUIT_SIZE", "MAX_COMPILE_SECONDS", "compile_cnf"]

MAX_CIRCUIT_SIZE = 100_000_000
"""Largest diagram (elements alive in the manager) compiled before refusing: about 6 GiB in the SDD library."""

CONJOIN = ("family", "clause")
"""Values of ``conjoin=`` in :func:`compile_cnf`."""

MAX_COMPILE_SECONDS = 600.0
"""Longest compilation before refusing (checked between applies)."""


class CircuitTooLargeError(ValueError):
    """The diagram outgrew its cap; the message names the size reached and where."""


class Circuit(NamedTuple):
    """A compiled circuit as flat arrays (children before parents; the root is the last node).

    Attributes
    ----------
    kind : int8 (n_nodes,)
        :data:`~prunelab.circuit.sdd_file.FALSE`, ``TRUE``, ``LITERAL`` or ``DECISION``.
    literal : int64 (n_nodes,)
        The signed Boolean of a literal node.
    node_vtree : int64 (n_nodes,)
        The vtree position a node is normalised for, -1 for the constants.
    elem_ptr, prime, sub : int64
        CSR list of a decision node's elements ``(prime, sub)``.
    vtree : Vtree
    encoding : CircuitEncoding
    """

    kind: np.ndarray
    literal: np.ndarray
    node_vtree: np.ndarray
    elem_ptr: np.ndarray
    prime: np.ndarray
    sub: np.ndarray
    vtree: Vtree
    encoding: CircuitEncoding

    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return int(self.kind.shape[0])

    @property
    def size(self) -> int:
        """Number of elements (the SDD library's "size")."""
        return int(self.prime.shape[0])


def _clause_regions(enc: CircuitEncoding, vt: Vtree, conjoin: str = "family") -> list[list[list[int]]]:
    """For every vtree position, the clauses whose Booleans all lie under it and under neither child, in groups.

    ``conjoin="family"`` groups a position's clauses by the variable that owns the
    latest of their Booleans (for a CPT's clauses, its child: the clauses of one
    family); ``"clause"`` makes every clause a group of its own.
    """
    n = enc.n_clauses
    if n == 0:
        return [[] for _ in range(vt.n_nodes)]
    rank = np.empty(enc.n_booleans + 1, dtype=np.int64)
    rank[vt.leaf_boolean] = np.arange(vt.leaf_boolean.shape[0])
    leaf_pos = np.empty(vt.leaf_boolean.shape[0], dtype=np.int64)
    leaves = np.flatnonzero(vt.left < 0)
    leaf_pos[vt.leaf_lo[leaves]] = leaves
    booleans = np.abs(enc.clause_literal)
    starts = enc.clause_ptr[:-1]
    ranks = rank[booleans]
    lo, hi = np.minimum.reduceat(ranks, starts), np.maximum.reduceat(ranks, starts)
    u = leaf_pos[lo]
    up = vt.leaf_hi[u] <= hi
    while up.any():  # climb, all clauses at once, to the lowest node whose leaves hold the clause
        u[up] = vt.parent[u[up]]
        up = vt.leaf_hi[u] <= hi
    key = np.maximum.reduceat(enc.owner[booleans], starts) if conjoin == "family" else np.arange(n)
    order = np.lexsort((np.arange(n), key, u))
    regions: list[list[list[int]]] = [[] for _ in range(vt.n_nodes)]
    cut = np.flatnonzero((np.diff(u[order]) != 0) | (np.diff(key[order]) != 0)) + 1
    for group in np.split(order, cut):
        regions[int(u[group[0]])].append(group.tolist())
    return regions


def compile_cnf(enc: CircuitEncoding, vt: Vtree, *, max_size: int = MAX_CIRCUIT_SIZE,
                max_seconds: float = MAX_COMPILE_SECONDS, minimize: bool = False, conjoin: str = "family",
                what: str = "the network", started: float | None = None) -> Circuit:
    """Compile the CNF ``enc`` for the vtree ``vt`` and return the diagram's arrays.

    Parameters
    ----------
    enc : CircuitEncoding
    vt : Vtree
    max_size : int, default :data:`MAX_CIRCUIT_SIZE`
        Refuse once the manager holds more live elements than this.
    max_seconds : float, default :data:`MAX_COMPILE_SECONDS`
        Refuse once compilation has run this long (checked between applies).
    minimize : bool, default False
        Let the SDD library rotate and swap the vtree as diagrams grow (dynamic
        minimisation); slower to compile, sometimes much smaller.
    what : str
        Names the network in messages.
    started : float, optional
        The :func:`time.perf_counter` reading the time cap counts from (e.g. before
        the encoding and the vtree were built); default now.

    Returns
    -------
    Circuit

    Raises
    ------
    CircuitTooLargeError
        A cap was reached; the message gives the size and time reached.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.circuit.encoding import encode_network
    >>> from prunelab.circuit.vtree import dissection_vtree
    >>> from prunelab.circuit.compiler import compile_cnf
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> enc = encode_network(net)
    >>> circuit = compile_cnf(enc, dissection_vtree(net, enc))
    >>> int(circuit.kind[-1])  # the root is a decision node (DECISION)
    3
    """
    from pysdd.sdd import SddManager, Vtree as SddVtree

    start = time.perf_counter() if started is None else started
    if conjoin not in CONJOIN:
        raise ValueError(f"conjoin must be one of {CONJOIN}, got {conjoin!r}")
    regions = _clause_regions(enc, vt, conjoin)
    with tempfile.TemporaryDirectory(prefix="prunelab-sdd-") as tmp:
        vtree_path = os.path.join(tmp, "circuit.vtree")
        write_vtree(vt, vtree_path)
        manager = SddManager.from_vtree(SddVtree.from_file(vtree_path.encode()))
        if minimize:
            manager.auto_gc_and_minimize_on()
        else:
            manager.auto_gc_and_minimize_off()
        literal = manager.literal
        done: dict[int, object] = {}

        def check(u: int) -> None:
            if manager.dead_size() > max(manager.live_size(), 1_000_000):
                manager.garbage_collect()
            live = manager.live_size()
            seconds = time.perf_counter() - start
            if live > max_size or seconds > max_seconds:
                raise CircuitTooLargeError(
                    f"compiling {what} into a decision diagram stopped at {live:,} elements alive after "
                    f"{seconds:.1f} s (caps: {max_size:,} elements, {max_seconds:g} s), with "
                    f"{_share(vt, u):.0%} of its Booleans compiled"
                )

        for u in vt.post_order.tolist():
            node = _owned(manager.true())
            if vt.left[u] >= 0:
                node = _apply(node, _apply(done.pop(int(vt.left[u])), done.pop(int(vt.right[u])), "and"), "and")
                check(u)
            for group in regions[u]:
                part = _owned(manager.true())
                for j, k in enumerate(group):
                    clause = _owned(manager.false())
                    for lit in enc.clause(k).tolist():
                        clause = _apply(clause, _owned(literal(int(lit))), "or")
                    part = _apply(part, clause, "and")
                    if j % 64 == 63:
                        check(u)
                node = _apply(node, part, "and")
                check(u)
            done[u] = node
            check(u)
        root = done[vt.root]
        sdd_path = os.path.join(tmp, "circuit.sdd")
        root.save(sdd_path.encode())
        if minimize:  # the library has rotated and swapped the vtree: read back the one the diagram is for
            manager.vtree().save(vtree_path.encode())
            vt = read_vtree(vtree_path, enc.n_booleans)
        kind, lit, node_vtree, elem_ptr, prime, sub = parse_sdd(sdd_path)
    for a in (kind, lit, node_vtree, elem_ptr, prime, sub):
        a.setflags(write=False)
    return Circuit(kind, lit, node_vtree, elem_ptr, prime, sub, vt, enc)


def _owned(node):
    node.ref()
    return node


def _apply(a, b, op: str):
    """``a op b``, referenced; the references of ``a`` and ``b`` are released."""
    out = (a & b) if op == "and" else (a | b)
    out.ref()
    a.deref()
    b.deref()
    return out


def _share(vt: Vtree, u: int) -> float:
    return float(vt.leaf_hi[u]) / max(1, vt.leaf_boolean.shape[0])

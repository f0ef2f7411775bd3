"""The variable tree (vtree) of a circuit, from a dissection of the network's moral graph.

A sentential decision diagram is compiled for a *vtree*: a full binary tree whose
leaves are the Booleans. Its size depends on the vtree far more than on anything
else (right-linear or balanced vtrees over a row-major order give diagrams the
size of an OBDD). The vtree here follows the network's own structure:

1. **Dissection.** The moral graph of the free variables is bisected recursively
   (each part connected as far as possible, the two halves balanced): a connected
   part is split at the middle of a breadth-first order from a pseudo-peripheral
   node (so the cut is one level set of the search, a short separator on grids
   and chains); the components of a disconnected part are packed into two bins of
   near-equal size. The recursion's tree is the vtree's upper part.
2. **Groups.** Each network variable becomes a small subtree of its own Booleans:
   its state indicators, then the label indicators of its CPT (balanced each), so
   a variable's labels sit next to the variable.

Positions are the in-order ranks of the vtree's nodes (what the SDD library
writes in its files); the leaves under any node occupy a contiguous range of leaf
ranks, which the circuit passes use to handle variables a node does not mention.

References
----------
.. [1] A. Darwiche, "SDD: a new canonical representation of propositional
   knowledge bases", IJCAI 2011 (vtrees).
.. [2] A. George, "Nested dissection of a regular finite element mesh", SIAM J.
   Numer. Anal. 10 (1973) (dissection orders).
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

import numpy as np

from .encoding import CircuitEncoding

__all__ = ["Vtree", "dissection_vtree", "write_vtree"]


class Vtree(NamedTuple):
    """A vtree as flat arrays, indexed by in-order position.

    Attributes
    ----------
    left, right : int64 (n_nodes,)
        Children of an internal node, -1 at a leaf.
    parent : int64 (n_nodes,)
        Parent, -1 at the root.
    boolean : int64 (n_nodes,)
        The Boolean (1-based) at a leaf, 0 at an internal node.
    leaf_lo, leaf_hi : int64 (n_nodes,)
        The leaves under a node are the leaf ranks ``leaf_lo .. leaf_hi - 1``.
    leaf_boolean : int64 (n_leaves,)
        The Boolean of each leaf rank.
    root : int
        Position of the root.
    post_order : int64 (n_nodes,)
        Positions with children before parents.
    """

    left: np.ndarray
    right: np.ndarray
    parent: np.ndarray
    boolean: np.ndarray
    leaf_lo: np.ndarray
    leaf_hi: np.ndarray
    leaf_boolean: np.ndarray
    root: int
    post_order: np.ndarray

    @property
    def n_nodes(self) -> int:
        """Number of vtree nodes, ``2 * n_leaves - 1``."""
        return int(self.left.shape[0])


def _moral_graph(net, free: list[int]) -> dict[int, set[int]]:
    is_free = set(free)
    adjacency: dict[int, set[int]] = {i: set() for i in free}
    for i in range(net.n_variables):
        family = [int(p) for p in net.parent_index[net.parent_ptr[i]:net.parent_ptr[i + 1]]] + [i]
        family = [j for j in family if j in is_free]
        for a in family:
            adjacency[a].update(b for b in family if b != a)
    return adjacency


def _bfs(start: int, members: set[int], adjacency) -> list[int]:
    seen = {start}
    order = [start]
    queue = deque([start])
    while queue:
        u = queue.popleft()
        for w in sorted(adjacency[u]):
            if w in members and w not in seen:
                seen.add(w)
                order.append(w)
                queue.append(w)
    return order


def _bisect(nodes: list[int], adjacency, spectral: bool = False) -> tuple[list[int], list[int]]:
    members = set(nodes)
    components = []
    left = set(nodes)
    for u in nodes:
        if u in left:
            comp = _bfs(u, members, adjacency)
            left.difference_update(comp)
            components.append(comp)
    if len(components) > 1:
        bins: tuple[list[int], list[int]] = ([], [])
        for comp in sorted(components, key=len, reverse=True):
            (bins[0] if len(bins[0]) <= len(bins[1]) else bins[1]).extend(comp)
        return bins
    if spectral and len(nodes) > 3:
        return _fiedler_bisect(nodes, adjacency)
    start = nodes[0]
    for _ in range(2):  # pseudo-peripheral: the last node of a search, twice
        start = _bfs(start, members, adjacency)[-1]
    order = _bfs(start, members, adjacency)
    half = (len(order) + 1) // 2
    return order[:half], order[half:]


def _fiedler_bisect(nodes: list[int], adjacency) -> tuple[list[int], list[int]]:
    """Split a connected part at the median of its Fiedler vector (spectral bisection)."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import eigsh

    index = {u: k for k, u in enumerate(nodes)}
    rows, cols = [], []
    for u in nodes:
        for w in adjacency[u]:
            if w in index:
                rows.append(index[u])
                cols.append(index[w])
    m = len(nodes)
    a = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(m, m))
    lap = sp.diags(np.asarray(a.sum(axis=1)).ravel()) - a
    if m <= 600:
        _, vectors = np.linalg.eigh(lap.toarray())
        fiedler = vectors[:, 1]
    else:
        _, vectors = eigsh(lap.tocsc(), k=2, sigma=-1e-3, which="LM", v0=np.ones(m) / np.sqrt(m) + np.arange(m) / m)
        fiedler = vectors[:, 1]
    order = sorted(range(m), key=lambda k: (round(float(fiedler[k]), 12), k))
    half = (m + 1) // 2
    return [nodes[k] for k in order[:half]], [nodes[k] for k in order[half:]]


def _balanced(items: list):
    """A balanced nested pair structure over ``items`` (an item alone stays itself)."""
    if len(items) == 1:
        return items[0]
    half = len(items) // 2
    return (_balanced(items[:half]), _balanced(items[half:]))


def dissection_vtree(net, enc: CircuitEncoding, spectral: bool = False) -> Vtree:
    """The vtree of the module docstring for ``net`` and its encoding.

    Parameters
    ----------
    net : CompiledNetwork
    enc : CircuitEncoding
        Its encoding (:func:`~prunelab.circuit.encoding.encode_network`).

    Returns
    -------
    Vtree

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.circuit.encoding import encode_network
    >>> from prunelab.circuit.vtree import dissection_vtree
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> vt = dissection_vtree(net, encode_network(net))
    >>> vt.n_nodes, sorted(vt.leaf_boolean.tolist())
    (7, [1, 2, 3, 4])
    """
    free = [int(i) for i in net.free]
    groups: dict[int, list[int]] = {i: [] for i in free}
    states = set()
    for i in free:
        booleans = enc.state_boolean[enc.state_ptr[i]:enc.state_ptr[i + 1]].tolist()
        groups[i].extend(booleans)
        states.update(booleans)
    thetas: dict[int, list[int]] = {i: [] for i in free}
    for b in range(1, enc.n_booleans + 1):
        if b not in states:
            thetas[int(enc.owner[b])].append(b)
    adjacency = _moral_graph(net, free)

    def group_tree(i: int):
        parts = [_balanced(groups[i])]
        if thetas[i]:
            parts.append(_balanced(thetas[i]))
        return parts[0] if len(parts) == 1 else (parts[0], parts[1])

    def dissect(nodes: list[int]):
        if len(nodes) == 1:
            return group_tree(nodes[0])
        a, b = _bisect(nodes, adjacency, spectral)
        return (dissect(a), dissect(b))

    if not free:
        raise ValueError("every variable is observed: there is nothing to compile")
    return _from_nested(dissect(free), enc.n_booleans)


def _from_nested(tree, n_booleans: int) -> Vtree:
    n_nodes = 2 * n_booleans - 1
    left = np.full(n_nodes, -1, dtype=np.int64)
    right = np.full(n_nodes, -1, dtype=np.int64)
    parent = np.full(n_nodes, -1, dtype=np.int64)
    boolean = np.zeros(n_nodes, dtype=np.int64)
    leaf_lo = np.zeros(n_nodes, dtype=np.int64)
    leaf_hi = np.zeros(n_nodes, dtype=np.int64)
    leaf_boolean: list[int] = []
    post: list[int] = []
    counter = [0]

    def visit(node) -> int:  # in-order positions; returns the node's position
        if isinstance(node, tuple):
            lo = len(leaf_boolean)
            a = visit(node[0])
            pos = counter[0]
            counter[0] += 1
            b = visit(node[1])
            left[pos], right[pos] = a, b
            parent[a] = parent[b] = pos
            leaf_lo[pos], leaf_hi[pos] = lo, len(leaf_boolean)
        else:
            pos = counter[0]
            counter[0] += 1
            boolean[pos] = node
            leaf_lo[pos], leaf_hi[pos] = len(leaf_boolean), len(leaf_boolean) + 1
            leaf_boolean.append(node)
        post.append(pos)
        return pos

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * n_booleans + 1000))
    try:
        root = visit(tree)
    finally:
        sys.setrecursionlimit(limit)
    if counter[0] != n_nodes or sorted(leaf_boolean) != list(range(1, n_booleans + 1)):
        raise AssertionError("vtree construction lost or repeated a Boolean")
    arrays = (left, right, parent, boolean, leaf_lo, leaf_hi, np.asarray(leaf_boolean, dtype=np.int64))
    return Vtree(*arrays, int(root), np.asarray(post, dtype=np.int64))


def write_vtree(vtree: Vtree, path) -> None:
    """Write ``vtree`` in the SDD library's vtree file format (ids = in-order positions)."""
    lines = [f"vtree {vtree.n_nodes}"]
    for pos in vtree.post_order.tolist():
        if vtree.left[pos] < 0:
            lines.append(f"L {pos} {vtree.boolean[pos]}")
        else:
            lines.append(f"I {pos} {vtree.left[pos]} {vtree.right[pos]}")
    with open(path, "w", encoding="ascii") as fh:
        fh.write("\n".join(lines) + "\n")

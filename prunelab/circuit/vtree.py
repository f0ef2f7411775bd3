"""The variable tree (vtree) of a circuit, from a dissection of the network's graph.

A sentential decision diagram is compiled for a *vtree*: a full binary tree whose
leaves are the Booleans. Its size depends on the vtree far more than on anything
else (right-linear or balanced vtrees over a row-major order give diagrams the
size of an OBDD). The vtree here follows the network's own structure:

1. **Dissection.** The free variables are bisected recursively. The components
   of a disconnected part are packed into two bins of near-equal size; a
   connected part is cut by spectral bisection: the two lowest non-trivial
   eigenvectors of the part's graph Laplacian span the candidate directions
   (eight of them, at even angles, so a square part whose two eigenvalues tie is
   cut straight rather than along an arbitrary mixture), the nodes are sorted
   along each direction, and the cut kept is the one crossing the fewest edges
   among the splits within 45-55 % of the part. The graph weighs a parent-child
   edge 1 and a co-parent edge of the moral graph only :data:`CO_PARENT_WEIGHT`
   (it keeps parts connected but leaves the cuts to the arcs: on grids that makes
   the cuts straight lines rather than diagonals; on 90 % grids of side 30,
   diagonal cuts gave diagrams 12-70 times larger). The half that comes first in
   topological order (the ancestors) is the left child: compiling descendants
   first measured 2-4 times slower on the same grids (and on 90 % 36 x 36 seed
   2, past a 300 s cap against 8 s of CPU, with families conjoined whole).
2. **Groups.** Each network variable becomes a small subtree of its own Booleans:
   its state indicators, then the label indicators of its CPT (balanced each), so
   a variable's labels sit next to the variable.

The dissection is a function of the graph, the same on every machine: the
directions come from the eigenspaces, not from the basis a solver returns for a
tied one (symmetric parts of a grid tie; a basis decided by the last bits of
rounding changed the vtree, and so the circuit, from one machine to another), and
computed values that agree to :data:`_TIE` count as equal, ties going to the
lower variable index. :func:`elimination_vtree` builds the vtree from an
elimination order instead (a dtree); on 90 % grids of side 30 its diagrams were
36 times larger or past a 60 s cap, so it is an option, not the default.
``bisection="bfs"`` replaces the spectral cut by the middle of a breadth-first
order from a pseudo-peripheral node (cheaper, but its diagonal cuts give much
larger diagrams on grids).

Positions are the in-order ranks of the vtree's nodes (what the SDD library
writes in its files); the leaves under any node occupy a contiguous range of leaf
ranks, which the circuit passes use to handle variables a node does not mention.

References
----------
.. [1] A. Darwiche, "SDD: a new canonical representation of propositional
   knowledge bases", IJCAI 2011 (vtrees).
.. [2] A. Pothen, H. D. Simon and K.-P. Liou, "Partitioning sparse matrices with
   eigenvectors of graphs", SIAM J. Matrix Anal. Appl. 11 (1990) (spectral
   bisection).
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

import numpy as np

from ..elimination import find_order, interaction_graph
from .encoding import CircuitEncoding

__all__ = [
    "BISECTIONS", "CO_PARENT_WEIGHT", "Vtree", "dissection_vtree", "elimination_vtree", "read_vtree", "write_vtree",
]


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


CO_PARENT_WEIGHT = 1e-3
"""Weight of a moral-graph edge between two parents that is not an arc, in the dissection's graph."""

BISECTIONS = ("spectral", "bfs")
"""Values of ``bisection=`` in :func:`dissection_vtree`."""

_DENSE_EIGEN = 64  # parts up to this many nodes use a dense eigensolver
_SPARSE_EIGEN = 5  # eigenpairs asked of the sparse one: enough to see whether the second non-trivial is tied
_TIE = 1e-9  # computed values this close (relative) are taken as equal
_ANGLES = 8
_SLACK = 0.05


def _weighted_graph(net, free: list[int]) -> dict[int, dict[int, float]]:
    """Arcs between free variables weigh 1, co-parents (of any child) :data:`CO_PARENT_WEIGHT`."""
    is_free = set(free)
    weight: dict[int, dict[int, float]] = {i: {} for i in free}
    for i in range(net.n_variables):
        parents = [int(p) for p in net.parent_index[net.parent_ptr[i]:net.parent_ptr[i + 1]] if int(p) in is_free]
        if i in is_free:
            for p in parents:
                weight[i][p] = weight[p][i] = 1.0
        for a in parents:
            for b in parents:
                if a != b and b not in weight[a]:
                    weight[a][b] = CO_PARENT_WEIGHT
    return weight


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


def _bisect(nodes: list[int], weight, bisection: str, turn: bool = False) -> tuple[list[int], list[int]]:
    """Two halves of ``nodes`` (ancestors' half first), as the module docstring describes.

    ``turn`` cuts a connected part spectrally along the direction perpendicular to
    the best one (see :func:`dissection_vtree`).
    """
    members = set(nodes)
    components = []
    left = set(nodes)
    for u in nodes:
        if u in left:
            comp = _bfs(u, members, weight)
            left.difference_update(comp)
            components.append(comp)
    if len(components) > 1:
        bins: tuple[list[int], list[int]] = ([], [])
        for comp in sorted(components, key=len, reverse=True):
            (bins[0] if len(bins[0]) <= len(bins[1]) else bins[1]).extend(comp)
        a, b = bins
    elif bisection == "spectral" and len(nodes) > 3:
        a, b = _spectral_bisect(nodes, weight, turn)
    else:
        start = nodes[0]
        for _ in range(2):  # pseudo-peripheral: the last node of a search, twice
            start = _bfs(start, members, weight)[-1]
        order = _bfs(start, members, weight)
        half = (len(order) + 1) // 2
        a, b = order[:half], order[half:]
    if sum(a) * len(b) > sum(b) * len(a):  # variables are numbered in topological order
        a, b = b, a
    return a, b


def _canonical_basis(values: np.ndarray, vectors: np.ndarray, scale: float) -> np.ndarray:
    """Two orthonormal directions in the span of the lowest non-trivial eigenvectors, independent of the solver's basis.

    Eigenvalues within :data:`_TIE` of each other (relative to ``scale``, a bound on
    the largest) form one eigenspace, whose basis the solver chooses by rounding. From
    each eigenspace in turn, lowest first, the directions are taken by pivoted
    Gram-Schmidt on its projector's columns: the first is the projection of the node
    whose projection is longest (ties to the lowest index), with that node's entry
    positive; the next is the same over what is left of the eigenspace at right angles
    to it. Only the eigenspaces matter, so any basis the solver returns gives the same
    directions.
    """
    tol = _TIE * scale
    basis: list[np.ndarray] = []
    i = 1  # the part is connected: index 0 is the constant vector
    while len(basis) < 2 and i < values.shape[0]:
        j = i
        while j + 1 < values.shape[0] and values[j + 1] - values[j] <= tol:
            j += 1
        rest = vectors[:, i:j + 1]
        for _ in range(min(2 - len(basis), j + 1 - i)):
            norms = np.sqrt(np.einsum("ij,ij->i", rest, rest))
            a = int(np.flatnonzero(norms >= norms.max() * (1.0 - _TIE))[0])
            u = rest @ rest[a] / norms[a]
            basis.append(u)
            rest = rest - np.outer(u, u @ rest)
        i = j + 1
    return np.column_stack(basis)


def _spectral_bisect(nodes: list[int], weight, turn: bool = False) -> tuple[list[int], list[int]]:
    """The lightest cut along a direction in the span of the two lowest non-trivial Laplacian eigenvectors.

    The directions come from :func:`_canonical_basis` and every comparison of
    computed values allows for rounding (:data:`_TIE`), ties going to the lower
    variable index, the balanced split and the lower angle: the cut depends on the
    graph, not on the last bits of the eigensolver's arithmetic. With ``turn``, the
    lightest cut along the direction at right angles to the direction of the lightest
    cut.
    """
    import scipy.sparse as sp
    from scipy.sparse.linalg import ArpackNoConvergence, eigsh

    m = len(nodes)
    index = {u: k for k, u in enumerate(nodes)}
    rows, cols, vals = [], [], []
    for u in nodes:
        for w, c in weight[u].items():
            if w in index:
                rows.append(index[u])
                cols.append(index[w])
                vals.append(c)
    r, c, v = np.asarray(rows), np.asarray(cols), np.asarray(vals)
    degree = np.bincount(r, weights=v, minlength=m)
    diag = np.arange(m)
    if m <= _DENSE_EIGEN:
        lap = np.diag(degree)
        lap[r, c] -= v
        values, vectors = np.linalg.eigh(lap)
    else:
        lap = sp.csc_matrix((np.concatenate([-v, degree]), (np.concatenate([r, diag]), np.concatenate([c, diag]))),
                            shape=(m, m))
        try:
            values, vectors = eigsh(lap, k=_SPARSE_EIGEN, sigma=-1e-3, which="LM", v0=np.ones(m) + diag / m)
        except ArpackNoConvergence:
            values, vectors = np.linalg.eigh(lap.toarray())
        by_value = np.argsort(values)
        values, vectors = values[by_value], vectors[:, by_value]
    basis = _canonical_basis(values, vectors, 2.0 * float(degree.max()))
    lo_k = max(1, int(np.floor(m * (0.5 - _SLACK))))
    hi_k = min(m - 1, int(np.ceil(m * (0.5 + _SLACK))))
    ks = np.arange(lo_k, hi_k + 1)
    off_centre = np.abs(2 * ks - m)
    tol = _TIE * max(1.0, float(v.sum()))
    cuts = []
    for t in range(_ANGLES):
        angle = np.pi * t / _ANGLES
        f = np.round((np.cos(angle) * basis[:, 0] + np.sin(angle) * basis[:, 1]) * np.sqrt(m), 6)
        order = np.lexsort((diag, f))
        pos = np.empty(m, dtype=np.int64)
        pos[order] = diag
        # an edge is cut by the split after k nodes iff lo < k <= hi (positions of its ends)
        lo, hi = np.minimum(pos[r], pos[c]), np.maximum(pos[r], pos[c])
        change = np.zeros(m + 2)
        np.add.at(change, lo + 1, v)
        np.add.at(change, hi + 1, -v)
        cut = np.cumsum(change)[ks] / 2
        near = np.flatnonzero(cut <= cut.min() + tol)  # the lightest, then the most balanced, then the fewest first
        j = int(near[np.lexsort((ks[near], off_centre[near]))[0]])
        cuts.append((cut[j], order, int(ks[j])))
    best = 0
    for t in range(1, _ANGLES):
        if cuts[t][0] < cuts[best][0] - tol:
            best = t
    if turn:
        best = (best + _ANGLES // 2) % _ANGLES
    _, order, k = cuts[best]
    return [nodes[i] for i in order[:k]], [nodes[i] for i in order[k:]]


def _balanced(items: list):
    """A balanced nested pair structure over ``items`` (an item alone stays itself)."""
    if len(items) == 1:
        return items[0]
    half = len(items) // 2
    return (_balanced(items[:half]), _balanced(items[half:]))


def dissection_vtree(net, enc: CircuitEncoding, bisection: str = "spectral", turn_root: bool = False) -> Vtree:
    """The vtree of the module docstring for ``net`` and its encoding.

    Parameters
    ----------
    net : CompiledNetwork
    enc : CircuitEncoding
        Its encoding (:func:`~prunelab.circuit.encoding.encode_network`).
    bisection : {"spectral", "bfs"}, default "spectral"
        How a connected part is cut (see the module docstring).
    turn_root : bool, default False
        Cut the whole network (if connected, spectrally) along the direction at
        right angles to the lightest cut's: the second candidate of
        :func:`~prunelab.circuit.compiler.compile_race` (see the module docstring).

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
    if bisection not in BISECTIONS:
        raise ValueError(f"bisection must be one of {BISECTIONS}, got {bisection!r}")
    free = [int(i) for i in net.free]
    if not free:
        raise ValueError("every variable is observed: there is nothing to compile")
    group = _variable_groups(net, enc)
    weight = _weighted_graph(net, free)

    def dissect(nodes: list[int], turn: bool = False):
        if len(nodes) == 1:
            return group[nodes[0]]
        a, b = _bisect(nodes, weight, bisection, turn)
        return (dissect(a), dissect(b))

    return _from_nested(dissect(free, turn_root), enc.n_booleans)


def _variable_groups(net, enc: CircuitEncoding) -> dict:
    """Every free variable's subtree: its state indicators, then its label indicators (balanced each)."""
    groups: dict[int, list[int]] = {int(i): [] for i in net.free}
    thetas: dict[int, list[int]] = {int(i): [] for i in net.free}
    states = set()
    for i in groups:
        booleans = enc.state_boolean[enc.state_ptr[i]:enc.state_ptr[i + 1]].tolist()
        groups[i].extend(booleans)
        states.update(booleans)
    for b in range(1, enc.n_booleans + 1):
        if b not in states:
            thetas[int(enc.owner[b])].append(b)
    return {i: (_balanced(groups[i]), _balanced(thetas[i])) if thetas[i] else _balanced(groups[i])
            for i in groups}


def elimination_vtree(net, enc: CircuitEncoding) -> Vtree:
    """A vtree from an elimination order of the moral graph (a dtree built by elimination).

    The order is :func:`prunelab.elimination.find_order`'s on the free variables'
    interaction graph. Every free variable's family (the variable and its free
    parents) starts as a tree of its own, the variable's Booleans as in
    :func:`dissection_vtree`; eliminating a variable joins the trees that mention
    it into one balanced tree, and the trees left at the end are joined the same
    way (Darwiche's dtree from an elimination order).

    Parameters
    ----------
    net : CompiledNetwork
    enc : CircuitEncoding

    Returns
    -------
    Vtree

    References
    ----------
    .. [1] A. Darwiche, "Recursive conditioning", Artificial Intelligence 126
       (2001), sec. 5 (dtrees from elimination orders).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.circuit.encoding import encode_network
    >>> from prunelab.circuit.vtree import elimination_vtree
    >>> net = compile_network(load_network("asia"))
    >>> enc = encode_network(net)
    >>> elimination_vtree(net, enc).n_nodes == 2 * enc.n_booleans - 1
    True
    """
    free = [int(i) for i in net.free]
    if not free:
        raise ValueError("every variable is observed: there is nothing to compile")
    group = _variable_groups(net, enc)
    is_free = np.asarray(net.evidence_value) < 0
    scope: dict[int, set[int]] = {i: {i} for i in free}
    for i in range(net.n_variables):
        family = [int(p) for p in net.parent_index[net.parent_ptr[i]:net.parent_ptr[i + 1]] if is_free[p]]
        if is_free[i]:
            scope[i].update(family)
        elif family:  # an observed child's labels belong to its last free parent
            scope[max(family)].update(family)
    order = find_order(interaction_graph(scope.values(), free), net.cardinality).order
    trees: list[tuple[object, set[int]]] = [(group[i], scope[i]) for i in free]
    for v in order:
        joined = [t for t in trees if v in t[1]]
        if len(joined) > 1:
            trees = [t for t in trees if v not in t[1]]
            trees.append((_balanced([t[0] for t in joined]), set().union(*(t[1] for t in joined)) - {v}))
        elif joined:
            joined[0][1].discard(v)
    return _from_nested(_balanced([t[0] for t in trees]), enc.n_booleans)


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


def read_vtree(path, n_booleans: int) -> Vtree:
    """Read a vtree the SDD library wrote (its ids are in-order positions), e.g. after dynamic minimisation.

    Examples
    --------
    >>> import os, tempfile
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.circuit.encoding import encode_network
    >>> from prunelab.circuit.vtree import dissection_vtree, read_vtree, write_vtree
    >>> net = compile_network(load_network("asia"))
    >>> vt = dissection_vtree(net, encode_network(net))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_vtree(vt, os.path.join(tmp, "v"))
    ...     again = read_vtree(os.path.join(tmp, "v"), vt.leaf_boolean.size)
    >>> bool((again.left == vt.left).all() and (again.leaf_boolean == vt.leaf_boolean).all())
    True
    """
    children: dict[int, tuple[int, int]] = {}
    leaves: dict[int, int] = {}
    last = -1
    with open(path, encoding="ascii") as fh:
        for line in fh:
            parts = line.split()
            if not parts or parts[0] in ("c", "vtree"):
                continue
            if parts[0] == "L":
                leaves[int(parts[1])] = int(parts[2])
            elif parts[0] == "I":
                children[int(parts[1])] = (int(parts[2]), int(parts[3]))
            else:
                raise ValueError(f"{path}: not a vtree file line: {line.strip()!r}")
            last = int(parts[1])

    def nested(u: int):
        return (nested(children[u][0]), nested(children[u][1])) if u in children else leaves[u]

    vt = _from_nested(nested(last), n_booleans)
    if not (np.flatnonzero(vt.left < 0) == sorted(leaves)).all():
        raise ValueError(f"{path}: vtree ids are not in-order positions")
    return vt

"""The dissection vtree: its structure, and exact answers through circuits compiled for it."""

from __future__ import annotations

import re

import numpy as np
import pytest

from prunelab import exact_marginals, load_network, make_grid
from prunelab.exact import log_probability_of_evidence
from prunelab.circuit import circuit_inference, compile_cnf, dissection_vtree, encode_network
from prunelab.circuit.vtree import BISECTIONS
from prunelab.compiled import compile_network

CASES = [
    ("asia", None),
    ("asia", {"dysp": "yes", "smoke": "no"}),
    ("alarm", None),
    ("deterministic_pair", None),
]


def _network(name):
    return make_grid(6, 0.75, seed=3) if name == "grid" else load_network(name)


def _check_structure(net, enc, vt):
    n = enc.n_booleans
    assert vt.n_nodes == 2 * n - 1
    assert sorted(vt.leaf_boolean.tolist()) == list(range(1, n + 1))  # every Boolean exactly once
    leaves = vt.left < 0
    assert (vt.boolean[leaves] > 0).all() and (vt.boolean[~leaves] == 0).all()
    assert (vt.right[leaves] < 0).all() and (vt.right[~leaves] >= 0).all()
    assert vt.parent[vt.root] == -1 and vt.leaf_lo[vt.root] == 0 and vt.leaf_hi[vt.root] == n
    for u in np.flatnonzero(~leaves):
        a, b = vt.left[u], vt.right[u]
        assert vt.parent[a] == u and vt.parent[b] == u
        assert a < u < b  # in-order positions
        # contiguous leaf ranges: the left child's leaves, then the right child's
        assert vt.leaf_lo[u] == vt.leaf_lo[a] and vt.leaf_hi[a] == vt.leaf_lo[b] and vt.leaf_hi[b] == vt.leaf_hi[u]
    for u in np.flatnonzero(leaves):
        assert vt.leaf_hi[u] == vt.leaf_lo[u] + 1 and vt.leaf_boolean[vt.leaf_lo[u]] == vt.boolean[u]
    seen = set()
    for u in vt.post_order.tolist():  # children before parents
        if vt.left[u] >= 0:
            assert vt.left[u] in seen and vt.right[u] in seen
        seen.add(u)
    assert len(seen) == vt.n_nodes and vt.post_order[-1] == vt.root
    # a variable's Booleans (state and label indicators) are exactly the leaves of one vtree node
    ranges = {(int(vt.leaf_lo[u]), int(vt.leaf_hi[u])) for u in range(vt.n_nodes)}
    rank = np.empty(n + 1, dtype=np.int64)
    rank[vt.leaf_boolean] = np.arange(n)
    for i in net.free.tolist():
        booleans = np.flatnonzero(enc.owner == i)
        r = np.sort(rank[booleans])
        assert r[-1] - r[0] + 1 == r.shape[0]
        assert (int(r[0]), int(r[-1]) + 1) in ranges


@pytest.mark.parametrize("bisection", BISECTIONS)
@pytest.mark.parametrize(("name", "evidence"), [*CASES, ("grid", None)])
def test_structure(name, evidence, bisection):
    net = compile_network(_network(name), evidence)
    enc = encode_network(net)
    _check_structure(net, enc, dissection_vtree(net, enc, bisection=bisection))


@pytest.mark.parametrize("bisection", BISECTIONS)
def test_deterministic(bisection):
    net = compile_network(make_grid(9, 0.9, seed=2))
    enc = encode_network(net)
    first, again = dissection_vtree(net, enc, bisection=bisection), dissection_vtree(net, enc, bisection=bisection)
    assert all(np.array_equal(x, y) for x, y in zip(first[:7], again[:7]))


def test_grid_cut_is_straight_with_ancestors_left():
    bn = make_grid(8, 0.9, seed=1)
    net = compile_network(bn)
    enc = encode_network(net)
    vt = dissection_vtree(net, enc)
    half = vt.leaf_boolean[vt.leaf_lo[vt.left[vt.root]]:vt.leaf_hi[vt.left[vt.root]]]
    cells = {tuple(int(x) for x in re.findall(r"\d+", bn.variables[enc.owner[b]])) for b in half.tolist()}
    top = {(i, j) for i in range(1, 5) for j in range(1, 9)}
    left = {(j, i) for i, j in top}
    assert cells in (top, left)  # a straight cut; the half holding the source comes first


def test_unknown_bisection():
    net = compile_network(load_network("asia"))
    with pytest.raises(ValueError, match="bisection must be one of .*'metis'"):
        dissection_vtree(net, encode_network(net), bisection="metis")


@pytest.mark.parametrize("bisection", BISECTIONS)
@pytest.mark.parametrize(("name", "evidence"), [*CASES, ("grid", None), ("grid", {"v_6_6": "T", "v_2_5": "F"})])
def test_answers_equal_junction_tree(name, evidence, bisection):
    bn = _network(name)
    net = compile_network(bn, evidence)
    enc = encode_network(net)
    circuit = compile_cnf(enc, dissection_vtree(net, enc, bisection=bisection))
    log_p, marginals = circuit_inference(bn, net, circuit)
    exact = exact_marginals(bn, evidence)
    assert log_p == pytest.approx(log_probability_of_evidence(bn, evidence), abs=1e-9)
    assert set(marginals) == set(exact)
    for v, p in exact.items():
        np.testing.assert_allclose(marginals[v], p, atol=1e-9, rtol=0)


def _root_half(bn, enc, vt) -> tuple[set, set]:
    """Rows and columns of the grid variables whose Booleans lie under the root's left child."""
    left = vt.left[vt.root]
    owners = set(enc.owner[vt.leaf_boolean[vt.leaf_lo[left]:vt.leaf_hi[left]]].tolist())
    coords = [tuple(int(x) for x in bn.variables[i].split("_")[1:]) for i in owners]
    return {r for r, _ in coords}, {c for _, c in coords}


@pytest.mark.parametrize("side", [6, 8])
def test_turned_root_cuts_the_grid_at_right_angles(side):
    bn = make_grid(side, 0.9, seed=1)
    net = compile_network(bn)
    enc = encode_network(net)
    straight, turned = dissection_vtree(net, enc), dissection_vtree(net, enc, turn_root=True)
    _check_structure(net, enc, turned)
    full, half = set(range(1, side + 1)), set(range(1, side // 2 + 1))  # the ancestors' half is on the left
    cuts = [_root_half(bn, enc, vt) for vt in (straight, turned)]
    assert sorted(cuts, key=lambda rc: len(rc[0])) == [(half, full), (full, half)]  # one cut by rows, one by columns
    assert cuts[0] != cuts[1]
    # below the root the turned vtree cuts as the default one does: its halves' subtrees are dissected the same way
    again = dissection_vtree(net, enc, turn_root=True)
    assert (again.left == turned.left).all() and (again.leaf_boolean == turned.leaf_boolean).all()


def _vtree_arrays(net, enc, noise: float = 0.0, seed: int = 0):
    """The dissection vtree's arrays, with every weight of its graph moved by a relative ``noise``."""
    from prunelab.circuit import vtree as vtree_module

    weighted, rng = vtree_module._weighted_graph, np.random.default_rng(seed)

    def noisy(net_, free):
        weight = weighted(net_, free)
        for a in weight:
            for b in list(weight[a]):
                if a < b:
                    weight[a][b] = weight[b][a] = weight[a][b] * (1.0 + noise * rng.standard_normal())
        return weight

    try:
        vtree_module._weighted_graph = noisy
        vt = dissection_vtree(net, enc)
    finally:
        vtree_module._weighted_graph = weighted
    return vt.left.tolist(), vt.right.tolist(), vt.boolean.tolist()


@pytest.mark.parametrize(("percent", "side", "seed"), [(90, 10, 1), (90, 20, 3), (75, 12, 2)])
def test_the_dissection_does_not_depend_on_rounding(percent, side, seed):
    # symmetric parts of a grid have tied Laplacian eigenvalues: the vtree must come from the eigenspaces, not from
    # the basis the solver's last bits pick (before, one unit in the last place changed every one of these vtrees)
    net = compile_network(make_grid(side, percent / 100, seed=seed))
    enc = encode_network(net)
    plain = _vtree_arrays(net, enc)
    for repeat in range(3):
        assert _vtree_arrays(net, enc, noise=1e-13, seed=repeat) == plain


def test_the_canonical_basis_is_the_same_for_any_basis_of_a_tied_eigenspace():
    from prunelab.circuit.vtree import _canonical_basis

    rng = np.random.default_rng(5)
    m = 9
    q = np.linalg.qr(rng.standard_normal((m, m)))[0]
    q[:, 0] = 1 / np.sqrt(m)
    q = np.linalg.qr(q)[0]  # an orthonormal basis whose first vector is constant (up to sign)
    values = np.array([0.0, 0.5, 1.0, 1.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    expected = _canonical_basis(values, q, 10.0)
    assert expected.shape == (m, 2)
    np.testing.assert_allclose(expected.T @ expected, np.eye(2), atol=1e-12)
    np.testing.assert_allclose(np.abs(expected[:, 0]), np.abs(q[:, 1]), atol=1e-12)  # the lone second eigenvector
    for _ in range(5):
        turned = q.copy()
        turned[:, 2:5] = q[:, 2:5] @ np.linalg.qr(rng.standard_normal((3, 3)))[0]  # another basis of the tied space
        turned[:, 1] *= -1.0  # and the other sign of the lone one
        np.testing.assert_allclose(_canonical_basis(values + 1e-14 * rng.standard_normal(m), turned, 10.0),
                                   expected, atol=1e-9)

"""Exact inference: brute-force enumeration on small networks, pgmpy on large ones."""

from __future__ import annotations

import gc
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from prunelab import (
    BayesianNetwork,
    EvidenceError,
    load_network,
    make_grid,
    random_evidence,
    to_pgmpy,
)
import prunelab.junction_tree
from prunelab.exact import (
    elimination_order,
    exact_marginals,
    induced_width,
    log_probability_of_evidence,
    probability_of_evidence,
    treewidth,
)
from prunelab.junction_tree import junction_tree
from tests.helpers import EXACT, small_networks


AGAINST_PGMPY = 1e-9
"""Agreement with pgmpy's variable elimination (different summation orders)."""

SMALL_CATALOGUE = ("deterministic_pair", "blood_pressure", "block_chain", "asia", "grid-3x3")
LARGE_CATALOGUE = ("asia", "alarm", "win95pts", "grid-3x3", "grid-5x5", "grid-8x8")


# ------------------------------------------------------------------ reference
def brute_force(bn: BayesianNetwork, evidence=None) -> tuple[float, dict[str, np.ndarray]]:
    """P(e) and every free variable's P(X | e) by summing the full joint table."""
    cards = tuple(int(c) for c in bn.cardinalities)
    n = len(cards)
    joint = np.ones(cards)
    for i, v in enumerate(bn.variables):
        axes = [bn.index(p) for p in bn.parents[v]] + [i]
        shape = [1] * n
        for a in axes:
            shape[a] = cards[a]
        joint = joint * np.transpose(bn.cpts[v], np.argsort(axes)).reshape(shape)
    observed = bn.evidence_indices(evidence)
    reduced = joint[tuple(observed.get(i, slice(None)) for i in range(n))]
    p_e = float(reduced.sum())
    free = [i for i in range(n) if i not in observed]
    marginals = {}
    if p_e > 0:
        for k, i in enumerate(free):
            other = tuple(a for a in range(len(free)) if a != k)
            marginals[bn.variables[i]] = reduced.sum(axis=other) / p_e
    return p_e, marginals


def assert_matches_brute_force(bn, evidence=None, atol=EXACT):
    p_e, reference = brute_force(bn, evidence)
    np.testing.assert_allclose(probability_of_evidence(bn, evidence), p_e, rtol=0, atol=atol)
    if p_e == 0:
        with pytest.raises(EvidenceError, match="impossible"):
            exact_marginals(bn, evidence)
        assert log_probability_of_evidence(bn, evidence) == -math.inf
        return
    ours = exact_marginals(bn, evidence)
    assert list(ours) == list(reference)
    for v, expected in reference.items():
        np.testing.assert_allclose(ours[v], expected, rtol=0, atol=atol, err_msg=v)
        assert ours[v].dtype == np.float64


# ------------------------------------------------------------ tiny networks
def deterministic_pair() -> BayesianNetwork:
    return BayesianNetwork(
        states={"A": ["0", "1"], "B": ["0", "1"]},
        parents={"B": ["A"]},
        cpts={"A": [0.5, 0.5], "B": [[1.0, 0.0], [0.0, 1.0]]},
        name="pair",
    )


def v_structure() -> BayesianNetwork:
    return BayesianNetwork(
        states={"A": ["a0", "a1"], "B": ["b0", "b1", "b2"], "C": ["c0", "c1"]},
        parents={"C": ["A", "B"]},
        cpts={
            "A": [0.3, 0.7],
            "B": [0.2, 0.5, 0.3],
            "C": [[[0.9, 0.1], [0.4, 0.6], [0.0, 1.0]], [[0.25, 0.75], [1.0, 0.0], [0.5, 0.5]]],
        },
        name="v",
    )


def five_node() -> BayesianNetwork:
    """A -> B (copy), A -> C (noisy), (B, C) -> D (XOR), D -> E (noisy); declared out of order."""
    xor = np.zeros((2, 2, 2))
    for b in range(2):
        for c in range(2):
            xor[b, c, b ^ c] = 1.0
    return BayesianNetwork(
        states={v: ["0", "1"] for v in "EDCBA"},
        parents={"B": ["A"], "C": ["A"], "D": ["B", "C"], "E": ["D"]},
        cpts={
            "A": [0.35, 0.65],
            "B": [[1.0, 0.0], [0.0, 1.0]],
            "C": [[0.8, 0.2], [0.1, 0.9]],
            "D": xor,
            "E": [[0.95, 0.05], [0.0, 1.0]],
        },
        name="five",
    )


TINY = {"pair": deterministic_pair, "v": v_structure, "five": five_node}
TINY_EVIDENCE = {
    "pair": [None, {}, {"A": "1"}, {"B": "0"}, {"A": "0", "B": "0"}, {"A": "0", "B": "1"}],
    "v": [None, {"C": "c1"}, {"C": "c0", "A": "a1"}, {"B": 2}, {"A": "a0", "B": "b2", "C": "c0"}],
    "five": [
        None,
        {"E": "1"},
        {"D": "0"},
        {"E": "0", "C": "1"},
        {"D": "1", "A": "0"},
        {"B": "0", "C": "0", "D": "1"},  # impossible: XOR
        {"D": "0", "E": "1"},
        {"A": "1", "B": "1", "C": "0", "D": "1", "E": "1"},  # everything observed
    ],
}


@pytest.mark.parametrize(
    "name, evidence",
    [(name, ev) for name, evs in TINY_EVIDENCE.items() for ev in evs],
)
def test_tiny_networks_match_brute_force(name, evidence):
    assert_matches_brute_force(TINY[name](), evidence)


def test_deterministic_pair_by_hand():
    bn = deterministic_pair()
    np.testing.assert_array_equal(exact_marginals(bn)["B"], [0.5, 0.5])
    assert exact_marginals(bn, {"B": "1"}) == {"A": pytest.approx(np.array([0.0, 1.0]))}
    assert probability_of_evidence(bn, {"A": "1", "B": "1"}) == 0.5
    assert probability_of_evidence(bn, {"A": "1", "B": "0"}) == 0.0


def test_explaining_away_in_the_v_structure():
    bn = v_structure()
    prior = exact_marginals(bn)["A"]
    np.testing.assert_allclose(prior, [0.3, 0.7], rtol=0, atol=EXACT)
    # C=c0 rules out B=b2 only when A=a0, so P(A | C=c0) moves away from the prior.
    posterior = exact_marginals(bn, {"C": "c0"})["A"]
    assert not np.allclose(posterior, prior)


def test_no_evidence_gives_probability_one():
    bn = five_node()
    assert probability_of_evidence(bn, None) == 1.0
    assert probability_of_evidence(bn, {}) == 1.0
    assert log_probability_of_evidence(bn, None) == 0.0


def test_fully_observed_state_gives_its_joint_probability():
    bn = five_node()
    x = {"A": "1", "B": "1", "C": "1", "D": "0", "E": "0"}
    assert exact_marginals(bn, x) == {}
    expected = math.exp(bn.log_probability([bn.state_index(v, x[v]) for v in bn.variables]))
    assert probability_of_evidence(bn, x) == pytest.approx(expected, rel=1e-14)


def test_evidence_by_state_index_equals_evidence_by_name():
    bn = v_structure()
    by_name = exact_marginals(bn, {"B": "b1", "C": "c1"})
    by_index = exact_marginals(bn, {"B": 1, "C": 1})
    assert by_name.keys() == by_index.keys()
    for v in by_name:
        np.testing.assert_array_equal(by_name[v], by_index[v])


def test_tiny_underflowing_evidence_stays_exact_on_the_log_scale():
    """A 400-node noisy chain observed everywhere but the middle: P(e) ~ 1e-800."""
    n, flip, middle = 400, 0.01, 200
    names = [f"X{k}" for k in range(n)]
    transition = [[1 - flip, flip], [flip, 1 - flip]]
    bn = BayesianNetwork(
        states={v: ["0", "1"] for v in names},
        parents={v: ([names[k - 1]] if k else []) for k, v in enumerate(names)},
        cpts={v: ([0.5, 0.5] if k == 0 else transition) for k, v in enumerate(names)},
    )
    evidence = {v: str(k % 2) for k, v in enumerate(names) if k != middle}
    # Every observed step flips (prob 0.01) except the two around the middle node,
    # which either both flip or both stay.
    log_flip, log_stay = math.log(flip), math.log(1 - flip)
    log_both = np.logaddexp(2 * log_flip, 2 * log_stay)
    expected = math.log(0.5) + (n - 3) * log_flip + log_both
    assert probability_of_evidence(bn, evidence) == 0.0  # underflows, as documented
    assert log_probability_of_evidence(bn, evidence) == pytest.approx(expected, rel=1e-12)
    stay = (1 - flip) ** 2 / ((1 - flip) ** 2 + flip**2)
    previous = (middle - 1) % 2
    expected_marginal = np.full(2, 1 - stay)
    expected_marginal[previous] = stay
    posterior = exact_marginals(bn, evidence)[f"X{middle}"]
    np.testing.assert_allclose(posterior, expected_marginal, rtol=0, atol=EXACT)


# ---------------------------------------------------------------- evidence errors
def test_impossible_evidence_raises_and_names_the_evidence():
    bn = five_node()
    evidence = {"B": "0", "C": "0", "D": "1"}
    with pytest.raises(EvidenceError, match="impossible") as info:
        exact_marginals(bn, evidence)
    message = str(info.value)
    for part in ("B=0", "C=0", "D=1", "five"):
        assert part in message
    assert probability_of_evidence(bn, evidence) == 0.0


def test_impossible_evidence_on_one_deterministic_edge():
    with pytest.raises(EvidenceError, match=r"A=0, B=1"):
        exact_marginals(deterministic_pair(), {"A": "0", "B": "1"})


@pytest.mark.parametrize(
    "function",
    [exact_marginals, probability_of_evidence, log_probability_of_evidence, elimination_order, treewidth],
)
def test_unknown_variable_lists_the_variables(function):
    bn = five_node()
    with pytest.raises(EvidenceError, match=r"unknown variable 'Z'") as info:
        function(bn, {"Z": "0"})
    assert str(list(bn.variables)) in str(info.value)


@pytest.mark.parametrize("function", [exact_marginals, probability_of_evidence])
@pytest.mark.parametrize("state", ["yes", 2, -1])
def test_unknown_state_lists_the_states(function, state):
    expected = r"unknown state .* of variable 'E'; states are \['0', '1'\]"
    with pytest.raises(EvidenceError, match=expected):
        function(five_node(), {"E": state})


# ---------------------------------------------------- elimination orders, widths
def test_elimination_order_is_a_permutation_of_the_free_variables():
    bn = load_network("alarm")
    evidence = random_evidence(bn, 0.25, seed=1)
    observed = {bn.index(v) for v in evidence}
    for heuristic in ("min-fill", "min-degree"):
        assert sorted(elimination_order(bn, heuristic=heuristic)) == list(range(bn.n_variables))
        order = elimination_order(bn, evidence, heuristic=heuristic)
        assert sorted(order) == sorted(set(range(bn.n_variables)) - observed)
        assert induced_width(bn, order, evidence) <= induced_width(
            bn, elimination_order(bn, heuristic=heuristic)
        )


def test_elimination_order_is_deterministic_and_checks_the_heuristic():
    bn = load_network("grid-5x5")
    assert elimination_order(bn) == elimination_order(bn)
    with pytest.raises(ValueError, match="min-fill"):
        elimination_order(bn, heuristic="max-cardinality")


def test_induced_width_of_known_graphs():
    chain = load_network("block_chain", n=6)
    assert treewidth(chain) == 1
    assert induced_width(chain, list(range(6))) == 1
    # Eliminating the middle of a chain first joins its two neighbours: width 2.
    assert induced_width(chain, [2, 0, 1, 3, 4, 5]) == 2
    assert treewidth(v_structure()) == 2  # moralised: a triangle
    assert treewidth(five_node()) == 2  # A-B-C-D cycle with the chord B-C
    assert treewidth(five_node(), {"B": "0"}) == 1  # the cycle is cut
    assert treewidth(deterministic_pair(), {"A": "0", "B": "0"}) == 0


def test_induced_width_rejects_an_order_that_is_not_a_permutation():
    bn = five_node()
    with pytest.raises(ValueError, match="every unobserved variable exactly once"):
        induced_width(bn, [0, 1, 2])
    with pytest.raises(ValueError, match="every unobserved variable exactly once"):
        induced_width(bn, [0, 1, 2, 3, 4], evidence={"E": "0"})


def test_oversized_cliques_are_refused_before_allocating(monkeypatch):
    import prunelab.elimination

    monkeypatch.setattr(prunelab.elimination, "MAX_CLIQUE_ENTRIES", 8)
    bn = load_network("grid-3x3")  # width 3: a clique of 16 entries
    with pytest.raises(ValueError, match="needs a clique over 4 variables"):
        exact_marginals(bn, method="junction_tree")


def test_compiled_tree_is_cached_per_network_and_observed_set():
    bn = five_node()
    observed = frozenset({4})
    assert junction_tree(bn, observed) is junction_tree(bn, observed)
    assert junction_tree(bn, observed) is not junction_tree(bn, frozenset())
    # An equal but distinct network hashes equal, so it shares the entry (the tree
    # depends only on the structure), and the cache holds the networks weakly.
    other = five_node()
    assert junction_tree(other, observed) is junction_tree(bn, observed)
    before = len(prunelab.junction_tree._trees)
    del bn
    gc.collect()
    assert len(prunelab.junction_tree._trees) == before - 1


# ---------------------------------------------------------------- catalogue
@pytest.mark.parametrize("name", SMALL_CATALOGUE)
def test_small_catalogue_networks_match_brute_force(name):
    bn = load_network(name)
    assert bn.n_variables <= 20
    assert_matches_brute_force(bn)
    for seed in range(3):
        evidence = random_evidence(bn, 0.25, seed=seed)
        assert_matches_brute_force(bn, evidence)


def _pgmpy_posteriors(model, bn, evidence):
    from pgmpy.inference import VariableElimination

    engine = VariableElimination(model)
    out = {}
    for v in bn.variables:
        if v in evidence:
            continue
        factor = engine.query([v], evidence=evidence, show_progress=False)
        out[v] = np.array([factor.get_value(**{v: s}) for s in bn.states[v]])
    return engine, out


def _pgmpy_probability_of_evidence(engine, evidence):
    """P(e) by the chain rule, one pgmpy query per observed variable."""
    p, seen = 1.0, {}
    for v, s in evidence.items():
        factor = engine.query([v], evidence=seen, show_progress=False)
        p *= factor.get_value(**{v: s})
        seen[v] = s
    return p


@pytest.fixture(scope="module")
def pgmpy_models():
    cache = {}

    def get(name):
        if name not in cache:
            bn = load_network(name)  # the catalogue rescales BIF rows to sum to 1 exactly
            cache[name] = (bn, to_pgmpy(bn))
        return cache[name]

    return get


@pytest.mark.parametrize("with_evidence", [False, True], ids=["prior", "evidence"])
@pytest.mark.parametrize("name", LARGE_CATALOGUE)
def test_catalogue_networks_match_pgmpy(name, with_evidence, pgmpy_models):
    bn, model = pgmpy_models(name)
    evidence = random_evidence(bn, 0.25, seed=7) if with_evidence else {}
    engine, reference = _pgmpy_posteriors(model, bn, evidence)
    ours = exact_marginals(bn, evidence)
    assert list(ours) == [v for v in bn.variables if v not in evidence]
    for v, expected in reference.items():
        np.testing.assert_allclose(ours[v], expected, rtol=0, atol=AGAINST_PGMPY, err_msg=v)
    if with_evidence:
        expected = _pgmpy_probability_of_evidence(engine, evidence)
        assert probability_of_evidence(bn, evidence) == pytest.approx(expected, rel=AGAINST_PGMPY)


@pytest.mark.parametrize("name", LARGE_CATALOGUE)
def test_marginals_are_distributions(name):
    bn = load_network(name)
    for evidence in ({}, random_evidence(bn, 0.25, seed=11)):
        for v, p in exact_marginals(bn, evidence).items():
            assert p.shape == (len(bn.states[v]),)
            assert np.all(p >= 0)
            assert p.sum() == pytest.approx(1.0, abs=EXACT)


# ------------------------------------------------------------------ hypothesis


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_networks())
def test_random_networks_match_brute_force(case):
    bn, evidence = case
    assert_matches_brute_force(bn, evidence)
    if probability_of_evidence(bn, evidence) > 0:
        for p in exact_marginals(bn, evidence).values():
            assert p.sum() == pytest.approx(1.0, abs=EXACT)
        np.testing.assert_allclose(
            log_probability_of_evidence(bn, evidence),
            math.log(brute_force(bn, evidence)[0]),
            rtol=1e-12,
            atol=1e-12,
        )


# ------------------------------------------------------------------ large grids
def test_grid_marginals_do_not_depend_on_the_order(monkeypatch):
    """The row-major order exact inference now picks on grids agrees with min-fill's."""
    import prunelab.exact
    from prunelab.elimination import evaluate_order, greedy_order

    bn = make_grid(12, 0.5, seed=3)
    evidence = {"v_12_12": "T"}
    observed = frozenset(bn.evidence_indices(evidence))
    chosen_tree = prunelab.junction_tree.junction_tree(bn, observed)
    chosen = exact_marginals(bn, evidence)

    def min_fill(adjacency, card, max_work=None):
        return evaluate_order(adjacency, card, greedy_order(adjacency, card, "min-fill"), "min-fill")

    monkeypatch.setattr(prunelab.junction_tree, "find_order", min_fill)
    bn = make_grid(12, 0.5, seed=3)  # a new object: not from the cache
    other_tree = prunelab.junction_tree.junction_tree(bn, observed)
    assert other_tree.order != chosen_tree.order and other_tree.width > chosen_tree.width
    other = exact_marginals(bn, evidence)
    for v in chosen:
        np.testing.assert_allclose(chosen[v], other[v], rtol=1e-9, atol=1e-12)


def test_grid_18_is_solved_within_the_cap():
    """min-fill's width 29 (a clique of 2**30 entries) made exact inference refuse this grid."""
    bn = make_grid(18, 0.5, seed=0)
    marginals = exact_marginals(bn)
    np.testing.assert_allclose(marginals["v_1_1"], bn.cpts["v_1_1"], rtol=1e-12)
    # v_1_2 has the single parent v_1_1
    np.testing.assert_allclose(marginals["v_1_2"], bn.cpts["v_1_1"] @ bn.cpts["v_1_2"], rtol=1e-12)
    assert all(p.sum() == pytest.approx(1.0, abs=EXACT) for p in marginals.values())


# ---------------------------------------------------------------- P(e) below the normal floats
def test_probability_of_evidence_below_the_normal_floats_is_exp_of_the_exact_log():
    """A 4,000-node chain with P(e) = 10^-387.6: the product of scales sticks at ~1e-323 in subnormals."""
    names = [f"X{k}" for k in range(4000)]
    bn = BayesianNetwork(
        states={v: ["0", "1"] for v in names},
        parents={v: ([names[k - 1]] if k else []) for k, v in enumerate(names)},
        cpts={v: ([0.5, 0.5] if k == 0 else [[0.9, 0.1], [0.1, 0.9]]) for k, v in enumerate(names)},
    )
    # 320 flips (0.1 each), then 1,471 stays (0.9 each): the product is subnormal after the flips
    evidence = {v: str(k % 2) if k < 321 else "0" for k, v in enumerate(names[:1792])}
    expected = math.log(0.5) + 320 * math.log(0.1) + 1471 * math.log(0.9)
    assert expected / math.log(10) == pytest.approx(-387.61, abs=0.01)
    assert log_probability_of_evidence(bn, evidence) == pytest.approx(expected, rel=1e-12)
    assert probability_of_evidence(bn, evidence) == 0.0  # exp(log P(e)), not a stuck subnormal
    # within the subnormals: exp(log P(e)), to the subnormal's own precision
    short = {v: s for v, s in evidence.items() if int(v[1:]) < 323}
    log_short = log_probability_of_evidence(bn, short)
    assert -745 < log_short < math.log(2.2250738585072014e-308)
    assert probability_of_evidence(bn, short) == math.exp(log_short)


# ---------------------------------------------------------------- evidence types, at every entry point
ENTRY_POINTS = [exact_marginals, probability_of_evidence, log_probability_of_evidence, elimination_order,
                treewidth, lambda bn, ev: induced_width(bn, [], ev)]


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=["marginals", "p", "log_p", "order", "treewidth", "width"])
@pytest.mark.parametrize("bad,kind", [(["B", "1"], "list"), ("B=1", "str"), ({("B", "1")}, "set"),
                                      (("B", "1"), "tuple"), (3, "int")])
def test_every_exact_entry_point_refuses_evidence_that_is_not_a_mapping(entry, bad, kind):
    with pytest.raises(TypeError, match=rf"evidence must be a mapping .* got a {kind}"):
        entry(load_network("deterministic_pair"), bad)


def test_every_exact_entry_point_reads_a_series_as_a_mapping():
    pd = pytest.importorskip("pandas")
    bn = load_network("asia")
    series, mapping = pd.Series({"xray": "yes", "smoke": "no"}), {"xray": "yes", "smoke": "no"}
    assert probability_of_evidence(bn, series) == probability_of_evidence(bn, mapping)
    assert log_probability_of_evidence(bn, series) == log_probability_of_evidence(bn, mapping)
    got, expected = exact_marginals(bn, series), exact_marginals(bn, mapping)
    assert got.keys() == expected.keys() and all(np.array_equal(got[v], expected[v]) for v in got)
    assert elimination_order(bn, series) == elimination_order(bn, mapping)
    assert treewidth(bn, series) == treewidth(bn, mapping)

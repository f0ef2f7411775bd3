"""Initial states: forward, random forward, hybrid; evidence; the exact fallback; explicit starts.

Tolerances: a frequency from ``N`` independent initial states is binomial, so
``Z_IID`` standard errors ``sqrt(p (1 - p) / N)`` bound its error (``P(|Z| > 5)
= 6e-7`` per check); the seeds are fixed, so outcomes are deterministic.
"""

from __future__ import annotations

import itertools
import weakref

import numpy as np
import pytest
from scipy import stats

from prunelab import BayesianNetwork, EvidenceError, load_evidence, load_network, random_evidence
from prunelab.catalogue import pgmpy_example_path
from prunelab.compiled import compile_network, state_labels
from prunelab.exact import exact_marginals
from prunelab.io import read_bif
from prunelab.samplers.init import InitInfo, exact_posterior_state, initial_state, start_state_from
from prunelab.samplers.chain import InfeasibleStateError, check_state

Z_IID = 5.0
"""Bound on |frequency - p| / binomial standard error."""

INIT_CASES = [("forward", 0.5), ("random_forward", 0.5), ("hybrid", 0.3)]


def feasible(net, x) -> bool:
    return bool(np.all(net.cpt[state_labels(net, x)] > 0))


def skewed_pair() -> BayesianNetwork:
    """A with one heavy, two light and one zero entry; B | A with zeros in every row."""
    return BayesianNetwork(
        states={"A": ["a0", "a1", "a2", "a3"], "B": ["b0", "b1", "b2"]},
        parents={"B": ["A"]},
        cpts={
            "A": [0.96, 0.03, 0.01, 0.0],
            "B": [[0.9, 0.1, 0.0], [0.0, 0.99, 0.01], [0.5, 0.0, 0.5], [0.0, 0.0, 1.0]],
        },
    )


EVIDENCE_CASES = [
    ("deterministic_pair", lambda bn: {"B": "1"}),
    ("asia", lambda bn: load_evidence("asia")),
    ("asia", lambda bn: {"either": "yes", "tub": "no"}),  # forces lung=yes
    ("alarm", lambda bn: load_evidence("alarm")),
    ("block_chain", lambda bn: {"X1": "1", "X10": "0"}),
    ("grid-5x5", lambda bn: random_evidence(bn, 0.25, seed=2)),
    ("grid-8x8", lambda bn: random_evidence(bn, 0.25, seed=3)),
    ("win95pts", lambda bn: random_evidence(bn, 0.25, seed=4)),
]


@pytest.mark.parametrize("init,p", INIT_CASES, ids=[m for m, _ in INIT_CASES])
@pytest.mark.parametrize("name,make_evidence", EVIDENCE_CASES, ids=[f"{n}{k}" for k, (n, _) in enumerate(EVIDENCE_CASES)])
def test_initial_states_are_feasible_and_respect_evidence(init, p, name, make_evidence, rng):
    bn = load_network(name)
    evidence = make_evidence(bn)
    net = compile_network(bn, evidence)
    observed = net.evidence_value >= 0
    for _ in range(20):
        x = initial_state(rng, bn, init, p=p, evidence=evidence)
        assert x.dtype == np.int64 and x.shape == (bn.n_variables,)
        np.testing.assert_array_equal(x[observed], net.evidence_value[observed])
        assert feasible(net, x)
        assert bn.log_probability(x) > -np.inf


def test_random_forward_hits_every_nonzero_entry_uniformly(rng):
    bn = skewed_pair()
    net = compile_network(bn)
    n = 6_000
    draws = np.array([initial_state(rng, net, "random_forward") for _ in range(n)])
    counts = np.zeros((4, 3), dtype=np.int64)
    np.add.at(counts, (draws[:, 0], draws[:, 1]), 1)
    cpt_a, cpt_b = bn.cpts["A"], bn.cpts["B"]
    # zero entries never, every non-zero entry of every reached row at least once
    assert counts[cpt_a == 0].sum() == 0
    for a in range(3):
        assert np.all((counts[a] > 0) == (cpt_b[a] > 0))
    # A is uniform over its three non-zero states, B uniform over its row's non-zero states
    a_counts = counts.sum(axis=1)[:3]
    assert stats.chisquare(a_counts).pvalue > 1e-4
    for a in range(3):
        nz = counts[a][cpt_b[a] > 0]
        assert stats.chisquare(nz).pvalue > 1e-4


@pytest.mark.parametrize("init,p_a0", [("forward", 0.96), ("hybrid", 0.5 * 0.96 + 0.5 / 3)])
def test_forward_and_hybrid_frequencies(init, p_a0, rng):
    """Forward follows the CPT; hybrid(p) mixes CPT and uniform-over-non-zero with weight p."""
    net = compile_network(skewed_pair())
    n = 4_000
    draws = np.array([initial_state(rng, net, init, p=0.5) for _ in range(n)])
    freq = np.mean(draws[:, 0] == 0)
    assert abs(freq - p_a0) < Z_IID * np.sqrt(p_a0 * (1 - p_a0) / n)
    assert not np.any(draws[:, 0] == 3)


def test_forward_without_evidence_draws_from_the_joint(rng):
    bn = load_network("blood_pressure")
    exact = exact_marginals(bn)
    n = 3_000
    draws = np.array([initial_state(rng, bn) for _ in range(n)])
    for i, v in enumerate(bn.variables):
        freq = np.bincount(draws[:, i], minlength=2) / n
        assert np.all(np.abs(freq - exact[v]) < Z_IID * np.sqrt(exact[v] * (1 - exact[v]) / n) + 1e-12)


@pytest.mark.parametrize(
    "name,evidence",
    [("alarm", None), ("grid-5x5", "random"), ("asia", "frozen")],
)
def test_hybrid_endpoints_equal_forward_and_random_forward_draw_for_draw(name, evidence):
    bn = load_network(name)
    ev = {"random": random_evidence(bn, 0.25, seed=1), "frozen": load_evidence(name) if name == "asia" else None}.get(evidence)
    for hybrid_p, init in ((1.0, "forward"), (0.0, "random_forward")):  # equal seeds: the methods are compared
        a = [initial_state(np.random.default_rng(k), bn, "hybrid", p=hybrid_p, evidence=ev) for k in range(10)]
        b = [initial_state(np.random.default_rng(k), bn, init, evidence=ev) for k in range(10)]
        np.testing.assert_array_equal(a, b)
    # ... and the two endpoints differ from each other, so the check is not vacuous
    a = [initial_state(np.random.default_rng(k), bn, "forward", evidence=ev) for k in range(10)]
    b = [initial_state(np.random.default_rng(k), bn, "random_forward", evidence=ev) for k in range(10)]
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("init,p", INIT_CASES, ids=[m for m, _ in INIT_CASES])
def test_python_and_numba_kernels_agree(init, p):
    bn = load_network("alarm")
    ev = load_evidence("alarm")
    for k in range(5):
        r1, r2 = np.random.default_rng(k), np.random.default_rng(k)  # equal seeds: the two kernels are compared
        a = initial_state(r1, bn, init, p=p, evidence=ev, backend="numba")
        b = initial_state(r2, bn, init, p=p, evidence=ev, backend="python")
        np.testing.assert_array_equal(a, b)
        assert r1.random() == r2.random()


@pytest.mark.parametrize(
    "name,evidence,named",
    [
        ("deterministic_pair", {"A": "0", "B": "1"}, ["A=0", "B=1"]),
        ("asia", {"tub": "yes", "either": "no"}, ["tub=yes", "either=no"]),
        ("block_chain", {"X2": "0", "X3": "3"}, ["X2=0", "X3=3"]),
    ],
)
def test_impossible_evidence_raises_and_names_it(name, evidence, named, rng):
    bn = load_network(name)
    with pytest.raises(EvidenceError, match="impossible") as err:
        initial_state(rng, bn, evidence=evidence)
    for piece in named:
        assert piece in str(err.value)


def rare_evidence_network(eps: float = 1e-9) -> BayesianNetwork:
    """``B = A`` with ``P(A = 1) = eps``: forward sampling with ``B = 1`` almost never succeeds."""
    return BayesianNetwork(
        states={"A": ["0", "1"], "B": ["0", "1"], "C": ["0", "1"]},
        parents={"B": ["A"], "C": ["B"]},
        cpts={"A": [1 - eps, eps], "B": [[1.0, 0.0], [0.0, 1.0]], "C": [[0.5, 0.5], [0.2, 0.8]]},
    )


def test_exact_fallback_after_the_restart_budget(rng):
    bn = rare_evidence_network()
    evidence = {"B": "1"}
    net = compile_network(bn, evidence)
    states = []
    for _ in range(400):
        x, info = initial_state(rng, bn, evidence=evidence, max_restarts=50, return_info=True)
        assert info.init == "exact" and info.n_tries == 50
        assert feasible(net, x)
        states.append(x)
    states = np.array(states)
    assert np.all(states[:, 0] == 1)
    # the fallback draws from P(x | e): C=1 with probability 0.8
    freq = states[:, 2].mean()
    assert abs(freq - 0.8) < Z_IID * np.sqrt(0.8 * 0.2 / len(states))


def brute_force_posterior(bn, evidence):
    """Every full state that agrees with ``evidence`` and its probability ``P(x | e)``."""
    observed = bn.evidence_indices(evidence)
    ranges = [[observed[i]] if i in observed else range(c) for i, c in enumerate(bn.cardinalities)]
    states = np.array(list(itertools.product(*ranges)), dtype=np.int64)
    weights = np.exp([bn.log_probability(x) for x in states])
    return states, weights / weights.sum()


@pytest.mark.parametrize(
    "name,make_evidence",
    [
        ("asia", lambda bn: load_evidence("asia")),
        ("asia", lambda bn: {"either": "yes", "tub": "no"}),
        ("grid-3x3", lambda bn: random_evidence(bn, 0.25, seed=5)),
        ("blood_pressure", lambda bn: None),
    ],
    ids=["asia-frozen", "asia-forced", "grid-3x3", "blood_pressure"],
)
def test_exact_fallback_draws_full_states_from_the_posterior(name, make_evidence, rng):
    """Backward sampling through the junction tree: the joint of the draws is ``P(x | e)`` (chi-square)."""
    bn = load_network(name)
    evidence = make_evidence(bn)
    states, posterior = brute_force_posterior(bn, evidence)
    n = 12_000
    draws = np.array([exact_posterior_state(rng, bn, evidence, 1) for _ in range(n)])
    index = {tuple(x): k for k, x in enumerate(states.tolist())}
    counts = np.bincount([index[tuple(x)] for x in draws.tolist()], minlength=len(states))
    assert counts[posterior == 0].sum() == 0  # never a state with P(x, e) = 0
    support = posterior > 0
    expected = n * posterior[support]
    # pool the rare states so every cell expects at least 5 draws
    rare = expected < 5
    observed_cells = np.append(counts[support][~rare], counts[support][rare].sum())
    expected_cells = np.append(expected[~rare], expected[rare].sum())
    if not rare.any():
        observed_cells, expected_cells = observed_cells[:-1], expected_cells[:-1]
    assert stats.chisquare(observed_cells, expected_cells).pvalue > 1e-4


def test_exact_fallback_runs_one_calibration_per_network_and_evidence(monkeypatch, rng):
    """Chains share the upward pass; new evidence (or an impossible one) is calibrated afresh."""
    import prunelab.junction_tree as junction_tree
    import prunelab.samplers.init as init_module

    monkeypatch.setattr(init_module, "_posterior_tables", weakref.WeakKeyDictionary())  # an empty cache
    calls = []
    calibrate = junction_tree.calibrate
    monkeypatch.setattr(junction_tree, "calibrate", lambda bn, ev: calls.append(dict(ev)) or calibrate(bn, ev))
    bn = rare_evidence_network()
    for _ in range(5):
        x, info = initial_state(rng, bn, evidence={"B": "1"}, max_restarts=20, return_info=True)
        assert info.init == "exact" and x[0] == 1
    assert calls == [{"B": "1"}]
    x, info = initial_state(rng, bn, evidence={"B": "1", "C": "0"}, max_restarts=20, return_info=True)
    assert info.init == "exact" and x.tolist() == [1, 1, 0]
    assert calls == [{"B": "1"}, {"B": "1", "C": "0"}]


def test_exact_fallback_on_a_large_network_with_evidence(rng):
    """diabetes (413 variables) with 25 % evidence: forward sampling fails, the posterior draw is feasible."""
    bn = read_bif(pgmpy_example_path("diabetes"))
    evidence = random_evidence(bn, 0.25, seed=7)
    net = compile_network(bn, evidence)
    starts = []
    for _ in range(3):
        x, info = initial_state(rng, bn, evidence=evidence, max_restarts=100, return_info=True)
        assert info.init == "exact"
        assert feasible(net, x)
        np.testing.assert_array_equal(x[net.evidence_value >= 0], net.evidence_value[net.evidence_value >= 0])
        starts.append(x)
    assert len({tuple(x) for x in starts}) == 3  # independent draws, not one cached state


def xor_network(eps: float = 1e-12) -> BayesianNetwork:
    """``B = A`` with ``P(A = 1) = eps``, ``C`` random given ``B``, ``D = B xor C``: with ``B = 1``, ``D = 1 - C``."""
    copy, xor = np.eye(2), np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]])
    return BayesianNetwork(
        states={v: ["0", "1"] for v in "ABCD"}, parents={"B": ["A"], "C": ["B"], "D": ["B", "C"]},
        cpts={"A": [1 - eps, eps], "B": copy, "C": [[0.5, 0.5], [0.2, 0.8]], "D": xor},
    )


def _exact_inference_refuses(monkeypatch) -> list:
    """No junction tree fits, and the circuit refuses: the start-state search of a network far past both.

    Returns the list that receives each refused compilation's cap.
    """
    import prunelab.elimination as elimination
    import prunelab.samplers.circuit_start as circuit_start
    from prunelab.circuit import CircuitTooLargeError

    caps = []

    def refuse(net, max_seconds):
        caps.append(max_seconds)
        raise CircuitTooLargeError("compiling stopped (a refusal made by the test)")

    monkeypatch.setattr(elimination, "MAX_CLIQUE_ENTRIES", 1)
    monkeypatch.setattr(circuit_start, "circuit_for", refuse)
    return caps


def test_past_the_tree_and_the_circuit_the_start_is_a_solvers_model(monkeypatch):
    pytest.importorskip("pycmsgen")
    from prunelab.samplers.circuit_start import ExactStartRefusedError

    from prunelab.circuit import AUTO_COMPILE_SECONDS
    from prunelab.planner import START_COMPILE_SECONDS

    caps = _exact_inference_refuses(monkeypatch)
    bn, evidence = xor_network(), {"B": "1"}
    with pytest.raises(ExactStartRefusedError, match=r"cannot tell.*junction tree refused.*refusal made by the test"):
        exact_posterior_state(np.random.default_rng(0), bn, evidence, 1)  # the search as it was: no state
    assert caps == [AUTO_COMPILE_SECONDS]  # an exact draw asked for waits for the circuit as long as before
    net = compile_network(bn, evidence)
    starts = set()
    for seed in range(12):
        x, info = initial_state(np.random.default_rng(seed), bn, evidence=evidence, max_restarts=1, return_info=True)
        assert info == InitInfo("solver", 1)
        assert feasible(net, x) and bn.log_probability(x) > -np.inf  # P(x, e) > 0
        assert x[1] == 1 and x[0] == 1 and x[3] == 1 - x[2]
        again = initial_state(np.random.default_rng(seed), bn, evidence=evidence, max_restarts=1)
        assert again.tolist() == x.tolist()  # one seed, one state
        starts.add(tuple(x.tolist()))
    assert starts <= {(1, 1, 0, 1), (1, 1, 1, 0)}
    assert set(caps[1:]) == {START_COMPILE_SECONDS} and START_COMPILE_SECONDS < AUTO_COMPILE_SECONDS  # a start


def test_past_the_tree_and_the_circuit_impossible_evidence_is_refused_by_name(monkeypatch, rng):
    pytest.importorskip("pycmsgen")
    _exact_inference_refuses(monkeypatch)
    bn = xor_network()
    evidence = {"A": "0", "C": "0", "D": "1"}  # B = 0, so D = 0: impossible, and no single table says so
    with pytest.raises(EvidenceError, match=r"evidence \{A=0, C=0, D=1\} is impossible in network .*P\(e\) = 0 "
                                            r"\(its support CNF has no model"):
        initial_state(rng, bn, evidence=evidence, max_restarts=1)


def test_past_the_tree_and_the_circuit_without_the_solver_the_extra_is_named(monkeypatch, rng):
    import sys

    from prunelab.extras import MissingExtraError

    from prunelab.circuit import AUTO_COMPILE_SECONDS

    caps = _exact_inference_refuses(monkeypatch)
    monkeypatch.setitem(sys.modules, "pycmsgen", None)  # import pycmsgen fails
    with pytest.raises(MissingExtraError, match=r"junction tree refused.*A start state past them .*needs the "
                                                r"package pycmsgen.*prunelab\[solvers\]"):
        initial_state(rng, xor_network(), evidence={"B": "1"}, max_restarts=1)
    assert caps == [AUTO_COMPILE_SECONDS]  # no solver to take over: the circuit gets its full cap


def test_restart_budget_on_a_compiled_network_raises(rng):
    net = compile_network(rare_evidence_network(), {"B": "1"})
    with pytest.raises(EvidenceError, match="10 forward-sampling tries"):
        initial_state(rng, net, max_restarts=10)


def test_initial_state_argument_errors(rng):
    bn = load_network("asia")
    with pytest.raises(ValueError, match="unknown init"):
        initial_state(rng, bn, "backward")
    with pytest.raises(ValueError, match="0 <= p <= 1"):
        initial_state(rng, bn, "hybrid", p=1.5)
    with pytest.raises(ValueError, match="carries its evidence"):
        initial_state(rng, compile_network(bn), evidence={"tub": "yes"})
    with pytest.raises(EvidenceError, match="unknown variable"):
        initial_state(rng, bn, evidence={"nope": "yes"})


# ------------------------------------------------------------------ explicit starts
def test_explicit_start_states():
    bn = load_network("deterministic_pair")
    net = compile_network(bn)
    assert start_state_from(bn, net, {"A": "1", "B": "1"}).tolist() == [1, 1]
    assert start_state_from(bn, net, np.array([0, 0])).tolist() == [0, 0]
    with pytest.raises(InfeasibleStateError, match=r"\{A=0, B=1\}"):
        start_state_from(bn, net, {"A": "0", "B": "1"})
    with pytest.raises(ValueError, match="leaves free variable"):
        start_state_from(bn, net, {"A": "0"})
    with pytest.raises(ValueError, match="unknown variable"):
        start_state_from(bn, net, {"C": "0"})
    with pytest.raises(ValueError, match="out of range"):
        check_state(net, [0, 2], bn)
    with pytest.raises(ValueError, match="shape"):
        check_state(net, [0, 0, 0])
    observed = compile_network(bn, {"B": "1"})
    assert start_state_from(bn, observed, {"A": "1"}).tolist() == [1, 1]  # evidence filled in
    with pytest.raises(EvidenceError, match="disagrees with the evidence: B=0"):
        start_state_from(bn, observed, {"A": "0", "B": "0"})

"""Prune sampling: the pruning, the step, the chain, and agreement with exact answers.

* the pruning keeps ``C_x``, never keeps ``c = 0`` labels, always keeps ``c = 1``
  labels, and keeps a random label with frequency ``c``;
* the numba chain equals the numpy reference draw for draw, for every uniform method;
* the empirical next-state distribution from a fixed state matches the exact row
  of the transition matrix (chi-square at a fixed seed) for the exact methods, and
  the heuristic is shown to be biased;
* long chains agree with exact marginals on the benchmark networks, with and
  without 25 % evidence, within a tolerance from the effective sample size.
"""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from scipy import stats

from prunelab import BayesianNetwork, load_network, random_evidence
from prunelab.compiled import compile_network, label_entry, state_labels
from prunelab.exact import exact_marginals
from prunelab.samplers.prune import sampler as prune, plan as prune_plans
from prunelab.samplers.init import initial_state
from prunelab.samplers.chain import InfeasibleStateError
from prunelab.theory import prune_transition_matrix
from prunelab.samplers.prune.pruning import prune_around
from prunelab.samplers.prune.draws.registry import UNIFORM_NAMES
from prunelab.samplers.prune import auto
from tests.conftest import TEST_SEED
from tests.helpers import (CHI2_LEVEL, Z_TOLERANCE, effective_sample_size, fan_network, marginal_interval,
                           small_networks)


# ------------------------------------------------------------------ pruning
def test_prune_around_keeps_x_and_respects_deterministic_labels(rng):
    bn = load_network("alarm")
    net = compile_network(bn)
    x = initial_state(rng, net, "forward")
    labels = state_labels(net, x)
    used_and_sure = prune_plans.prune_plan(net).pruning.base_kept & (net.cpt == 1.0)
    for _ in range(50):
        kept = prune_around(rng, net, x)
        assert kept[labels].all()
        assert not kept[net.cpt == 0.0].any()
        assert kept[used_and_sure].all()


def test_prune_around_keeps_a_label_with_probability_c(rng):
    bn = load_network("blood_pressure")
    net = compile_network(bn)
    x = np.array([1, 0, 1, 1, 1])  # the paper's Fig. 2 state (k_g, l_b, b_e, s_y, m_e)
    n = 20000
    kept = np.array([prune_around(rng, net, x) for _ in range(n)])
    x_labels = state_labels(net, x)
    for lab in range(net.n_labels):
        if lab in x_labels:
            assert kept[:, lab].all()
        else:
            assert stats.binomtest(int(kept[:, lab].sum()), n, net.cpt[lab]).pvalue > CHI2_LEVEL


def test_random_labels_skip_unused_and_fixed_labels():
    bn = load_network("deterministic_pair")
    net = compile_network(bn)
    plan = prune_plans.compile_prune_plan(net)
    assert plan.pruning.random_label.tolist() == [0, 1]  # A(1), A(2); B's labels are 0 or 1
    assert plan.pruning.base_kept.tolist() == [True, True, True, False, False, True]
    # with evidence B = 1, only A(2) is used by a state that agrees
    plan_e = prune_plans.compile_prune_plan(compile_network(bn, {"B": "1"}))
    assert plan_e.pruning.random_label.tolist() == [1]


def test_init_checks_the_state(rng):
    net = compile_network(load_network("deterministic_pair"))
    assert prune.init(net, [1, 1]).x.tolist() == [1, 1]
    with pytest.raises(InfeasibleStateError):
        prune.init(net, [0, 1])
    with pytest.raises(ValueError, match="unknown uniform draw"):
        prune.run_chain(rng, net, [0, 0], 3, uniform="bfs")


# --------------------------------------------------------- numba == numpy
NETS = [
    ("fan", None),
    ("asia", "random"),
    ("blood_pressure", None),
    ("alarm", "random"),
    ("grid-5x5", None),
]


def make_net(name, evidence):
    bn = fan_network() if name == "fan" else load_network(name)
    if evidence == "random":
        evidence = random_evidence(bn, 0.25, seed=3)
    return bn, compile_network(bn, evidence)


@pytest.mark.parametrize("uniform", ["auto", "enumerate", "count", "heuristic"])
@pytest.mark.parametrize("name,evidence", NETS)
def test_run_chain_equals_step_draw_for_draw(name, evidence, uniform, rng):
    bn, net = make_net(name, evidence)
    x0 = initial_state(rng, net, "random_forward")
    n = 12 if uniform == "heuristic" else 25
    options = {"n_candidates": 6} if uniform == "heuristic" else {"node_budget": 60}
    out = prune.run_chain(np.random.default_rng(7), net, x0, n, uniform, **options)
    rng = np.random.default_rng(7)  # the same seed: run_chain and step are compared draw for draw
    state = prune.init(net, x0)
    for t in range(n):
        state, info = prune.step(rng, net, state, uniform, **options)
        assert state.x.tolist() == out.draws[t].tolist()
        assert info.size == out.size[t] and info.uniform_code == out.uniform_code[t]
    assert out.draws.shape == (n, net.n_variables) and out.draws.dtype == np.int8
    if uniform in ("enumerate", "count", "heuristic"):
        assert {UNIFORM_NAMES[m] for m in out.uniform_code} == {uniform}


def test_chain_draws_are_feasible_and_agree_with_evidence(rng):
    bn, net = make_net("alarm", "random")
    x0 = initial_state(rng, net, "forward")
    out = prune.run_chain(rng, net, x0, 500)
    observed = net.evidence_value >= 0
    assert (out.draws[:, observed] == net.evidence_value[observed]).all()
    assert all(net.cpt[state_labels(net, x)].prod() > 0 for x in out.draws[::25])
    assert (out.size >= 1).all()


# ------------------------------------------------- one step vs the exact row
def next_state_counts(net, states, x, n, uniform, rng, **options):
    index = {tuple(s): a for a, s in enumerate(states.tolist())}
    counts = np.zeros(len(states))
    for _ in range(n):
        out = prune.run_chain(rng, net, x, 1, uniform, **options)
        counts[index[tuple(out.draws[0].tolist())]] += 1
    return counts


def chi_square_pvalue(counts, probabilities):
    """Chi-square goodness of fit, pooling cells with an expected count below 5."""
    expected = counts.sum() * probabilities
    small = expected < 5
    obs = np.append(counts[~small], counts[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


@pytest.mark.parametrize("uniform", ["enumerate", "count", "auto"])
@pytest.mark.parametrize("evidence", [None, {"Measurement": "m_e"}])
def test_next_state_matches_exact_row(uniform, evidence, rng):
    bn = load_network("blood_pressure")
    net = compile_network(bn, evidence)
    states, R = prune_transition_matrix(bn, evidence)
    a = int(np.argmin(R.diagonal()))  # the state that moves most
    options = {"node_budget": 6} if uniform == "auto" else {}
    counts = next_state_counts(net, states, states[a], 6000, uniform, rng, **options)
    assert chi_square_pvalue(counts, R[a]) > CHI2_LEVEL


def test_heuristic_chain_is_biased_on_the_fan():
    """With few candidates the heuristic over-visits A=1: P(A=1) ~ 0.6, not 1/2.

    Random forward sampling reaches (1, 0) with probability 1/2 although it is
    one of up to 9 members of S. An exact method on the same chain gets 1/2.
    """
    import arviz as az

    bn = fan_network()
    net = compile_network(bn)
    estimates = {}
    for uniform, streams in zip(("heuristic", "auto"), np.random.SeedSequence(TEST_SEED).spawn(2)):
        chains = np.array(
            [
                prune.run_chain(np.random.default_rng(stream), net, [c % 2, 0], 20000, uniform, n_candidates=2)
                .draws[2000:, 0]
                for c, stream in enumerate(streams.spawn(4))
            ]
        ).astype(float)
        ess = float(az.ess(chains, method="mean"))
        estimates[uniform] = (chains.mean(), np.sqrt(0.25 / ess))
    mean, se = estimates["auto"]
    assert abs(mean - 0.5) < Z_TOLERANCE * se
    mean, se = estimates["heuristic"]
    assert mean - 0.5 > 10 * se and mean > 0.55


# ---------------------------------------------------- long chains vs exact
LONG = {
    # name: draws per chain (alarm with evidence: twice as many, it mixes slowly)
    "asia": 8000,
    "alarm": 25000,
    "win95pts": 15000,
    "grid-5x5": 8000,
    "grid-8x8": 10000,
}
N_CHAINS = 4


@pytest.mark.parametrize("with_evidence", [False, True], ids=["no-evidence", "evidence-25%"])
@pytest.mark.parametrize("name", list(LONG))
def test_long_chains_agree_with_exact_marginals(name, with_evidence):
    bn = load_network(name)
    evidence = random_evidence(bn, 0.25, seed=7) if with_evidence else None
    net = compile_network(bn, evidence)
    exact = exact_marginals(bn, evidence)
    n = LONG[name] * (2 if with_evidence and name == "alarm" else 1)
    draws = []
    for streams in np.random.SeedSequence(TEST_SEED).spawn(N_CHAINS):
        rng = np.random.default_rng(streams)
        x0 = initial_state(rng, net, "forward")
        draws.append(prune.run_chain(rng, net, x0, n).draws[n // 2 :])  # first half is burn-in
    draws = np.array(draws)  # (chain, draw, variable)
    failures = []
    for i, variable in enumerate(bn.variables):
        if net.evidence_value[i] >= 0:
            continue
        ess = effective_sample_size(draws[:, :, i], len(exact[variable]))
        for s, p in enumerate(exact[variable]):
            frequency = (draws[:, :, i] == s).mean()
            low, high = marginal_interval(p, ess, draws.shape[0] * draws.shape[1])  # rare states: by visit counts
            if not low <= frequency <= high:
                failures.append((variable, bn.states[variable][s], p, frequency, ess))
    assert not failures


def test_front_door_backends_give_identical_prune_draws():
    from prunelab import sample

    bn = load_network("asia")
    evidence = random_evidence(bn, 0.25, seed=1)
    results = [
        sample(bn, "prune", 30, n_chains=2, evidence=evidence, seed=4, backend=backend, uniform="count")
        for backend in ("numba", "numpy")
    ]
    assert np.array_equal(results[0].draws, results[1].draws)
    assert np.array_equal(results[0].stats["size"], results[1].stats["size"])


# ------------------------------------------------ set-up at scale
def used_labels_by_counting(net) -> np.ndarray:
    """Test-only reference: one count per label (the old set-up).

    Label ``l`` of variable ``i`` is used iff ``S`` is non-empty when every label
    with ``c > 0`` is kept except ``i``'s other labels.
    """
    from prunelab.samplers.prune.draws.api import count_pruned_states

    possible = net.cpt > 0
    used = np.zeros(net.n_labels, dtype=bool)
    for lab in np.flatnonzero(possible):
        i = label_entry(net, lab).variable
        kept = possible.copy()
        kept[net.cpt_offset[i] : net.cpt_offset[i + 1]] = False
        kept[lab] = True
        used[lab] = count_pruned_states(net, kept) > 0
    return used


CATALOGUE = ["deterministic_pair", "blood_pressure", "block_chain", "asia", "alarm", "win95pts",
             "grid-3x3", "grid-5x5", "grid-8x8"]


@pytest.mark.parametrize("with_evidence", [False, True], ids=["no-evidence", "evidence-25%"])
@pytest.mark.parametrize("name", CATALOGUE)
def test_used_labels_equal_one_count_per_label(name, with_evidence):
    bn = load_network(name)
    net = compile_network(bn, random_evidence(bn, 0.25, seed=13) if with_evidence else None)
    plan = prune_plans.compile_prune_plan(net)
    reference = used_labels_by_counting(net)
    np.testing.assert_array_equal(plan.pruning.base_kept, reference)
    np.testing.assert_array_equal(plan.pruning.random_label, np.flatnonzero(reference & (net.cpt < 1.0)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_networks())
def test_used_labels_on_random_networks(case):
    bn, evidence = case
    net = compile_network(bn, evidence)
    np.testing.assert_array_equal(prune_plans.compile_prune_plan(net).pruning.base_kept, used_labels_by_counting(net))


def dense_network(n: int = 60, k: int = 8, seed: int = 0) -> BayesianNetwork:
    """``n`` binary variables, each with ``k`` random earlier parents: treewidth in the thirties."""
    rng = np.random.default_rng(seed)
    names = [f"X{i}" for i in range(n)]
    parents, cpts = {}, {}
    for i, v in enumerate(names):
        chosen = sorted(rng.choice(i, size=min(i, k), replace=False).tolist()) if i else []
        parents[v] = [names[p] for p in chosen]
        table = rng.random([2] * len(chosen) + [2])
        cpts[v] = table / table.sum(axis=-1, keepdims=True)
    return BayesianNetwork(states={v: ["0", "1"] for v in names}, parents=parents, cpts=cpts, name="dense")


@pytest.mark.parametrize("uniform", ["auto", "enumerate", "heuristic"])
def test_too_wide_network_is_refused_with_the_clique_size(uniform, monkeypatch):
    """It used to reach 7.4 GB and a MemoryError; the order is costed before anything is allocated.

    ``"auto"`` then tries a circuit (capped here at a second: this network has no determinism), and
    the error names both refusals."""
    import prunelab.circuit.inference
    from prunelab import sample

    monkeypatch.setattr(prunelab.circuit.inference, "AUTO_COMPILE_SECONDS", 1.0)

    with pytest.raises(ValueError, match=r"counting plan of prune sampling .* needs a clique over \d\d variables "
                       r"\(\d\.\d+e\+\d+ entries, more than MAX_CLIQUE_ENTRIES=\d+ in one table\).*"
                       r"observe some of these variables.*'gibbs' or 'metropolis'"
                       + (r".* uniform='auto' then tried a circuit: compiling .* stopped at" if uniform == "auto" else "")):
        sample(dense_network(), "prune", 5, seed=0, uniform=uniform)


def test_pathfinder_runs():
    """Its min-weight cost overflowed int64 (-1.65e19) and won: a step over 109 variables."""
    from prunelab import sample
    from prunelab.catalogue import pgmpy_example_path
    from prunelab.io import read_bif

    bn = read_bif(pgmpy_example_path("pathfinder"))
    result = sample(bn, "prune", 5, seed=0)
    assert result.draws.shape == (1, 5, bn.n_variables)
    assert all(bn.log_probability(x) > -np.inf for x in result.draws[0])


def test_auto_counts_first_then_follows_the_last_size(rng):
    """``"auto"`` counts the first step (no size yet) and then uses both methods, as the rule predicts.

    With the plan's own budget (about one count) alarm's sets are too large for the rule ever to search; a budget
    of ten counts makes it search after small sets.
    """
    bn, net = make_net("alarm", "random")
    budget = 10 * prune_plans.prune_plan(net).node_budget
    x0 = initial_state(rng, net, "forward")
    out = prune.run_chain(rng, net, x0, 2000, "auto", node_budget=budget)
    assert UNIFORM_NAMES[out.uniform_code[0]] == "count"
    assert {UNIFORM_NAMES[m] for m in out.uniform_code} == {"count", "enumerate"}
    # a search is tried only after a step whose |S| predicts a short one (>= 1 node per member)
    searched = out.uniform_code[1:] == UNIFORM_NAMES.index("enumerate")
    assert np.all(out.size[:-1][searched] * 1.0 <= auto.AUTO_SHARE * budget)

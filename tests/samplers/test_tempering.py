"""Parallel tempering with prune moves (:mod:`prunelab.samplers.prune.tempered`).

The sampler contract (step and run_chain draw for draw, feasibility, bad starts)
is checked for ``"prune-tempered"`` in ``tests/samplers/test_sampler_contract.py``. Here: a
tempered prune step is reversible for ``prod c^beta / Z`` (exact matrix) and the
kernel moves as that matrix says; swaps accept with the closed form; the
``beta = 1`` draws agree with the exact marginals; bad ladders are refused.
"""

from __future__ import annotations

import numpy as np
import pytest

from prunelab import load_network, random_evidence, sample
from prunelab.compiled import compile_network, state_labels
from prunelab.exact import exact_marginals
from prunelab.samplers.prune import sampler as prune, plan as prune_plans, tempered as tempering
from prunelab.samplers.init import initial_state
from prunelab.samplers.prune.ladder import swap_phase_py
from prunelab.samplers.prune.ladder import swap_probability, swap_rates, tempered_plan
from prunelab.samplers.prune.ladder import DEFAULT_BETAS, check_betas, geometric_betas
from prunelab.theory import is_regular, prune_transition_matrix, stationary_check
from tests.helpers import (EXACT, TEMPERING_CASES, Z_TOLERANCE, assert_tempered_transitions, effective_sample_size,
                           marginal_interval)




def tempered_target(net, states, beta):
    """``prod_{l in C_x} c_l^beta``, normalised over ``states``: computed from the labels, not from theory."""
    weight = net.cpt[state_labels(net, states)].prod(axis=1) ** beta
    return weight / weight.sum()


# ------------------------------------------------------- one tempered replica
@pytest.mark.parametrize("beta", [0.5, 0.2])
@pytest.mark.parametrize("case", list(TEMPERING_CASES))
def test_tempered_prune_step_is_reversible_for_the_tempered_target(case, beta):
    """The paper's proof with ``c`` replaced by ``c^beta``: the exact matrix balances ``prod c^beta``."""
    bn, evidence = TEMPERING_CASES[case]
    net = compile_network(bn, evidence)
    states, R = prune_transition_matrix(net._replace(cpt=net.cpt**beta))
    cold_states, cold_R = prune_transition_matrix(net)
    np.testing.assert_array_equal(states, cold_states)  # zeros stay zeros: the same feasible set
    p = tempered_target(net, states, beta)
    check = stationary_check(states, R, p)
    assert check["row_sum"] < EXACT and check["detailed_balance"] < EXACT and check["negative"] == 0.0
    assert is_regular(R)
    assert np.abs(p - tempered_target(net, states, 1.0)).max() > 0.02  # a different target,
    assert stationary_check(states, R, tempered_target(net, states, 1.0))["stationarity"] > 1e-3  # not P's


@pytest.mark.parametrize("uniform", ["count", "enumerate"])
@pytest.mark.parametrize("case", list(TEMPERING_CASES))
def test_tempered_plan_moves_as_the_exact_tempered_matrix(case, uniform):
    """Prune's kernel with :func:`tempered_plan` makes the transitions of the exact matrix at ``c^beta``."""
    bn, evidence = TEMPERING_CASES[case]
    net = compile_network(bn, evidence)
    plan = prune_plans.prune_plan(net)
    hot = tempered_plan(plan, 0.3)
    assert hot.uniform is plan.uniform and hot.pruning.random_label is plan.pruning.random_label and hot.count is plan.count
    np.testing.assert_allclose(hot.pruning.random_c, plan.pruning.random_c**0.3, rtol=0, atol=0)
    assert_tempered_transitions(net, hot, uniform)


def test_beta_one_is_prune_sampling_draw_for_draw():
    bn = load_network("asia")
    net = compile_network(bn, random_evidence(bn, 0.25, seed=7))
    x0 = initial_state(np.random.default_rng(2), net)
    ours = tempering.run_chain(np.random.default_rng(5), net, x0, 500, [1.0])
    theirs = prune.run_chain(np.random.default_rng(5), net, x0, 500, "count")
    np.testing.assert_array_equal(ours.draws, theirs.draws)
    np.testing.assert_array_equal(ours.size, theirs.size)
    assert ours.swapped.shape == (500, 0)


def test_step_and_run_chain_agree_when_enumerating():
    net = compile_network(*TEMPERING_CASES["blood_pressure|m_e"])
    rng = np.random.default_rng(3)
    state, draws = tempering.init(net, [1, 0, 1, 0, 1]), []
    for _ in range(60):
        state, info = tempering.step(rng, net, state, [1.0, 0.6, 0.3], "enumerate")
        draws.append(state.x)
    out = tempering.run_chain(np.random.default_rng(3), net, [1, 0, 1, 0, 1], 60, [1.0, 0.6, 0.3], "enumerate")
    np.testing.assert_array_equal(out.draws, draws)
    np.testing.assert_array_equal(out.swapped[-1], info.swapped)
    assert state.n_steps == 60 and (state.replicas[0] == state.x).all()


# ------------------------------------------------------------------- swaps
def test_swap_probability_is_the_closed_form():
    # beta = 1 holds P = 0.1, beta = 0.5 holds P = 0.4: the swap gives beta = 1 the likelier state
    assert swap_probability(1.0, 0.5, np.log(0.1), np.log(0.4)) == 1.0
    assert swap_probability(1.0, 0.5, np.log(0.4), np.log(0.1)) == pytest.approx(0.5, rel=1e-14)
    rng = np.random.default_rng(0)
    for _ in range(50):
        b_i, b_j = np.sort(rng.uniform(0.05, 1, 2))[::-1]
        p_i, p_j = rng.uniform(1e-6, 1, 2)
        assert swap_probability(b_i, b_j, np.log(p_i), np.log(p_j)) == pytest.approx(
            min(1.0, (p_j / p_i) ** (b_i - b_j)), rel=1e-12)


class FixedUniforms:
    """Stands in for a Generator: ``random()`` returns the given numbers in turn."""

    def __init__(self, *values):
        self.values = list(values)

    def random(self):
        return self.values.pop(0)


@pytest.mark.parametrize("offset, exchanged", [(-1e-9, True), (1e-9, False)])
def test_swap_phase_accepts_below_the_closed_form_and_only_then(offset, exchanged):
    net = compile_network(load_network("blood_pressure"))
    likely, unlikely = np.array([1, 0, 1, 0, 1]), np.array([0, 1, 1, 1, 0])  # P = 0.144, 0.016
    p_likely, p_unlikely = (float(net.cpt[state_labels(net, x)].prod()) for x in (likely, unlikely))
    q = (p_unlikely / p_likely) ** (1.0 - 0.5)  # beta = 1 holds the likely state: accepted with q < 1
    assert q == pytest.approx(1 / 3, rel=1e-12)
    replicas = np.stack([likely, unlikely, likely])
    labels = state_labels(net, replicas)
    swapped = np.zeros(2, dtype=np.int8)
    with np.errstate(divide="ignore"):
        log_c = np.log(net.cpt)
    swap_phase_py(FixedUniforms(q + offset), np.array([1.0, 0.5, 0.25]), log_c, labels, replicas, 0, swapped)
    first = unlikely if exchanged else likely
    np.testing.assert_array_equal(replicas, [first, likely if exchanged else unlikely, likely])
    np.testing.assert_array_equal(labels, state_labels(net, replicas))
    assert swapped.tolist() == [int(exchanged), -1]  # parity 0: pair (1, 2) is not proposed


def test_swap_rate_is_the_stationary_expectation():
    """In stationarity a proposed swap sees ``x ~ pi_1``, ``y ~ pi_beta``: its rate is ``E[min(1, ...)]``."""
    bn, evidence = TEMPERING_CASES["blood_pressure|m_e"]
    net = compile_network(bn, evidence)
    beta = 0.3
    states = prune_transition_matrix(net)[0]
    log_p = np.log(net.cpt[state_labels(net, states)].prod(axis=1))
    pi_1, pi_beta = tempered_target(net, states, 1.0), tempered_target(net, states, beta)
    accept = np.minimum(1.0, np.exp((1.0 - beta) * (log_p[None, :] - log_p[:, None])))
    expected = float(pi_1 @ accept @ pi_beta)
    rows = []
    for c in range(4):
        out = tempering.run_chain(np.random.default_rng([c, 8]), net, states[c], 20_000, [1.0, beta])
        rows.append(out.swapped[1000::2, 0].astype(float))  # proposed on even steps
    rows = np.array(rows)
    assert set(np.unique(rows)) == {0.0, 1.0}
    ess = effective_sample_size(rows.astype(np.int64), 2)
    tolerance = Z_TOLERANCE * np.sqrt(expected * (1 - expected) / ess)
    assert abs(rows.mean() - expected) < tolerance
    assert swap_rates(rows[..., None]) == pytest.approx([rows.mean()])


# --------------------------------------------------------- beta = 1 vs exact
def test_cold_replica_agrees_with_exact_marginals():
    bn = load_network("asia")
    evidence = random_evidence(bn, 0.25, seed=7)
    exact = exact_marginals(bn, evidence)
    n = 8000
    result = sample(bn, "prune-tempered", n, n_chains=4, evidence=evidence, seed=99, traps="off")
    assert result.stats["swapped"].shape == (4, n, DEFAULT_BETAS.size - 1)
    assert (swap_rates(result.stats["swapped"]) > 0.1).all()
    draws = result.draws[:, n // 2:].astype(np.int64)
    failures = []
    for i, variable in enumerate(bn.variables):
        if variable in evidence:
            continue
        ess = effective_sample_size(draws[:, :, i], len(exact[variable]))
        for s, p in enumerate(exact[variable]):
            low, high = marginal_interval(p, ess, draws.shape[0] * draws.shape[1])  # rare states: by visit counts
            if not low <= (draws[:, :, i] == s).mean() <= high:
                failures.append((variable, s, p, (draws[:, :, i] == s).mean(), ess))
    assert not failures


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize("betas, match", [
    ([], "non-empty 1-d"),
    ([[1.0, 0.5]], "non-empty 1-d"),
    (["hot"], "sequence of numbers"),
    ([1.0, float("nan")], "finite"),
    ([0.9, 0.5], r"betas\[0\] must be 1"),
    ([1.0, 0.5, 0.7], r"strictly decreasing: betas\[1\] = 0.5 <= betas\[2\] = 0.7"),
    ([1.0, 1.0], "strictly decreasing"),
    ([1.0, 0.5, 0.0], r"> 0 .*0\*\*0 = 1"),
    ([1.0, -0.5], "> 0"),
])
def test_bad_betas_are_refused(betas, match):
    net = compile_network(load_network("deterministic_pair"))
    with pytest.raises(ValueError, match=match):
        check_betas(betas)
    with pytest.raises(ValueError, match=match):
        tempering.run_chain(np.random.default_rng(0), net, [0, 0], 10**12, betas)  # refused before allocating
    with pytest.raises(ValueError, match=match):
        tempering.step(np.random.default_rng(0), net, tempering.init(net, [0, 0]), betas)


def test_bad_options_are_refused():
    net = compile_network(load_network("deterministic_pair"))
    for uniform in ("heuristic", "cmsgen", "fast"):
        with pytest.raises(ValueError, match=f"exact uniform draw .*got uniform='{uniform}'"):
            tempering.run_chain(np.random.default_rng(0), net, [0, 0], 5, uniform=uniform)
    state = tempering.TemperedState(np.zeros(2, np.int64), np.zeros((3, 2), np.int64))
    with pytest.raises(ValueError, match=r"replicas of shape \(3, 2\), but 4 betas"):
        tempering.step(np.random.default_rng(0), net, state)
    with pytest.raises(ValueError, match="n_draws must be >= 0"):
        tempering.run_chain(np.random.default_rng(0), net, [0, 0], -1)
    with pytest.raises(ValueError, match=r"beta must be in \(0, 1\]"):
        tempered_plan(prune_plans.prune_plan(net), 0.0)
    with pytest.raises(ValueError, match=r"beta_min must be in \(0, 1\)"):
        geometric_betas(4, 1.0)
    with pytest.raises(ValueError, match="n_replicas must be an integer >= 1"):
        geometric_betas(0, 0.2)


def test_geometric_ladder():
    betas = geometric_betas(4, 0.2)
    np.testing.assert_allclose(betas, [1.0, 0.2 ** (1 / 3), 0.2 ** (2 / 3), 0.2], rtol=1e-15)
    np.testing.assert_allclose(betas[1:] / betas[:-1], 0.2 ** (1 / 3), rtol=1e-14)
    assert check_betas(betas) is not betas and geometric_betas(1, 0.5).tolist() == [1.0]


# ------------------------------------------------------- the mixing variant
def test_mixing_variant_draws_as_many_and_records_the_swap_rates():
    from dataclasses import replace

    from prunelab.lab.experiments.large import LARGE_PROFILES, LargeRun, simulate_large_run

    profile = replace(LARGE_PROFILES["smoke"], mixing_chains=2, mixing_steps=400)
    record = simulate_large_run(LargeRun("mixing", "hailfinder", True, sampler="prune-tempered"), profile)
    assert record["n_chains"] == 2 and record["steps_per_chain"] == 400
    assert record["betas"] == DEFAULT_BETAS.tolist()
    rates = np.asarray(record["swap_acceptance"])
    assert rates.shape == (DEFAULT_BETAS.size - 1,) and ((rates > 0) & (rates < 1)).all()

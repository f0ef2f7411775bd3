"""Tempered prune sampling over circuit draws (``sample(bn, "prune-tempered", uniform="circuit")``).

Every replica draws from the same compiled circuit with its own pruning's weights.
Checked: a tempered replica's kernel makes the exact transitions at ``c^beta``; one
replica is plain prune with circuit draws, draw for draw; the numpy step and the
numba chain agree (draws, swaps and the cold chain's Rao-Blackwell terms to 1e-12);
past the counting plan (forced to refuse) ``"auto"`` reaches the circuit and the
draws and Rao-Blackwell estimates agree with the exact marginals within tolerances
from the ESS; the options it cannot take are refused by name.
"""

from __future__ import annotations

import numpy as np
import pytest

from prunelab import make_grid, sample
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals
from prunelab.samplers.prune import sampler as prune, tempered as tempering
from prunelab.samplers.prune.draws import circuit as prune_circuit
from prunelab.samplers.gibbs import state_offsets
from prunelab.samplers.init import initial_state
from prunelab.samplers.prune.ladder import tempered_plan
from prunelab.samplers.prune.draws.registry import UNIFORM_NAMES
from prunelab.samplers.prune.auto import draw_plan
from tests.helpers import (TEMPERING_CASES, Z_TOLERANCE, assert_tempered_transitions, effective_sample_size,
                           marginal_interval)

CIRCUIT = UNIFORM_NAMES.index("circuit")
LADDER = [1.0, 0.6, 0.3]


@pytest.mark.parametrize("case", list(TEMPERING_CASES))
def test_tempered_circuit_plan_moves_as_the_exact_tempered_matrix(case):
    """Prune's circuit kernel with :func:`tempered_plan` makes the transitions of the exact matrix at ``c^beta``."""
    bn, evidence = TEMPERING_CASES[case]
    net = compile_network(bn, evidence)
    plan = prune_circuit.plan(net)
    hot = tempered_plan(plan, 0.3)
    assert hot.circuit is plan.circuit and hot.pruning.random_label is plan.pruning.random_label  # one circuit for all betas
    np.testing.assert_allclose(hot.pruning.random_c, plan.pruning.random_c**0.3, rtol=0, atol=0)
    assert_tempered_transitions(net, hot, "circuit")


def test_one_replica_is_prune_with_circuit_draws_draw_for_draw():
    net = compile_network(*TEMPERING_CASES["blood_pressure|m_e"])
    ours = tempering.run_chain(np.random.default_rng(5), net, [1, 0, 1, 0, 1], 400, [1.0], "circuit")
    theirs = prune.run_chain(np.random.default_rng(5), net, [1, 0, 1, 0, 1], 400, "circuit")
    np.testing.assert_array_equal(ours.draws, theirs.draws)
    np.testing.assert_array_equal(ours.size, theirs.size)
    assert (ours.uniform_code == CIRCUIT).all() and ours.swapped.shape == (400, 0)


@pytest.mark.parametrize("case", list(TEMPERING_CASES))
def test_step_and_run_chain_agree_with_circuit_draws(case):
    """Draws, swaps and the cold replica's Rao-Blackwell terms: the numba chain equals the numpy steps."""
    net = compile_network(*TEMPERING_CASES[case])
    x0 = initial_state(np.random.default_rng(2), net)
    n = 40
    fast = tempering.run_chain(np.random.default_rng(3), net, x0, n, LADDER, "circuit",
                               rb_checkpoints=np.arange(1, n + 1))
    plain = tempering.run_chain(np.random.default_rng(3), net, x0, n, LADDER, "circuit")
    np.testing.assert_array_equal(fast.draws, plain.draws)  # the estimate consumes no random numbers
    terms = np.diff(np.vstack([np.zeros(fast.rb_sums.shape[1]), fast.rb_sums]), axis=0)
    state, rng = tempering.init(net, x0), np.random.default_rng(3)
    for t in range(n):
        state, info = tempering.step(rng, net, state, LADDER, "circuit")
        np.testing.assert_array_equal(state.x, fast.draws[t])
        np.testing.assert_array_equal(info.swapped, fast.swapped[t])
        assert info.uniform_code == CIRCUIT and info.size == pytest.approx(fast.size[t], rel=1e-12)
        np.testing.assert_allclose(terms[t], info.conditionals, rtol=0, atol=1e-12)
    assert (fast.swapped == 1).any()  # the swaps ran


def test_auto_resolves_to_count_where_the_tables_fit():
    net = compile_network(*TEMPERING_CASES["blood_pressure|m_e"])
    auto = tempering.run_chain(np.random.default_rng(4), net, [1, 0, 1, 0, 1], 200, LADDER, "auto")
    count = tempering.run_chain(np.random.default_rng(4), net, [1, 0, 1, 0, 1], 200, LADDER, "count")
    np.testing.assert_array_equal(auto.draws, count.draws)
    assert (auto.uniform_code == UNIFORM_NAMES.index("count")).all()


@pytest.fixture
def grid_past_the_tables(monkeypatch):
    """A 7 x 7 grid (90 %) with evidence, its exact marginals, and the tables forced to refuse for prune's plan."""
    import prunelab.elimination as elimination

    bn, evidence = make_grid(7, 0.9, seed=5), {"v_7_7": "T"}  # a seed no other test plans: nothing cached
    exact = exact_marginals(bn, evidence)
    monkeypatch.setattr(elimination, "MAX_CLIQUE_ENTRIES", 4)  # the counting plan does not fit now
    return bn, evidence, exact


def test_past_the_tables_auto_reaches_the_circuit_and_agrees_with_exact(grid_past_the_tables):
    """4 chains x 2,000 draws of ``sample(..., "prune-tempered", uniform="auto")``: the counting plan refuses, so
    every replica draws from the circuit; every state's frequency in the exact marginal's ``marginal_interval``
    (Z_TOLERANCE standard errors from the chains' ESS; visit counts for rare states), and the cold chain's Rao-Blackwell estimate within Z_TOLERANCE standard
    errors computed from its own per-step terms and their ESS."""
    bn, evidence, exact = grid_past_the_tables
    net = compile_network(bn, evidence)
    with pytest.raises(ValueError, match="MAX_CLIQUE_ENTRIES"):
        draw_plan(net, "count")
    n = 2000
    result = sample(bn, "prune-tempered", n, n_chains=4, evidence=evidence, seed=23, uniform="auto",
                    rb_checkpoints=np.arange(1, n + 1), traps="off")
    assert (result.stats["uniform_code"] == CIRCUIT).all()
    assert (result.stats["swapped"] == 1).any()
    draws = np.asarray(result.draws)
    terms = np.diff(np.concatenate([np.zeros((4, 1, result.rb_sums.shape[2])), result.rb_sums], axis=1), axis=1)
    offsets = state_offsets(net)
    failures = []
    for i, variable in enumerate(bn.variables):
        if variable in evidence:
            continue
        p = exact[variable][1]
        ess = effective_sample_size(draws[:, :, i], 2)
        low, high = marginal_interval(p, ess, draws.shape[0] * draws.shape[1])  # rare states: by visit counts
        if not low <= (draws[:, :, i] == 1).mean() <= high:
            failures.append(("draws", variable, p, (draws[:, :, i] == 1).mean(), ess))
        term = terms[:, :, offsets[i] + 1]
        if term.std() > 0:
            import arviz as az

            rb_ess = float(az.ess(term, method="mean"))
            if abs(term.mean() - p) > Z_TOLERANCE * term.std() / np.sqrt(rb_ess):
                failures.append(("rao_blackwell", variable, p, term.mean(), rb_ess))
        elif abs(term.mean() - p) > 1e-9:  # a constant term is exact or wrong
            failures.append(("rao_blackwell", variable, p, term.mean(), np.inf))
    assert not failures


def test_past_the_tables_the_solver_and_per_step_draws_are_refused_by_name(grid_past_the_tables):
    bn, evidence, _ = grid_past_the_tables
    net = compile_network(bn, evidence)
    x0 = initial_state(np.random.default_rng(0), net)
    for uniform in ("heuristic", "cmsgen", "unigen", "circuit-per-step"):
        with pytest.raises(ValueError, match=rf"one of \['enumerate', 'count', 'auto', 'circuit'\]; "
                                             rf"got uniform='{uniform}'"):
            tempering.run_chain(np.random.default_rng(0), net, x0, 5, LADDER, uniform)
        with pytest.raises(ValueError, match=f"got uniform='{uniform}'"):
            tempering.step(np.random.default_rng(0), net, tempering.init(net, x0), LADDER, uniform)
    with pytest.raises(ValueError, match="MAX_CLIQUE_ENTRIES"):  # count names the tables' refusal, not the circuit
        tempering.run_chain(np.random.default_rng(0), net, x0, 5, LADDER, "count")

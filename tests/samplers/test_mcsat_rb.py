"""MC-SAT with exact uniform draws and the Rao-Blackwell estimator: kernels, exact check, agreement, refusals.

With ``uniform="exact"`` MC-SAT's next state is uniform on ``M``, so
``E[1{X_i = s} | M]`` is the share of ``M``'s members with ``X_i = s``. The numba
chain's terms must equal the numpy reference step's ``conditionals`` to 1e-12; the
stationary expectation of the term, built from the clauses, must equal ``P(x | e)``
to 1e-12; the pooled estimate must agree with the exact marginals within
``Z_MULTI`` standard errors (the tolerance of :mod:`tests.test_gibbs_metropolis`).
"""

from __future__ import annotations

import numpy as np
import pytest

from prunelab import load_evidence, load_network, make_grid, random_evidence
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals
from prunelab.samplers import mcsat
from prunelab.samplers.gibbs import state_offsets
from prunelab.samplers.init import initial_state
from prunelab.sampling import sample
from prunelab.theory.rao_blackwell import mcsat_rao_blackwell_expectation, rao_blackwell_expectation
from tests.helpers import RB_EXACT_CASES, Z_MULTI, rao_blackwell_agreement

CHAIN_CASES = [
    ("blood_pressure", lambda bn: {"Measurement": "m_e"}),
    ("asia", lambda bn: {}),
    ("alarm", lambda bn: load_evidence("alarm")),
    ("grid-8x8", lambda bn: random_evidence(bn, 0.25, seed=7)),
]


@pytest.mark.parametrize("name,make_evidence", CHAIN_CASES, ids=[c[0] for c in CHAIN_CASES])
def test_numba_terms_equal_the_reference_step_by_step(name, make_evidence):
    bn = load_network(name)
    net = compile_network(bn, make_evidence(bn))
    x0 = initial_state(np.random.default_rng(11), net)
    n = 30
    fast = mcsat.run_chain(np.random.default_rng(5), net, x0, n, rb_checkpoints=np.arange(1, n + 1))
    plain = mcsat.run_chain(np.random.default_rng(5), net, x0, n)
    np.testing.assert_array_equal(fast.draws, plain.draws)  # the estimate draws no random number
    assert plain.rb_sums is None and fast.rb_checkpoints.tolist() == list(range(1, n + 1))
    terms = np.diff(np.vstack([np.zeros(fast.rb_sums.shape[1]), fast.rb_sums]), axis=0)
    state, rng = mcsat.init(net, x0), np.random.default_rng(5)
    sizes = set()
    for t in range(n):
        state, info = mcsat.step(rng, net, state)
        np.testing.assert_array_equal(state.x, fast.draws[t])
        np.testing.assert_allclose(terms[t], info.conditionals, rtol=0, atol=1e-12)
        assert abs(info.conditionals.sum() - net.n_variables) < 1e-12  # one distribution per variable
        sizes.add(info.size)
    assert len(sizes) > 1  # sets of several sizes: the terms are not all alike


def test_sample_records_the_same_sums_on_both_backends():
    bn, evidence = load_network("alarm"), load_evidence("alarm")
    cps = [10, 50, 120]
    fast = sample(bn, "mc-sat", 120, n_chains=2, evidence=evidence, seed=3, rb_checkpoints=cps, progress=False)
    slow = sample(bn, "mc-sat", 120, n_chains=2, evidence=evidence, seed=3, rb_checkpoints=cps, progress=False,
                  backend="numpy")
    np.testing.assert_array_equal(fast.draws, slow.draws)
    np.testing.assert_allclose(fast.rb_sums, slow.rb_sums, rtol=1e-12, atol=1e-12)
    name, value = next(iter(evidence.items()))  # evidence variables are one-hot in the sums
    block = fast.rb_sums[0, -1, fast.state_offsets[bn.index(name)]:fast.state_offsets[bn.index(name) + 1]]
    assert block.tolist() == [120.0 if s == value else 0.0 for s in bn.states[name]]


@pytest.mark.parametrize("key", list(RB_EXACT_CASES))
def test_stationary_expectation_of_the_term_is_the_posterior(key):
    make, evidence = RB_EXACT_CASES[key]
    bn = make()
    expectation, n_sets = mcsat_rao_blackwell_expectation(bn, evidence)
    exact = exact_marginals(bn, evidence)
    offsets = state_offsets(compile_network(bn, evidence))
    for i, v in enumerate(bn.variables):
        if v in exact:
            np.testing.assert_allclose(expectation[offsets[i]:offsets[i + 1]], exact[v], rtol=0, atol=1e-12)
    assert n_sets >= 3
    # MC-SAT's sets M are prune sampling's sets S: the same expectation, set for set
    prune_expectation, prune_sets = rao_blackwell_expectation(bn, evidence)
    np.testing.assert_allclose(expectation, prune_expectation, rtol=0, atol=1e-12)
    assert n_sets == prune_sets


def test_the_exact_check_can_fail():
    """The comparison is sharp: the expectation matches the posterior and not its states swapped."""
    bn = load_network("blood_pressure")
    expectation, _ = mcsat_rao_blackwell_expectation(bn, {"Measurement": "m_e"})
    exact = exact_marginals(bn, {"Measurement": "m_e"})
    assert abs(expectation[2:4] - exact["Lifestyle"]).max() < 1e-12
    assert abs(expectation[2:4][::-1] - exact["Lifestyle"]).max() > 0.1  # a swapped answer is caught


AGREEMENT_CASES = [
    ("asia", load_network("asia"), None, 4_000),
    ("alarm|25%", load_network("alarm"), load_evidence("alarm"), 8_000),
    ("grid-5x5", make_grid(5, seed=3), None, 4_000),
]


@pytest.mark.parametrize("case", AGREEMENT_CASES, ids=[c[0] for c in AGREEMENT_CASES])
def test_rao_blackwell_marginals_agree_with_exact(case):
    _, bn, evidence, n_draws = case
    exact = exact_marginals(bn, evidence)
    burn = n_draws // 5
    result = sample(bn, "mc-sat", n_draws, n_chains=16, evidence=evidence, seed=2017, rb_checkpoints=[burn, n_draws],
                    progress=False)
    z_max, spread = rao_blackwell_agreement(result, exact, burn, n_draws)
    assert z_max < Z_MULTI
    assert spread["rao_blackwell"] < spread["empirical"]  # the chains agree more closely with the estimator


@pytest.mark.parametrize("uniform", ["samplesat", "cmsgen", "unigen"])
def test_draws_that_are_not_exactly_uniform_are_refused_by_name(uniform):
    bn = load_network("blood_pressure")
    with pytest.raises(ValueError, match=f"uniform='{uniform}' has no Rao-Blackwell estimate"):
        sample(bn, "mc-sat", 10, seed=1, uniform=uniform, rb_checkpoints=[10], progress=False)
    net = compile_network(bn)
    x0 = initial_state(np.random.default_rng(0), net)
    with pytest.raises(ValueError, match=f"uniform='{uniform}' has no Rao-Blackwell estimate.*drop rb_checkpoints"):
        mcsat.run_chain(np.random.default_rng(0), net, x0, 10, uniform, rb_checkpoints=[10])
    plain = sample(bn, "mc-sat", 10, seed=1, progress=False, traps="off")
    with pytest.raises(ValueError, match="pass rb_checkpoints to sample"):
        plain.marginals("rao_blackwell")

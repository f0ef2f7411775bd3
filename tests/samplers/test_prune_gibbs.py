"""The interleaved prune + Gibbs sampler: its draws are blocks of the two kernels, and it targets P(x | e).

The contract (step = run_chain, evidence, feasibility, bad starts) is checked in
``tests/samplers/test_sampler_contract.py``, as for every registered sampler.
"""

import numpy as np
import pytest

import prunelab
from prunelab.compiled import compile_network
from prunelab.samplers import get_sampler, gibbs
from prunelab.samplers.prune import sampler as prune, with_gibbs as prune_gibbs
from prunelab.samplers.init import initial_state
from tests.helpers import EXACT, effective_sample_size, marginal_interval


def test_registered_under_its_name():
    assert get_sampler("prune+gibbs") is prune_gibbs


@pytest.mark.parametrize("prune_steps", [1, 3, 20])
def test_draws_are_blocks_of_prune_steps_then_one_sweep(prune_steps, rng):
    bn = prunelab.load_network("asia")
    net = compile_network(bn, {"xray": "yes"})
    x0 = initial_state(rng, net)
    n_draws = 2 * (prune_steps + 1) + 1  # two full blocks and one prune step
    out = prune_gibbs.run_chain(np.random.default_rng(5), net, x0, n_draws, prune_steps=prune_steps)
    # the same seed through the two kernels by hand: the chains are compared
    rng, x, expected = np.random.default_rng(5), x0, []
    while len(expected) < n_draws:
        block = prune.run_chain(rng, net, x, prune_steps).draws
        sweep = gibbs.run_chain(rng, net, block[-1], 1).draws
        expected += list(block) + list(sweep)
        x = sweep[-1]
    np.testing.assert_array_equal(out.draws, np.array(expected[:n_draws]))
    pattern = ([False] * prune_steps + [True]) * 2 + [False]
    assert out.sweep.tolist() == pattern
    assert np.isnan(out.size[out.sweep]).all() and (out.size[~out.sweep] >= 1).all()


def test_marginals_agree_with_the_exact_posterior():
    bn = prunelab.load_network("blood_pressure")
    evidence = {"Measurement": "m_e"}
    result = prunelab.sample(bn, "prune+gibbs", 4_000, n_chains=4, evidence=evidence, seed=11, traps="off",
                             prune_steps=3)
    exact = prunelab.exact_marginals(bn, evidence)
    for v, p in exact.items():
        column = result.draws[:, :, bn.index(v)]
        ess = effective_sample_size(column, p.size)
        estimate = np.bincount(column.ravel(), minlength=p.size) / column.size
        low, high = np.array([marginal_interval(q, ess, column.size) for q in p]).T  # rare states: by visit counts
        assert ((low - EXACT <= estimate) & (estimate <= high + EXACT)).all(), (v, estimate, p, low, high)
    assert result.stats["sweep"].sum() == 4 * (4_000 // 4)  # one sweep a block of 3 prune steps


@pytest.mark.parametrize(("prune_steps", "error", "match"), [
    (0, ValueError, "at least 1"),
    (-2, ValueError, "at least 1"),
    (2.5, TypeError, "must be an integer"),
    ("3", TypeError, "must be an integer"),
])
def test_a_bad_block_length_is_refused(prune_steps, error, match, rng):
    net = compile_network(prunelab.load_network("deterministic_pair"))
    with pytest.raises(error, match=match):
        prune_gibbs.run_chain(rng, net, [0, 0], 4, prune_steps=prune_steps)
    with pytest.raises(error, match=match):
        prune_gibbs.step(rng, net, prune_gibbs.init(net, [0, 0]), prune_steps=prune_steps)

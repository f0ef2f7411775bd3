"""Per-step Rao-Blackwell terms kept for a window of steps (``SampleResult.rao_blackwell_terms``).

The terms of the numba chain, recovered from consecutive running sums, must equal
the ``conditionals`` of the numpy reference step (``prune.step``) at the same
steps, to 1e-12; windows that were not recorded are refused with the
``rb_checkpoints`` to pass.
"""

from __future__ import annotations

import numpy as np
import pytest

from prunelab import load_evidence, load_network
from prunelab.compiled import compile_network
from prunelab.samplers.prune import sampler as prune
from prunelab.samplers.gibbs import state_offsets
from prunelab.sampling import sample

SEED = 31
"""The seed given to ``sample`` and used again to rebuild its chain's stream (the seed is what is tested)."""


def _reference_terms(bn, evidence, result, n):
    """The ``conditionals`` of ``n`` numpy reference steps from the result's start, with the chain's seed."""
    net = compile_network(bn, evidence)
    child = np.random.SeedSequence(SEED).spawn(1)[0]
    _, chain_seed = child.spawn(2)
    rng = np.random.default_rng(chain_seed)
    state = prune.init(net, result.initial_states[0])
    terms, draws = [], []
    for _ in range(n):
        state, info = prune.step(rng, net, state, "auto")
        terms.append(info.conditionals)
        draws.append(state.x)
    return net, np.array(terms), np.array(draws)


@pytest.mark.parametrize("name,evidence", [("blood_pressure", {"Measurement": "m_e"}),
                                           ("alarm", "frozen")])
def test_window_terms_are_the_reference_steps_conditionals(name, evidence):
    bn = load_network(name)
    evidence = load_evidence(name) if evidence == "frozen" else evidence
    n, t0 = 60, 35
    result = sample(bn, "prune", n, evidence=evidence, seed=SEED, progress=False,
                    rb_checkpoints=np.arange(t0, n + 1))
    net, reference, draws = _reference_terms(bn, evidence, result, n)
    np.testing.assert_array_equal(draws, result.draws[0])  # the same chain, step for step
    offsets = state_offsets(net)
    for i, v in enumerate(bn.variables):
        steps, terms = result.rao_blackwell_terms(v)
        np.testing.assert_array_equal(steps, np.arange(t0 + 1, n + 1))
        expected = reference[steps - 1, offsets[i]:offsets[i + 1]]
        np.testing.assert_allclose(terms[0], expected, rtol=0, atol=1e-12)
        np.testing.assert_allclose(terms.sum(axis=2), 1.0, rtol=0, atol=1e-12)
    assert (np.ptp(reference, axis=0) > 0.1).any()  # the terms vary from step to step: a real comparison


def test_windows_from_the_first_step_and_inside_the_recorded_run():
    bn = load_network("asia")
    cps = np.concatenate([[5, 10], np.arange(30, 41)])
    result = sample(bn, "prune", 40, seed=SEED, progress=False, rb_checkpoints=cps)
    steps, terms = result.rao_blackwell_terms("lung")
    assert steps.tolist() == list(range(31, 41)) and terms.shape == (1, 10, 2)
    steps, inner = result.rao_blackwell_terms("lung", window=(32, 35))
    assert steps.tolist() == [32, 33, 34, 35]
    np.testing.assert_array_equal(inner, terms[:, 1:5])
    total = result.rb_sums[0, -1, result.state_offsets[result.variables.index("lung")]:][:2]
    first = sample(bn, "prune", 40, seed=SEED, progress=False, rb_checkpoints=np.arange(1, 41))
    steps, all_terms = first.rao_blackwell_terms("lung")
    assert steps.tolist() == list(range(1, 41))
    np.testing.assert_allclose(all_terms[0].sum(axis=0), total, rtol=0, atol=1e-12)  # they add up to the sums


def test_windows_that_were_not_recorded_are_refused_with_what_to_pass():
    bn = load_network("asia")
    result = sample(bn, "prune", 40, seed=SEED, progress=False, rb_checkpoints=[5, 10, 20, 40])
    with pytest.raises(ValueError, match=r"rb_checkpoints=np.arange\(t0, t1 \+ 1\)"):
        result.rao_blackwell_terms("lung")
    with pytest.raises(ValueError, match=r"rb_checkpoints=np.arange\(10, 21\)"):
        result.rao_blackwell_terms("lung", window=(11, 20))
    with pytest.raises(ValueError, match="window must be"):
        result.rao_blackwell_terms("lung", window=(0, 20))
    with pytest.raises(KeyError, match="unknown variable"):
        result.rao_blackwell_terms("nope", window=(40, 40))
    plain = sample(bn, "prune", 10, seed=SEED, progress=False)
    with pytest.raises(ValueError, match="pass rb_checkpoints"):
        plain.rao_blackwell_terms("lung")

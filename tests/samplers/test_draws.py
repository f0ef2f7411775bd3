"""Every uniform draw of :data:`~prunelab.samplers.prune.draws.registry.DRAWS`, checked once against brute force.

A draw added to the registry is tested here without a test file of its own: on a pruning of a tiny network whose
pruned set ``S`` is listed by brute force (:func:`prunelab.theory.enumerate_pruned_set`), every draw lands in ``S``,
an exact draw is uniform on it (chi-square over the members), a draw that gives Rao-Blackwell terms gives ``S``'s
marginals, and a draw's module and plan have the shape the registry promises.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from prunelab import load_network
from prunelab.compiled import compile_network, state_labels
from prunelab.extras import MissingExtraError
from prunelab.samplers.gibbs import state_offsets
from prunelab.samplers.init import initial_state
from prunelab.samplers.prune.auto import draw_plan
from prunelab.samplers.prune.draws.api import uniform_pruned_state
from prunelab.samplers.prune.draws.registry import DRAWS, UNIFORM_NAMES, pruned_draw, uniform_index
from prunelab.samplers.prune.plan import Pruning, prune_plan
from prunelab.samplers.prune.pruning import prune_around
from prunelab.samplers.prune.rao_blackwell import pruned_set_marginals
from prunelab.samplers.prune.sampler import drawn_marginals
from prunelab.theory import enumerate_pruned_set
from tests.helpers import CHI2_LEVEL, EXACT

DRAWS_PER_MEMBER = 150
"""Draws per member of ``S`` for the chi-square test of an exact draw (expected count 150 per cell)."""


@pytest.fixture(scope="module")
def pruning_case():
    """Asia with evidence and a pruning around a feasible state that leaves 3 to 8 states (seeds searched in turn)."""
    net = compile_network(load_network("asia"), {"xray": "yes"})
    x = initial_state(np.random.default_rng(0), net)
    for seed in range(100):
        kept = prune_around(np.random.default_rng(seed), net, x) & (net.cpt > 0)
        members = enumerate_pruned_set(net, kept)
        if 3 <= len(members) <= 8:
            return net, x, kept, members
    raise AssertionError("no pruning of asia leaves 3 to 8 states")


def _plan(net, name):
    try:
        return draw_plan(net, name)[1]
    except MissingExtraError as exc:
        pytest.skip(str(exc))


def _draw(rng, net, x, kept, name, plan):
    """One draw of ``name`` from the pruned set ``kept`` leaves (the readable reference)."""
    if DRAWS[name].module is None:
        y, _, _ = uniform_pruned_state(rng, net, kept, x, uniform=name, plan=plan.uniform)
        return y
    y, _ = pruned_draw(name).draw(rng, net, x, kept, plan)
    return y


def test_the_codes_are_the_positions_in_the_registry():
    assert UNIFORM_NAMES == tuple(DRAWS)
    assert [uniform_index(name) for name in DRAWS] == list(range(len(DRAWS)))
    with pytest.raises(ValueError, match="unknown uniform draw 'nope'.*enumerate"):
        uniform_index("nope")


@pytest.mark.parametrize("name", list(DRAWS))
def test_a_draw_is_where_the_registry_says(name, pruning_case):
    net = pruning_case[0]
    draw = DRAWS[name]
    plan = _plan(net, name)
    assert isinstance(plan.pruning, Pruning)
    assert set(plan.pruning.random_label.tolist()) >= set(prune_plan(net).pruning.random_label.tolist())
    if draw.module is None:
        assert plan is prune_plan(net) or name == "auto"
        with pytest.raises(ValueError, match="no module"):
            pruned_draw(name)
    else:
        module = pruned_draw(name)
        assert module.__name__ == draw.module
        assert all(callable(getattr(module, f, None)) for f in ("plan", "draw", "run_chain"))
        assert callable(getattr(module, "marginals", None)) == draw.rao_blackwell
    assert not (draw.tempered and not draw.exact)  # tempering keeps P(x | e) only with exact draws


@pytest.mark.parametrize("name", list(DRAWS))
def test_every_draw_lands_in_the_pruned_set_and_an_exact_one_is_uniform(name, pruning_case, rng):
    net, x, kept, members = pruning_case
    plan = _plan(net, name)
    index = {tuple(m): k for k, m in enumerate(members.tolist())}
    n = DRAWS_PER_MEMBER * len(members) if DRAWS[name].exact else 40
    counts = np.zeros(len(members))
    for _ in range(n):
        y = _draw(rng, net, x, kept, name, plan)
        assert kept[state_labels(net, y)].all(), f"{name} drew {y.tolist()}, outside S"
        counts[index[tuple(y.tolist())]] += 1
    if DRAWS[name].exact:
        assert stats.chisquare(counts).pvalue > CHI2_LEVEL, (name, counts.tolist())


@pytest.mark.parametrize("name", [name for name, draw in DRAWS.items() if draw.rao_blackwell])
def test_a_rao_blackwell_draw_gives_the_pruned_sets_marginals(name, pruning_case):
    net, _, kept, members = pruning_case
    plan = _plan(net, name)
    offsets = state_offsets(net)
    expected = np.zeros(int(offsets[-1]))
    for i in range(net.n_variables):
        expected[offsets[i]:offsets[i + 1]] = np.bincount(members[:, i], minlength=net.cardinality[i]) / len(members)
    if DRAWS[name].module is None:
        got = pruned_set_marginals(net, plan.uniform, kept)
    else:
        got = drawn_marginals(name, net, kept, plan)
    np.testing.assert_allclose(got, expected, rtol=0, atol=EXACT * 1e3)

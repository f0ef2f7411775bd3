"""Prune sampling with solution-sampler draws: ``uniform="cmsgen"`` and ``uniform="unigen"``.

Each sampler's tests are skipped when its package (the extra ``solvers``) is
missing; the missing-package error is tested without them. Draws are members of
the pruned set (all their labels kept, the evidence kept); a chain is reproducible
from its seed, and ``prune.step`` and ``prune.run_chain`` agree draw for draw;
UniGen's draw passes a chi-square against uniform on a small pruned set. CMSGen's
draw does not: it is measurably biased there (about 0.12 in total variation on
Asia's 32 feasible states with evidence, ``benchmarks/bench_solver_draws.py``), so
its test asserts that bias (the chi-square rejects uniformity) and a bound on it.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from scipy import stats

from prunelab import load_network, random_evidence
from prunelab.clauses import satisfied_clauses
from prunelab.compiled import compile_network, state_labels
from prunelab.samplers.prune import sampler as prune, plan as prune_plans
from prunelab.samplers.init import initial_state
from prunelab.samplers.prune.draws.registry import DRAWS, pruned_draw
from prunelab.extras import MissingExtraError
from prunelab.samplers.prune.draws.solver import NO_MODEL
from prunelab.samplers.prune.draws.api import enumerate_pruned_states
from prunelab.samplers.prune.pruning import prune_around
from prunelab.samplers.prune.draws.registry import UNIFORM_NAMES
from tests.helpers import CHI2_LEVEL

PACKAGES = {"cmsgen": "pycmsgen", "unigen": "pyunigen"}
ASIA = ("asia", {"xray": "yes", "dysp": "no"})

CMSGEN_MAX_TV = 0.15
"""Measured bias bound of CMSGen's draw on Asia with evidence, nothing pruned: total variation from uniform.

``bench_solver_draws.py`` measured 0.116 with 20,000 draws (an exact uniform draw shows 0.016 there)."""


@pytest.fixture(params=list(PACKAGES))
def sampler(request):
    pytest.importorskip(PACKAGES[request.param])
    return request.param


def _net(name, evidence):
    bn = load_network(name)
    if evidence == "random":
        evidence = random_evidence(bn, 0.25, seed=3)
    return compile_network(bn, evidence)


def test_both_are_registered_as_near_uniform_draws():
    assert {"cmsgen", "unigen"} <= set(UNIFORM_NAMES)
    assert not DRAWS["cmsgen"].exact and not DRAWS["unigen"].exact
    assert DRAWS["cmsgen"].mcsat and DRAWS["unigen"].mcsat and DRAWS["cmsgen"].module is not None


@pytest.mark.parametrize("name,evidence", [("block_chain", None), ("alarm", "random"), ASIA])
def test_draws_are_members_of_the_pruned_set(sampler, name, evidence, rng):
    """All labels of a draw survived the pruning and the evidence is kept: the definition of ``S``."""
    net = _net(name, evidence)
    module = pruned_draw(sampler)
    plan = module.plan(net)
    x = initial_state(rng, net)
    observed = net.evidence_value >= 0
    moved = 0
    for _ in range(15):
        kept = prune_around(rng, net, x, plan)
        for _ in range(3):
            y, size = module.draw(rng, net, x, kept, plan)
            assert y.dtype == np.int64 and y.shape == x.shape
            assert kept[state_labels(net, y)].all()
            assert (y[observed] == net.evidence_value[observed]).all()
            assert np.isnan(size)
            moved += int((y != x).any())
        x = y
    assert moved > 0


def test_a_chain_is_reproducible_from_its_seed_and_step_equals_run_chain(sampler, rng):
    net = _net("block_chain", None)
    x0 = initial_state(rng, net)
    # the seeds are what is tested: equal seeds, equal chains; another seed, another chain
    out = prune.run_chain(np.random.default_rng(7), net, x0, 30, sampler)
    again = prune.run_chain(np.random.default_rng(7), net, x0, 30, sampler)
    other = prune.run_chain(np.random.default_rng(8), net, x0, 30, sampler)
    np.testing.assert_array_equal(out.draws, again.draws)
    assert (out.draws != other.draws).any()
    assert np.isnan(out.size).all() and (out.uniform_code == UNIFORM_NAMES.index(sampler)).all()
    rng, state = np.random.default_rng(7), prune.init(net, x0)
    for t in range(30):
        state, info = prune.step(rng, net, state, sampler)
        np.testing.assert_array_equal(state.x, out.draws[t])
        assert np.isnan(info.size) and info.uniform_name == sampler


def _uniformity(sampler, n_draws, rng):
    """Frequencies of ``n_draws`` draws with nothing pruned on Asia with evidence (``S`` = its feasible states)."""
    net = _net(*ASIA)
    module = pruned_draw(sampler)
    plan = module.plan(net)
    kept = net.cpt > 0.0
    members = enumerate_pruned_states(net, kept)
    radix = np.cumprod(np.r_[1, net.cardinality[:0:-1]])[::-1]
    keys = members @ radix
    order = np.argsort(keys)
    x = members[0]
    ys = np.array([module.draw(rng, net, x, kept, plan)[0] for _ in range(n_draws)])
    index = np.searchsorted(keys[order], ys @ radix)
    assert (keys[order][index] == ys @ radix).all()
    return np.bincount(index, minlength=len(members))


def test_unigen_draws_uniformly_on_a_small_pruned_set(rng):
    pytest.importorskip("pyunigen")
    counts = _uniformity("unigen", 3000, rng)
    assert len(counts) == 32
    assert stats.chisquare(counts).pvalue > CHI2_LEVEL


def test_cmsgen_is_measurably_biased_on_a_small_pruned_set_within_its_measured_bound(rng):
    pytest.importorskip("pycmsgen")
    n = 4000
    counts = _uniformity("cmsgen", n, rng)
    k = len(counts)
    assert stats.chisquare(counts).pvalue < CHI2_LEVEL  # the bias shows at this sample size
    total_variation = 0.5 * np.abs(counts / n - 1 / k).sum()
    noise = 0.5 * np.sqrt(k / n)  # E[TV(empirical, q)] <= 0.5 * sum sqrt(q_i / n) <= 0.5 sqrt(k / n)
    assert total_variation < CMSGEN_MAX_TV + noise
    assert (counts > 0).all()  # every member reachable: the chain stays irreducible


def test_cmsgen_out_of_its_limit_keeps_the_state_and_says_so(rng):
    pytest.importorskip("pycmsgen")
    net = _net("block_chain", None)
    x0 = initial_state(rng, net)
    plan = pruned_draw("cmsgen").plan(net)._replace(confl_limit=0)  # gives up at once: no model
    out = prune.run_chain(rng, net, x0, 5, "cmsgen", plan=plan)
    assert (out.draws == x0).all() and (out.size == NO_MODEL).all()
    normal = prune.run_chain(rng, net, x0, 5, "cmsgen")
    assert np.isnan(normal.size).all()


def test_a_pruning_of_the_current_state_is_refused_before_the_solver_runs(sampler, rng):
    """S would be empty; pyunigen would end the process on the unsatisfiable CNF."""
    net = _net("block_chain", None)
    x = initial_state(rng, net)
    module = pruned_draw(sampler)
    kept = net.cpt > 0.0
    kept[state_labels(net, x)[0]] = False
    with pytest.raises(ValueError, match=r"prunes labels \[\d+\] of the current state x"):
        module.draw(rng, net, x, kept, module.plan(net))
    with pytest.raises(ValueError, match="one entry per label"):
        module.draw(rng, net, x, kept[:-1], module.plan(net))


@pytest.mark.parametrize("name", list(PACKAGES))
def test_a_missing_package_is_refused_naming_the_extra(monkeypatch, name, rng):
    monkeypatch.setitem(sys.modules, PACKAGES[name], None)  # import raises ImportError
    net = _net("deterministic_pair", None)
    message = rf"uniform='{name}' needs the package {PACKAGES[name]}.*pip install 'prunelab\[solvers\]'"
    with pytest.raises(MissingExtraError, match=message):
        pruned_draw(name).plan(net)
    with pytest.raises(MissingExtraError, match=message):
        prune.run_chain(rng, net, [0, 0], 3, name)


@pytest.mark.parametrize("name,evidence", [("block_chain", None), ASIA])
def test_mcsat_with_solver_draws_draws_from_the_kept_clauses_models(sampler, name, evidence, rng):
    """MC-SAT's ``M`` is prune sampling's ``S`` for the same pruning; every draw lies in it.

    The solver's plan (no counting tables) draws a number for every soft clause ``x`` satisfies, also for labels no
    consistent state uses (with evidence: the labels that contradict it), where prune sampling draws none: for one
    seed the two streams part there and the prunings differ. So ``M`` is compared with ``S`` of MC-SAT's own kept
    labels, and the equal-seed comparison with :func:`prune_around` uses the exact plan, whose random
    labels are prune sampling's (asserted).
    """
    from prunelab.samplers import mcsat

    net = _net(name, evidence)
    plan, exact_plan, counting = mcsat.mcsat_plan(net, sampler), mcsat.mcsat_plan(net), prune_plans.prune_plan(net)
    np.testing.assert_array_equal(exact_plan.clauses.label[exact_plan.random_clause], counting.pruning.random_label)
    feasible = enumerate_pruned_states(net, net.cpt > 0)  # every state with P(x, e) > 0: M holds no other
    x = initial_state(rng, net)
    for seed in range(5):  # equal seeds below: MC-SAT's selection and prune sampling's pruning are compared
        kept, label_kept = mcsat.select_clauses(np.random.default_rng(seed), net, x, plan)
        models = feasible[satisfied_clauses(plan.clauses, feasible)[:, kept].all(axis=1)]  # M by brute force
        np.testing.assert_array_equal(models, enumerate_pruned_states(net, label_kept & (net.cpt > 0)))
        _, exact_label_kept = mcsat.select_clauses(np.random.default_rng(seed), net, x, exact_plan)
        pruned = prune_around(np.random.default_rng(seed), net, x, counting)
        same = enumerate_pruned_states(net, exact_label_kept & (net.cpt > 0)), enumerate_pruned_states(net, pruned)
        np.testing.assert_array_equal(*same)  # the same pruned set, whatever labels no state uses
        state, info = mcsat.step(np.random.default_rng(seed), net, mcsat.init(net, x), sampler)
        assert label_kept[state_labels(net, state.x)].all() and np.isnan(info.size)
        x = state.x
    out = mcsat.run_chain(np.random.default_rng(7), net, x, 12, sampler)  # equal seeds: run_chain against step
    rng, state = np.random.default_rng(7), mcsat.init(net, x)
    for t in range(12):
        state, _ = mcsat.step(rng, net, state, sampler)
        np.testing.assert_array_equal(state.x, out.draws[t])

"""Rao-Blackwellised prune sampling: kernels against references, the exact stationary check, agreement, refusals.

The statistical test uses the tolerance of :mod:`tests.test_gibbs_metropolis`:
the standard error of a pooled estimate from 16 independent chains, each chain's
mean after a burn-in of a fifth, and ``|error| / SE < Z_MULTI``.
"""

from __future__ import annotations

import numpy as np
import pytest

from prunelab import load_evidence, load_network, make_grid, random_evidence
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals
from prunelab.samplers.prune import sampler as prune, plan as prune_plans, tempered as tempering
from prunelab.samplers.gibbs import state_offsets
from prunelab.samplers.init import initial_state
from prunelab.samplers.prune.rao_blackwell import pruned_set_marginals
from prunelab.sampling import sample
from prunelab.theory import enumerate_pruned_set
from prunelab.theory.rao_blackwell import rao_blackwell_expectation
from prunelab.samplers.prune.pruning import prune_around
from tests.helpers import RB_EXACT_CASES, Z_MULTI, rao_blackwell_agreement

CHAIN_CASES = [
    ("blood_pressure", lambda bn: {"Measurement": "m_e"}),
    ("asia", lambda bn: {}),
    ("alarm", lambda bn: load_evidence("alarm")),
    ("grid-8x8", lambda bn: random_evidence(bn, 0.25, seed=7)),
]


def _case(name, make_evidence, rng):
    bn = load_network(name)
    net = compile_network(bn, make_evidence(bn))
    return bn, net, initial_state(rng, net)


# ------------------------------------------------------------------ one pruned set, exactly
def test_marginals_of_a_given_pruned_set_are_the_members_shares(rng):
    """Force a pruning, list its set by brute force, and compare both references and the kernel path."""
    bn = load_network("blood_pressure")
    net = compile_network(bn)
    plan = prune_plans.prune_plan(net)
    offsets = state_offsets(net)
    x = initial_state(rng, net)
    seen_sizes = set()
    for _ in range(40):
        kept = prune_around(rng, net, x, plan)
        members = enumerate_pruned_set(net, kept)
        seen_sizes.add(len(members))
        expected = np.concatenate([np.bincount(members[:, i], minlength=net.cardinality[i]) / len(members)
                                   for i in range(net.n_variables)])
        for method in ("count", "enumerate"):
            np.testing.assert_allclose(pruned_set_marginals(net, plan.uniform, kept, method), expected, atol=1e-14)
        x = members[rng.integers(len(members))]
    assert len(seen_sizes) > 3  # the prunings gave sets of several sizes
    assert offsets[-1] == expected.size


def test_the_circuit_outward_pass_gives_the_same_marginals(rng):
    """On random prunings of alarm, the circuit's outward pass and the counting pass agree to 1e-12."""
    from prunelab.samplers.prune.draws import circuit as prune_circuit

    bn = load_network("alarm")
    net = compile_network(bn, load_evidence("alarm"))
    plan, circuit_plan = prune_plans.prune_plan(net), prune_circuit.plan(net)
    x = initial_state(rng, net)
    for _ in range(20):
        kept = prune_around(rng, net, x, plan)
        counted = pruned_set_marginals(net, plan.uniform, kept)
        np.testing.assert_allclose(prune_circuit.marginals(net, kept, circuit_plan), counted, rtol=0, atol=1e-12)
        x = prune.step(rng, net, prune.init(net, x), "count", plan=plan)[0].x


def test_an_empty_set_and_a_bad_method_are_refused():
    net = compile_network(load_network("deterministic_pair"))
    plan = prune_plans.prune_plan(net).uniform
    with pytest.raises(ValueError, match="pruned set is empty"):
        pruned_set_marginals(net, plan, np.zeros(net.n_labels, dtype=bool))
    with pytest.raises(ValueError, match="unknown method 'heuristic'"):
        pruned_set_marginals(net, plan, np.ones(net.n_labels, dtype=bool), "heuristic")


# ------------------------------------------------------------------ numba == numpy
@pytest.mark.parametrize("uniform", ["count", "enumerate", "auto", "circuit"])
@pytest.mark.parametrize("name,make_evidence", CHAIN_CASES, ids=[c[0] for c in CHAIN_CASES])
def test_numba_sums_equal_the_reference_step_by_step(name, make_evidence, uniform, rng):
    """Every step's Rao-Blackwell term of ``run_chain`` equals ``step``'s ``conditionals`` to 1e-12."""
    _, net, x0 = _case(name, make_evidence, rng)
    n = 30  # equal seeds below: the kernel's sums, the plain chain and the numpy steps are compared
    fast = prune.run_chain(np.random.default_rng(5), net, x0, n, uniform, rb_checkpoints=np.arange(1, n + 1))
    plain = prune.run_chain(np.random.default_rng(5), net, x0, n, uniform)
    np.testing.assert_array_equal(fast.draws, plain.draws)  # the estimate consumes no random numbers
    terms = np.diff(np.vstack([np.zeros(fast.rb_sums.shape[1]), fast.rb_sums]), axis=0)
    state, rng = prune.init(net, x0), np.random.default_rng(5)
    for t in range(n):
        state, info = prune.step(rng, net, state, uniform)
        np.testing.assert_array_equal(state.x, fast.draws[t])
        np.testing.assert_allclose(terms[t], info.conditionals, rtol=0, atol=1e-12)
        assert abs(info.conditionals.sum() - net.n_variables) < 1e-12  # one distribution per variable


@pytest.mark.parametrize("name,make_evidence", CHAIN_CASES[2:], ids=[c[0] for c in CHAIN_CASES[2:]])
def test_sparse_and_full_counting_programs_give_the_same_sums(name, make_evidence, rng):
    _, net, x0 = _case(name, make_evidence, rng)
    plan = prune_plans.prune_plan(net)
    assert plan.count is not None
    cps = [10, 50]  # equal seeds below: the three programs' chains are compared
    sparse = prune.run_chain(np.random.default_rng(2), net, x0, 50, "count", plan=plan, rb_checkpoints=cps)
    full = prune.run_chain(np.random.default_rng(2), net, x0, 50, "count", plan=plan._replace(count=None),
                           rb_checkpoints=cps)
    no_gather_ptr = np.zeros_like(plan.uniform.gather_ptr)
    no_gather_ptr.setflags(write=False)  # read-only as the plan's own arrays: numba compiles no second signature
    no_gather = plan.uniform._replace(gather_ptr=no_gather_ptr)  # every step by strides
    strided = prune.run_chain(np.random.default_rng(2), net, x0, 50, "count",
                              plan=plan._replace(count=None, uniform=no_gather), rb_checkpoints=cps)
    for other in (full, strided):
        np.testing.assert_array_equal(sparse.draws, other.draws)
        np.testing.assert_allclose(sparse.rb_sums, other.rb_sums, rtol=0, atol=1e-12)


def test_sample_records_the_same_sums_on_both_backends():
    bn = load_network("asia")
    kw = dict(n_chains=2, evidence={"xray": "yes"}, seed=3, rb_checkpoints=[5, 40], uniform="auto", traps="off")
    fast = sample(bn, "prune", 40, **kw)
    slow = sample(bn, "prune", 40, backend="numpy", **kw)
    np.testing.assert_array_equal(fast.draws, slow.draws)
    np.testing.assert_allclose(fast.rb_sums, slow.rb_sums, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(fast.running_marginals("xray", estimator="rao_blackwell")[:, :, 0], 1.0)


@pytest.mark.parametrize("name,make_evidence,uniform", [(*CHAIN_CASES[0], "enumerate"), (*CHAIN_CASES[1], "enumerate"),
                                                         (*CHAIN_CASES[2], "count")], ids=["bp", "asia", "alarm"])
def test_tempered_cold_chain_sums_equal_the_reference(name, make_evidence, uniform, rng):
    """prune-tempered records the cold replica's terms; numba and the numpy step agree to 1e-12."""
    _, net, x0 = _case(name, make_evidence, rng)
    n = 20  # equal seeds below: the kernel's sums, the plain chain and the numpy steps are compared
    fast = tempering.run_chain(np.random.default_rng(8), net, x0, n, uniform=uniform,
                               rb_checkpoints=np.arange(1, n + 1))
    plain = tempering.run_chain(np.random.default_rng(8), net, x0, n, uniform=uniform)
    np.testing.assert_array_equal(fast.draws, plain.draws)
    terms = np.diff(np.vstack([np.zeros(fast.rb_sums.shape[1]), fast.rb_sums]), axis=0)
    state, rng = tempering.init(net, x0), np.random.default_rng(8)
    for t in range(n):
        state, info = tempering.step(rng, net, state, uniform=uniform)
        np.testing.assert_array_equal(state.x, fast.draws[t])
        np.testing.assert_allclose(terms[t], info.conditionals, rtol=0, atol=1e-12)


# ------------------------------------------------------------------ exact: the stationary mean is P(x | e)


@pytest.mark.parametrize("key", list(RB_EXACT_CASES))
def test_stationary_expectation_of_the_term_is_the_posterior(key):
    make, evidence = RB_EXACT_CASES[key]
    bn = make()
    expectation, n_sets = rao_blackwell_expectation(bn, evidence)
    exact = exact_marginals(bn, evidence)
    offsets = state_offsets(compile_network(bn, evidence))
    for i, v in enumerate(bn.variables):
        if v in exact:
            np.testing.assert_allclose(expectation[offsets[i]:offsets[i + 1]], exact[v], rtol=0, atol=1e-12)
    assert n_sets >= 3


def test_the_exact_check_can_fail():
    """The comparison is sharp: the expectation matches the posterior and not its states swapped."""
    bn = load_network("blood_pressure")
    expectation, _ = rao_blackwell_expectation(bn, {"Measurement": "m_e"})
    exact = exact_marginals(bn, {"Measurement": "m_e"})
    assert abs(expectation[2:4] - exact["Lifestyle"]).max() < 1e-12
    assert abs(expectation[2:4][::-1] - exact["Lifestyle"]).max() > 0.1  # a swapped answer is caught


# ------------------------------------------------------------------ statistical agreement
AGREEMENT_CASES = [
    ("blood_pressure|m_e", load_network("blood_pressure"), {"Measurement": "m_e"}, 4_000),
    ("asia", load_network("asia"), None, 4_000),
    ("alarm|25%", load_network("alarm"), load_evidence("alarm"), 10_000),
    ("grid-5x5", make_grid(5, seed=3), None, 4_000),
]


@pytest.mark.parametrize("sampler,uniform", [("prune", "auto"), ("prune-tempered", "count")])
@pytest.mark.parametrize("case", AGREEMENT_CASES, ids=[c[0] for c in AGREEMENT_CASES])
def test_rao_blackwell_marginals_agree_with_exact(case, sampler, uniform):
    _, bn, evidence, n_draws = case
    exact = exact_marginals(bn, evidence)
    burn = n_draws // 5
    result = sample(bn, sampler, n_draws, n_chains=16, evidence=evidence, seed=2017, uniform=uniform,
                    rb_checkpoints=[burn, n_draws])
    z_max, spread = rao_blackwell_agreement(result, exact, burn, n_draws)
    assert z_max < Z_MULTI
    assert spread["rao_blackwell"] < spread["empirical"]  # the chains agree more closely with the estimator


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize("uniform", ["heuristic", "cmsgen", "unigen", "circuit-per-step"])
def test_methods_without_the_estimate_are_refused_by_name(uniform, rng):
    bn = load_network("blood_pressure")
    with pytest.raises(ValueError, match=f"uniform='{uniform}' has no Rao-Blackwell estimate"):
        sample(bn, "prune", 10, seed=1, uniform=uniform, rb_checkpoints=[10])
    net = compile_network(bn)
    with pytest.raises(ValueError, match=f"uniform='{uniform}' has no Rao-Blackwell estimate"):
        prune.run_chain(rng, net, [0, 0, 0, 0, 0], 10, uniform, rb_checkpoints=[10])


def test_asking_a_result_without_sums_names_the_reason():
    bn = load_network("blood_pressure")
    heuristic = sample(bn, "prune", 10, seed=1, uniform="heuristic", traps="off")
    with pytest.raises(ValueError, match="uniform='heuristic' has no Rao-Blackwell estimate"):
        heuristic.marginals("rao_blackwell")
    counted = sample(bn, "prune", 10, seed=1, uniform="count", traps="off")
    with pytest.raises(ValueError, match="pass rb_checkpoints to sample"):
        counted.running_marginals("Kidney", estimator="rao_blackwell")
    with pytest.raises(ValueError, match="'metropolis' has no Rao-Blackwell estimate; drop rb_checkpoints"):
        sample(bn, "metropolis", 10, seed=1, rb_checkpoints=[10])

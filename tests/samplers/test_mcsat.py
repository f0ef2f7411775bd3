"""MC-SAT on the CPT labels is prune sampling: exactly (transition matrices), and draw for draw.

The equivalence is checked on every network where the book computes an exact
transition matrix (the chapter "Prune sampling: the algorithm", and the cases of
``tests/core/test_theory.py``): MC-SAT's matrix, computed from the weighted clauses
alone, equals prune sampling's to 1e-12. SampleSAT's kernel is checked on forced
decisions (a unique solution; a budget too small to find one).
"""

from __future__ import annotations

import numpy as np
import pytest

import prunelab
from prunelab import load_network, make_grid
from prunelab.clauses import network_clauses, satisfied_weight
from prunelab.compiled import compile_network
from prunelab.samplers import mcsat
from prunelab.samplers.prune import sampler as prune, plan as prune_plans
from prunelab.samplers.init import initial_state
from prunelab.samplers.mcsat import mcsat_plan, select_clauses
from prunelab.samplers.samplesat import samplesat_nb, samplesat_py, samplesat_workspace
from prunelab.theory import clause_states, feasible_states, mcsat_transition_matrix, prune_transition_matrix
from prunelab.samplers.prune.pruning import prune_around
from tests.helpers import EXACT


MATRIX_CASES = {
    "deterministic_pair": (lambda: load_network("deterministic_pair"), None),
    "block_chain-3": (lambda: load_network("block_chain", n=3), None),
    "blood_pressure": (lambda: load_network("blood_pressure"), None),
    "blood_pressure|m_e": (lambda: load_network("blood_pressure"), {"Measurement": "m_e"}),
    "blood_pressure|l_g,m_n": (lambda: load_network("blood_pressure"), {"Lifestyle": "l_g", "Measurement": "m_n"}),
    "grid-3x3(seed 5)": (lambda: make_grid(3, seed=5), None),
    "grid-3x3|e": (lambda: load_network("grid-3x3"), {"v_2_2": "F", "v_3_1": "F", "v_3_2": "T"}),
    "grid-3x3|first row": (lambda: load_network("grid-3x3"), {"v_1_1": "T", "v_1_2": "T", "v_1_3": "T"}),
    "grid-3x3": (lambda: load_network("grid-3x3"), None),  # k = 64: a few seconds each
}
SMALL = ["deterministic_pair", "block_chain-3", "blood_pressure", "blood_pressure|m_e", "grid-3x3|first row"]

CHAIN_CASES = {
    "pair": ("deterministic_pair", None),
    "blood_pressure|m_e": ("blood_pressure", {"Measurement": "m_e"}),
    "asia|xray,dysp": ("asia", {"xray": "yes", "dysp": "no"}),
    "block_chain": ("block_chain", None),
}


def _chain_case(key):
    name, evidence = CHAIN_CASES[key]
    net = compile_network(load_network(name), evidence)
    return net, initial_state(np.random.default_rng(7), net)


@pytest.mark.parametrize("key", list(MATRIX_CASES))
def test_mcsat_matrix_equals_prune_matrix(key):
    make, evidence = MATRIX_CASES[key]
    bn = make()
    clauses = network_clauses(compile_network(bn, evidence))
    states, R = mcsat_transition_matrix(clauses)
    prune_states, Q = prune_transition_matrix(bn, evidence)
    assert states.tolist() == prune_states.tolist()
    assert np.abs(R - Q).max() < EXACT
    # MC-SAT's target exp(sum of satisfied w) / Z is the posterior
    _, p_clauses = clause_states(clauses)
    _, p = feasible_states(bn, evidence)
    assert np.abs(p_clauses - p).max() < EXACT
    assert np.abs(p @ R - p).max() < EXACT


@pytest.mark.parametrize("key", SMALL)
def test_mcsat_rows_follow_the_definition(key):
    """Row by row (clauses x violates are never kept) equals the joint programme."""
    make, evidence = MATRIX_CASES[key]
    clauses = network_clauses(compile_network(make(), evidence))
    _, R = mcsat_transition_matrix(clauses)
    _, R_rows = mcsat_transition_matrix(clauses, method="rows")
    assert np.abs(R - R_rows).max() < EXACT


def test_mcsat_matrix_beyond_the_kernel_uses_the_reference_programme():
    """asia with two findings: 32 states; without evidence 128 > 64 runs the dict programme."""
    bn = load_network("asia")
    evidence = {"xray": "yes", "dysp": "no", "smoke": "yes"}
    clauses = network_clauses(compile_network(bn, evidence))
    _, R = mcsat_transition_matrix(clauses)
    _, Q = prune_transition_matrix(bn, evidence)
    assert np.abs(R - Q).max() < EXACT


def test_unknown_matrix_method_is_refused():
    clauses = network_clauses(compile_network(load_network("deterministic_pair")))
    with pytest.raises(ValueError, match="unknown method 'brute'"):
        mcsat_transition_matrix(clauses, method="brute")


@pytest.mark.parametrize("key", list(CHAIN_CASES))
def test_clause_selection_is_the_pruning(key):
    """Kept clause "not l" <=> label l pruned, with the same random numbers."""
    net, x0 = _chain_case(key)
    states = prune.run_chain(np.random.default_rng(1), net, x0, 20).draws
    for seed, x in enumerate(states):
        kept, label_kept = select_clauses(np.random.default_rng(seed), net, x)
        pruned = prune_around(np.random.default_rng(seed), net, x)
        used = prune_plans.prune_plan(net).pruning.base_kept  # labels some feasible state uses
        assert (label_kept[used] == pruned[used]).all()
        plan = mcsat_plan(net)
        random = plan.random_clause
        assert (kept[random] == ~pruned[plan.clauses.label[random]]).all()
        assert kept[plan.clauses.hard].all()


@pytest.mark.parametrize("key", list(CHAIN_CASES))
def test_exact_mcsat_chain_is_the_prune_chain(key):
    net, x0 = _chain_case(key)
    a = mcsat.run_chain(np.random.default_rng(11), net, x0, 3000)
    b = prune.run_chain(np.random.default_rng(11), net, x0, 3000, uniform="count")
    np.testing.assert_array_equal(a.draws, b.draws)
    np.testing.assert_array_equal(a.size, b.size)


SAMPLESAT_SETTINGS = [
    {},  # Alchemy's defaults
    {"late_sa": False, "temperature": 0.1, "n_solutions": 3},
    {"late_sa": False, "sa_probability": 0.9, "noise": 0.0, "tabu_length": 0},
]


@pytest.mark.parametrize("options", SAMPLESAT_SETTINGS)
@pytest.mark.parametrize("key", list(CHAIN_CASES))
def test_samplesat_step_and_run_chain_agree_and_stay_feasible(key, options):
    net, x0 = _chain_case(key)
    rng = np.random.default_rng(3)
    state, draws, infos = mcsat.init(net, x0), [], []
    for _ in range(25):
        state, info = mcsat.step(rng, net, state, uniform="samplesat", **options)
        draws.append(state.x.copy())
        infos.append(info)
    chain = mcsat.run_chain(np.random.default_rng(3), net, x0, 25, uniform="samplesat", **options)
    np.testing.assert_array_equal(chain.draws, draws)
    np.testing.assert_array_equal(chain.n_flips, [i.n_flips for i in infos])
    np.testing.assert_array_equal(chain.n_found, [i.n_found for i in infos])
    longer = mcsat.run_chain(np.random.default_rng(4), net, x0, 500, uniform="samplesat", **options)
    clauses = mcsat_plan(net).clauses
    assert np.isfinite(satisfied_weight(clauses, longer.draws)).all()
    assert (longer.n_found == options.get("n_solutions", 10)).all()  # small networks: always solved


def _samplesat(net, kept, y0, seed, reference, **settings):
    plan = mcsat_plan(net)
    options = mcsat.ALCHEMY_DEFAULTS._replace(**settings).checked()
    work = samplesat_workspace(plan.clauses)
    work.best[:] = y0
    run = samplesat_py if reference else samplesat_nb
    flips, found = run(np.random.default_rng(seed), plan.clauses, plan.index, plan.movable, plan.is_movable, kept,
                       y0.copy(), options, work)
    return work.best.copy(), flips, found


@pytest.mark.parametrize("settings", [{}, {"n_solutions": 3, "late_sa": False, "sa_probability": 0.9,
                                          "tabu_length": 0}])
@pytest.mark.parametrize("reference", [True, False])
def test_samplesat_finds_the_only_solution(reference, settings):
    """Pair, every clause kept but "not A(1)": M = {(0, 0)}; every run must return it, after ``n_solutions``."""
    net = compile_network(load_network("deterministic_pair"))
    kept = np.array([False, True, True, True])
    n_solutions = settings.get("n_solutions", mcsat.ALCHEMY_DEFAULTS.n_solutions)
    for seed in range(50):
        best, flips, found = _samplesat(net, kept, np.array([0, 0]), seed, reference, **settings)
        assert best.tolist() == [0, 0] and found == n_solutions and flips >= n_solutions


def test_samplesat_out_of_budget_keeps_the_state():
    """One flip from a random start rarely ends on a solution of the block chain; then the chain stays."""
    net, x0 = _chain_case("block_chain")
    chain = mcsat.run_chain(np.random.default_rng(5), net, x0, 300, uniform="samplesat", max_flips=1,
                            n_solutions=1)
    stayed = chain.n_found == 0
    assert stayed.sum() > 50 and (chain.n_flips == 1).all()
    previous = np.vstack([x0, chain.draws[:-1]])
    np.testing.assert_array_equal(chain.draws[stayed], previous[stayed])


@pytest.mark.parametrize(
    "options, message",
    [
        ({"uniform": "count"}, "unknown uniform step 'count' for MC-SAT"),
        ({"uniform": "samplesat", "temperature": 0.0}, "temperature must be > 0"),
        ({"uniform": "samplesat", "sa_probability": 1.5}, r"sa_probability must be in \[0, 1\]"),
        ({"uniform": "samplesat", "max_flips": 0}, "max_flips must be an integer >= 1"),
        ({"uniform": "samplesat", "n_solutions": 2.5}, "n_solutions must be an integer >= 1"),
    ],
)
def test_bad_options_are_refused(options, message):
    net, x0 = _chain_case("pair")
    with pytest.raises(ValueError, match=message):
        mcsat.run_chain(np.random.default_rng(0), net, x0, 3, **options)
    with pytest.raises(ValueError, match=message):
        mcsat.step(np.random.default_rng(0), net, mcsat.init(net, x0), **options)


def test_sample_runs_mcsat_with_samplesat_on_both_backends():
    bn = load_network("blood_pressure")
    kw = dict(n_chains=2, evidence={"Measurement": "m_e"}, seed=8, traps="off", uniform="samplesat")
    fast = prunelab.sample(bn, "mc-sat", 30, **kw)
    slow = prunelab.sample(bn, "mc-sat", 30, backend="numpy", **kw)
    np.testing.assert_array_equal(fast.draws, slow.draws)
    assert fast.stats["n_flips"].shape == (2, 30)

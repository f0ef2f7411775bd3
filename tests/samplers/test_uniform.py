"""Uniform draws from a pruned network: counts, enumeration, draws, exactness, bias.

Kernel tests force the pruning (a given kept mask) and check the pruned set and its
size exactly against brute force over all states (``prunelab.theory``). The draws
are checked by chi-square at fixed seeds; the numba kernels against the numpy
references, draw for draw.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from prunelab import BayesianNetwork, load_network, make_grid, random_evidence
from prunelab.compiled import compile_network, entry_label, state_labels
from prunelab.samplers.prune.draws.registry import UNIFORM_NAMES
from prunelab.samplers.prune.draws.compiler import uniform_plan
from prunelab.samplers.prune.draws.api import count_pruned_states, enumerate_pruned_states, uniform_pruned_state
from prunelab.samplers.prune.plan import used_labels
from prunelab.theory import enumerate_pruned_set
from tests.helpers import CHI2_LEVEL, fan_network


SMALL = [
    ("deterministic_pair", None),
    ("blood_pressure", None),
    ("blood_pressure", {"Measurement": "m_e"}),
    ("block_chain", None),
    ("asia", None),
    ("asia", "random"),
    ("grid-3x3", None),
    ("grid-3x3", "random"),
]


def small_net(name, evidence):
    bn = load_network(name, **({"n": 3} if name == "block_chain" else {}))
    if evidence == "random":
        evidence = random_evidence(bn, 0.25, seed=11)
    return bn, compile_network(bn, evidence)


def as_set(states: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(int(v) for v in row) for row in states}


# ------------------------------------------------------------ fixed patterns
def test_paper_figure_2_pruned_set():
    """The paper's Fig. 2: the crossed labels pruned, S has exactly two states."""
    bn = load_network("blood_pressure")
    net = compile_network(bn)
    crossed = [
        ("Kidney", "k_b", {}),
        ("BloodPressure", "b_n", {"Kidney": "k_b", "Lifestyle": "l_b"}),
        ("BloodPressure", "b_n", {"Kidney": "k_b", "Lifestyle": "l_g"}),
        ("BloodPressure", "b_n", {"Kidney": "k_g", "Lifestyle": "l_b"}),
        ("BloodPressure", "b_e", {"Kidney": "k_g", "Lifestyle": "l_g"}),
        ("Sports", "s_n", {"Lifestyle": "l_g"}),
        ("Sports", "s_y", {"Lifestyle": "l_g"}),
        ("Measurement", "m_n", {"BloodPressure": "b_e"}),
        ("Measurement", "m_e", {"BloodPressure": "b_n"}),
    ]
    kept = np.ones(net.n_labels, dtype=bool)
    for var, state, parents in crossed:
        kept[entry_label(bn, net, var, state, parents)] = False
    names = lambda x: tuple(bn.states[v][s] for v, s in zip(bn.variables, x))  # noqa: E731
    expected = {
        ("k_g", "l_b", "b_e", "s_y", "m_e"),
        ("k_g", "l_b", "b_e", "s_n", "m_e"),
    }
    assert {names(x) for x in enumerate_pruned_states(net, kept)} == expected
    assert {names(x) for x in enumerate_pruned_set(net, kept)} == expected
    assert count_pruned_states(net, kept) == 2.0


@pytest.mark.parametrize("name,evidence", SMALL)
def test_all_kept_counts_every_feasible_state(name, evidence):
    bn, net = small_net(name, evidence)
    kept = net.cpt > 0
    brute = enumerate_pruned_set(net, kept)
    assert count_pruned_states(net, kept) == len(brute)
    assert as_set(enumerate_pruned_states(net, kept)) == as_set(brute)


def test_empty_and_fully_observed_sets(rng):
    bn = load_network("deterministic_pair")
    net = compile_network(bn)
    kept = np.zeros(net.n_labels, dtype=bool)
    assert count_pruned_states(net, kept) == 0.0
    assert enumerate_pruned_states(net, kept).shape == (0, 2)
    y, size, _ = uniform_pruned_state(rng, net, kept, uniform="count")
    assert size == 0.0
    # every variable observed: S is {e} or empty, decided by constant labels
    net_e = compile_network(bn, {"A": "1", "B": "1"})
    for uniform in ("enumerate", "count", "auto"):
        y, size, _ = uniform_pruned_state(rng, net_e, net_e.cpt > 0, uniform=uniform)
        assert size == 1.0 and y.tolist() == [1, 1]
    kept = net_e.cpt > 0
    kept[entry_label(bn, net_e, "B", "1", {"A": "1"})] = False
    assert count_pruned_states(net_e, kept) == 0.0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(SMALL),
    seed=st.integers(0, 2**32 - 1),
    keep=st.floats(0.05, 0.95),
)
def test_random_patterns_count_enumerate_brute_force_agree(case, seed, keep):
    bn, net = small_net(*case)
    rng = np.random.default_rng(seed)  # hypothesis's seed: a failing example replays
    kept = rng.random(net.n_labels) < keep
    brute = enumerate_pruned_set(net, kept)
    listed = enumerate_pruned_states(net, kept)
    assert count_pruned_states(net, kept) == len(brute) == len(listed)
    assert as_set(listed) == as_set(brute)
    # the numpy reference of the count agrees too
    from prunelab.samplers.prune.draws.reference import count_py

    assert count_py(net, uniform_plan(net), kept)[0] == len(brute)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(SMALL),
    seed=st.integers(0, 2**32 - 1),
    uniform=st.sampled_from(["enumerate", "count", "heuristic", "auto"]),
)
def test_numba_draws_equal_reference_draws(case, seed, uniform):
    bn, net = small_net(*case)
    mask_rng = np.random.default_rng(seed)  # hypothesis's seed; equal seeds below: the two paths' draws compared
    kept = mask_rng.random(net.n_labels) < mask_rng.random()
    results = []
    for reference in (False, True):
        rng = np.random.default_rng(seed)
        draws = [
            uniform_pruned_state(rng, net, kept, uniform=uniform, n_candidates=7, node_budget=20, reference=reference)
            for _ in range(3)
        ]
        results.append((draws, rng.random()))  # the generator advanced alike
    (a, after_a), (b, after_b) = results
    assert after_a == after_b
    for (ya, sa, ma), (yb, sb, mb) in zip(a, b):
        assert ya.tolist() == yb.tolist() and sa == sb and ma == mb


def test_draws_are_members_of_s(rng):
    bn = load_network("alarm")
    net = compile_network(bn, random_evidence(bn, 0.25, seed=4))
    for _ in range(20):
        kept = rng.random(net.n_labels) < 0.7
        kept |= net.cpt == 1.0
        size = count_pruned_states(net, kept)
        if size == 0:
            continue
        for uniform in ("enumerate", "count", "auto"):
            y, s, _ = uniform_pruned_state(rng, net, kept, uniform=uniform)
            assert s == size
            assert kept[state_labels(net, y)].all()
            observed = net.evidence_value >= 0
            assert (y[observed] == net.evidence_value[observed]).all()


# --------------------------------------------------------------- uniformity
def pruned_case(rng):
    """A grid pattern with a pruned set of a few dozen states, drawn with ``rng``."""
    bn = make_grid(4, seed=3)
    net = compile_network(bn)
    while True:
        kept = (rng.random(net.n_labels) < 0.8) & (net.cpt > 0)
        s = enumerate_pruned_set(net, kept)
        if 12 <= len(s) <= 40:
            return net, kept, s


@pytest.mark.parametrize("uniform", ["enumerate", "count", "auto"])
def test_exact_uniform_draws_are_uniform(uniform, rng):
    net, kept, members = pruned_case(rng)
    index = {tuple(x): a for a, x in enumerate(members.tolist())}
    n = 300 * len(members)
    budget = 40 if uniform == "auto" else None  # "auto" mixes both methods here
    counts = np.zeros(len(members))
    used = set()
    for _ in range(n):
        y, size, how = uniform_pruned_state(rng, net, kept, uniform=uniform, node_budget=budget)
        counts[index[tuple(y.tolist())]] += 1
        used.add(how)
    assert size == len(members)
    assert stats.chisquare(counts).pvalue > CHI2_LEVEL
    if uniform != "auto":
        assert used == {uniform}


def test_heuristic_is_biased_on_a_fan(rng):
    """The paper's heuristic is not uniform when V misses part of S.

    In the fan network with nothing pruned, ``S`` has 9 states: ``(0, b)`` for 8
    values ``b`` and ``(1, 0)``. Random forward sampling reaches ``(1, 0)`` with
    probability 1/2, so with a small candidate set it is drawn far more often than
    1/9; the exact methods draw it 1/9 of the time.
    """
    net = compile_network(fan_network())
    kept = net.cpt > 0
    n = 4000
    hits = {}
    for uniform in ("heuristic", "count"):
        ys = np.array([uniform_pruned_state(rng, net, kept, uniform=uniform, n_candidates=2)[0] for _ in range(n)])
        hits[uniform] = int(np.sum(ys[:, 0] == 1))
    assert stats.binomtest(hits["count"], n, 1 / 9).pvalue > CHI2_LEVEL
    assert stats.binomtest(hits["heuristic"], n, 1 / 9).pvalue < 1e-12
    assert hits["heuristic"] / n > 0.3


def test_uniform_names_and_errors(rng):
    assert UNIFORM_NAMES == ("enumerate", "count", "heuristic", "auto", "circuit", "circuit-per-step", "cmsgen", "unigen")
    net = compile_network(load_network("deterministic_pair"))
    with pytest.raises(ValueError, match="unknown uniform draw"):
        uniform_pruned_state(rng, net, net.cpt > 0, uniform="bfs")
    with pytest.raises(ValueError, match="one entry per label"):
        count_pruned_states(net, np.ones(3, dtype=bool))


def test_enormous_pruned_set_is_counted_exactly_without_listing_it(rng):
    """win95pts with nothing pruned: about 1e8+ states, counted and drawn exactly (its speed: benchmarks/)."""
    import tracemalloc

    bn = load_network("win95pts")
    net = compile_network(bn)
    kept = net.cpt > 0
    size = count_pruned_states(net, kept)
    assert size > 1e7 and size == int(size)
    uniform_pruned_state(rng, net, kept, uniform="count")  # compiled
    tracemalloc.start()
    y, s, how = uniform_pruned_state(rng, net, kept, uniform="auto")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MiB"  # the 1e7+ members of S are never listed
    assert how == "count" and s == size
    assert bn.log_probability(y) > -np.inf


# ------------------------------------------------ used labels, large plans
def labels_of_members(net, kept) -> np.ndarray:
    """Brute force: the labels used by some member of ``S``."""
    from prunelab.compiled import state_labels

    used = np.zeros(net.n_labels, dtype=bool)
    for y in enumerate_pruned_set(net, kept):
        used[state_labels(net, np.asarray(y))] = True
    return used


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(SMALL), seed=st.integers(0, 2**32 - 1), keep=st.floats(0.3, 1.0))
def test_used_labels_match_brute_force(case, seed, keep):
    _, net = small_net(*case)
    kept = np.random.default_rng(seed).random(net.n_labels) < keep  # hypothesis's seed: a failing example replays
    np.testing.assert_array_equal(used_labels(net, kept), labels_of_members(net, kept))


def test_used_labels_of_an_empty_set_are_none():
    bn = load_network("deterministic_pair")
    net = compile_network(bn)
    kept = net.cpt > 0
    kept[entry_label(bn, net, "B", "0", {"A": "0"})] = False
    kept[entry_label(bn, net, "B", "1", {"A": "1"})] = False
    assert count_pruned_states(net, kept) == 0 and not used_labels(net, kept).any()
    net_e = compile_network(bn, {"A": "0", "B": "0"})  # nothing free: constants only
    assert used_labels(net_e, net_e.cpt > 0).tolist() == [True, False, True, False, False, False]


@pytest.mark.parametrize("name,evidence", [("alarm", None), ("alarm", "random"), ("grid-5x5", None),
                                           ("win95pts", "random")])
def test_counter_steps_equal_unrolled_steps(monkeypatch, name, evidence, rng):
    """Steps too large to unroll are counted with a mixed-radix counter: same counts, same draws."""
    from prunelab.samplers.prune.draws import compiler

    bn = load_network(name)
    net = compile_network(bn, random_evidence(bn, 0.25, seed=5) if evidence else None)
    unrolled = compiler.compile_uniform_plan(net)
    monkeypatch.setattr(compiler, "GATHER_LIMIT", 0)
    counted = compiler.compile_uniform_plan(net)
    assert unrolled.gather.size > 0 and counted.gather.size == 0
    for _ in range(20):
        kept = rng.random(net.n_labels) < rng.uniform(0.5, 1.0)
        assert count_pruned_states(net, kept, counted) == count_pruned_states(net, kept, unrolled)
        np.testing.assert_array_equal(used_labels(net, kept, counted), used_labels(net, kept, unrolled))
        # equal seeds: the two plans' draws are compared
        a = uniform_pruned_state(np.random.default_rng(4), net, kept, uniform="count", plan=unrolled)
        b = uniform_pruned_state(np.random.default_rng(4), net, kept, uniform="count", plan=counted)
        assert a[0].tolist() == b[0].tolist() and a[1] == b[1]


def test_grid_16_counting_plan_compiles_and_draws(rng):
    """min-fill's width 24 made this plan fail with a raw MemoryError; the row-major order has width 16."""
    from prunelab.samplers.prune.draws.compiler import compile_uniform_plan
    from prunelab.samplers.prune.draws.reference import count_py

    bn = make_grid(16, 0.5, seed=0)
    net = compile_network(bn)
    plan = compile_uniform_plan(net)
    assert np.diff(plan.step_scope_ptr).max() <= 17  # a step's scope: the eliminated variable and <= 16 others
    kept = net.cpt > 0
    size = count_pruned_states(net, kept, plan)
    assert size == pytest.approx(count_py(net, plan, kept)[0], rel=1e-12)
    y, drawn_size, how = uniform_pruned_state(rng, net, kept, uniform="count", plan=plan)
    assert how == "count" and drawn_size == size and bn.log_probability(y) > -np.inf


# ------------------------------------------------------------ kernels' building blocks
@pytest.mark.parametrize("bound", [1, 2, 3, 7, 1000, 2**31 + 5, 2**32 - 1, 2**32, 2**32 + 1, 3 * 2**40 + 7])
def test_integer_below_equals_generator_integers(bound):
    """The allocation-free bounded draw is NumPy's ``integers(0, n)``, number for number and state for state."""
    import numba

    from prunelab.samplers.prune.draws.primitives import integer_below_nb

    @numba.njit
    def draws(rng, n, k):
        out = np.empty(k, dtype=np.int64)
        for i in range(k):
            out[i] = integer_below_nb(rng, n)
        return out

    a, b = np.random.default_rng(3), np.random.default_rng(3)  # equal seeds: the two draws are compared
    ours = draws(a, bound, 400)
    numpy_draws = [b.integers(0, bound) for _ in range(400)]
    assert ours.tolist() == numpy_draws
    assert a.random() == b.random()  # the same state afterwards (the buffered 32-bit half included)
    if bound > 1:
        assert len(set(ours.tolist())) > 1


@pytest.mark.parametrize(
    "name,evidence_seed", [("asia", None), ("alarm", 5), ("win95pts", 5), ("grid-5x5", None), ("grid-8x8", 6)]
)
def test_sparse_count_equals_the_full_count(name, evidence_seed, rng):
    """The specialised program gives the full program's count and tables, number for number.

    Prunings as prune sampling makes them: labels outside ``variable`` at their
    value in ``possible``, the varying ones at random.
    """
    from prunelab.samplers.prune.plan import compile_sparse_count
    from prunelab.samplers.prune.plan import make_workspace
    from prunelab.samplers.prune.draws.counting import count_nb, count_sparse_arrays

    bn = load_network(name)
    net = compile_network(bn, random_evidence(bn, 0.25, seed=evidence_seed) if evidence_seed else None)
    plan = uniform_plan(net)
    possible = used_labels(net, net.cpt > 0, plan)
    variable = possible & (net.cpt < 1)
    sparse = compile_sparse_count(net, plan, possible, variable)
    assert sparse is not None and 0 < sparse.cost <= plan.count_cost
    full = make_workspace(net, plan)
    ws = make_workspace(net, plan, fill=possible)
    sizes = []
    for _ in range(30):
        kept = possible.copy()
        kept[variable] = rng.random(int(variable.sum())) < rng.uniform(0.5, 1.0)
        kept[plan.const_label] = True  # as in prune sampling: every state in S uses them
        expected = count_nb(plan, kept, full.factors, full.tables, full.counter, full.radix, full.stride, full.base)
        got = count_sparse_arrays(plan.const_label, kept, ws.factors, ws.tables, *sparse[1:-1])
        assert got == expected
        if got > 0:  # the tables backward sampling reads (an empty S stops both before any table)
            np.testing.assert_array_equal(ws.tables, full.tables)
        sizes.append(got)
    assert len(set(sizes) - {0.0}) >= 2  # non-empty sets of different sizes: the check is not vacuous


def test_sparse_count_compiles_alike_from_counter_steps(monkeypatch):
    """Live-entry positions from strides (steps counted with a counter) equal those from the unrolled gather."""
    from prunelab.samplers.prune.plan import compile_sparse_count
    from prunelab.samplers.prune.draws.compiler import compile_uniform_plan
    from prunelab.samplers.prune.draws import compiler

    bn = load_network("win95pts")
    net = compile_network(bn, random_evidence(bn, 0.25, seed=5))
    unrolled = compile_uniform_plan(net)
    with monkeypatch.context() as patch:
        patch.setattr(compiler, "GATHER_LIMIT", 0)
        counted = compile_uniform_plan(net)
    assert counted.gather.size == 0
    possible = used_labels(net, net.cpt > 0, unrolled)
    variable = possible & (net.cpt < 1)
    a = compile_sparse_count(net, unrolled, possible, variable)
    b = compile_sparse_count(net, counted, possible, variable)
    assert a.cost == b.cost > 0
    for x, y in zip(a[:-1], b[:-1]):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("name,evidence_seed", [("asia", None), ("alarm", 5), ("win95pts", 5), ("grid-8x8", 6)])
@pytest.mark.parametrize("gather_limit", [None, 0])
def test_the_sparse_count_kernel_equals_its_reference(name, evidence_seed, gather_limit, monkeypatch):
    """sparse_count_nb gives sparse_count_py's arrays, from unrolled steps and from counter steps, and its refusal."""
    from prunelab.samplers.prune.draws import compiler
    from prunelab.samplers.prune.draws.counting import sparse_count_nb
    from prunelab.samplers.prune.draws.reference import sparse_count_py
    from prunelab.samplers.prune.plan import make_workspace

    bn = load_network(name)
    net = compile_network(bn, random_evidence(bn, 0.25, seed=evidence_seed) if evidence_seed else None)
    if gather_limit is not None:
        monkeypatch.setattr(compiler, "GATHER_LIMIT", gather_limit)
    plan = compiler.compile_uniform_plan(net)
    possible = used_labels(net, net.cpt > 0, plan)
    variable = possible & (net.cpt < 1)
    tables = make_workspace(net, plan, 1, fill=possible).tables
    expected, n_gather = sparse_count_py(plan, tables, variable, math.inf)
    got = sparse_count_nb(plan, tables, variable, 2**62)
    assert got[0] == n_gather > 0
    for field, array in zip(expected, got[1:]):
        np.testing.assert_array_equal(array, expected[field], err_msg=field)
        assert array.dtype == expected[field].dtype
    assert sparse_count_py(plan, tables, variable, n_gather - 1) is None
    assert sparse_count_nb(plan, tables, variable, n_gather - 1)[0] == -1


def test_the_reference_enumerate_draw_counts_then_draws_and_keeps_no_member():
    """|S| = 2^15 on 15 independent coins: the reference holds O(n) memory, as the numba kernel does."""
    import tracemalloc

    names = [f"C{i}" for i in range(15)]
    bn = BayesianNetwork(states={v: ["h", "t"] for v in names}, parents={}, cpts={v: [0.5, 0.5] for v in names})
    net = compile_network(bn)
    kept = np.ones(net.n_labels, dtype=bool)
    uniform_pruned_state(np.random.default_rng(0), net, kept, uniform="enumerate", reference=True)  # warm caches
    # equal seeds below: the reference's draw and the kernel's are compared
    tracemalloc.start()
    try:
        y, size, _ = uniform_pruned_state(np.random.default_rng(1), net, kept, uniform="enumerate", reference=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert size == 2**15
    # keeping the members would take 2^15 arrays of 15 int64 (over 7 MB); a walk needs a few frames
    assert peak < 200_000, peak
    fast = uniform_pruned_state(np.random.default_rng(1), net, kept, uniform="enumerate")
    assert fast[0].tolist() == y.tolist() and fast[1] == size
